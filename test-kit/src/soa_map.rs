//! `SoaMap<K, T>` keyed by the ids of a real allocator (which removes
//! objects and reuses their slots), against a plain model: a map from slot
//! index to `(key, value)` plus the dense order of the keys, following the
//! contract's generation rules (slotmap's `SecondaryMap`): an entry is found
//! only by the exact key it was inserted with; a key newer than the stored
//! one replaces the stale entry (`insert` returns `None`); a key older than
//! the stored one inserts nothing (`try_insert` gives the value back).
//!
//! Keys are drawn from every id the allocator ever issued (live or stale),
//! from ids one generation off those, and from forged bit patterns
//! (`from_bits`). After every operation the map holds as many entries as
//! the model and resolves each key it was asked about exactly as the model
//! says; every `check_every` operations (and at the end) it passes
//! `check_invariants()`, holds the model's keys in the model's dense order
//! with the model's values, and resolves every key ever issued as the model
//! says.

use std::collections::HashMap;

use idtable::{Id, Id32, IdBits, SoaAllocator, SoaMap};

/// The component: two fields, one of them owning heap memory.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Burn {
    pub dps: u32,
    pub tag: String,
}

/// The component for `dps`.
pub fn burn(dps: u32) -> Burn {
    Burn {
        dps,
        tag: format!("b{dps}"),
    }
}

/// Keys of the default layout (`Id32_32`).
#[derive(SoaAllocator)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Wide {
    pub hp: i32,
}

/// Keys of `Id24_8`.
#[derive(SoaAllocator)]
#[cfg_attr(feature = "serde", soa(serde))]
#[soa(id = idtable::Id24_8)]
pub struct Short {
    pub hp: i32,
}

/// Keys of a 15-slot layout (`Id32<4>`): slots are reused all the time.
#[derive(SoaAllocator)]
#[cfg_attr(feature = "serde", soa(serde))]
#[soa(id = Id32<4>)]
pub struct Tiny {
    pub hp: i32,
}

/// The keying table: a derived allocator of one of the layouts.
pub trait Keys: Default {
    type Key: Id;
    /// Spawns an object; `None` when the table is full.
    fn spawn(&mut self) -> Option<Self::Key>;
    fn kill(&mut self, key: Self::Key) -> bool;
    fn live(&self) -> &[Self::Key];
    /// A serde round trip (postcard) of `map` with the kit's feature
    /// `serde`; a clone without it.
    fn round_trip(map: &SoaMap<Self::Key, Burn>) -> SoaMap<Self::Key, Burn>;
}

macro_rules! keys {
    ($alloc:ident, $record:ident, $id:ident) => {
        impl Keys for $alloc {
            type Key = $id;
            fn spawn(&mut self) -> Option<$id> {
                self.try_insert($record { hp: 1 }).ok()
            }
            fn kill(&mut self, key: $id) -> bool {
                self.remove(key).is_some()
            }
            fn live(&self) -> &[$id] {
                self.ids()
            }
            #[cfg(feature = "serde")]
            fn round_trip(map: &SoaMap<$id, Burn>) -> SoaMap<$id, Burn> {
                let bytes = postcard::to_allocvec(map).expect("a map saves");
                postcard::from_bytes(&bytes).expect("a saved map loads")
            }
            #[cfg(not(feature = "serde"))]
            fn round_trip(map: &SoaMap<$id, Burn>) -> SoaMap<$id, Burn> {
                map.clone()
            }
        }
    };
}
keys!(WideAllocator, Wide, WideId);
keys!(ShortAllocator, Short, ShortId);
keys!(TinyAllocator, Tiny, TinyId);

/// Which key an operation uses.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Pick {
    /// The n-th (mod count) key ever issued, live or stale.
    Issued(usize),
    /// A live object's key.
    Live(usize),
    /// An issued key with its generation one higher (never issued yet, or
    /// issued later).
    Newer(usize),
    /// An issued key with its generation one lower (0 becomes 1).
    Older(usize),
    /// `from_bits` of this index and generation (`None` for generation 0,
    /// and the key is skipped).
    Forged(u64, u64),
}

