//! Field options: `#[soa(split)]`, `#[soa(nested)]` (composing),
//! `#[soa(align = N)]` on fields and structs, `#[soa(parts_only)]`, and
//! `#[soa_attr(..)]`. Every operation of an allocator gives the same answers
//! as on the same struct declared without them (a model test), while the
//! columns are laid out as asked.

use std::cell::Cell;
use std::rc::Rc;

use idtable::columns::{SplitColumns, SplitColumnsMut};
use idtable::{RowRanges, SoaAllocator, SoaMap};
use proptest::prelude::*;

#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq, Default)]
#[soa(parts_only)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Nested inside nested, and a split array inside a nested struct.
#[derive(SoaAllocator, Clone, Debug, PartialEq, Default)]
#[soa(parts_only)]
pub struct Body {
    #[soa(nested)]
    pub pos: V3,
    #[soa(split)]
    pub spin: [i16; 2],
    pub name: String,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(align = 32)]
pub struct Shaped {
    #[soa(nested)]
    pub body: Body,
    #[soa(split, align = 64)]
    pub vel: [f32; 3],
    #[soa(align = 128)]
    pub heat: f64,
    pub team: u8,
}

/// The same data, one column per field.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Flat {
    pub body: Body,
    pub vel: [f32; 3],
    pub heat: f64,
    pub team: u8,
}

fn shaped(n: u32) -> Shaped {
    let f = n as f32;
    Shaped {
        body: Body {
            pos: V3 {
                x: f,
                y: f + 0.5,
                z: -f,
            },
            spin: [n as i16, -(n as i16)],
            name: format!("b{n}"),
        },
        vel: [f * 2.0, 1.0, f * 3.0],
        heat: f64::from(n) / 4.0,
        team: (n % 7) as u8,
    }
}

fn flat(s: &Shaped) -> Flat {
    Flat {
        body: s.body.clone(),
        vel: s.vel,
        heat: s.heat,
        team: s.team,
    }
}

/// A row of the shaped allocator, read through its views, as the flat
/// struct.
fn seen(r: ShapedRef<'_>) -> Flat {
    Flat {
        body: Body {
            pos: V3 {
                x: *r.body.pos.x,
                y: *r.body.pos.y,
                z: *r.body.pos.z,
            },
            spin: [*r.body.spin[0], *r.body.spin[1]],
            name: r.body.name.clone(),
        },
        vel: r.vel.map(|v| *v),
        heat: *r.heat,
        team: *r.team,
    }
}

#[test]
fn views_and_columns_have_the_shapes_asked_for() {
    let mut a = ShapedAllocator::new();
    let ids: Vec<ShapedId> = (0..10).map(|n| a.insert(shaped(n))).collect();
    let cols: ShapedColumns<'_> = a.columns();
    // Nested: the nested struct's own views, down to plain slices.
    let body: BodyColumns<'_> = cols.body;
    let pos: V3Columns<'_> = body.pos;
    let xs: &[f32] = pos.x;
    assert_eq!(xs[3], 3.0);
    // Split: one column per element, a type of its own.
    let vel: SplitColumns<'_, f32, 3> = cols.vel;
    let spin: SplitColumns<'_, i16, 2> = body.spin;
    let (vel, spin): ([&[f32]; 3], [&[i16]; 2]) = (vel.into_columns(), spin.into_columns());
    assert_eq!((vel[0][4], vel[2][4], spin[1][4]), (8.0, 12.0, -4));
    // A split column holds only its element: one `f32` per row.
    assert_eq!(vel[0].len(), 10);
    let r: ShapedRef<'_> = a.get(ids[5]).unwrap();
    let _: V3Ref<'_> = r.body.pos;
    let _: [&f32; 3] = r.vel;
    assert_eq!(r.to_owned(), shaped(5));
    let m: ShapedMut<'_> = a.get_mut(ids[5]).unwrap();
    *m.body.pos.y = 100.0;
    *m.vel[1] = -1.0;
    m.body.name.push('!');
    let got = a.remove(ids[5]).unwrap();
    assert_eq!(got.body.pos.y, 100.0);
    assert_eq!(got.vel, [10.0, -1.0, 15.0]);
    assert_eq!(got.body.name, "b5!");
    a.check_invariants();
}

