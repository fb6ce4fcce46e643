//! Row ranges of column views: `len`, `is_empty`, `split_at(_mut)`,
//! `chunks(_mut)`, `get(_mut)(range)`, `row(i)` / `row_mut(i)`, and with
//! rayon `par_chunks_mut`, on the columns of allocators and `SoaMap`s
//! (split and nested fields cut with the others), and on the `(ids,
//! columns)` pairs of `ids_and_columns_mut` / `keys_and_columns_mut`, the
//! ids cut in step.

use idtable::{RowRanges, SoaAllocator, SoaMap};

#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
#[soa(parts_only)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Boid {
    #[soa(nested)]
    pub pos: V2,
    #[soa(split)]
    pub vel: [f32; 2],
    pub team: u8,
}

fn boid(i: usize) -> Boid {
    let f = i as f32;
    Boid {
        pos: V2 { x: f, y: -f },
        vel: [f * 10.0, 1.0],
        team: (i % 3) as u8,
    }
}

fn boids(n: usize) -> BoidAllocator {
    (0..n).map(boid).collect()
}

#[test]
fn shared_columns_cut_every_column_at_the_same_rows() {
    let a = boids(10);
    let cols = a.columns();
    assert_eq!((cols.len(), cols.is_empty()), (10, false));
    let (left, right) = cols.split_at(4);
    assert_eq!((left.len(), right.len()), (4, 6));
    assert_eq!(
        (right.pos.x[0], right.vel.column(0)[0], right.team[0]),
        (4.0, 40.0, 1)
    );
    assert_eq!(left.pos.y.len(), 4);
    let row: BoidRef<'_> = right.row(2);
    assert_eq!((*row.pos.x, *row.vel[1], *row.team), (6.0, 1.0, 0));
    let middle = cols.get(3..7).unwrap();
    assert_eq!(middle.pos.x, &[3.0, 4.0, 5.0, 6.0]);
    assert_eq!(cols.get(..=1).unwrap().vel.column(0), &[0.0, 10.0]);
    assert!(cols.get(8..11).is_none());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = cols.get(5..4);
    assert!(backwards.is_none());
    assert!(cols.get(10..).unwrap().is_empty());
    let lens: Vec<usize> = cols.chunks(4).map(|c| c.len()).collect();
    assert_eq!(lens, [4, 4, 2]);
    let firsts: Vec<f32> = cols.chunks(4).rev().map(|c| c.pos.x[0]).collect();
    assert_eq!(firsts, [8.0, 4.0, 0.0]);
    assert_eq!(cols.chunks(3).len(), 4);
    let empty = BoidAllocator::new();
    assert!(empty.columns().is_empty());
    assert_eq!(empty.columns().chunks(4).count(), 0);
}

#[test]
fn mutable_columns_cut_into_disjoint_mutable_ranges() {
    let mut a = boids(10);
    let (mut left, mut right) = a.columns_mut().split_at_mut(5);
    left.pos.x[0] = 100.0;
    right.vel.column_mut(1)[0] = 7.0;
    // The view is kept across a `_mut` method by reborrowing it.
    let head = left.reborrow().get_mut(..2).unwrap();
    head.pos.y[1] = 55.0;
    assert_eq!(left.len(), 5);
    assert_eq!(left.as_columns().pos.y[1], 55.0);
    assert_eq!(*left.row(0).pos.x, 100.0);
    let (l, r) = left.as_columns().split_at(2);
    assert_eq!((l.len(), r.len()), (2, 3));
    assert_eq!(left.as_columns().chunks(2).count(), 3);
    assert_eq!(left.as_columns().get(4..).map(|c| c.len()), Some(1));
    let m: BoidMut<'_> = left.row_mut(4);
    *m.team = 9;
    for chunk in a.columns_mut().chunks_mut(3) {
        for (x, vx) in chunk.pos.x.iter_mut().zip(chunk.vel.column(0).iter()) {
            *x += vx;
        }
    }
    let cols = a.columns();
    assert_eq!(cols.pos.x[0], 100.0);
    assert_eq!(cols.pos.x[9], 99.0);
    assert_eq!(
        (cols.pos.y[1], cols.vel.column(1)[5], cols.team[4]),
        (55.0, 7.0, 9)
    );
    assert!(a.columns_mut().get_mut(3..11).is_none());
    let back: Vec<usize> = a
        .columns_mut()
        .chunks_mut(4)
        .rev()
        .map(|c| c.len())
        .collect();
    assert_eq!(back, [2, 4, 4]);
}

