//! Derived allocators against a reference allocator: live ids in dense
//! order, their values, and the id table's FIFO slot rules (`min_free`,
//! retire or wrap, a full table) written out plainly, predicting every id
//! issued.
//!
//! [`run`] applies a sequence of [`Op`]s to a [`Subject`] (a derived
//! allocator of one of the configurations below) and to a [`FifoModel`];
//! after every operation the allocator passes `check_invariants()` and holds
//! exactly the model, and ids picked live, stale, nudged or forged resolve
//! exactly as the model says.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Debug;

use idtable::SoaAllocator;

// --- the reference allocator ---------------------------------------------------

/// The reference allocator. Ids are their bits as `u64`; values are any `V`.
#[derive(Clone)]
pub struct FifoModel<V> {
    /// Live ids in dense order.
    pub dense: Vec<u64>,
    /// id bits -> value.
    pub values: HashMap<u64, V>,
    /// Per slot ever issued: the generation of its last id.
    pub slots: Vec<u64>,
    /// Slots waiting for reuse, oldest first.
    pub free: VecDeque<usize>,
    /// Every id ever issued, and whether one was issued twice.
    pub issued: HashSet<u64>,
    pub reissued: bool,
    /// Ids that stopped being live, most recent last.
    pub dead: Vec<u64>,
    pub index_bits: u32,
    /// Bits of the whole id (32 or 64).
    pub width: u32,
    pub max_index: usize,
    pub max_generation: u64,
    pub min_free: usize,
    pub wrap: bool,
}

impl<V: Clone> FifoModel<V> {
    pub fn new(index_bits: u32, width: u32, min_free: usize, wrap: bool) -> Self {
        let generation_bits = width - index_bits;
        FifoModel {
            dense: Vec::new(),
            values: HashMap::new(),
            slots: Vec::new(),
            free: VecDeque::new(),
            issued: HashSet::new(),
            reissued: false,
            dead: Vec::new(),
            index_bits,
            width,
            max_index: (1usize << index_bits) - 2,
            max_generation: if generation_bits == 64 {
                u64::MAX
            } else {
                (1u64 << generation_bits) - 1
            },
            min_free,
            wrap,
        }
    }

    /// The slot index of an id.
    pub fn index_of(&self, bits: u64) -> usize {
        (bits & ((1u64 << self.index_bits) - 1)) as usize
    }

