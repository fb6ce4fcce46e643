//! Random operation sequences on derived allocators, compared with a model:
//! a `HashMap` from id bits to value, the dense order as a `Vec`, and a
//! reference FIFO slot allocator (with `min_free` and the exhaustion policy)
//! that predicts every id issued. Ids are picked live, stale, or forged from
//! raw bits. After every operation the allocator passes `check_invariants()`
//! and holds exactly the model; under `retire` no id is ever issued twice.
//!
//! The first input byte picks one of several configurations, chosen so that
//! retirement, wrapping, a full table and a free list whose links move out
//! of the vacant slots happen within a few operations.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use idtable::{IdBits, SoaAllocator};
use libfuzzer_sys::fuzz_target;

/// An over-aligned column value: its column's offset in the shared buffer
/// needs padding, and moves when the buffer grows.
#[repr(align(32))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aligned(u8);

/// The model's copy of one record.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Val {
    key: u64,
    label: String,
    small: u8,
}

fn val(key: u64) -> Val {
    Val {
        key,
        label: format!("v{key}"),
        small: key as u8,
    }
}

/// How an operation names an id.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Sel {
    /// The live id at dense index `n % len`.
    Live(u16),
    /// The `n`-th most recently removed id.
    Dead(u16),
    /// Any bit pattern (truncated to the id's width).
    Forged(u64),
    /// A live or dead id with its generation bumped by `delta`.
    Near(u16, u8),
}

#[derive(Arbitrary, Debug, Clone)]
enum Op {
    Insert(u64),
    TryInsert(u64),
    InsertWithId(u64),
    Extend(Vec<u64>),
    Remove(Sel),
    RemoveMany(Vec<Sel>),
    Get(Sel),
    SetKey(Sel, u64),
    SetPair(Sel, Sel, u64),
    Retain(u8, u8),
    SortByKey,
    SortByDesc,
    XorColumns(u64),
    Clear,
    DrainTake(u8),
    IntoIterTake(u8),
    CloneSwap,
    ShrinkToFit,
    Reserve(u8),
    Iterate,
}

/// The reference allocator, shared with the model tests: dense order,
/// values, and the FIFO slot rules.
#[path = "../../tests/support/fifo_model.rs"]
mod fifo_model;

type Model = fifo_model::FifoModel<Val>;

/// The id bits a selector names in the model's current state.
trait Resolve {
    fn resolve(&self, sel: Sel) -> u64;
}

impl Resolve for Model {
    fn resolve(&self, sel: Sel) -> u64 {
        match sel {
            Sel::Live(n) if !self.dense.is_empty() => self.dense[usize::from(n) % self.dense.len()],
            Sel::Dead(n) if !self.dead.is_empty() => {
                self.dead[self.dead.len() - 1 - usize::from(n) % self.dead.len()]
            }
            Sel::Near(n, delta) => {
                let base = self.resolve(if n % 2 == 0 {
                    Sel::Live(n / 2)
                } else {
                    Sel::Dead(n / 2)
                });
                base.wrapping_add(u64::from(delta) << self.index_bits) & self.mask()
            }
            Sel::Forged(bits) => bits & self.mask(),
            _ => 1 << self.index_bits, // slot 0, generation 1
        }
    }
}

