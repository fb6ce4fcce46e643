//! Model test: random operation sequences run against a derived allocator and
//! against a plain model (a `HashMap` from id bits to value, the dense order
//! as a `Vec`, and a reference FIFO slot allocator that predicts every id).
//!
//! After every operation the allocator must pass `check_invariants()` and
//! hold exactly the model's content, in the model's dense order; every id
//! ever issued or forged must resolve exactly as the model says.
//!
//! Configurations: the default layout (`Id32_32`), `Id24_8` with `min_free`,
//! `Id16_16` with `wrap` (the three of the contract), plus layouts with tiny
//! generation or index spaces so that retirement, wrapping and a full table
//! happen within a few hundred operations, and one (`Id32<5>`) whose tables
//! cross the size where the free list's links leave the vacant slots.

use std::collections::HashSet;
use std::fmt::Debug;

use idtable::SoaAllocator;

mod support;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use support::fifo_model::FifoModel;

// --- the value and the subject interface -----------------------------------

/// The model's copy of one record.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Val {
    key: u32,
    payload: u64,
    label: String,
}

fn val(payload: u64) -> Val {
    Val {
        key: (payload as u32) ^ 0x5A5A,
        payload,
        label: format!("v{payload}"),
    }
}

/// What the runner needs from a derived allocator; implemented by `subject!`
/// for each configuration, every method a thin call of the generated API.
trait Subject: Clone + Debug + Sized {
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
    /// Drains, keeping the first `take` items, then drops the drain.
    fn drain_take(&mut self, take: usize) -> (Vec<(u64, Val)>, usize);
    /// Consumes the allocator, keeping the first `take` items.
    fn into_iter_take(self, take: usize) -> (Vec<(u64, Val)>, usize);
    fn len(&self) -> usize;
    fn ids(&self) -> Vec<u64>;
    /// The rows read from `columns()`, in dense order.
    fn rows(&self) -> Vec<Val>;
    /// `(id, row)` from `iter()`, and the `ExactSizeIterator` length.
    fn iter_rows(&self) -> (Vec<(u64, Val)>, usize);
    fn check_invariants(&self);
}

macro_rules! subject {
    ($rec:ident, $alloc:ident, $id:ident, $bits:ty, index_bits = $ib:expr, min_free = $mf:expr, wrap = $wrap:expr) => {
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
                $alloc::try_insert(self, $rec::from(v)).map_err(|e| Val::from(e.into_inner()))
            }
            fn insert_with_id(&mut self, payload: u64) -> $id {
                $alloc::insert_with_id(self, |id| {
                    let mut v = val(payload);
                    v.key = id.to_bits() as u32;
                    $rec::from(v)
                })
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
                let m = $alloc::get_mut(self, id)?;
                let before = Val {
                    key: *m.key,
                    payload: *m.payload,
                    label: m.label.clone(),
                };
                *m.payload = payload;
                Some(before)
            }
            fn set_pair(&mut self, a: $id, b: $id, p: u64) -> Option<(Val, Val)> {
                let [x, y] = $alloc::get_disjoint_mut(self, [a, b])?;
                let before = (
                    Val {
                        key: *x.key,
                        payload: *x.payload,
                        label: x.label.clone(),
                    },
                    Val {
                        key: *y.key,
                        payload: *y.payload,
                        label: y.label.clone(),
                    },
                );
                *x.payload = p;
                *y.payload = p + 1;
                Some(before)
            }
            fn retain_mod(&mut self, m: u64, r: u64) -> Vec<u64> {
                let mut visited = Vec::new();
                $alloc::retain(self, |id, row| {
                    visited.push(u64::from(id.to_bits()));
                    let keep = *row.payload % m != r;
                    if keep {
                        *row.payload += 1;
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
            fn ids(&self) -> Vec<u64> {
                $alloc::ids(self)
                    .iter()
                    .map(|id| u64::from(id.to_bits()))
                    .collect()
            }
            fn rows(&self) -> Vec<Val> {
                let c = $alloc::columns(self);
                assert_eq!(c.key.len(), c.payload.len());
                assert_eq!(c.key.len(), c.label.len());
                (0..c.key.len())
                    .map(|i| Val {
                        key: c.key[i],
                        payload: c.payload[i],
                        label: c.label[i].clone(),
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

        impl From<Val> for $rec {
            fn from(v: Val) -> $rec {
                $rec {
                    key: v.key,
                    payload: v.payload,
                    label: v.label,
                }
            }
        }

        impl From<$rec> for Val {
            fn from(r: $rec) -> Val {
                Val {
                    key: r.key,
                    payload: r.payload,
                    label: r.label,
                }
            }
        }
    };
}

/// The three configurations of the contract.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
struct DefaultRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    DefaultRec,
    DefaultRecAllocator,
    DefaultRecId,
    u64,
    index_bits = 32,
    min_free = 0,
    wrap = false
);

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id24_8, min_free = 3)]
struct ShortRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    ShortRec,
    ShortRecAllocator,
    ShortRecId,
    u32,
    index_bits = 24,
    min_free = 3,
    wrap = false
);

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id16_16, on_exhausted = wrap)]
struct HalfRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    HalfRec,
    HalfRecAllocator,
    HalfRecId,
    u32,
    index_bits = 16,
    min_free = 0,
    wrap = true
);