    /// Every bit an id of this width can have.
    pub fn mask(&self) -> u64 {
        if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// The id the next insert issues, and whether it reuses the front of
    /// the free queue; `None` when the table is full.
    pub fn next_id(&self) -> Option<(u64, bool)> {
        let waiting = self.free.len();
        let fresh_left = self.slots.len() <= self.max_index;
        if waiting > 0 && (waiting >= self.min_free || !fresh_left) {
            let s = self.free[0];
            let last = self.slots[s];
            let generation = if last >= self.max_generation {
                1
            } else {
                last + 1
            };
            Some((generation << self.index_bits | s as u64, true))
        } else if fresh_left {
            Some((1 << self.index_bits | self.slots.len() as u64, false))
        } else {
            None
        }
    }

    /// Records an insert that issued `issued_bits`, asserting it is the id
    /// the FIFO rules predict.
    pub fn insert(&mut self, issued_bits: u64, v: V) {
        let (bits, reuse) = self.next_id().expect("model: insert into a full table");
        assert_eq!(
            issued_bits, bits,
            "issued id {issued_bits:#x}, the FIFO / min_free model predicts {bits:#x}"
        );
        let index = self.index_of(bits);
        if reuse {
            self.free.pop_front();
            self.slots[index] = bits >> self.index_bits;
        } else {
            self.slots.push(1);
        }
        if !self.issued.insert(bits) {
            self.reissued = true;
        }
        self.dense.push(bits);
        self.values.insert(bits, v);
    }

    /// An id stops being live: its slot is queued unless it retires.
    pub fn release(&mut self, bits: u64) {
        let generation = bits >> self.index_bits;
        let retired = generation >= self.max_generation && !self.wrap;
        if !retired {
            let index = self.index_of(bits);
            self.free.push_back(index);
        }
        self.values.remove(&bits);
        self.dead.push(bits);
    }

    /// Removes a live id (the last one moves into its place).
    pub fn remove(&mut self, bits: u64) -> Option<V> {
        let d = self.dense.iter().position(|&b| b == bits)?;
        let v = self.values.get(&bits).cloned();
        self.dense.swap_remove(d);
        self.release(bits);
        v
    }

    /// Removes the last id in dense order.
    pub fn pop(&mut self) -> Option<(u64, V)> {
        let bits = *self.dense.last()?;
        let v = self.remove(bits)?;
        Some((bits, v))
    }

    pub fn clear(&mut self) {
        for bits in std::mem::take(&mut self.dense) {
            self.release(bits);
        }
    }

    /// Keeps the values for which `keep` (which may change them) returns
    /// `true`, as the allocator's `retain` does: every row visited once in
    /// dense order, the kept ones keeping their order, the freed slots
    /// queued in dense order. Returns every id visited, in visiting order.
    pub fn retain(&mut self, mut keep: impl FnMut(&mut V) -> bool) -> Vec<u64> {
        let visited = self.dense.clone();
        let mut removed = Vec::new();
        for &bits in &visited {
            let v = self.values.get_mut(&bits).expect("a live id has a value");
            if !keep(v) {
                removed.push(bits);
            }
        }
        self.remove_in_dense_order(&removed);
        visited
    }

    /// Removes every live id of `ids` at once, as the allocator's
    /// `remove_many` does: the kept ones keep their order, the freed slots
    /// are queued in dense order. Returns how many were removed.
    pub fn remove_many(&mut self, ids: &[u64]) -> usize {
        let live: Vec<u64> = ids
            .iter()
            .copied()
            .filter(|b| self.values.contains_key(b))
            .collect();
        self.remove_in_dense_order(&live)
    }

    fn remove_in_dense_order(&mut self, ids: &[u64]) -> usize {
        let gone: HashSet<u64> = ids.iter().copied().collect();
        let (out, kept): (Vec<u64>, Vec<u64>) = self.dense.iter().partition(|b| gone.contains(b));
        self.dense = kept;
        for &bits in &out {
            self.release(bits);
        }
        out.len()
    }

    /// Sorts the dense order by `key` (stable), as the allocator's
    /// `sort_by_key` does.
    pub fn sort_by_key<K: Ord>(&mut self, key: impl Fn(&V) -> K) {
        let values = &self.values;
        self.dense.sort_by_key(|b| key(&values[b]));
    }

    /// The id bits a selector names in the model's current state.
    pub fn resolve(&self, sel: &Sel) -> u64 {
        let mask = self.mask();
        let index_mask = (1u64 << self.index_bits) - 1;
        match *sel {
            Sel::Live(i) if !self.dense.is_empty() => self.dense[i % self.dense.len()],
            Sel::Dead(i) if !self.dead.is_empty() => {
                // half the time one of the 8 most recent
                let n = self.dead.len();
                if i % 2 == 0 {
                    self.dead[n - 1 - (i / 2) % n.min(8)]
                } else {
                    self.dead[(i / 2) % n]
                }
            }
            Sel::Near(i, g, x) if !self.dense.is_empty() => {
                let bits = self.dense[i % self.dense.len()];
                let generation = (bits >> self.index_bits).wrapping_add_signed(i64::from(g));
                let index = (bits & index_mask).wrapping_add_signed(i64::from(x)) & index_mask;
                (generation << self.index_bits | index) & mask
            }
            Sel::Forged(b) => b & mask,
            Sel::Live(i) | Sel::Dead(i) | Sel::Near(i, _, _) => (i as u64).rotate_left(17) & mask,
        }
    }

    /// How many of `want` inserts succeed from here.
    pub fn room(&self, want: usize) -> usize {
        let mut free = self.free.len();
        let mut slots = self.slots.len();
        let mut n = 0;
        while n < want {
            let fresh_left = slots <= self.max_index;
            if free > 0 && (free >= self.min_free || !fresh_left) {
                free -= 1;
            } else if fresh_left {
                slots += 1;
            } else {
                break;
            }
            n += 1;
        }
        n
    }
}

// --- the value and the subject interface -----------------------------------------

/// An over-aligned column value: its column's offset in the shared buffer
/// needs padding, and moves when the buffer grows.
#[repr(align(32))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aligned(pub u8);

/// The model's copy of one record (the `unit` and `aligned` columns of the
/// records are derived from it: `()` and `Aligned(small)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Val {
    pub key: u32,
    pub payload: u64,
    pub label: String,
    pub small: u8,
}

/// The value inserted for `payload`.
pub fn val(payload: u64) -> Val {
    Val {
        key: (payload as u32) ^ 0x5A5A,
        payload,
        label: format!("v{payload}"),
        small: payload as u8,
    }
}

/// What the runner needs from a derived allocator; implemented for each
/// configuration below, every method a thin call of the generated API.
pub trait Subject: Clone + Debug + Sized {
    type Id: Copy + Eq + Debug;
    const INDEX_BITS: u32;
    const WIDTH: u32;
    const MIN_FREE: usize;
    const WRAP: bool;