#[test]
fn the_loop_over_one_split_or_nested_component_reads_only_its_column() {
    let mut a: ShapedAllocator = (0..100).map(shaped).collect();
    let cols = a.columns_mut();
    for (x, vx) in cols.body.pos.x.iter_mut().zip(cols.vel.column(0).iter()) {
        *x += vx;
    }
    assert_eq!(a.columns().body.pos.x[10], 30.0);
    // The x column and the y column are separate arrays of `f32`.
    let pos = a.columns().body.pos;
    let (x0, y0) = (pos.x.as_ptr() as usize, pos.y.as_ptr() as usize);
    assert!(x0.abs_diff(y0) >= 100 * 4, "x and y are not interleaved");
}

/// A split field's columns, at the top and inside a nested struct, shared
/// and mutable: element `k`'s column is `column(k)`, all of them
/// `into_columns()`; a view's row ranges cut them with the other columns.
#[test]
fn split_columns_are_indexed_by_element() {
    let mut a: ShapedAllocator = (0..6).map(shaped).collect();

    // Shared: `Copy`, element columns as slices.
    let cols = a.columns();
    let vel: SplitColumns<'_, f32, 3> = cols.vel;
    let again = vel;
    assert_eq!(vel.column(0), &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!(again.column(2)[3], 9.0);
    let [vx, vy, vz] = vel.into_columns();
    assert_eq!((vx.len(), vy[5], vz[1]), (6, 1.0, 3.0));
    let spin: SplitColumns<'_, i16, 2> = cols.body.spin;
    assert_eq!(spin.column(1), &[0, -1, -2, -3, -4, -5]);
    // Printed and compared as the array of columns.
    assert_eq!(
        format!("{:?}", cols.get(4..).unwrap().body.spin),
        "[[4, 5], [-4, -5]]"
    );
    assert!(cols.vel == again);
    assert!(cols.vel != cols.get(1..).unwrap().vel);

    // Row ranges of the view cut every element column at the same rows.
    let (head, tail) = cols.split_at(2);
    assert_eq!((head.vel.column(1).len(), tail.vel.column(1).len()), (2, 4));
    assert_eq!(tail.body.spin.column(0), &[2, 3, 4, 5]);
    let firsts: Vec<f32> = cols.chunks(4).map(|c| c.vel.column(0)[0]).collect();
    assert_eq!(firsts, [0.0, 8.0]);
    let middle = cols.get(1..3).unwrap();
    assert_eq!(
        middle.vel.into_columns(),
        [&[2.0, 4.0][..], &[1.0; 2], &[3.0, 6.0]]
    );
    let row = cols.row(5);
    assert_eq!((row.vel, row.body.spin), ([&10.0, &1.0, &15.0], [&5, &-5]));
    let mut sum = 0.0;
    cols.for_each(|r| sum += *r.vel[0] + *r.vel[2]);
    assert_eq!(sum, 75.0);

    // Mutable: one element column, several at once, all for the view's
    // lifetime; shared and reborrowed copies.
    let mut cols = a.columns_mut();
    let vel: &mut SplitColumnsMut<'_, f32, 3> = &mut cols.vel;
    vel.column_mut(1).fill(-1.0);
    let [vx, _, vz] = vel.columns_mut();
    vx.copy_from_slice(vz);
    assert_eq!(vel.column(0), vel.as_columns().column(2));
    vel.reborrow().into_columns()[2][0] = 100.0;
    cols.body.spin.column_mut(0)[5] = 50;
    let (_, tail) = cols.reborrow().split_at_mut(4);
    let [_, spin_y] = tail.body.spin.into_columns();
    spin_y.fill(7);
    let [vx, vy, vz] = cols.vel.into_columns();
    vx[1] += vy[1] + vz[1];
    let cols = a.columns();
    assert_eq!(cols.vel.column(0), &[0.0, 5.0, 6.0, 9.0, 12.0, 15.0]);
    assert_eq!(cols.vel.column(1), &[-1.0; 6]);
    assert_eq!(cols.vel.column(2), &[100.0, 3.0, 6.0, 9.0, 12.0, 15.0]);
    assert_eq!(cols.body.spin.column(0), &[0, 1, 2, 3, 4, 50]);
    assert_eq!(cols.body.spin.column(1), &[0, -1, -2, -3, 7, 7]);

    // The ids and columns, cut together.
    let ids = a.ids().to_vec();
    for (chunk_ids, mut chunk) in a.ids_and_columns_mut().chunks_mut(4) {
        for (id, v) in chunk_ids.iter().zip(chunk.vel.column_mut(1)) {
            *v = id.index() as f32;
        }
    }
    let (id, row) = a.ids_and_columns_mut().row_mut(3);
    assert_eq!((*id, *row.vel[1]), (ids[3], 3.0));
    *row.vel[1] = 0.5;
    assert_eq!(a.get(ids[3]).unwrap().vel, [&9.0, &0.5, &9.0]);
    a.check_invariants();
}

/// Every column starts at a multiple of its alignment at every capacity:
/// growing one row at a time, reserving, shrinking, clearing, empty.
#[test]
fn every_column_start_is_aligned_at_every_capacity() {
    fn check(a: &ShapedAllocator) {
        let c = a.columns();
        let at = |p: *const u8, align: usize, what: &str| {
            assert_eq!(
                p as usize % align,
                0,
                "{what} at capacity {} (len {})",
                a.capacity(),
                a.len()
            );
        };
        // The struct's `align = 32` reaches every column, nested ones too.
        at(c.body.pos.x.as_ptr().cast(), 32, "pos.x");
        at(c.body.pos.y.as_ptr().cast(), 32, "pos.y");
        at(c.body.pos.z.as_ptr().cast(), 32, "pos.z");
        at(c.body.spin.column(0).as_ptr().cast(), 32, "spin[0]");
        at(c.body.spin.column(1).as_ptr().cast(), 32, "spin[1]");
        at(c.body.name.as_ptr().cast(), 32, "name");
        at(c.team.as_ptr().cast(), 32, "team");
        for (k, v) in c.vel.into_columns().iter().enumerate() {
            at(v.as_ptr().cast(), 64, &format!("vel[{k}]"));
        }
        at(c.heat.as_ptr().cast(), 128, "heat");
    }
    let mut a = ShapedAllocator::new();
    check(&a);
    let n = if cfg!(miri) { 20 } else { 600 };
    let mut ids = Vec::new();
    for i in 0..n {
        ids.push(a.insert(shaped(i)));
        check(&a);
    }
    a.reserve(3 * n as usize);
    check(&a);
    for id in ids.drain(..).step_by(2) {
        a.remove(id);
    }
    a.shrink_to_fit();
    check(&a);
    a.clear();
    check(&a);
    a.shrink_to_fit();
    check(&a);
    let b = ShapedAllocator::with_capacity(7);
    check(&b);
}

#[derive(Debug, Clone)]
enum Op {
    Insert(u32),
    Remove(usize),
    Modify(usize, f32),
    Retain(u8),
    SortByHeat,
    Drain,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..1000).prop_map(Op::Insert),
        3 => any::<usize>().prop_map(Op::Remove),
        2 => (any::<usize>(), -10.0f32..10.0).prop_map(|(i, v)| Op::Modify(i, v)),
        1 => (0u8..7).prop_map(Op::Retain),
        1 => Just(Op::SortByHeat),
        1 => Just(Op::Drain),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 128 }, failure_persistence: None, ..ProptestConfig::default() })]

    /// The shaped allocator answers every operation exactly as the flat
    /// one: the same ids, rows, dense order, removed values and drained
    /// rows.
    #[test]
    fn shaped_and_flat_allocators_agree(ops in prop::collection::vec(op(), 1..60)) {
        let mut s = ShapedAllocator::new();
        let mut f = FlatAllocator::new();
        let mut ids: Vec<(ShapedId, FlatId)> = Vec::new();
        for op in ops {
            match op {
                Op::Insert(n) => {
                    let value = shaped(n);
                    let fid = f.insert(flat(&value));
                    let sid = s.insert(value);
                    prop_assert_eq!(sid.to_bits(), fid.to_bits());
                    ids.push((sid, fid));
                }
                Op::Remove(i) if !ids.is_empty() => {
                    let (sid, fid) = ids.swap_remove(i % ids.len());
                    let got = s.remove(sid).map(|v| flat(&v));
                    prop_assert_eq!(got, f.remove(fid));
                }
                Op::Modify(i, v) if !ids.is_empty() => {
                    let (sid, fid) = ids[i % ids.len()];
                    if let (Some(a), Some(b)) = (s.get_mut(sid), f.get_mut(fid)) {
                        *a.body.pos.z = v;
                        b.body.pos.z = v;
                        *a.vel[2] = -v;
                        b.vel[2] = -v;
                    }
                }
                Op::Retain(team) => {
                    s.retain(|_, r| *r.team != team);
                    f.retain(|_, r| *r.team != team);
                }
                Op::SortByHeat => {
                    s.sort_by(|a, b| b.heat.total_cmp(a.heat).then(a.body.name.cmp(b.body.name)));
                    f.sort_by(|a, b| b.heat.total_cmp(a.heat).then(a.body.name.cmp(&b.body.name)));
                }
                Op::Drain => {
                    let a: Vec<(u64, Flat)> = s.drain().map(|(id, v)| (id.to_bits(), flat(&v))).collect();
                    let b: Vec<(u64, Flat)> = f.drain().map(|(id, v)| (id.to_bits(), v)).collect();
                    prop_assert_eq!(a, b);
                    ids.clear();
                }
                _ => {}
            }
            s.check_invariants();
            prop_assert_eq!(s.len(), f.len());
            let rows: Vec<(u64, Flat)> = s.iter().map(|(id, r)| (id.to_bits(), seen(r))).collect();
            let want: Vec<(u64, Flat)> = f.iter().map(|(id, r)| (id.to_bits(), r.to_owned())).collect();
            prop_assert_eq!(rows, want);
            for &(sid, fid) in &ids {
                prop_assert_eq!(s.get(sid).map(|r| r.to_owned()).as_ref().map(flat), f.get(fid).map(|r| r.to_owned()));
            }
        }
        let cloned = s.clone();
        prop_assert!(cloned == s);
        let owned: Vec<Flat> = s.into_iter().map(|(_, v)| flat(&v)).collect();
        prop_assert_eq!(owned, f.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
    }
}