/// Three generations per slot, wrapping: stale ids come back to life (the
/// documented risk of `wrap`), and the model must agree on exactly when.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id32<30>, min_free = 2, on_exhausted = wrap)]
struct TinyGenWrapRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    TinyGenWrapRec,
    TinyGenWrapRecAllocator,
    TinyGenWrapRecId,
    u32,
    index_bits = 30,
    min_free = 2,
    wrap = true
);

/// Seven generations per slot, retiring: slots retire every few reuses.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id32<29>)]
struct TinyGenRetireRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    TinyGenRetireRec,
    TinyGenRetireRecAllocator,
    TinyGenRetireRecId,
    u32,
    index_bits = 29,
    min_free = 0,
    wrap = false
);

/// Seven indices: the table is often full.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id64<3>, min_free = 2)]
struct TinyIndexRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    TinyIndexRec,
    TinyIndexRecAllocator,
    TinyIndexRecId,
    u64,
    index_bits = 3,
    min_free = 2,
    wrap = false
);

/// 31 indices: the free list keeps its links in the vacant slots up to 15
/// slots and moves them to a side array when the table grows past that.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id32<5>, min_free = 4)]
struct LinkLineRec {
    key: u32,
    payload: u64,
    label: String,
}
subject!(
    LinkLineRec,
    LinkLineRecAllocator,
    LinkLineRecId,
    u32,
    index_bits = 5,
    min_free = 4,
    wrap = false
);

// --- the model ----------------------------------------------------------------

/// The reference allocator (shared with the fuzz target `allocator_ops`).
type Model = FifoModel<Val>;

/// The model of `S`'s layout and configuration.
fn model_of<S: Subject>() -> Model {
    FifoModel::new(S::INDEX_BITS, S::WIDTH, S::MIN_FREE, S::WRAP)
}