macro_rules! configuration {
    ($module:ident, $($soa:tt)*) => {
        mod $module {
            use super::*;

            #[derive(SoaAllocator, Debug, Clone, PartialEq)]
            #[soa($($soa)*)]
            pub struct Rec {
                pub key: u64,
                pub label: String,
                pub unit: (),
                pub aligned: Aligned,
                pub small: u8,
            }

            impl From<Val> for Rec {
                fn from(v: Val) -> Rec {
                    Rec { key: v.key, label: v.label, unit: (), aligned: Aligned(v.small), small: v.small }
                }
            }

            impl From<Rec> for Val {
                fn from(r: Rec) -> Val {
                    assert_eq!(r.aligned, Aligned(r.small), "fields of one row disagree");
                    Val { key: r.key, label: r.label, small: r.small }
                }
            }

            fn bits(id: RecId) -> u64 {
                id.to_bits().to_u64()
            }

            fn forge(bits: u64) -> Option<RecId> {
                RecId::from_bits(IdBits::from_u64_truncating(bits))
            }

            fn check(a: &RecAllocator, m: &Model) {
                a.check_invariants();
                assert!(m.wrap || !m.reissued, "retire issued an id twice");
                assert_eq!(a.len(), m.dense.len(), "len");
                let ids: Vec<u64> = a.ids().iter().map(|&id| bits(id)).collect();
                assert_eq!(ids, m.dense, "dense order");
                let cols = a.columns();
                assert_eq!(cols.aligned.as_ptr() as usize % 32, 0, "over-aligned column misaligned");
                assert_eq!(cols.key.len(), a.len());
                assert_eq!(cols.label.len(), a.len());
                assert_eq!(cols.unit.len(), a.len());
                for (d, &b) in m.dense.iter().enumerate() {
                    let want = &m.values[&b];
                    assert_eq!((cols.key[d], &cols.label[d], cols.small[d]), (want.key, &want.label, want.small));
                    assert_eq!(cols.aligned[d], Aligned(want.small), "row {d}");
                }
            }

            /// `bits` resolves exactly as the model says, through every lookup.
            fn check_id(a: &mut RecAllocator, m: &Model, bits: u64) {
                let Some(id) = forge(bits) else {
                    assert_eq!(bits >> m.index_bits, 0, "from_bits rejected a non-zero generation");
                    return;
                };
                let want = m.values.get(&bits);
                assert_eq!(a.contains(id), want.is_some(), "contains({id:?})");
                assert_eq!(a.get(id).map(|r| Val::from(r.to_owned())).as_ref(), want, "get({id:?})");
                assert_eq!(a.get_mut(id).is_some(), want.is_some(), "get_mut({id:?})");
                let dense = m.dense.iter().position(|&b| b == bits);
                assert_eq!(a.dense_index(id), dense, "dense_index({id:?})");
            }

            fn insert_value(a: &mut RecAllocator, m: &mut Model, key: u64, try_it: bool) {
                let v = val(key);
                match m.next_id() {
                    Some(_) => {
                        let id = if try_it {
                            a.try_insert(v.clone().into()).expect("model says there is room")
                        } else {
                            a.insert(v.clone().into())
                        };
                        m.insert(bits(id), v);
                    }
                    None => {
                        let err = a.try_insert(v.clone().into()).expect_err("model says full");
                        assert!(err.to_string().contains("id table full"), "{err}");
                        assert_eq!(Val::from(err.into_inner()), v, "the value comes back");
                    }
                }
            }

            pub fn run(ops: &[Op], index_bits: u32, width: u32, min_free: usize, wrap: bool) {
                let mut a = RecAllocator::new();
                let mut m = Model::new(index_bits, width, min_free, wrap);
                for op in ops {
                    match op {
                        Op::Insert(k) => insert_value(&mut a, &mut m, *k, false),
                        Op::TryInsert(k) => insert_value(&mut a, &mut m, *k, true),
                        Op::InsertWithId(k) => {
                            if m.next_id().is_some() {
                                let mut offered = None;
                                let id = a.insert_with_id(|id| {
                                    offered = Some(id);
                                    Rec::from(val(*k ^ bits(id)))
                                });
                                assert_eq!(offered, Some(id), "insert_with_id offers the id it issues");
                                m.insert(bits(id), val(*k ^ bits(id)));
                            }
                        }
                        Op::Extend(keys) => {
                            let n = m.room(keys.len());
                            let vs: Vec<Val> = keys[..n].iter().map(|&k| val(k)).collect();
                            a.extend(vs.iter().cloned().map(Rec::from));
                            let issued: Vec<u64> = a.ids()[a.len() - n..].iter().map(|&id| bits(id)).collect();
                            for (b, v) in issued.into_iter().zip(vs) {
                                m.insert(b, v);
                            }
                        }
                        Op::Remove(sel) => {
                            let b = m.resolve(*sel);
                            let got = forge(b).and_then(|id| a.remove(id)).map(Val::from);
                            let want = if forge(b).is_some() { m.remove(b) } else { None };
                            assert_eq!(got, want, "remove({b:#x})");
                        }
                        Op::RemoveMany(sels) => {
                            let ids: Vec<_> = sels.iter().filter_map(|sel| forge(m.resolve(*sel))).collect();
                            let listed: Vec<u64> = ids.iter().map(|&id| bits(id)).collect();
                            let got = a.remove_many(ids);
                            assert_eq!(got, m.remove_many(&listed), "remove_many({listed:x?})");
                        }
                        Op::Get(sel) => {
                            let b = m.resolve(*sel);
                            check_id(&mut a, &m, b);
                        }
                        Op::SetKey(sel, k) => {
                            let b = m.resolve(*sel);
                            if let Some(r) = forge(b).and_then(|id| a.get_mut(id)) {
                                *r.key = *k;
                                *r.small = *k as u8;
                                *r.aligned = Aligned(*k as u8);
                                let v = m.values.get_mut(&b).expect("get_mut resolved a dead id");
                                v.key = *k;
                                v.small = *k as u8;
                            } else {
                                assert!(!m.values.contains_key(&b));
                            }
                        }
                        Op::SetPair(x, y, k) => {
                            let (bx, by) = (m.resolve(*x), m.resolve(*y));
                            let ok = bx != by && m.values.contains_key(&bx) && m.values.contains_key(&by);
                            match (forge(bx), forge(by)) {
                                (Some(ix), Some(iy)) => match a.get_disjoint_mut([ix, iy]) {
                                    Some([rx, ry]) => {
                                        assert!(ok, "get_disjoint_mut resolved {bx:#x}, {by:#x}");
                                        *rx.key = *k;
                                        *ry.key = k.wrapping_add(1);
                                        m.values.get_mut(&bx).unwrap().key = *k;
                                        m.values.get_mut(&by).unwrap().key = k.wrapping_add(1);
                                    }
                                    None => assert!(!ok, "get_disjoint_mut refused {bx:#x}, {by:#x}"),
                                },
                                _ => assert!(!ok),
                            }
                        }
                        Op::Retain(md, r) => {
                            let md = u64::from(*md).max(1);
                            let r = u64::from(*r) % md;
                            let mut removed = Vec::new();
                            a.retain(|id, row| {
                                let keep = *row.key % md != r;
                                if keep {
                                    *row.key = row.key.wrapping_add(1);
                                } else {
                                    removed.push(bits(id));
                                }
                                keep
                            });
                            // Model: visit dense order; the kept rows keep their order.
                            let expect_removed: Vec<u64> =
                                m.dense.iter().copied().filter(|b| m.values[b].key % md == r).collect();
                            m.retain(|v| {
                                let keep = v.key % md != r;
                                if keep {
                                    v.key = v.key.wrapping_add(1);
                                }
                                keep
                            });
                            assert_eq!(removed, expect_removed, "retain removal order");
                        }
                        Op::SortByKey => {
                            a.sort_by_key(|r| (*r.key, r.label.clone()));
                            let values = &m.values;
                            m.dense.sort_by_key(|b| (values[b].key, values[b].label.clone()));
                        }
                        Op::SortByDesc => {
                            a.sort_by(|x, y| y.small.cmp(x.small));
                            let values = &m.values;
                            m.dense.sort_by(|p, q| values[q].small.cmp(&values[p].small));
                        }
                        Op::XorColumns(x) => {
                            let cols = a.columns_mut();
                            for k in cols.key.iter_mut() {
                                *k ^= x;
                            }
                            for b in &m.dense {
                                m.values.get_mut(b).unwrap().key ^= x;
                            }
                        }
                        Op::Clear => {
                            a.clear();
                            m.clear();
                        }
                        Op::DrainTake(n) => {
                            let mut drain = a.drain();
                            assert_eq!(drain.len(), m.dense.len());
                            for _ in 0..*n {
                                let got = drain.next().map(|(id, r)| (bits(id), Val::from(r)));
                                assert_eq!(got, m.pop(), "drain order");
                            }
                            drop(drain);
                            m.clear();
                        }
                        Op::IntoIterTake(n) => {
                            // Consume a clone; the original must be untouched.
                            let mut it = a.clone().into_iter();
                            assert_eq!(it.len(), m.dense.len());
                            for k in 0..usize::from(*n).min(m.dense.len()) {
                                let (id, r) = it.next().unwrap();
                                let b = m.dense[m.dense.len() - 1 - k];
                                assert_eq!((bits(id), Val::from(r)), (b, m.values[&b].clone()));
                            }
                        }
                        Op::CloneSwap => {
                            let c = a.clone();
                            check(&c, &m);
                            a = c;
                        }
                        Op::ShrinkToFit => a.shrink_to_fit(),
                        Op::Reserve(n) => {
                            a.reserve(usize::from(*n));
                            assert!(a.capacity() >= a.len() + usize::from(*n));
                        }
                        Op::Iterate => {
                            let it = a.iter();
                            assert_eq!(it.len(), m.dense.len());
                            for ((id, r), &b) in it.zip(&m.dense) {
                                assert_eq!(bits(id), b);
                                assert_eq!(Val::from(r.to_owned()), m.values[&b]);
                            }
                        }
                    }
                    check(&a, &m);
                    // A few ids of each kind resolve exactly as the model says.
                    for sel in [Sel::Live(7), Sel::Dead(0), Sel::Dead(3), Sel::Near(1, 1)] {
                        let b = m.resolve(sel);
                        check_id(&mut a, &m, b);
                    }
                }
                for b in m.dead.clone() {
                    check_id(&mut a, &m, b);
                }
                // Every value is dropped exactly once here (the `String`s are
                // checked by the address sanitizer).
                drop(a);
            }
        }
    };
}

