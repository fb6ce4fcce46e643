//! Model test of `SoaMap<K, T>`: random operation sequences run against a
//! map keyed by the ids of a real allocator (which removes objects and
//! reuses their slots) and against a plain model, a `HashMap` from slot
//! index to `(key, value)` plus the dense order of the keys.
//!
//! Keys are drawn from every id the allocator ever issued (live or stale),
//! from ids one generation off those, and from forged bit patterns. After
//! every operation the map must hold as many entries as the model and
//! resolve each key it was asked about exactly as the model says; every 32
//! operations (and at the end) it must pass `check_invariants()`, hold the
//! model's keys in the model's dense order with the model's values, and
//! resolve every key ever seen as the model says.
//!
//! Layouts: `Id32_32` (the default), `Id24_8`, and `Id32<4>` (15 slots, so
//! slots are reused all the time), each for at least 100,000 operations.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use idtable::{Id, Id32, IdBits, SoaAllocator, SoaMap};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

/// The component: two fields, one of them owning heap memory.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Burn {
    pub dps: u32,
    pub tag: String,
}

fn burn(dps: u32) -> Burn {
    Burn {
        dps,
        tag: format!("b{dps}"),
    }
}

#[derive(SoaAllocator)]
pub struct Wide {
    pub hp: i32,
}

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8)]
pub struct Short {
    pub hp: i32,
}

#[derive(SoaAllocator)]
#[soa(id = Id32<4>)]
pub struct Tiny {
    pub hp: i32,
}

/// The keying table: a derived allocator of one of the layouts.
trait Keys: Default {
    type Key: Id;
    /// Spawns an object; `None` when the table is full.
    fn spawn(&mut self) -> Option<Self::Key>;
    fn kill(&mut self, key: Self::Key) -> bool;
    fn live(&self) -> &[Self::Key];
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
        }
    };
}
keys!(WideAllocator, Wide, WideId);
keys!(ShortAllocator, Short, ShortId);
keys!(TinyAllocator, Tiny, TinyId);

/// Which key an operation uses.
#[derive(Clone, Debug)]
enum Pick {
    /// The n-th (mod count) key ever issued, live or stale.
    Issued(usize),
    /// A live object's key.
    Live(usize),
    /// An issued key with its generation one higher (never issued yet, or
    /// issued later).
    Newer(usize),
    /// An issued key with its generation one lower (0 becomes 1).
    Older(usize),
    /// Any bit pattern with a non-zero generation, index kept small.
    Forged(u64, u64),
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Kill(usize),
    Insert(Pick, u32),
    TryInsert(Pick, u32),
    Remove(Pick),
    Get(Pick),
    GetMut(Pick, u32),
    GetDisjoint(Pick, Pick, u32),
    Retain(u32, u32),
    Drain(usize),
    Clear,
    SortByDps,
    SortByKeyDesc,
    Extend(Vec<(Pick, u32)>),
    ColumnsMut(u32),
    CloneMap,
    IntoIter(usize),
}