/// One operation: on the keying table (`Spawn`, `Kill`) or on the map.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
    Spawn,
    Kill(usize),
    Insert(Pick, u32),
    TryInsert(Pick, u32),
    Remove(Pick),
    Get(Pick),
    GetMut(Pick, u32),
    GetDisjoint(Pick, Pick, u32),
    /// Adds 1 to every `dps`, keeping those whose `dps % m != r` (`m` at
    /// least 1).
    Retain(u32, u32),
    Drain(usize),
    Clear,
    SortByDps,
    SortByKeyDesc,
    Extend(Vec<(Pick, u32)>),
    ColumnsMut(u32),
    CloneMap,
    IntoIter(usize),
    /// A serde round trip (postcard) with the kit's feature `serde`; a
    /// clone compared entry by entry without it.
    RoundTrip,
}

/// Decodes a key choice from two random words.
pub fn pick(kind: u64, n: u64) -> Pick {
    let n_usize = n as usize;
    match kind % 11 {
        0..=3 => Pick::Issued(n_usize),
        4..=7 => Pick::Live(n_usize),
        8 => Pick::Newer(n_usize),
        9 => Pick::Older(n_usize),
        _ => Pick::Forged(n % 40, 1 + (n >> 8) % 5),
    }
}

/// Decodes one operation from four random words, with the weights of a
/// workload that spawns, kills, inserts and removes most.
pub fn decode([w, a, b, c]: [u64; 4]) -> Op {
    let v = c as u32;
    match w % 47 {
        0..=5 => Op::Spawn,
        6..=8 => Op::Kill(a as usize),
        9..=16 => Op::Insert(pick(w / 47, a), v),
        17..=19 => Op::TryInsert(pick(w / 47, a), v),
        20..=23 => Op::Remove(pick(w / 47, a)),
        24..=26 => Op::Get(pick(w / 47, a)),
        27..=28 => Op::GetMut(pick(w / 47, a), v),
        29 => Op::GetDisjoint(pick(w / 47, a), pick(w / 4700, b), v),
        30 => Op::Retain(2 + v % 3, (c >> 32) as u32 % 5),
        31 => Op::Drain(a as usize % 4),
        32 => Op::Clear,
        33 => Op::SortByDps,
        34 => Op::SortByKeyDesc,
        35 => Op::Extend(
            (0..a % 6)
                .map(|i| {
                    (
                        pick(b >> (i * 8), b.rotate_left(i as u32 * 11)),
                        v ^ i as u32,
                    )
                })
                .collect(),
        ),
        36 => Op::ColumnsMut(v),
        37 => Op::CloneMap,
        38 => Op::IntoIter(a as usize % 4),
        39 => Op::RoundTrip,
        // The rest: more inserts and removes of live keys, the common case.
        40..=43 => Op::Insert(Pick::Live(a as usize), v),
        _ => Op::Remove(Pick::Live(a as usize)),
    }
}

/// proptest strategies for the operations.
#[cfg(feature = "proptest")]
pub mod strategy {
    use proptest::prelude::*;

    use super::{decode, Op};

    /// Sequences of `len` operations, drawn as plain integers (proptest
    /// builds and shrinks those fast, and a long sequence stays cheap).
    pub fn ops(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec(any::<[u64; 4]>(), len)
            .prop_map(|ws| ws.into_iter().map(decode).collect())
    }
}

/// The model: per slot index the stored key and value, and the dense order.
pub struct Model<K> {
    pub by_index: HashMap<usize, (K, Burn)>,
    pub dense: Vec<K>,
}

impl<K: Id> Default for Model<K> {
    fn default() -> Self {
        Model {
            by_index: HashMap::new(),
            dense: Vec::new(),
        }
    }
}