configuration!(default_layout,);
configuration!(three_generations_wrap, id = idtable::Id32<30>, min_free = 2, on_exhausted = wrap);
configuration!(seven_generations_retire, id = idtable::Id32<29>);
configuration!(three_indices, id = idtable::Id32<2>, min_free = 100);
configuration!(seven_indices_min_free, id = idtable::Id64<3>, min_free = 2);
configuration!(id24_8_min_free, id = idtable::Id24_8, min_free = 3);
configuration!(one_generation, id = idtable::Id32<31>, min_free = 1);
// 31 indices: the free list's links leave the vacant slots past 15 slots.
configuration!(links_leave_the_slots, id = idtable::Id32<5>, min_free = 4);

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    match which % 8 {
        0 => default_layout::run(&ops, 32, 64, 0, false),
        1 => three_generations_wrap::run(&ops, 30, 32, 2, true),
        2 => seven_generations_retire::run(&ops, 29, 32, 0, false),
        3 => three_indices::run(&ops, 2, 32, 100, false),
        4 => seven_indices_min_free::run(&ops, 3, 64, 2, false),
        5 => id24_8_min_free::run(&ops, 24, 32, 3, false),
        6 => one_generation::run(&ops, 31, 32, 1, false),
        _ => links_leave_the_slots::run(&ops, 5, 32, 4, false),
    }
});