    fn new() -> Self;
    fn bits(id: Self::Id) -> u64;
    fn forge(bits: u64) -> Option<Self::Id>;
    fn insert(&mut self, v: Val) -> Self::Id;
    fn try_insert(&mut self, v: Val) -> Result<Self::Id, Val>;
    /// Inserts `val(payload)` with its key set to the offered id's low bits;
    /// checks that the id offered is the id issued.
    fn insert_with_id(&mut self, payload: u64) -> Self::Id;
    fn extend_with(&mut self, vs: Vec<Val>);
    fn remove(&mut self, id: Self::Id) -> Option<Val>;
    fn remove_many(&mut self, ids: Vec<Self::Id>) -> usize;
    fn contains(&self, id: Self::Id) -> bool;
    fn dense_index(&self, id: Self::Id) -> Option<usize>;
    fn get(&self, id: Self::Id) -> Option<Val>;
    /// Sets the payload through `get_mut`; returns the value before.
    fn set_payload(&mut self, id: Self::Id, payload: u64) -> Option<Val>;
    /// Sets `a`'s payload to `p` and `b`'s to `p + 1` through
    /// `get_disjoint_mut`; returns both values before.
    fn set_pair(&mut self, a: Self::Id, b: Self::Id, p: u64) -> Option<(Val, Val)>;
    /// Keeps rows whose payload `% m != r`, adding 1 to each kept payload.
    /// Returns the ids visited.
    fn retain_mod(&mut self, m: u64, r: u64) -> Vec<u64>;
    fn sort_by_payload(&mut self);
    fn sort_by_payload_desc(&mut self);
    fn xor_payloads(&mut self, x: u64);
    fn clear(&mut self);
    fn shrink_to_fit(&mut self);
    fn reserve(&mut self, additional: usize);
    fn capacity(&self) -> usize;
    /// Drains, keeping the first `take` items, then drops the drain.
    fn drain_take(&mut self, take: usize) -> (Vec<(u64, Val)>, usize);
    /// Consumes the allocator, keeping the first `take` items.
    fn into_iter_take(self, take: usize) -> (Vec<(u64, Val)>, usize);
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    fn ids(&self) -> Vec<u64>;
    /// The rows read from `columns()`, in dense order (every column the
    /// same length, the over-aligned one aligned).
    fn rows(&self) -> Vec<Val>;
    /// `(id, row)` from `iter()`, and the `ExactSizeIterator` length.
    fn iter_rows(&self) -> (Vec<(u64, Val)>, usize);
    fn check_invariants(&self);
}