fn assert_same<S: Subject>(s: &S, m: &Model) {
    s.check_invariants();
    assert_eq!(s.len(), m.dense.len(), "len");
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

/// `bits` resolves in `s` exactly as in the model (its own value or nothing),
/// through every read path; never panics.
fn assert_resolves<S: Subject>(s: &S, m: &Model, bits: u64) {
    let Some(id) = S::forge(bits) else {
        return;
    };
    let want = m.values.get(&bits);
    assert_eq!(s.get(id).as_ref(), want, "get({id:?})");
    assert_eq!(s.contains(id), want.is_some(), "contains({id:?})");
    let row = s.dense_index(id).map(|d| m.dense[d]);
    assert_eq!(row, want.map(|_| bits), "dense_index({id:?})");
}

// --- operations ---------------------------------------------------------------------

/// Which id an operation uses.
#[derive(Clone, Debug)]
enum Sel {
    /// The live id at this dense index (mod len).
    Live(usize),
    /// A dead id (mod count), most recent ones likelier.
    Dead(usize),
    /// Random bits.
    Forged(u64),
    /// A live id with its generation and index nudged.
    Near(usize, i8, i8),
}

#[derive(Clone, Debug)]
enum Op {
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
    Retain(u64, u64),
    Clear,
    SortByKey,
    SortByDesc,
    XorColumns(u64),
    Clone,
    Drain(usize),
    IntoIter(usize),
    /// Remove a live id and insert again, this many times.
    Churn(usize, u16),
}

fn sel() -> impl Strategy<Value = Sel> {
    prop_oneof![
        4 => any::<usize>().prop_map(Sel::Live),
        3 => any::<usize>().prop_map(Sel::Dead),
        1 => any::<u64>().prop_map(Sel::Forged),
        2 => (any::<usize>(), -2i8..=2, -2i8..=2).prop_map(|(i, g, x)| Sel::Near(i, g, x)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let payload = 0u64..40; // small: many equal sort keys
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
        2 => (any::<usize>(), 1u16..FIXED_CHURN).prop_map(|(i, n)| Op::Churn(i, n)),
    ]
}

/// The id bits a selector names in the model's current state.
trait Resolve {
    fn resolve(&self, sel: &Sel, width: u32) -> u64;
}

impl Resolve for Model {
    fn resolve(&self, sel: &Sel, width: u32) -> u64 {
        debug_assert_eq!(width, self.width);
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
}

fn insert_one<S: Subject>(s: &mut S, m: &mut Model, v: Val, use_try: bool) {
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

fn apply<S: Subject>(s: &mut S, m: &mut Model, op: &Op) {
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
            let bits = m.resolve(sel, S::WIDTH);
            if let Some(id) = S::forge(bits) {
                let got = s.remove(id);
                let want = m.remove(bits);
                assert_eq!(got, want, "remove({id:?})");
            }
        }
        Op::RemoveMany(sels) => {
            let bits: Vec<u64> = sels.iter().map(|sel| m.resolve(sel, S::WIDTH)).collect();
            let ids: Vec<S::Id> = bits.iter().filter_map(|&b| S::forge(b)).collect();
            let forgeable: Vec<u64> = ids.iter().map(|&id| S::bits(id)).collect();
            let got = s.remove_many(ids);
            let want = m.remove_many(&forgeable);
            assert_eq!(got, want, "remove_many({forgeable:x?})");
        }
        Op::Get(sel) => {
            let bits = m.resolve(sel, S::WIDTH);
            assert_resolves(s, m, bits);
        }
        Op::GetMut(sel, p) => {
            let bits = m.resolve(sel, S::WIDTH);
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
            let (ba, bb) = (m.resolve(a, S::WIDTH), m.resolve(b, S::WIDTH));
            if let (Some(ia), Some(ib)) = (S::forge(ba), S::forge(bb)) {
                let got = s.set_pair(ia, ib, *p);
                let want = match (m.values.get(&ba), m.values.get(&bb)) {
                    (Some(x), Some(y)) if ba != bb => Some((x.clone(), y.clone())),
                    _ => None,
                };
                assert_eq!(got, want, "get_disjoint_mut([{ia:?}, {ib:?}])");
                if want.is_some() {
                    m.values.get_mut(&ba).unwrap().payload = *p;
                    m.values.get_mut(&bb).unwrap().payload = *p + 1;
                }
            }
        }
        Op::Retain(md, r) => {
            let got = s.retain_mod(*md, *r);
            let want = m.retain(|v| {
                let keep = v.payload % *md != *r;
                if keep {
                    v.payload += 1;
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
            for k in 0..*n {
                let Some(&bits) = m.dense.get(*i % m.dense.len().max(1)) else {
                    break;
                };
                let got = s.remove(S::forge(bits).unwrap());
                assert_eq!(got, m.remove(bits));
                insert_one(s, m, val(u64::from(k) % 40), k % 2 == 0);
            }
        }
    }
}

fn run<S: Subject>(ops: &[Op]) {
    let mut s = S::new();
    let mut m = model_of::<S>();
    assert_same(&s, &m);
    for op in ops {
        apply(&mut s, &mut m, op);
        assert_same(&s, &m);
        // the most recent dead ids stay dead (or, under `wrap`, resolve
        // exactly as the model says)
        for &bits in m.dead.iter().rev().take(4) {
            assert_resolves(&s, &m, bits);
        }
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

// --- the test matrix ----------------------------------------------------------------

const CASES: u32 = if cfg!(miri) { 4 } else { 64 };
/// Churn of the fixed sequence: enough to retire `Id24_8` slots (3 rotate).
const FIXED_CHURN: u16 = if cfg!(miri) { 20 } else { 300 };
const MAX_OPS: usize = if cfg!(miri) { 24 } else { 200 };

fn config() -> Config {
    Config {
        cases: CASES,
        failure_persistence: None,
        rng_seed: if cfg!(miri) {
            RngSeed::Fixed(0x1d7ab1e)
        } else {
            RngSeed::Random
        },
        ..Config::default()
    }
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 1..MAX_OPS)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn model_default_layout(ops in ops()) {
        run::<DefaultRecAllocator>(&ops);
    }

    #[test]
    fn model_id24_8_with_min_free(ops in ops()) {
        run::<ShortRecAllocator>(&ops);
    }

    #[test]
    fn model_id16_16_wrap(ops in ops()) {
        run::<HalfRecAllocator>(&ops);
    }

    #[test]
    fn model_two_generation_bits_wrap(ops in ops()) {
        run::<TinyGenWrapRecAllocator>(&ops);
    }

    #[test]
    fn model_three_generation_bits_retire(ops in ops()) {
        run::<TinyGenRetireRecAllocator>(&ops);
    }

    #[test]
    fn model_seven_indices_fill_up(ops in ops()) {
        run::<TinyIndexRecAllocator>(&ops);
    }

    #[test]
    fn model_free_list_links_move_out_of_the_slots(ops in ops()) {
        run::<LinkLineRecAllocator>(&ops);
    }
}

/// The model itself must be able to fail: a wrong prediction is caught.
#[test]
#[should_panic(expected = "predicts")]
fn the_model_rejects_a_wrong_id() {
    let mut m = model_of::<DefaultRecAllocator>();
    m.insert(1 << 32, val(0));
    m.insert(1 << 32, val(1)); // the second fresh id has index 1
}

/// A fixed sequence touching every operation, so a plain `cargo test` run
/// covers them all even when proptest draws few of some.
#[test]
fn model_every_operation_once_per_configuration() {
    let ops = vec![
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
        Op::Churn(0, FIXED_CHURN),
        Op::Drain(2),
        Op::Insert(8),
        Op::Insert(9),
        Op::Clear,
        Op::Remove(Sel::Dead(3)),
        Op::Extend(vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        Op::Churn(3, FIXED_CHURN + 99),
        Op::TryInsert(1),
        Op::Clone,
    ];
    run::<DefaultRecAllocator>(&ops);
    run::<ShortRecAllocator>(&ops);
    run::<HalfRecAllocator>(&ops);
    run::<TinyGenWrapRecAllocator>(&ops);
    run::<TinyGenRetireRecAllocator>(&ops);
    run::<TinyIndexRecAllocator>(&ops);
    run::<LinkLineRecAllocator>(&ops);
}