impl<K: Id> Model<K> {
    /// The value stored under exactly `key`.
    pub fn get(&self, key: K) -> Option<&Burn> {
        self.by_index
            .get(&key.index())
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// `try_insert`'s answer, by the rules of the contract (`insert`'s is
    /// the same with `Err` read as `None`).
    pub fn try_insert(&mut self, key: K, v: Burn) -> Result<Option<Burn>, Burn> {
        match self.by_index.get_mut(&key.index()) {
            None => {
                self.by_index.insert(key.index(), (key, v));
                self.dense.push(key);
                Ok(None)
            }
            Some((k, old)) if *k == key => Ok(Some(std::mem::replace(old, v))),
            Some((k, old)) if key.generation() > k.generation() => {
                let d = self.dense.iter().position(|x| x == k).unwrap();
                self.dense[d] = key;
                *k = key;
                *old = v;
                Ok(None)
            }
            Some(_) => Err(v),
        }
    }

    /// Removes the entry of exactly `key`; the last entry moves into its
    /// place in the dense order.
    pub fn remove(&mut self, key: K) -> Option<Burn> {
        self.get(key)?;
        let (_, v) = self.by_index.remove(&key.index()).unwrap();
        let d = self.dense.iter().position(|x| *x == key).unwrap();
        self.dense.swap_remove(d);
        Some(v)
    }

    /// The value at dense position `d`.
    pub fn value_at(&self, d: usize) -> &Burn {
        &self.by_index[&self.dense[d].index()].1
    }

    pub fn clear(&mut self) {
        self.by_index.clear();
        self.dense.clear();
    }
}

fn owned(r: BurnRef<'_>) -> Burn {
    r.to_owned()
}

/// A map, its model and the table that issues the keys.
pub struct Run<A: Keys> {
    pub table: A,
    pub issued: Vec<A::Key>,
    pub map: SoaMap<A::Key, Burn>,
    pub model: Model<A::Key>,
}

impl<A: Keys> Default for Run<A> {
    fn default() -> Self {
        Run {
            table: A::default(),
            issued: Vec::new(),
            map: SoaMap::new(),
            model: Model::default(),
        }
    }
}

impl<A: Keys> Run<A> {
    /// The key `p` names now; `None` when there is none to name.
    pub fn key(&self, p: &Pick) -> Option<A::Key> {
        let nth = |n: usize| (!self.issued.is_empty()).then(|| self.issued[n % self.issued.len()]);
        let shifted = |k: A::Key, up: bool| {
            let g = k.generation().to_u64();
            let g = if up {
                g + 1
            } else {
                g.saturating_sub(1).max(1)
            };
            let bits = (g << A::Key::INDEX_BITS) | k.index() as u64;
            forge::<A::Key>(bits)
        };
        match *p {
            Pick::Issued(n) => nth(n),
            Pick::Live(n) => {
                let live = self.table.live();
                (!live.is_empty()).then(|| live[n % live.len()])
            }
            Pick::Newer(n) => nth(n).and_then(|k| shifted(k, true)),
            Pick::Older(n) => nth(n).and_then(|k| shifted(k, false)),
            Pick::Forged(i, g) => forge::<A::Key>(g.wrapping_shl(A::Key::INDEX_BITS) | i),
        }
    }

    /// `key` resolves exactly as the model says.
    pub fn check_key(&self, key: A::Key) {
        let want = self.model.get(key);
        assert_eq!(self.map.get(key).map(owned).as_ref(), want, "get({key:?})");
        assert_eq!(self.map.contains_key(key), want.is_some());
        if let Some(d) = self.map.dense_index(key) {
            assert_eq!(self.map.keys()[d], key);
        }
    }

    /// The entry count; with `all`, `check_invariants()`, the dense order,
    /// every value and every key ever issued.
    pub fn check(&self, all: bool) {
        assert_eq!(self.map.len(), self.model.dense.len());
        assert_eq!(self.map.is_empty(), self.model.dense.is_empty());
        if !all {
            return;
        }
        self.map.check_invariants();
        assert_eq!(self.map.keys(), &self.model.dense[..], "dense order");
        let cols = self.map.columns();
        for d in 0..self.map.len() {
            assert_eq!(cols.dps[d], self.model.value_at(d).dps);
            assert_eq!(cols.tag[d], self.model.value_at(d).tag);
        }
        for &key in &self.issued {
            self.check_key(key);
        }
    }