#[test]
fn ids_come_along_cut_in_step() {
    let mut a = boids(9);
    let ids = a.ids().to_vec();
    let pair = a.ids_and_columns_mut();
    assert_eq!((pair.len(), pair.is_empty()), (9, false));
    let (head, tail) = pair.split_at_mut(4);
    assert_eq!(head.0, &ids[..4]);
    assert_eq!(tail.0, &ids[4..]);
    assert_eq!(tail.1.pos.x[0], 4.0);
    let mut seen = Vec::new();
    for (chunk_ids, chunk) in a.ids_and_columns_mut().chunks_mut(4) {
        assert_eq!(chunk_ids.len(), chunk.len());
        for (id, team) in chunk_ids.iter().zip(chunk.team.iter_mut()) {
            *team = id.index() as u8;
            seen.push(*id);
        }
    }
    assert_eq!(seen, ids);
    assert_eq!(a.get(ids[7]).map(|b| *b.team), Some(7));
    let (id, row) = a.ids_and_columns_mut().row_mut(8);
    *row.pos.y = 0.5;
    assert_eq!(*id, ids[8]);
    assert_eq!(*a.get(ids[8]).unwrap().pos.y, 0.5);
    let range = a.ids_and_columns_mut().get_mut(2..5).unwrap();
    assert_eq!(range.0, &ids[2..5]);
    assert!(a.ids_and_columns_mut().get_mut(5..10).is_none());
}

#[test]
fn soa_map_columns_and_keys_cut_the_same_way() {
    let a = boids(6);
    let mut map: SoaMap<BoidId, Boid> = SoaMap::new();
    let mut heat: SoaMap<BoidId, f32> = SoaMap::new();
    for (i, &id) in a.ids().iter().enumerate() {
        map.insert(id, boid(i + 100));
        heat.insert(id, i as f32);
    }
    let (left, right) = map.columns_mut().split_at_mut(2);
    assert_eq!((left.len(), right.pos.x[0]), (2, 102.0));
    let (keys, columns) = map.keys_and_columns_mut().split_at_mut(3).1;
    assert_eq!(keys, &a.ids()[3..]);
    assert_eq!(columns.len(), 3);
    // A map of plain values: the columns are a slice, cut by the pair too.
    let mut total = 0.0;
    for (keys, values) in heat.keys_and_columns_mut().chunks_mut(4) {
        assert_eq!(keys.len(), values.len());
        total += values.iter().sum::<f32>();
    }
    assert_eq!(total, 15.0);
}

#[test]
#[should_panic(expected = "mid > len: split at 4 of 3 rows")]
fn split_past_the_last_row_panics() {
    let mut a = boids(3);
    let _ = a.columns_mut().split_at_mut(4);
}

#[test]
#[should_panic(expected = "row index 3 out of bounds (len 3)")]
fn a_row_past_the_last_panics() {
    let a = boids(3);
    let _ = a.columns().row(3);
}

#[test]
#[should_panic(expected = "chunk size must be non-zero")]
fn chunks_of_no_row_panic() {
    let a = boids(3);
    let _ = a.columns().chunks(0);
}

/// A struct with no field, or with only split arrays (which may have no
/// element), still knows its number of rows.
#[test]
fn views_of_structs_without_a_plain_field_know_their_length() {
    #[derive(SoaAllocator)]
    pub struct Marker {}
    #[derive(SoaAllocator)]
    pub struct Empty {
        #[soa(split)]
        pub none: [u8; 0],
    }
    let mut markers = MarkerAllocator::new();
    let mut empties = EmptyAllocator::new();
    for _ in 0..5 {
        markers.insert(Marker {});
        empties.insert(Empty { none: [] });
    }
    assert_eq!(markers.columns().len(), 5);
    assert_eq!(empties.columns().len(), 5);
    assert_eq!(empties.columns_mut().chunks_mut(2).count(), 3);
    assert_eq!(markers.columns().split_at(2).1.len(), 3);
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn par_chunks_mut_hands_each_range_to_one_thread() {
        let n = if cfg!(miri) { 40 } else { 100_000 };
        let mut a = boids(n);
        let chunks = a.columns_mut().par_chunks_mut(4096);
        assert_eq!(chunks.len(), n.div_ceil(4096));
        chunks.for_each(|c| {
            for (x, vx) in c.pos.x.iter_mut().zip(c.vel.column(0).iter()) {
                *x += vx;
            }
        });
        assert_eq!(a.columns().pos.x[n - 1], (n - 1) as f32 * 11.0);
        let ids = a.ids().to_vec();
        a.ids_and_columns_mut()
            .par_chunks_mut(1000)
            .for_each(|(ids, cols)| {
                for (id, team) in ids.iter().zip(cols.team.iter_mut()) {
                    *team = (id.index() % 250) as u8;
                }
            });
        assert_eq!(
            a.get(ids[n - 1]).map(|b| *b.team),
            Some(((n - 1) % 250) as u8)
        );
        let sum: usize = a.columns().par_chunks(333).map(|c| c.len()).sum();
        assert_eq!(sum, n);
    }
}