macro_rules! subject {
    ($(#[$doc:meta])* $rec:ident, $alloc:ident, $id:ident, $bits:ty, [$($soa:tt)*],
     index_bits = $ib:expr, min_free = $mf:expr, wrap = $wrap:expr) => {
        $(#[$doc])*
        #[derive(SoaAllocator, Clone, Debug, PartialEq)]
        #[soa($($soa)*)]
        pub struct $rec {
            pub key: u32,
            pub payload: u64,
            pub label: String,
            pub unit: (),
            pub aligned: Aligned,
            pub small: u8,
        }

        impl From<Val> for $rec {
            fn from(v: Val) -> $rec {
                $rec {
                    key: v.key,
                    payload: v.payload,
                    label: v.label,
                    unit: (),
                    aligned: Aligned(v.small),
                    small: v.small,
                }
            }
        }

        impl From<$rec> for Val {
            fn from(r: $rec) -> Val {
                assert_eq!(r.aligned, Aligned(r.small), "fields of one row disagree");
                Val {
                    key: r.key,
                    payload: r.payload,
                    label: r.label,
                    small: r.small,
                }
            }
        }

        impl Subject for $alloc {
            type Id = $id;
            const INDEX_BITS: u32 = $ib;
            const WIDTH: u32 = <$bits>::BITS;
            const MIN_FREE: usize = $mf;
            const WRAP: bool = $wrap;

            fn new() -> Self {
                $alloc::new()
            }
            fn bits(id: $id) -> u64 {
                u64::from(id.to_bits())
            }
            fn forge(bits: u64) -> Option<$id> {
                <$bits>::try_from(bits).ok().and_then($id::from_bits)
            }
            fn insert(&mut self, v: Val) -> $id {
                $alloc::insert(self, $rec::from(v))
            }
            fn try_insert(&mut self, v: Val) -> Result<$id, Val> {
                $alloc::try_insert(self, $rec::from(v)).map_err(|e| {
                    assert!(e.to_string().contains("id table full"), "{e}");
                    Val::from(e.into_inner())
                })
            }
            fn insert_with_id(&mut self, payload: u64) -> $id {
                let mut offered = None;
                let id = $alloc::insert_with_id(self, |id| {
                    offered = Some(id);
                    let mut v = val(payload);
                    v.key = id.to_bits() as u32;
                    $rec::from(v)
                });
                assert_eq!(offered, Some(id), "insert_with_id offers the id it issues");
                id
            }
            fn extend_with(&mut self, vs: Vec<Val>) {
                Extend::extend(self, vs.into_iter().map($rec::from))
            }
            fn remove(&mut self, id: $id) -> Option<Val> {
                $alloc::remove(self, id).map(Val::from)
            }
            fn remove_many(&mut self, ids: Vec<$id>) -> usize {
                $alloc::remove_many(self, ids)
            }
            fn contains(&self, id: $id) -> bool {
                $alloc::contains(self, id)
            }
            fn dense_index(&self, id: $id) -> Option<usize> {
                $alloc::dense_index(self, id)
            }
            fn get(&self, id: $id) -> Option<Val> {
                $alloc::get(self, id).map(|r| Val::from(r.to_owned()))
            }
            fn set_payload(&mut self, id: $id, payload: u64) -> Option<Val> {
                let before = Subject::get(self, id);
                let m = $alloc::get_mut(self, id);
                assert_eq!(m.is_some(), before.is_some(), "get_mut({id:?}) and get disagree");
                *m?.payload = payload;
                before
            }
            fn set_pair(&mut self, a: $id, b: $id, p: u64) -> Option<(Val, Val)> {
                let before = (Subject::get(self, a), Subject::get(self, b));
                let [x, y] = $alloc::get_disjoint_mut(self, [a, b])?;
                *x.payload = p;
                *y.payload = p.wrapping_add(1);
                match before {
                    (Some(x), Some(y)) => Some((x, y)),
                    _ => panic!("get_disjoint_mut resolved {a:?}, {b:?}, which get does not"),
                }
            }
            fn retain_mod(&mut self, m: u64, r: u64) -> Vec<u64> {
                let mut visited = Vec::new();
                $alloc::retain(self, |id, row| {
                    visited.push(u64::from(id.to_bits()));
                    let keep = *row.payload % m != r;
                    if keep {
                        *row.payload = row.payload.wrapping_add(1);
                    }
                    keep
                });
                visited
            }
            fn sort_by_payload(&mut self) {
                $alloc::sort_by_key(self, |r| *r.payload)
            }
            fn sort_by_payload_desc(&mut self) {
                $alloc::sort_by(self, |a, b| b.payload.cmp(a.payload))
            }
            fn xor_payloads(&mut self, x: u64) {
                for p in $alloc::columns_mut(self).payload.iter_mut() {
                    *p ^= x;
                }
            }
            fn clear(&mut self) {
                $alloc::clear(self)
            }
            fn shrink_to_fit(&mut self) {
                $alloc::shrink_to_fit(self)
            }
            fn reserve(&mut self, additional: usize) {
                $alloc::reserve(self, additional)
            }
            fn capacity(&self) -> usize {
                $alloc::capacity(self)
            }
            fn drain_take(&mut self, take: usize) -> (Vec<(u64, Val)>, usize) {
                let mut d = $alloc::drain(self);
                let len = ExactSizeIterator::len(&d);
                let got = d
                    .by_ref()
                    .take(take)
                    .map(|(id, v)| (u64::from(id.to_bits()), Val::from(v)))
                    .collect();
                (got, len)
            }
            fn into_iter_take(self, take: usize) -> (Vec<(u64, Val)>, usize) {
                let mut it = IntoIterator::into_iter(self);
                let len = ExactSizeIterator::len(&it);
                let got = it
                    .by_ref()
                    .take(take)
                    .map(|(id, v)| (u64::from(id.to_bits()), Val::from(v)))
                    .collect();
                (got, len)
            }
            fn len(&self) -> usize {
                $alloc::len(self)
            }
            fn is_empty(&self) -> bool {
                $alloc::is_empty(self)
            }
            fn ids(&self) -> Vec<u64> {
                $alloc::ids(self)
                    .iter()
                    .map(|id| u64::from(id.to_bits()))
                    .collect()
            }
            fn rows(&self) -> Vec<Val> {
                let c = $alloc::columns(self);
                let n = c.key.len();
                assert_eq!(c.payload.len(), n);
                assert_eq!(c.label.len(), n);
                assert_eq!(c.unit.len(), n);
                assert_eq!(c.aligned.len(), n);
                assert_eq!(c.small.len(), n);
                assert_eq!(c.aligned.as_ptr() as usize % 32, 0, "over-aligned column misaligned");
                (0..n)
                    .map(|i| {
                        assert_eq!(c.aligned[i], Aligned(c.small[i]), "row {i}");
                        Val {
                            key: c.key[i],
                            payload: c.payload[i],
                            label: c.label[i].clone(),
                            small: c.small[i],
                        }
                    })
                    .collect()
            }
            fn iter_rows(&self) -> (Vec<(u64, Val)>, usize) {
                let it = $alloc::iter(self);
                let len = it.len();
                let rows = it
                    .map(|(id, r)| (u64::from(id.to_bits()), Val::from(r.to_owned())))
                    .collect();
                (rows, len)
            }
            fn check_invariants(&self) {
                $alloc::check_invariants(self)
            }
        }
    };
}

// --- the configurations ------------------------------------------------------------

subject!(
    /// The default layout (`Id32_32`), one of the three of the contract.
    DefaultRec, DefaultRecAllocator, DefaultRecId, u64, [],
    index_bits = 32, min_free = 0, wrap = false
);
subject!(
    /// `Id24_8` with `min_free`, one of the three of the contract.
    ShortRec, ShortRecAllocator, ShortRecId, u32, [id = idtable::Id24_8, min_free = 3],
    index_bits = 24, min_free = 3, wrap = false
);
subject!(
    /// `Id16_16`, wrapping, one of the three of the contract.
    HalfRec, HalfRecAllocator, HalfRecId, u32, [id = idtable::Id16_16, on_exhausted = wrap],
    index_bits = 16, min_free = 0, wrap = true
);
subject!(
    /// Three generations per slot, wrapping: stale ids come back to life
    /// (the documented risk of `wrap`), and the model must agree on exactly
    /// when.
    TinyGenWrapRec, TinyGenWrapRecAllocator, TinyGenWrapRecId, u32,
    [id = idtable::Id32<30>, min_free = 2, on_exhausted = wrap],
    index_bits = 30, min_free = 2, wrap = true
);
subject!(
    /// Seven generations per slot, retiring: slots retire every few reuses.
    TinyGenRetireRec, TinyGenRetireRecAllocator, TinyGenRetireRecId, u32,
    [id = idtable::Id32<29>],
    index_bits = 29, min_free = 0, wrap = false
);
subject!(
    /// Seven indices: the table is often full.
    TinyIndexRec, TinyIndexRecAllocator, TinyIndexRecId, u64,
    [id = idtable::Id64<3>, min_free = 2],
    index_bits = 3, min_free = 2, wrap = false
);
subject!(
    /// 31 indices: the free list keeps its links in the vacant slots up to
    /// 15 slots and moves them to a side array when the table grows past
    /// that.
    LinkLineRec, LinkLineRecAllocator, LinkLineRecId, u32,
    [id = idtable::Id32<5>, min_free = 4],
    index_bits = 5, min_free = 4, wrap = false
);
subject!(
    /// Three indices and a `min_free` the table never reaches: freed slots
    /// are reused only once the table is full.
    ThreeIndexRec, ThreeIndexRecAllocator, ThreeIndexRecId, u32,
    [id = idtable::Id32<2>, min_free = 100],
    index_bits = 2, min_free = 100, wrap = false
);
subject!(
    /// One generation per slot: every removed slot retires at once.
    OneGenRec, OneGenRecAllocator, OneGenRecId, u32,
    [id = idtable::Id32<31>, min_free = 1],
    index_bits = 31, min_free = 1, wrap = false
);

// --- operations ------------------------------------------------------------------

/// Which id an operation uses.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Sel {
    /// The live id at this dense index (mod len).
    Live(usize),
    /// A dead id (mod count), most recent ones likelier.
    Dead(usize),
    /// Random bits (truncated to the id's width).
    Forged(u64),
    /// A live id with its generation and index nudged.
    Near(usize, i8, i8),
}

/// One operation on an allocator.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
    Insert(u64),
    TryInsert(u64),
    InsertWithId(u64),
    Extend(Vec<u64>),
    Remove(Sel),
    /// Remove these at once (live, stale, forged and repeated ones mixed).
    RemoveMany(Vec<Sel>),
    Get(Sel),
    GetMut(Sel, u64),
    GetDisjointMut(Sel, Sel, u64),
    /// Keep the rows whose payload `% m != r` (`m` at least 1).
    Retain(u64, u64),
    Clear,
    SortByKey,
    SortByDesc,
    XorColumns(u64),
    Clone,
    Drain(usize),
    IntoIter(usize),
    /// Remove a live id and insert again, this many times (at most
    /// [`MAX_CHURN`]).
    Churn(usize, u16),
    ShrinkToFit,
    Reserve(u8),
}