    /// `other` holds the same keys in the same order with the same values.
    fn assert_same_entries(&self, other: &SoaMap<A::Key, Burn>) {
        other.check_invariants();
        assert_eq!(other.keys(), self.map.keys());
        assert!(other
            .iter()
            .map(|(k, b)| (k, owned(b)))
            .eq(self.map.iter().map(|(k, b)| (k, owned(b)))));
    }

    /// Applies `op` to the map and the model, comparing every answer.
    pub fn step(&mut self, op: &Op) {
        match op {
            Op::Spawn => {
                if let Some(key) = self.table.spawn() {
                    self.issued.push(key);
                }
            }
            Op::Kill(n) => {
                let live = self.table.live();
                if !live.is_empty() {
                    let key = live[n % live.len()];
                    assert!(self.table.kill(key));
                }
            }
            Op::Insert(p, v) | Op::TryInsert(p, v) => {
                let Some(key) = self.key(p) else { return };
                let want = self.model.try_insert(key, burn(*v));
                if matches!(op, Op::Insert(..)) {
                    assert_eq!(self.map.insert(key, burn(*v)), want.unwrap_or_default());
                } else {
                    assert_eq!(self.map.try_insert(key, burn(*v)), want);
                }
                self.check_key(key);
            }
            Op::Remove(p) => {
                let Some(key) = self.key(p) else { return };
                assert_eq!(self.map.remove(key), self.model.remove(key));
                self.check_key(key);
            }
            Op::Get(p) => {
                if let Some(key) = self.key(p) {
                    self.check_key(key);
                }
            }
            Op::GetMut(p, v) => {
                let Some(key) = self.key(p) else { return };
                let got = self.map.get_mut(key).map(|b| {
                    *b.dps = *v;
                });
                let want = self.model.by_index.get_mut(&key.index());
                match want {
                    Some((k, b)) if *k == key => {
                        assert!(got.is_some());
                        b.dps = *v;
                    }
                    _ => assert!(got.is_none()),
                }
            }
            Op::GetDisjoint(a, b, v) => {
                let (Some(a), Some(b)) = (self.key(a), self.key(b)) else {
                    return;
                };
                let both = self.model.get(a).is_some() && self.model.get(b).is_some() && a != b;
                match self.map.get_disjoint_mut([a, b]) {
                    Some([x, y]) => {
                        assert!(both);
                        *x.dps = *v;
                        *y.dps = v.wrapping_add(1);
                        self.model.by_index.get_mut(&a.index()).unwrap().1.dps = *v;
                        self.model.by_index.get_mut(&b.index()).unwrap().1.dps = v.wrapping_add(1);
                    }
                    None => assert!(!both),
                }
            }
            Op::Retain(m, r) => {
                let m = (*m).max(1);
                let mut seen = Vec::new();
                self.map.retain(|key, b| {
                    seen.push(key);
                    *b.dps = b.dps.wrapping_add(1);
                    *b.dps % m != *r
                });
                assert_eq!(seen, self.model.dense, "retain visits in dense order");
                let dense = std::mem::take(&mut self.model.dense);
                for key in dense {
                    let (_, b) = self.model.by_index.get_mut(&key.index()).unwrap();
                    b.dps = b.dps.wrapping_add(1);
                    if b.dps % m != *r {
                        self.model.dense.push(key);
                    } else {
                        self.model.by_index.remove(&key.index());
                    }
                }
            }
            Op::Drain(take) => {
                let got: Vec<(A::Key, Burn)> = self.map.drain().take(*take).collect();
                let want: Vec<(A::Key, Burn)> = self
                    .model
                    .dense
                    .iter()
                    .rev()
                    .take(*take)
                    .map(|k| (*k, self.model.get(*k).unwrap().clone()))
                    .collect();
                assert_eq!(got, want);
                self.model.clear();
            }
            Op::Clear => {
                self.map.clear();
                self.model.clear();
            }
            Op::SortByDps => {
                self.map.sort_by(|x, y| x.dps.cmp(y.dps));
                let by = &self.model.by_index;
                self.model.dense.sort_by_key(|k| by[&k.index()].1.dps);
            }
            Op::SortByKeyDesc => {
                self.map.sort_by_key(|b| std::cmp::Reverse(b.tag.clone()));
                let by = &self.model.by_index;
                self.model
                    .dense
                    .sort_by_key(|k| std::cmp::Reverse(by[&k.index()].1.tag.clone()));
            }
            Op::Extend(pairs) => {
                let pairs: Vec<(A::Key, u32)> = pairs
                    .iter()
                    .filter_map(|(p, v)| Some((self.key(p)?, *v)))
                    .collect();
                for &(key, v) in &pairs {
                    let _ = self.model.try_insert(key, burn(v));
                }
                self.map.extend(pairs.iter().map(|&(k, v)| (k, burn(v))));
            }
            Op::ColumnsMut(x) => {
                let (keys, cols) = self.map.keys_and_columns_mut();
                for (key, dps) in keys.iter().zip(cols.dps.iter_mut()) {
                    *dps ^= x;
                    self.model.by_index.get_mut(&key.index()).unwrap().1.dps ^= x;
                }
            }
            Op::CloneMap => {
                let copy = self.map.clone();
                self.assert_same_entries(&copy);
                self.map = copy;
            }
            Op::IntoIter(take) => {
                let copy = self.map.clone();
                let got: Vec<A::Key> = copy.into_iter().take(*take).map(|(k, _)| k).collect();
                let want: Vec<A::Key> =
                    self.model.dense.iter().rev().take(*take).copied().collect();
                assert_eq!(got, want);
            }
            Op::RoundTrip => {
                let back = A::round_trip(&self.map);
                self.assert_same_entries(&back);
                self.map = back;
            }
        }
    }
}

/// `from_bits` of `bits` truncated to `K`'s width.
pub fn forge<K: Id>(bits: u64) -> Option<K> {
    let bits = K::Bits::from_u64_truncating(bits);
    K::from_bits(bits)
}

/// Runs `ops` on a new map keyed by `A`'s ids, with the full check every
/// `check_every` operations and at the end.
pub fn run<A: Keys>(ops: &[Op], check_every: usize) {
    let mut run = Run::<A>::default();
    let every = check_every.max(1);
    for (i, op) in ops.iter().enumerate() {
        run.step(op);
        run.check(i % every == every - 1);
    }
    run.check(true);
}

/// A fixed sequence through every operation and every kind of key, so a
/// plain run covers them all whatever a random source draws.
pub fn every_operation() -> Vec<Op> {
    vec![
        Op::Spawn,
        Op::Spawn,
        Op::Spawn,
        Op::Insert(Pick::Live(0), 1),
        Op::Insert(Pick::Live(1), 2),
        Op::TryInsert(Pick::Live(1), 3),
        Op::Kill(0),
        Op::Spawn,
        Op::Insert(Pick::Issued(3), 4), // the reused slot: replaces the stale entry
        Op::TryInsert(Pick::Issued(0), 5), // the old key: refused
        Op::Insert(Pick::Older(3), 6),
        Op::Insert(Pick::Newer(1), 7),
        Op::Insert(Pick::Forged(30, 2), 8),
        Op::Get(Pick::Forged(30, 1)),
        Op::GetMut(Pick::Live(1), 9),
        Op::GetDisjoint(Pick::Live(0), Pick::Live(1), 10),
        Op::GetDisjoint(Pick::Live(1), Pick::Live(1), 10),
        Op::Extend(vec![(Pick::Live(2), 11), (Pick::Forged(7, 3), 12)]),
        Op::SortByDps,
        Op::SortByKeyDesc,
        Op::ColumnsMut(0xff),
        Op::Retain(2, 0),
        Op::CloneMap,
        Op::RoundTrip,
        Op::IntoIter(2),
        Op::Remove(Pick::Issued(0)),
        Op::Remove(Pick::Live(1)),
        Op::Drain(1),
        Op::Insert(Pick::Live(0), 13),
        Op::Clear,
        Op::Insert(Pick::Live(0), 14),
    ]
}