/// `for_each` of a view visits every row once, front to back, with the
/// row `row(i)` / `row_mut(i)` gives, for plain, nested, split and hidden
/// row-count columns; on a `SoaMap`'s columns; on the `(ids, columns)`
/// pairs; and on a range of rows.
#[test]
fn for_each_visits_each_row_once_in_order() {
    let mut a = boids(37);
    let mut seen = Vec::new();
    a.columns()
        .for_each(|b| seen.push((*b.pos.x, *b.vel[0], *b.team)));
    let want: Vec<_> = (0..37)
        .map(|i| {
            let b = a.columns().row(i);
            (*b.pos.x, *b.vel[0], *b.team)
        })
        .collect();
    assert_eq!(seen, want);

    a.columns_mut().for_each(|b| {
        *b.pos.x += *b.vel[0];
        *b.vel[1] = *b.pos.y;
        *b.team += 1;
    });
    for i in 0..37 {
        let (b, f) = (a.columns().row(i), i as f32);
        assert_eq!(
            (*b.pos.x, *b.vel[1], *b.team),
            (11.0 * f, -f, (i % 3) as u8 + 1)
        );
    }

    // A range of rows, and the ids in step.
    let ids = a.ids().to_vec();
    let mut visited = Vec::new();
    a.ids_and_columns_mut()
        .get_mut(30..)
        .unwrap()
        .for_each(|(id, b)| {
            *b.team = 0;
            visited.push(*id);
        });
    assert_eq!(visited, ids[30..]);
    assert_eq!(a.columns().team.iter().filter(|&&t| t == 0).count(), 7);

    // A map's columns, and its keys in step.
    let mut map: SoaMap<BoidId, Boid> = ids.iter().step_by(5).map(|&id| (id, boid(1))).collect();
    let mut keys = Vec::new();
    map.keys_and_columns_mut().for_each(|(key, b)| {
        *b.pos.y = 7.0;
        keys.push(*key);
    });
    assert_eq!(keys, map.keys());
    assert!(map.columns().pos.y.iter().all(|&y| y == 7.0));
}

/// A struct whose columns are only split arrays has a hidden row count:
/// `for_each` still sees every row, and none of an empty view.
#[test]
fn for_each_of_split_only_and_empty_views() {
    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    pub struct Pair {
        #[soa(split)]
        pub v: [u32; 2],
    }
    let mut pairs: PairAllocator = (0..5).map(|i| Pair { v: [i, 10 * i] }).collect();
    pairs.columns_mut().for_each(|p| *p.v[0] += *p.v[1]);
    assert_eq!(pairs.columns().v.column(0), &[0, 11, 22, 33, 44]);
    let mut n = 0;
    pairs.columns().get(5..).unwrap().for_each(|_| n += 1);
    PairAllocator::new().columns().for_each(|_| n += 1);
    assert_eq!(n, 0);
}

/// A view of more than sixteen columns (a split array of 18 elements and a
/// plain field) loops through nested pairs instead of the runtime's loops
/// of up to sixteen arguments: the same rows, the ids in step.
#[derive(SoaAllocator)]
pub struct Wide {
    #[soa(split)]
    pub bins: [u16; 18],
    pub total: u32,
}

#[test]
fn for_each_over_more_than_sixteen_columns() {
    let mut wide: WideAllocator = (0..5u16)
        .map(|i| Wide {
            bins: core::array::from_fn(|k| i * 100 + k as u16),
            total: 0,
        })
        .collect();
    wide.columns_mut().for_each(|w| {
        *w.total = w.bins.iter().map(|b| u32::from(**b)).sum();
        *w.bins[17] += 1;
    });
    for i in 0..5u32 {
        let w = wide.columns().row(i as usize);
        assert_eq!(*w.total, i * 100 * 18 + (0..18).sum::<u32>());
        assert_eq!(*w.bins[17], (i * 100 + 18) as u16);
    }
    let mut seen = Vec::new();
    wide.ids_and_columns_mut()
        .for_each(|(id, w)| seen.push((*id, *w.bins[0])));
    let want: Vec<_> = wide
        .ids()
        .iter()
        .copied()
        .zip((0..5u16).map(|i| i * 100))
        .collect();
    assert_eq!(seen, want);
}