/// Churn of the fixed sequences: enough to retire `Id24_8` slots (3
/// rotate); fewer under Miri.
pub const CHURN: u16 = if cfg!(miri) { 20 } else { 300 };
/// The most one `Churn` operation does.
pub const MAX_CHURN: u16 = 1024;

/// The model of `S`'s layout and configuration.
pub fn model_of<S: Subject>() -> FifoModel<Val> {
    FifoModel::new(S::INDEX_BITS, S::WIDTH, S::MIN_FREE, S::WRAP)
}

/// `s` holds exactly the model, in the model's dense order, through every
/// read path, and passes `check_invariants()`.
pub fn assert_same<S: Subject>(s: &S, m: &FifoModel<Val>) {
    s.check_invariants();
    assert!(m.wrap || !m.reissued, "retire issued an id twice");
    assert_eq!(s.len(), m.dense.len(), "len");
    assert_eq!(s.is_empty(), m.dense.is_empty(), "is_empty");
    assert_eq!(s.ids(), m.dense, "ids() in dense order");
    let want: Vec<Val> = m.dense.iter().map(|b| m.values[b].clone()).collect();
    assert_eq!(s.rows(), want, "columns in dense order");
    let (rows, len) = s.iter_rows();
    assert_eq!(len, m.dense.len(), "iter().len()");
    let want_pairs: Vec<(u64, Val)> = m.dense.iter().map(|&b| (b, m.values[&b].clone())).collect();
    assert_eq!(rows, want_pairs, "iter()");
    for (d, &bits) in m.dense.iter().enumerate() {
        let id = S::forge(bits).unwrap();
        assert_eq!(s.dense_index(id), Some(d));
    }
}