#[test]
fn iteration_extend_and_debug_see_the_nested_views() {
    let mut a = ShapedAllocator::new();
    a.extend((0..3).map(shaped));
    let names: Vec<&String> = a.iter().map(|(_, r)| r.body.name).collect();
    assert_eq!(names, ["b0", "b1", "b2"]);
    for (_, m) in a.iter_mut() {
        *m.body.spin[0] += 10;
    }
    for (_, m) in &mut a {
        *m.team += 1;
    }
    assert_eq!(a.columns().body.spin.column(0), &[10, 11, 12]);
    let text = format!("{:?}", a.get(a.ids()[1]).unwrap());
    assert_eq!(
        text,
        "ShapedRef { body: BodyRef { pos: V3Ref { x: 1.0, y: 1.5, z: -1.0 }, spin: [11, -1], \
         name: \"b1\" }, vel: [2.0, 1.0, 3.0], heat: 0.25, team: 2 }"
    );
    let columns = format!("{:?}", a.columns().body.pos);
    assert_eq!(
        columns,
        "V3Columns { x: [0.0, 1.0, 2.0], y: [0.5, 1.5, 2.5], z: [-0.0, -1.0, -2.0] }"
    );
    let [x, y] = a.get_disjoint_mut([a.ids()[0], a.ids()[2]]).unwrap();
    std::mem::swap(x.body.pos.x, y.body.pos.x);
    assert_eq!(a.columns().body.pos.x, &[2.0, 1.0, 0.0]);
}