/// Decodes a key choice from two random words (drawn as plain integers:
/// proptest builds and shrinks those fast, and a long sequence stays cheap).
fn pick(kind: u64, n: u64) -> Pick {
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
fn decode([w, a, b, c]: [u64; 4]) -> Op {
    let v = c as u32;
    match w % 46 {
        0..=5 => Op::Spawn,
        6..=8 => Op::Kill(a as usize),
        9..=16 => Op::Insert(pick(w / 46, a), v),
        17..=19 => Op::TryInsert(pick(w / 46, a), v),
        20..=23 => Op::Remove(pick(w / 46, a)),
        24..=26 => Op::Get(pick(w / 46, a)),
        27..=28 => Op::GetMut(pick(w / 46, a), v),
        29 => Op::GetDisjoint(pick(w / 46, a), pick(w / 4600, b), v),
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
        // The rest: more inserts and removes of live keys, the common case.
        39..=42 => Op::Insert(Pick::Live(a as usize), v),
        _ => Op::Remove(Pick::Live(a as usize)),
    }
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(any::<[u64; 4]>(), OPS)
        .prop_map(|ws| ws.into_iter().map(decode).collect())
}

/// The model: per slot index the stored key and value, and the dense order.
struct Model<K> {
    by_index: HashMap<usize, (K, Burn)>,
    dense: Vec<K>,
}

impl<K: Id> Model<K> {
    fn get(&self, key: K) -> Option<&Burn> {
        self.by_index
            .get(&key.index())
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// `try_insert`'s answer, by the rules of the contract.
    fn try_insert(&mut self, key: K, v: Burn) -> Result<Option<Burn>, Burn> {
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

    fn remove(&mut self, key: K) -> Option<Burn> {
        self.get(key)?;
        let (_, v) = self.by_index.remove(&key.index()).unwrap();
        let d = self.dense.iter().position(|x| *x == key).unwrap();
        self.dense.swap_remove(d);
        Some(v)
    }

    fn value_at(&self, d: usize) -> &Burn {
        &self.by_index[&self.dense[d].index()].1
    }
}

fn owned(r: BurnRef<'_>) -> Burn {
    r.to_owned()
}

struct Run<A: Keys> {
    table: A,
    issued: Vec<A::Key>,
    map: SoaMap<A::Key, Burn>,
    model: Model<A::Key>,
}

impl<A: Keys> Run<A> {
    fn key(&self, p: &Pick) -> Option<A::Key> {
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
            Pick::Forged(i, g) => forge::<A::Key>((g << A::Key::INDEX_BITS) | i),
        }
    }

    fn check_key(&self, key: A::Key) {
        let want = self.model.get(key);
        assert_eq!(self.map.get(key).map(owned).as_ref(), want, "get({key:?})");
        assert_eq!(self.map.contains_key(key), want.is_some());
        if let Some(d) = self.map.dense_index(key) {
            assert_eq!(self.map.keys()[d], key);
        }
    }

    fn check(&self, all: bool) {
        assert_eq!(self.map.len(), self.model.dense.len());
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

    fn step(&mut self, op: &Op) {
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
                let mut seen = Vec::new();
                self.map.retain(|key, mut b| {
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
                self.model.by_index.clear();
                self.model.dense.clear();
            }
            Op::Clear => {
                self.map.clear();
                self.model.by_index.clear();
                self.model.dense.clear();
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
                copy.check_invariants();
                assert_eq!(copy.keys(), self.map.keys());
                assert!(copy
                    .iter()
                    .map(|(k, b)| (k, owned(b)))
                    .eq(self.map.iter().map(|(k, b)| (k, owned(b)))));
                self.map = copy;
            }
            Op::IntoIter(take) => {
                let copy = self.map.clone();
                let got: Vec<A::Key> = copy.into_iter().take(*take).map(|(k, _)| k).collect();
                let want: Vec<A::Key> =
                    self.model.dense.iter().rev().take(*take).copied().collect();
                assert_eq!(got, want);
            }
        }
    }
}

fn forge<K: Id>(bits: u64) -> Option<K> {
    let bits = K::Bits::from_u64_truncating(bits);
    K::from_bits(bits)
}

/// Operations run so far, per layout, to check the 100,000.
static OPS_WIDE: AtomicUsize = AtomicUsize::new(0);
static OPS_SHORT: AtomicUsize = AtomicUsize::new(0);
static OPS_TINY: AtomicUsize = AtomicUsize::new(0);

fn run<A: Keys>(ops: &[Op]) {
    let mut run = Run::<A> {
        table: A::default(),
        issued: Vec::new(),
        map: SoaMap::new(),
        model: Model {
            by_index: HashMap::new(),
            dense: Vec::new(),
        },
    };
    for (i, op) in ops.iter().enumerate() {
        run.step(op);
        run.check(i % 32 == 31);
    }
    run.check(true);
}

const CASES: u32 = if cfg!(miri) { 2 } else { 128 };
/// 128 cases of 850 operations on average: over 100,000 per layout (the
/// shortfall needs nine standard deviations).
const OPS: std::ops::Range<usize> = if cfg!(miri) { 10..30 } else { 700..1000 };
const MIN_TOTAL: usize = if cfg!(miri) { 20 } else { 100_000 };

fn model_test<A: Keys>(counter: &AtomicUsize) {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        rng_seed: if cfg!(miri) {
            RngSeed::Fixed(0x50a_3a9)
        } else {
            RngSeed::Random
        },
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops(), |ops| {
        counter.fetch_add(ops.len(), Ordering::Relaxed);
        run::<A>(&ops);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let total = counter.load(Ordering::Relaxed);
    assert!(total >= MIN_TOTAL, "only {total} operations ran");
}

#[test]
fn model_keys_of_the_default_layout() {
    model_test::<WideAllocator>(&OPS_WIDE);
}

#[test]
fn model_keys_of_id24_8() {
    model_test::<ShortAllocator>(&OPS_SHORT);
}

#[test]
fn model_keys_of_a_15_slot_layout_reused_all_the_time() {
    model_test::<TinyAllocator>(&OPS_TINY);
}

/// The model itself must be able to fail: a map that let an older key
/// replace a newer one would be caught.
#[test]
#[should_panic(expected = "assertion")]
fn the_model_rejects_a_wrong_answer() {
    let mut units = TinyAllocator::new();
    let old = units.insert(Tiny { hp: 1 });
    units.remove(old);
    let new = units.insert(Tiny { hp: 1 });
    let mut model = Model {
        by_index: HashMap::new(),
        dense: Vec::new(),
    };
    model.try_insert(new, burn(1)).unwrap();
    // A wrong subject: answers as if the older key replaced the entry.
    let wrong: Result<Option<Burn>, Burn> = Ok(None);
    assert_eq!(model.try_insert(old, burn(2)), wrong);
}

/// A fixed sequence through every operation and every kind of key, so a
/// plain run covers them all whatever proptest draws.
#[test]
fn model_every_operation_once_per_layout() {
    let ops = vec![
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
        Op::IntoIter(2),
        Op::Remove(Pick::Issued(0)),
        Op::Remove(Pick::Live(1)),
        Op::Drain(1),
        Op::Insert(Pick::Live(0), 13),
        Op::Clear,
        Op::Insert(Pick::Live(0), 14),
    ];
    run::<WideAllocator>(&ops);
    run::<ShortAllocator>(&ops);
    run::<TinyAllocator>(&ops);
}

/// The example of the contract, step by step.
#[test]
fn a_reused_slot_never_resolves_to_the_old_component() {
    let mut units = TinyAllocator::new();
    let mut burning: SoaMap<TinyId, Burn> = SoaMap::new();
    let u = units.insert(Tiny { hp: 10 });
    assert_eq!(burning.insert(u, burn(1)), None);
    units.remove(u);
    let u2 = units.insert(Tiny { hp: 5 });
    assert_eq!(u2.index(), u.index());
    assert!(!burning.contains_key(u2));
    assert!(burning.get(u2).is_none());
    assert_eq!(burning.remove(u2), None);
    assert_eq!(burning.remove(u), Some(burn(1)));
}

#[test]
fn debug_lists_key_and_row_and_clone_copies() {
    let mut units = WideAllocator::new();
    let mut burning: SoaMap<WideId, Burn> = SoaMap::new();
    let u = units.insert(Wide { hp: 1 });
    burning.insert(u, burn(3));
    let text = format!("{burning:?}");
    assert_eq!(
        text,
        format!("{{{u:?}: BurnRef {{ dps: 3, tag: \"b3\" }}}}")
    );
    let copy = burning.clone();
    assert_eq!(copy.get(u).map(owned), Some(burn(3)));
}