/// `bits` resolves in `s` exactly as in the model (its own value or
/// nothing), through every read path; never panics. Bits no id has (a zero
/// generation) must be refused by `from_bits`.
pub fn assert_resolves<S: Subject>(s: &S, m: &FifoModel<Val>, bits: u64) {
    let Some(id) = S::forge(bits) else {
        assert_eq!(
            bits >> m.index_bits,
            0,
            "from_bits rejected {bits:#x}, whose generation is not zero"
        );
        return;
    };
    let want = m.values.get(&bits);
    assert_eq!(s.get(id).as_ref(), want, "get({id:?})");
    assert_eq!(s.contains(id), want.is_some(), "contains({id:?})");
    let row = s.dense_index(id).map(|d| m.dense[d]);
    assert_eq!(row, want.map(|_| bits), "dense_index({id:?})");
}

fn insert_one<S: Subject>(s: &mut S, m: &mut FifoModel<Val>, v: Val, use_try: bool) {
    match m.next_id() {
        Some(_) if !use_try => {
            let id = s.insert(v.clone());
            m.insert(S::bits(id), v);
        }
        Some(_) => {
            let id = s.try_insert(v.clone()).expect("model says there is room");
            m.insert(S::bits(id), v);
        }
        None => {
            let back = s
                .try_insert(v.clone())
                .expect_err("model says the table is full");
            assert_eq!(back, v, "try_insert gives the value back intact");
        }
    }
}