/// A `parts_only` struct is a component on its own: a `SoaMap` of it,
/// and of a struct that nests it.
#[test]
fn parts_only_structs_are_components_and_nest() {
    let mut bodies = ShapedAllocator::new();
    let id = bodies.insert(shaped(1));
    let mut extra: SoaMap<ShapedId, Body> = SoaMap::new();
    extra.insert(id, shaped(2).body);
    let b: BodyRef<'_> = extra.get(id).unwrap();
    assert_eq!((*b.pos.x, b.name.as_str()), (2.0, "b2"));
    *extra.get_mut(id).unwrap().pos.z = 9.0;
    assert_eq!(extra.columns().pos.z, &[9.0]);
    let (keys, mut cols) = extra.keys_and_columns_mut();
    cols.spin.column_mut(1)[0] = 77;
    assert_eq!(keys, &[id]);
    assert_eq!(extra.remove(id).map(|b| b.spin), Some([2, 77]));
}

pub struct Counted(Rc<Cell<usize>>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

#[derive(SoaAllocator)]
#[soa(parts_only)]
pub struct Held {
    pub a: Counted,
    #[soa(split)]
    pub b: [Counted; 2],
}

#[derive(SoaAllocator)]
pub struct Holder {
    #[soa(nested)]
    pub held: Held,
    #[soa(split)]
    pub more: [Counted; 3],
}

/// Split and nested columns drop every value once: removed, drained,
/// cleared, or dropped with the allocator.
#[test]
fn split_and_nested_values_are_dropped_once() {
    let drops = Rc::new(Cell::new(0));
    let c = || Counted(drops.clone());
    let make = || Holder {
        held: Held {
            a: c(),
            b: [c(), c()],
        },
        more: [c(), c(), c()],
    };
    let mut a = HolderAllocator::new();
    let ids: Vec<HolderId> = (0..10).map(|_| a.insert(make())).collect();
    drop(a.remove(ids[0]));
    assert_eq!(drops.get(), 6);
    a.retain(|id, _| id != ids[1]);
    assert_eq!(drops.get(), 12);
    assert_eq!(a.drain().take(2).count(), 2); // the rest drop with the iterator
    assert_eq!(drops.get(), 10 * 6);
    for _ in 0..5 {
        a.insert(make());
    }
    a.clear();
    assert_eq!(drops.get(), 15 * 6);
    a.insert(make());
    drop(a);
    assert_eq!(drops.get(), 16 * 6);
}

#[derive(SoaAllocator, Debug)]
#[soa_attr(Ref, Columns, derive(PartialEq))]
#[soa_attr(Id, doc = "The handle of a tagged value.")]
#[soa_attr(Mut, allow(dead_code))]
#[soa_attr(ColumnsMut, must_use = "columns do nothing unless read or written")]
pub struct Tagged {
    pub tag: u32,
    #[soa(split)]
    pub pair: [u8; 2],
}

#[test]
fn user_attributes_reach_their_generated_types() {
    let mut a = TaggedAllocator::new();
    let x = a.insert(Tagged {
        tag: 1,
        pair: [2, 3],
    });
    let y = a.insert(Tagged {
        tag: 1,
        pair: [2, 3],
    });
    assert!(a.get(x).unwrap() == a.get(y).unwrap());
    let (first, second) = a.columns().split_at(1);
    assert!(first == second);
}

#[cfg(feature = "serde")]
mod saved {
    use idtable::{SoaAllocator, SoaMap};
    use serde_json::json;

    #[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
    #[soa(parts_only, serde)]
    pub struct P2 {
        pub x: f32,
        pub y: f32,
    }

    #[derive(SoaAllocator, Clone, Debug, PartialEq)]
    #[soa(serde, align = 64)]
    pub struct Mover {
        #[soa(nested)]
        pub pos: P2,
        #[soa(split)]
        pub vel: [f32; 2],
        pub name: String,
    }

    /// The same struct, unshaped: the split array saves the same.
    #[derive(SoaAllocator, Clone, Debug, PartialEq)]
    #[soa(serde)]
    pub struct Plain {
        pub vel: [f32; 2],
    }

    #[derive(SoaAllocator, Clone, Debug, PartialEq)]
    #[soa(serde)]
    pub struct Split {
        #[soa(split)]
        pub vel: [f32; 2],
    }

    fn movers() -> (MoverAllocator, Vec<MoverId>) {
        let mut a = MoverAllocator::new();
        let ids = (0..4)
            .map(|i| {
                let f = i as f32;
                a.insert(Mover {
                    pos: P2 { x: f, y: -f },
                    vel: [f * 2.0, 0.5],
                    name: format!("m{i}"),
                })
            })
            .collect();
        (a, ids)
    }

    #[test]
    fn shaped_allocators_round_trip_through_json_and_postcard() {
        let (mut a, ids) = movers();
        a.remove(ids[1]);
        let text = serde_json::to_value(&a).unwrap();
        assert_eq!(
            text["columns"],
            json!({
                "pos": { "x": [0.0, 3.0, 2.0], "y": [-0.0, -3.0, -2.0] },
                "vel": [[0.0, 0.5], [6.0, 0.5], [4.0, 0.5]],
                "name": ["m0", "m3", "m2"],
            })
        );
        let back: MoverAllocator = serde_json::from_value(text).unwrap();
        assert!(back == a);
        assert_eq!(back.columns().pos.x.as_ptr() as usize % 64, 0);
        let bytes = postcard::to_allocvec(&a).unwrap();
        let back: MoverAllocator = postcard::from_bytes(&bytes).unwrap();
        assert!(back == a);
        assert_eq!(back.get(ids[3]).unwrap().to_owned().vel, [6.0, 0.5]);
        // The columns view saves the same columns.
        assert_eq!(
            serde_json::to_value(a.columns()).unwrap(),
            serde_json::to_value(&a).unwrap()["columns"]
        );
    }

    #[test]
    fn splitting_a_field_keeps_its_saved_form() {
        let mut plain = PlainAllocator::new();
        let mut split = SplitAllocator::new();
        for i in 0..3 {
            plain.insert(Plain {
                vel: [i as f32, 1.0],
            });
            split.insert(Split {
                vel: [i as f32, 1.0],
            });
        }
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            serde_json::to_string(&split).unwrap()
        );
        assert_eq!(
            postcard::to_allocvec(&plain).unwrap(),
            postcard::to_allocvec(&split).unwrap()
        );
        let back: SplitAllocator =
            postcard::from_bytes(&postcard::to_allocvec(&plain).unwrap()).unwrap();
        assert!(back == split);
    }

    /// Hostile input: an error, never a panic.
    #[test]
    fn bad_shaped_columns_are_errors() {
        let (a, _) = movers();
        let good = serde_json::to_value(&a).unwrap();
        let cases = [
            ("/columns/vel/1", json!([1.0])),
            ("/columns/vel/1", json!([1.0, 2.0, 3.0])),
            ("/columns/vel", json!([[1.0, 2.0]])),
            ("/columns/pos/x", json!([1.0])),
            ("/columns/pos", json!({ "x": [0.0, 1.0, 2.0, 3.0] })),
            ("/columns/pos", json!({ "x": [], "y": [], "z": [] })),
            ("/columns/pos", json!([[0.0, 1.0, 2.0, 3.0]])),
            ("/columns/pos", json!(3)),
        ];
        for (at, value) in cases {
            let mut bad = good.clone();
            *bad.pointer_mut(at).unwrap() = value.clone();
            let got = serde_json::from_value::<MoverAllocator>(bad);
            assert!(got.is_err(), "{at} = {value} was accepted");
        }
        let bytes = postcard::to_allocvec(&a).unwrap();
        for cut in 0..bytes.len() {
            assert!(postcard::from_bytes::<MoverAllocator>(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn maps_of_shaped_and_plain_values_save() {
        let (a, ids) = movers();
        let mut pos: SoaMap<MoverId, P2> = SoaMap::new();
        let mut heat: SoaMap<MoverId, f32> = SoaMap::new();
        pos.insert(ids[2], P2 { x: 1.0, y: 2.0 });
        heat.insert(ids[2], 0.5);
        let text = serde_json::to_value(&pos).unwrap();
        assert_eq!(text["columns"], json!({ "x": [1.0], "y": [2.0] }));
        let back: SoaMap<MoverId, P2> = serde_json::from_value(text).unwrap();
        assert!(back == pos);
        let text = serde_json::to_value(&heat).unwrap();
        assert_eq!(text["columns"], json!({ "value": [0.5] }));
        let back: SoaMap<MoverId, f32> = serde_json::from_value(text).unwrap();
        assert_eq!(back.get(ids[2]), Some(&0.5));
        drop(a);
    }
}

/// A nested generic struct and nothing else that names `T`: its type
/// argument need not be `'static` (the views ask it to outlive their
/// borrow only).
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Labels<T> {
    #[soa(nested)]
    pub tags: Pair<T>,
}

/// `Labels<&'t str>` for some text `'t` that is not `'static`.
fn labels(text: &str) -> LabelsAllocator<&str> {
    let mut a = LabelsAllocator::new();
    for (i, word) in text.split(' ').enumerate() {
        a.insert(Labels {
            tags: Pair {
                a: word,
                b: &text[i..],
            },
        });
    }
    a
}

#[test]
fn nested_generic_of_a_borrowed_type() {
    let text = String::from("one two three");
    let mut a = labels(&text);
    let ids = a.ids().to_vec();
    let row: LabelsRef<'_, &str> = a.get(ids[1]).unwrap();
    assert_eq!((*row.tags.a, *row.tags.b), ("two", "ne two three"));
    assert_eq!(
        row.to_owned().tags,
        Pair {
            a: "two",
            b: "ne two three"
        }
    );
    assert_eq!(a.columns().tags.a, ["one", "two", "three"]);
    a.columns_mut().for_each(|r| *r.tags.b = *r.tags.a);
    let mut words: SoaMap<LabelsId<&str>, Pair<&str>> = SoaMap::new();
    words.insert(
        ids[2],
        Pair {
            a: &text[..3],
            b: "",
        },
    );
    assert_eq!(words.get(ids[2]).map(|p| *p.a), Some("one"));
    assert_eq!(
        a.remove(ids[0]),
        Some(Labels {
            tags: Pair { a: "one", b: "one" }
        })
    );
    assert_eq!(format!("{a:?}").matches("three").count(), 2);
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn shaped_rows_and_column_chunks_run_in_parallel() {
        let mut a: ShapedAllocator = (0..5000).map(shaped).collect();
        a.par_iter_mut()
            .for_each(|(_, m)| *m.body.pos.x += *m.vel[0]);
        assert_eq!(a.columns().body.pos.x[7], 21.0);
        a.columns_mut().par_chunks_mut(256).for_each(|chunk| {
            for (y, v) in chunk.body.pos.y.iter_mut().zip(chunk.vel.column(2).iter()) {
                *y = *v;
            }
        });
        assert_eq!(a.columns().body.pos.y[9], 27.0);
        let sum: f32 = a.par_iter().map(|(_, r)| *r.vel[1]).sum();
        assert_eq!(sum, 5000.0);
    }

    #[test]
    fn nested_generic_of_a_borrowed_type_in_parallel() {
        let text = "a bb ccc dddd ".repeat(100);
        let mut a = labels(text.trim_end());
        a.par_iter_mut().for_each(|(_, r)| *r.tags.b = *r.tags.a);
        let total: usize = a.par_iter().map(|(_, r)| r.tags.b.len()).sum();
        assert_eq!(total, 1000);
        let ids: Vec<_> = (&a).into_par_iter().map(|(id, _)| id).collect();
        assert_eq!(ids, a.ids());
    }
}

/// Generic structs: a split array of a type parameter and a generic
/// length, and a nested generic struct.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(parts_only)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Track<T: Copy, const N: usize> {
    #[soa(split)]
    pub samples: [T; N],
    #[soa(nested)]
    pub range: Pair<T>,
}

#[test]
fn generic_split_and_nested_fields() {
    let mut tracks = TrackAllocator::<u16, 3>::new();
    let id = tracks.insert(Track {
        samples: [1, 2, 3],
        range: Pair { a: 1, b: 3 },
    });
    tracks.insert(Track {
        samples: [4, 5, 6],
        range: Pair { a: 4, b: 6 },
    });
    let cols = tracks.columns();
    assert_eq!(
        (cols.samples.column(2), cols.range.b),
        (&[3, 6][..], &[3, 6][..])
    );
    let row: TrackRef<'_, u16, 3> = tracks.get(id).unwrap();
    assert_eq!((*row.samples[1], *row.range.a), (2, 1));
    assert_eq!(row.to_owned().range, Pair { a: 1, b: 3 });
    let (first, rest) = tracks.columns_mut().split_at_mut(1);
    assert_eq!((first.len(), rest.range.a[0]), (1, 4));
    let copy = tracks.clone();
    assert!(copy == tracks);
    assert_eq!(tracks.remove(id).map(|t| t.samples), Some([1, 2, 3]));
}