/// Applies `op` to `s` and to the model, comparing every answer.
pub fn apply<S: Subject>(s: &mut S, m: &mut FifoModel<Val>, op: &Op) {
    match op {
        Op::Insert(p) => insert_one(s, m, val(*p), false),
        Op::TryInsert(p) => insert_one(s, m, val(*p), true),
        Op::InsertWithId(p) => {
            if let Some((bits, _)) = m.next_id() {
                let id = s.insert_with_id(*p);
                let mut v = val(*p);
                v.key = bits as u32;
                m.insert(S::bits(id), v);
            }
        }
        Op::Extend(ps) => {
            let vs: Vec<Val> = ps.iter().map(|&p| val(p)).collect();
            // only what fits: extending a full table panics like insert
            let room = m.room(vs.len());
            let vs: Vec<Val> = vs.into_iter().take(room).collect();
            s.extend_with(vs.clone());
            let issued = s.ids();
            let new = &issued[issued.len() - vs.len()..];
            for (bits, v) in new.iter().zip(vs) {
                m.insert(*bits, v);
            }
        }
        Op::Remove(sel) => {
            let bits = m.resolve(sel);
            if let Some(id) = S::forge(bits) {
                let got = s.remove(id);
                let want = m.remove(bits);
                assert_eq!(got, want, "remove({id:?})");
            }
        }
        Op::RemoveMany(sels) => {
            let bits: Vec<u64> = sels.iter().map(|sel| m.resolve(sel)).collect();
            let ids: Vec<S::Id> = bits.iter().filter_map(|&b| S::forge(b)).collect();
            let forgeable: Vec<u64> = ids.iter().map(|&id| S::bits(id)).collect();
            let got = s.remove_many(ids);
            let want = m.remove_many(&forgeable);
            assert_eq!(got, want, "remove_many({forgeable:x?})");
        }
        Op::Get(sel) => {
            let bits = m.resolve(sel);
            assert_resolves(s, m, bits);
        }
        Op::GetMut(sel, p) => {
            let bits = m.resolve(sel);
            if let Some(id) = S::forge(bits) {
                let got = s.set_payload(id, *p);
                let want = m.values.get(&bits).cloned();
                assert_eq!(got, want, "get_mut({id:?})");
                if let Some(v) = m.values.get_mut(&bits) {
                    v.payload = *p;
                }
            }
        }
        Op::GetDisjointMut(a, b, p) => {
            let (ba, bb) = (m.resolve(a), m.resolve(b));
            if let (Some(ia), Some(ib)) = (S::forge(ba), S::forge(bb)) {
                let got = s.set_pair(ia, ib, *p);
                let want = match (m.values.get(&ba), m.values.get(&bb)) {
                    (Some(x), Some(y)) if ba != bb => Some((x.clone(), y.clone())),
                    _ => None,
                };
                assert_eq!(got, want, "get_disjoint_mut([{ia:?}, {ib:?}])");
                if want.is_some() {
                    m.values.get_mut(&ba).unwrap().payload = *p;
                    m.values.get_mut(&bb).unwrap().payload = p.wrapping_add(1);
                }
            }
        }
        Op::Retain(md, r) => {
            let md = (*md).max(1);
            let r = *r % md;
            let got = s.retain_mod(md, r);
            let want = m.retain(|v| {
                let keep = v.payload % md != r;
                if keep {
                    v.payload = v.payload.wrapping_add(1);
                }
                keep
            });
            assert_eq!(got, want, "retain visits every row once, in dense order");
        }
        Op::Clear => {
            s.clear();
            m.clear();
        }
        Op::SortByKey => {
            s.sort_by_payload();
            m.sort_by_key(|v| v.payload);
        }
        Op::SortByDesc => {
            s.sort_by_payload_desc();
            m.sort_by_key(|v| std::cmp::Reverse(v.payload));
        }
        Op::XorColumns(x) => {
            s.xor_payloads(*x);
            for v in m.values.values_mut() {
                v.payload ^= *x;
            }
        }
        Op::Clone => {
            let mut c = s.clone();
            assert_same(&c, m);
            assert_eq!(format!("{c:?}"), format!("{s:?}"), "Debug of a clone");
            // the clone continues the same id sequence, independently
            if let Some((bits, _)) = m.next_id() {
                let id = c.insert(val(999));
                assert_eq!(S::bits(id), bits, "a clone issues the original's next id");
            }
            if let Some(&first) = m.dense.first() {
                assert!(c.remove(S::forge(first).unwrap()).is_some());
                c.xor_payloads(1);
            }
            c.check_invariants();
            drop(c);
            assert_same(s, m);
        }
        Op::Drain(take) => {
            let (got, len) = s.drain_take(*take);
            assert_eq!(len, m.dense.len(), "drain().len()");
            let want: Vec<(u64, Val)> = (0..*take).map_while(|_| m.pop()).collect();
            assert_eq!(got, want, "drain yields the last row first");
            m.clear();
        }
        Op::IntoIter(take) => {
            let (got, len) = s.clone().into_iter_take(*take);
            assert_eq!(len, m.dense.len(), "into_iter().len()");
            let want: Vec<(u64, Val)> = m
                .dense
                .iter()
                .rev()
                .take(*take)
                .map(|&b| (b, m.values[&b].clone()))
                .collect();
            assert_eq!(got, want, "into_iter yields the last row first");
        }
        Op::Churn(i, n) => {
            for k in 0..(*n).min(MAX_CHURN) {
                let Some(&bits) = m.dense.get(*i % m.dense.len().max(1)) else {
                    break;
                };
                let got = s.remove(S::forge(bits).unwrap());
                assert_eq!(got, m.remove(bits));
                insert_one(s, m, val(u64::from(k) % 40), k % 2 == 0);
            }
        }
        Op::ShrinkToFit => {
            s.shrink_to_fit();
            assert!(s.capacity() >= s.len(), "shrink_to_fit below len");
        }
        Op::Reserve(n) => {
            let n = usize::from(*n);
            s.reserve(n);
            assert!(s.capacity() >= s.len() + n, "reserve({n})");
        }
    }
}

/// Runs `ops` on a new `S` and its model, checking after every operation;
/// at the end every id ever issued or freed resolves as the model says, and
/// removing everything one by one leaves both empty.
pub fn run<S: Subject>(ops: &[Op]) {
    let mut s = S::new();
    let mut m = model_of::<S>();
    assert_same(&s, &m);
    for op in ops {
        apply(&mut s, &mut m, op);
        assert_same(&s, &m);
        // the most recent dead ids stay dead (or, under `wrap`, resolve
        // exactly as the model says), and so does a nudged live id
        for &bits in m.dead.iter().rev().take(4) {
            assert_resolves(&s, &m, bits);
        }
        let near = m.resolve(&Sel::Near(7, 1, 0));
        assert_resolves(&s, &m, near);
    }
    // at the end: every id ever issued and every dead id
    let all: HashSet<u64> = m.issued.iter().chain(&m.dead).copied().collect();
    for bits in all {
        assert_resolves(&s, &m, bits);
    }
    if !m.wrap {
        assert!(!m.reissued, "an id was issued twice under `retire`");
    }
    // a last removal of everything, one by one
    while let Some(&bits) = m.dense.last() {
        let id = S::forge(bits).unwrap();
        assert_eq!(s.remove(id), m.remove(bits));
    }
    assert_same(&s, &m);
}

/// proptest strategies for the operations.
#[cfg(feature = "proptest")]
pub mod strategy {
    use proptest::prelude::*;

    use super::{Op, Sel, CHURN};

    /// An id selector: live ones likeliest, then dead, nudged, forged.
    pub fn sel() -> impl Strategy<Value = Sel> {
        prop_oneof![
            4 => any::<usize>().prop_map(Sel::Live),
            3 => any::<usize>().prop_map(Sel::Dead),
            1 => any::<u64>().prop_map(Sel::Forged),
            2 => (any::<usize>(), -2i8..=2, -2i8..=2).prop_map(|(i, g, x)| Sel::Near(i, g, x)),
        ]
    }

    /// One operation, inserts and removes likeliest; payloads are small so
    /// that sorts meet many equal keys.
    pub fn op() -> impl Strategy<Value = Op> {
        let payload = 0u64..40;
        prop_oneof![
            10 => payload.clone().prop_map(Op::Insert),
            3 => payload.clone().prop_map(Op::TryInsert),
            2 => payload.clone().prop_map(Op::InsertWithId),
            1 => prop::collection::vec(payload.clone(), 0..5).prop_map(Op::Extend),
            8 => sel().prop_map(Op::Remove),
            2 => prop::collection::vec(sel(), 0..8).prop_map(Op::RemoveMany),
            4 => sel().prop_map(Op::Get),
            3 => (sel(), payload.clone()).prop_map(|(s, p)| Op::GetMut(s, p)),
            2 => (sel(), sel(), payload).prop_map(|(a, b, p)| Op::GetDisjointMut(a, b, p)),
            1 => (2u64..5, 0u64..5).prop_map(|(m, r)| Op::Retain(m, r % m)),
            1 => Just(Op::Clear),
            1 => Just(Op::SortByKey),
            1 => Just(Op::SortByDesc),
            1 => any::<u64>().prop_map(|x| Op::XorColumns(x & 0xff)),
            1 => Just(Op::Clone),
            1 => (0usize..6).prop_map(Op::Drain),
            1 => (0usize..6).prop_map(Op::IntoIter),
            2 => (any::<usize>(), 1u16..CHURN).prop_map(|(i, n)| Op::Churn(i, n)),
            1 => Just(Op::ShrinkToFit),
            1 => any::<u8>().prop_map(Op::Reserve),
        ]
    }

    /// Sequences of 1 to `max - 1` operations.
    pub fn ops(max: usize) -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec(op(), 1..max)
    }
}

/// A fixed sequence touching every operation, so a plain run covers them
/// all even when a random source draws few of some.
pub fn every_operation() -> Vec<Op> {
    vec![
        Op::Insert(1),
        Op::Insert(2),
        Op::TryInsert(3),
        Op::InsertWithId(4),
        Op::Extend(vec![5, 6, 7]),
        Op::Remove(Sel::Live(1)),
        Op::Get(Sel::Dead(0)),
        Op::Get(Sel::Near(0, 1, 0)),
        Op::Get(Sel::Near(0, 0, 1)),
        Op::Get(Sel::Forged(u64::MAX)),
        Op::GetMut(Sel::Live(2), 30),
        Op::GetDisjointMut(Sel::Live(0), Sel::Live(3), 11),
        Op::GetDisjointMut(Sel::Live(0), Sel::Live(0), 11),
        Op::Retain(2, 0),
        Op::RemoveMany(vec![
            Sel::Live(0),
            Sel::Dead(0),
            Sel::Live(2),
            Sel::Live(0),
            Sel::Forged(7),
        ]),
        Op::SortByKey,
        Op::SortByDesc,
        Op::XorColumns(5),
        Op::Clone,
        Op::IntoIter(2),
        Op::Reserve(17),
        Op::ShrinkToFit,
        Op::Churn(0, CHURN),
        Op::Drain(2),
        Op::Insert(8),
        Op::Insert(9),
        Op::Clear,
        Op::Remove(Sel::Dead(3)),
        Op::Extend(vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        Op::Churn(3, CHURN + 99),
        Op::TryInsert(1),
        Op::ShrinkToFit,
        Op::Clone,
    ]
}
