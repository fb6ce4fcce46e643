//! Every method and trait impl of a derived allocator, on the `Particle`
//! example of the README (default layout `Id32_32`), plus the `try_insert`
//! error path on a tiny layout.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::{Id, SoaAllocator};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Particle {
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub mass: f32,
}

fn p(n: u32) -> Particle {
    let f = n as f32;
    Particle {
        pos: [f, f + 0.5, -f],
        vel: [0.0, f * 2.0, 1.0],
        mass: f + 1.0,
    }
}

/// Every row seen through every access path agrees: `ids()` is parallel to
/// the columns, `get` and `dense_index` agree with it, `iter` yields the same.
fn assert_consistent(a: &ParticleAllocator) {
    a.check_invariants();
    let cols = a.columns();
    let ids = a.ids();
    assert_eq!(ids.len(), a.len());
    assert_eq!(cols.pos.len(), a.len());
    assert_eq!(cols.vel.len(), a.len());
    assert_eq!(cols.mass.len(), a.len());
    assert_eq!(a.is_empty(), ids.is_empty());
    for (i, &id) in ids.iter().enumerate() {
        assert!(a.contains(id));
        assert_eq!(a.dense_index(id), Some(i));
        let r = a.get(id).expect("listed id resolves");
        assert_eq!(*r.pos, cols.pos[i]);
        assert_eq!(*r.vel, cols.vel[i]);
        assert_eq!(*r.mass, cols.mass[i]);
    }
    let from_iter: Vec<_> = a.iter().map(|(id, r)| (id, r.to_owned())).collect();
    let expected: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            (
                id,
                Particle {
                    pos: cols.pos[i],
                    vel: cols.vel[i],
                    mass: cols.mass[i],
                },
            )
        })
        .collect();
    assert_eq!(from_iter, expected);
}

fn filled(n: u32) -> (ParticleAllocator, Vec<ParticleId>) {
    let mut a = ParticleAllocator::new();
    let ids = (0..n).map(|i| a.insert(p(i))).collect();
    (a, ids)
}

#[test]
fn new_and_default_are_empty_and_allocate_nothing() {
    let a = ParticleAllocator::new();
    assert_eq!(a.len(), 0);
    assert!(a.is_empty());
    assert_eq!(a.capacity(), 0);
    assert!(a.ids().is_empty());
    assert!(a.columns().mass.is_empty());
    assert_eq!(a.iter().len(), 0);
    assert_consistent(&a);
    let d = ParticleAllocator::default();
    assert_eq!(d.len(), 0);
    assert_eq!(d.capacity(), 0);
    assert_consistent(&d);
    // `new` is usable in const context: a `static` allocator behind a lock.
    // (A `const` item of it trips clippy's `declare_interior_mutable_const`:
    // the table holds atomics for ids reserved from `&self`.)
    static SHARED: std::sync::Mutex<ParticleAllocator> =
        std::sync::Mutex::new(ParticleAllocator::new());
    let id = SHARED.lock().unwrap().insert(p(1));
    assert!(SHARED.lock().unwrap().contains(id));
}

#[test]
fn with_capacity_holds_that_many_without_growing() {
    let mut a = ParticleAllocator::with_capacity(100);
    let cap = a.capacity();
    assert!(cap >= 100, "capacity {cap} < 100");
    assert!(a.is_empty());
    for i in 0..100 {
        a.insert(p(i));
    }
    assert_eq!(a.capacity(), cap, "inserting within capacity reallocated");
    assert_eq!(a.len(), 100);
    assert_consistent(&a);
}

#[test]
fn reserve_grows_capacity_and_keeps_values() {
    let (mut a, ids) = filled(5);
    a.reserve(1000);
    assert!(a.capacity() >= 1005);
    let cap = a.capacity();
    for i in 0..1000 {
        a.insert(p(100 + i));
    }
    assert_eq!(a.capacity(), cap);
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(a.get(id).unwrap().to_owned(), p(i as u32));
    }
    assert_consistent(&a);
}

#[test]
fn shrink_to_fit_lowers_capacity_and_keeps_values() {
    let (mut a, ids) = filled(1000);
    for &id in &ids[10..] {
        a.remove(id).unwrap();
    }
    let before = a.capacity();
    a.shrink_to_fit();
    assert!(a.capacity() >= a.len());
    assert!(a.capacity() < before, "{} !< {before}", a.capacity());
    for (i, &id) in ids[..10].iter().enumerate() {
        assert_eq!(a.get(id).unwrap().to_owned(), p(i as u32));
    }
    assert_consistent(&a);
    a.clear();
    a.shrink_to_fit();
    assert_consistent(&a);
    let id = a.insert(p(7));
    assert_eq!(a.get(id).unwrap().to_owned(), p(7));
}

#[test]
fn insert_issues_fresh_ids_that_get_reads_back() {
    let mut a = ParticleAllocator::new();
    let ids: Vec<_> = (0..10).map(|i| a.insert(p(i))).collect();
    assert_eq!(a.len(), 10);
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(id.index(), i, "fresh slots are issued in order");
        assert_eq!(id.generation(), 1, "generation 0 is never issued");
        let r = a.get(id).unwrap();
        assert_eq!(
            (*r.pos, *r.vel, *r.mass),
            (p(i as u32).pos, p(i as u32).vel, p(i as u32).mass)
        );
    }
    let distinct: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    assert_consistent(&a);
}

#[test]
fn typed_id_accessors_round_trip_and_match_the_id_trait() {
    let (mut a, ids) = filled(3);
    a.remove(ids[1]);
    let id = a.insert(p(9));
    assert_eq!((id.index(), id.generation()), (1, 2));
    // inherent methods agree with the `Id` trait and the layout
    assert_eq!(id.index(), Id::index(id));
    assert_eq!(id.generation(), Id::generation(id));
    assert_eq!(id.to_bits(), Id::to_bits(id));
    assert_eq!(id.to_bits(), (2u64 << 32) | 1);
    assert_eq!(ParticleId::from_bits(id.to_bits()), Some(id));
    assert_eq!(<ParticleId as Id>::from_bits(id.to_bits()), Some(id));
    assert_eq!(ParticleId::from_bits(0), None);
    assert_eq!(ParticleId::from_bits(5), None, "generation 0 is not an id");
    assert_eq!(<ParticleId as Id>::INDEX_BITS, 32);
    assert_eq!(<ParticleId as Id>::GENERATION_BITS, 32);
    assert_eq!(<ParticleId as Id>::MAX_INDEX, u32::MAX as usize - 1);
    assert_eq!(<ParticleId as Id>::MAX_GENERATION, u64::from(u32::MAX));
    assert_eq!(std::mem::size_of::<ParticleId>(), 8);
    assert_eq!(std::mem::size_of::<Option<ParticleId>>(), 8);
    // Ord, Hash, Debug
    assert!(ids[0] < ids[2]);
    let debug = format!("{:?}", ids[0]);
    assert!(debug.starts_with("ParticleId"), "{debug}");
    fn is_id<I: Id + Copy + Eq + Ord + std::hash::Hash + std::fmt::Debug>() {}
    is_id::<ParticleId>();
}

#[test]
fn try_insert_succeeds_while_ids_remain() {
    let mut a = ParticleAllocator::new();
    let id = a.try_insert(p(1)).expect("room");
    assert_eq!(a.get(id).unwrap().to_owned(), p(1));
    assert_consistent(&a);
}

#[test]
fn insert_with_id_passes_the_id_the_value_gets() {
    let (mut a, ids) = filled(4);
    a.remove(ids[2]);
    let mut seen = None;
    let id = a.insert_with_id(|id| {
        seen = Some(id);
        p(id.index() as u32 * 10)
    });
    assert_eq!(seen, Some(id));
    assert_eq!((id.index(), id.generation()), (2, 2));
    assert_eq!(a.get(id).unwrap().to_owned(), p(20));
    assert_consistent(&a);
}

#[test]
fn insert_with_id_that_panics_inserts_nothing() {
    let (mut a, _) = filled(3);
    let mut offered = None;
    let result = catch_unwind(AssertUnwindSafe(|| {
        a.insert_with_id(|id| {
            offered = Some(id);
            panic!("no value")
        })
    }));
    assert!(result.is_err());
    let offered = offered.unwrap();
    assert_eq!(a.len(), 3);
    assert!(!a.contains(offered));
    assert!(a.get(offered).is_none());
    assert_consistent(&a);
    let next = a.insert(p(3));
    assert!(a.contains(next));
    assert_consistent(&a);
}

#[test]
fn remove_returns_the_value_once() {
    let (mut a, ids) = filled(5);
    assert_eq!(a.remove(ids[1]), Some(p(1)));
    assert_eq!(a.remove(ids[1]), None);
    assert!(!a.contains(ids[1]));
    assert!(a.get(ids[1]).is_none());
    assert_eq!(a.len(), 4);
    assert_eq!(a.remove(ids[4]), Some(p(4)), "removing the last row");
    assert_eq!(a.len(), 3);
    for i in [0, 2, 3] {
        assert_eq!(a.get(ids[i]).unwrap().to_owned(), p(i as u32));
    }
    assert_consistent(&a);
}

#[test]
fn contains_tracks_liveness() {
    let (mut a, ids) = filled(2);
    assert!(a.contains(ids[0]) && a.contains(ids[1]));
    a.remove(ids[0]);
    assert!(!a.contains(ids[0]) && a.contains(ids[1]));
}

#[test]
fn get_mut_writes_every_field() {
    let (mut a, ids) = filled(3);
    {
        let m = a.get_mut(ids[1]).unwrap();
        *m.pos = [9.0; 3];
        m.vel[1] = -1.0;
        *m.mass = 42.0;
    }
    let r = a.get(ids[1]).unwrap();
    assert_eq!(*r.pos, [9.0; 3]);
    assert_eq!(r.vel[1], -1.0);
    assert_eq!(*r.mass, 42.0);
    assert_eq!(a.columns().mass[1], 42.0);
    assert_eq!(a.get(ids[0]).unwrap().to_owned(), p(0));
    assert_eq!(a.get(ids[2]).unwrap().to_owned(), p(2));
    let stale = ids[0];
    a.remove(stale);
    assert!(a.get_mut(stale).is_none());
    assert_consistent(&a);
}

#[test]
fn get_disjoint_mut_hands_out_distinct_rows() {
    let (mut a, ids) = filled(5);
    {
        let [x, y, z] = a.get_disjoint_mut([ids[4], ids[0], ids[2]]).unwrap();
        *x.mass = 40.0;
        *y.mass = 0.5;
        *z.mass = 20.0;
        std::mem::swap(x.pos, y.pos);
    }
    assert_eq!(*a.get(ids[4]).unwrap().mass, 40.0);
    assert_eq!(*a.get(ids[0]).unwrap().mass, 0.5);
    assert_eq!(*a.get(ids[2]).unwrap().mass, 20.0);
    assert_eq!(*a.get(ids[4]).unwrap().pos, p(0).pos);
    assert_eq!(*a.get(ids[0]).unwrap().pos, p(4).pos);
    assert!(
        a.get_disjoint_mut([ids[1], ids[1]]).is_none(),
        "repeated id"
    );
    assert!(
        a.get_disjoint_mut([ids[1], ids[3], ids[1]]).is_none(),
        "repeated id"
    );
    let none: [ParticleMut<'_>; 0] = a.get_disjoint_mut([]).unwrap();
    assert_eq!(none.len(), 0);
    let [one] = a.get_disjoint_mut([ids[3]]).unwrap();
    assert_eq!(*one.mass, p(3).mass);
    a.remove(ids[3]);
    assert!(a.get_disjoint_mut([ids[1], ids[3]]).is_none(), "stale id");
    assert!(a.get_disjoint_mut([ids[3]]).is_none(), "stale id");
    assert_consistent(&a);
}

#[test]
fn columns_are_dense_slices_parallel_to_ids() {
    let (mut a, ids) = filled(4);
    let cols = a.columns();
    assert_eq!(cols.mass, &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(cols.pos[2], p(2).pos);
    assert_eq!(cols.vel[3], p(3).vel);
    assert_eq!(a.ids(), &ids[..]);
    a.remove(ids[0]);
    // the last row moved into row 0
    assert_eq!(a.columns().mass, &[4.0, 2.0, 3.0]);
    assert_eq!(a.ids(), &[ids[3], ids[1], ids[2]]);
    assert_consistent(&a);
}

#[test]
fn ids_and_columns_mut_pairs_each_row_with_its_id() {
    let (mut a, ids) = filled(6);
    a.remove(ids[1]); // the last row moves into row 1
    let mut heavy = Vec::new();
    {
        let (live, cols) = a.ids_and_columns_mut();
        assert_eq!(live.len(), cols.mass.len());
        for (id, mass) in live.iter().zip(cols.mass.iter_mut()) {
            *mass *= 10.0;
            if *mass > 35.0 {
                heavy.push(*id);
            }
        }
    }
    heavy.sort();
    assert_eq!(heavy, [ids[3], ids[4], ids[5]]);
    for (i, &id) in ids.iter().enumerate().filter(|&(i, _)| i != 1) {
        assert_eq!(*a.get(id).unwrap().mass, p(i as u32).mass * 10.0);
    }
    assert_consistent(&a);
}

#[test]
fn columns_mut_writes_are_seen_through_ids() {
    let (mut a, ids) = filled(4);
    {
        let cols = a.columns_mut();
        for (m, v) in cols.mass.iter_mut().zip(cols.vel.iter()) {
            *m += v[1];
        }
        cols.pos[1] = [7.0; 3];
    }
    for (i, &id) in ids.iter().enumerate() {
        let expected = p(i as u32);
        let r = a.get(id).unwrap();
        assert_eq!(*r.mass, expected.mass + expected.vel[1]);
        if i == 1 {
            assert_eq!(*r.pos, [7.0; 3]);
        } else {
            assert_eq!(*r.pos, expected.pos);
        }
    }
    assert_consistent(&a);
}

#[test]
fn dense_index_follows_swap_remove() {
    let (mut a, ids) = filled(3);
    assert_eq!(a.dense_index(ids[2]), Some(2));
    a.remove(ids[0]);
    assert_eq!(a.dense_index(ids[0]), None);
    assert_eq!(a.dense_index(ids[2]), Some(0));
    assert_eq!(a.dense_index(ids[1]), Some(1));
}

#[test]
fn iter_yields_every_row_in_dense_order_with_exact_len() {
    let (mut a, ids) = filled(6);
    a.remove(ids[2]);
    let mut it = a.iter();
    let mut n = a.len();
    assert_eq!(it.len(), n);
    assert_eq!(it.size_hint(), (n, Some(n)));
    let mut seen = Vec::new();
    while let Some((id, r)) = it.next() {
        n -= 1;
        assert_eq!(it.len(), n);
        seen.push((id, r.to_owned()));
    }
    assert!(it.next().is_none());
    let expected: Vec<_> = a
        .ids()
        .iter()
        .map(|&id| (id, p(ids.iter().position(|&x| x == id).unwrap() as u32)))
        .collect();
    assert_eq!(seen, expected);
    // `&allocator` iterates the same way
    let mut count = 0;
    for (id, r) in &a {
        assert_eq!(a.get(id).unwrap().to_owned(), r.to_owned());
        count += 1;
    }
    assert_eq!(count, a.len());
    let by_ref = (&a).into_iter();
    assert_eq!(by_ref.len(), a.len());
}

#[test]
fn iter_mut_writes_every_row_with_exact_len() {
    let (mut a, ids) = filled(5);
    let n = a.len();
    let mut it = a.iter_mut();
    assert_eq!(it.len(), n);
    let mut k = 0;
    while let Some((id, m)) = it.next() {
        k += 1;
        assert_eq!(it.len(), n - k);
        *m.mass = id.index() as f32 * 100.0;
    }
    for &id in &ids {
        assert_eq!(*a.get(id).unwrap().mass, id.index() as f32 * 100.0);
    }
    // `&mut allocator` iterates mutably
    let by_mut = (&mut a).into_iter();
    assert_eq!(by_mut.len(), n);
    for (_, m) in &mut a {
        m.pos[0] = -3.0;
    }
    assert!(a.columns().pos.iter().all(|p| p[0] == -3.0));
    assert_consistent(&a);
}

#[test]
fn drain_yields_last_row_first_and_empties() {
    let (mut a, ids) = filled(5);
    a.remove(ids[1]); // dense order: 0, 4, 2, 3
    let order: Vec<_> = a.ids().to_vec();
    let mut d = a.drain();
    assert_eq!(d.len(), 4);
    assert_eq!(d.size_hint(), (4, Some(4)));
    let mut got = Vec::new();
    let mut n = 4;
    while let Some(item) = d.next() {
        n -= 1;
        assert_eq!(d.len(), n);
        got.push(item);
    }
    drop(d);
    let expected: Vec<_> = order
        .iter()
        .rev()
        .map(|&id| (id, p(ids.iter().position(|&x| x == id).unwrap() as u32)))
        .collect();
    assert_eq!(got, expected);
    assert!(a.is_empty());
    for &id in &ids {
        assert!(!a.contains(id));
    }
    assert_consistent(&a);
}

#[test]
fn retain_keeps_matching_rows_and_sees_matching_ids() {
    let (mut a, ids) = filled(10);
    let mut visited = Vec::new();
    a.retain(|id, m| {
        // the row handed over belongs to `id`
        let i = ids.iter().position(|&x| x == id).unwrap();
        assert_eq!(*m.mass, p(i as u32).mass);
        visited.push(id);
        *m.vel = [1.0, 2.0, 3.0];
        i % 3 != 0
    });
    visited.sort();
    let mut all = ids.clone();
    all.sort();
    assert_eq!(visited, all, "every row visited exactly once");
    assert_eq!(a.len(), 6);
    for (i, &id) in ids.iter().enumerate() {
        if i % 3 == 0 {
            assert!(!a.contains(id));
        } else {
            let r = a.get(id).unwrap();
            assert_eq!(*r.mass, p(i as u32).mass);
            assert_eq!(*r.vel, [1.0, 2.0, 3.0], "writes during retain persist");
        }
    }
    assert_consistent(&a);
    a.retain(|_, _| false);
    assert!(a.is_empty());
    assert_consistent(&a);
}

#[test]
fn sort_by_reorders_rows_and_keeps_ids() {
    let (mut a, ids) = filled(8);
    a.sort_by(|x, y| y.mass.partial_cmp(x.mass).unwrap_or(Ordering::Equal));
    let masses = a.columns().mass.to_vec();
    let mut sorted = masses.clone();
    sorted.sort_by(|x, y| y.partial_cmp(x).unwrap());
    assert_eq!(masses, sorted);
    assert_eq!(a.ids().first(), Some(&ids[7]));
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(a.get(id).unwrap().to_owned(), p(i as u32));
    }
    assert_consistent(&a);
}

#[test]
fn sort_by_key_is_stable_and_keeps_ids() {
    let (mut a, ids) = filled(9);
    // keys 0,1,2,0,1,2,...: a stable sort keeps insertion order among equals
    a.sort_by_key(|r| (*r.mass as u32 - 1) % 3);
    let expect: Vec<_> = [0, 3, 6, 1, 4, 7, 2, 5, 8]
        .iter()
        .map(|&i| ids[i])
        .collect();
    assert_eq!(a.ids(), &expect[..]);
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(a.get(id).unwrap().to_owned(), p(i as u32));
    }
    assert_consistent(&a);
}

#[test]
fn clear_removes_everything_and_keeps_capacity() {
    let (mut a, ids) = filled(50);
    let cap = a.capacity();
    a.clear();
    assert!(a.is_empty());
    assert_eq!(a.capacity(), cap);
    for &id in &ids {
        assert!(!a.contains(id));
    }
    assert_consistent(&a);
}

#[test]
fn id_table_exposes_the_bookkeeping() {
    let (mut a, ids) = filled(4);
    a.remove(ids[1]);
    let t = a.id_table();
    assert_eq!(t.len(), 3);
    assert_eq!(t.ids(), a.ids());
    assert_eq!(t.free_count(), 1);
    assert_eq!(t.slot_count(), 4);
    assert_eq!(t.config().min_free, 0);
    assert_eq!(t.config().on_exhausted, idtable::OnExhausted::Retire);
    assert_eq!(t.dense_index(ids[3]), a.dense_index(ids[3]));
    t.check_invariants();
}

#[test]
fn debug_is_a_map_from_id_to_fields() {
    let empty = ParticleAllocator::new();
    assert_eq!(format!("{empty:?}"), "{}");
    let (mut a, ids) = filled(2);
    a.get_mut(ids[1]).unwrap().mass.clone_from(&7.25);
    let s = format!("{a:?}");
    assert!(s.starts_with('{') && s.ends_with('}'), "{s}");
    for &id in &ids {
        assert!(s.contains(&format!("{id:?}: ")), "{s} lacks {id:?}");
    }
    for field in ["pos", "vel", "mass"] {
        assert_eq!(s.matches(field).count(), 2, "{s}");
    }
    assert!(s.contains("7.25"), "{s}");
    assert!(s.find(&format!("{:?}", ids[0])) < s.find(&format!("{:?}", ids[1])));
    // the row views print their fields
    let r = format!("{:?}", a.get(ids[0]).unwrap());
    assert!(r.starts_with("ParticleRef"), "{r}");
    assert!(r.contains("mass: 1.0"), "{r}");
    let m = format!("{:?}", a.get_mut(ids[0]).unwrap());
    assert!(
        m.starts_with("ParticleMut") && m.contains("mass: 1.0"),
        "{m}"
    );
    let pretty = format!("{a:#?}");
    assert!(pretty.lines().count() > 2);
}

#[test]
fn ref_views_are_copy_and_to_owned_rebuilds_the_value() {
    let (a, ids) = filled(2);
    let r = a.get(ids[1]).unwrap();
    let r2 = r; // Copy
    assert_eq!(r.to_owned(), p(1));
    assert_eq!(r2.to_owned(), p(1));
    let cols = a.columns();
    let cols2 = cols;
    assert_eq!(cols.mass, cols2.mass);
}

#[test]
fn clone_is_independent_and_continues_the_same_ids() {
    let (mut a, ids) = filled(6);
    a.remove(ids[2]);
    let mut b = a.clone();
    assert_consistent(&b);
    assert_eq!(b.ids(), a.ids());
    assert_eq!(format!("{b:?}"), format!("{a:?}"));
    // the clone issues the same next id (its table state was copied)
    let next_b = b.insert(p(100));
    let next_a = a.insert(p(200));
    assert_eq!(next_a, next_b);
    assert_eq!(a.get(next_a).unwrap().to_owned(), p(200));
    assert_eq!(b.get(next_b).unwrap().to_owned(), p(100));
    // mutations of one are invisible to the other
    *b.get_mut(ids[0]).unwrap().mass = -1.0;
    b.remove(ids[1]);
    assert_eq!(a.get(ids[0]).unwrap().to_owned(), p(0));
    assert_eq!(a.get(ids[1]).unwrap().to_owned(), p(1));
    a.clear();
    assert_eq!(b.len(), 5);
    assert_eq!(*b.get(ids[0]).unwrap().mass, -1.0);
    assert_consistent(&a);
    assert_consistent(&b);
}

#[test]
fn extend_inserts_in_order() {
    let (mut a, _) = filled(2);
    a.extend((2..7).map(p));
    assert_eq!(a.len(), 7);
    let masses: Vec<f32> = a.columns().mass.to_vec();
    assert_eq!(masses, (0..7).map(|i| p(i).mass).collect::<Vec<_>>());
    a.extend(std::iter::empty());
    assert_eq!(a.len(), 7);
    assert_consistent(&a);
}

#[test]
fn from_iterator_collects() {
    let a: ParticleAllocator = (0..5).map(p).collect();
    assert_eq!(a.len(), 5);
    for (i, (id, r)) in a.iter().enumerate() {
        assert_eq!(id.index(), i);
        assert_eq!(r.to_owned(), p(i as u32));
    }
    let empty: ParticleAllocator = std::iter::empty().collect();
    assert!(empty.is_empty());
    assert_consistent(&a);
}

#[test]
fn into_iter_yields_owned_values_last_row_first_with_exact_len() {
    let (mut a, ids) = filled(5);
    a.remove(ids[0]); // dense: 4, 1, 2, 3
    let order = a.ids().to_vec();
    let mut it = a.into_iter();
    assert_eq!(it.len(), 4);
    assert_eq!(it.size_hint(), (4, Some(4)));
    let mut got = Vec::new();
    let mut n = 4;
    while let Some(item) = it.next() {
        n -= 1;
        assert_eq!(it.len(), n);
        got.push(item);
    }
    assert!(it.next().is_none());
    let expected: Vec<(ParticleId, Particle)> = order
        .iter()
        .rev()
        .map(|&id| (id, p(ids.iter().position(|&x| x == id).unwrap() as u32)))
        .collect();
    assert_eq!(got, expected);
    let owned: HashMap<ParticleId, Particle> = filled(3).0.into_iter().collect();
    assert_eq!(owned.len(), 3);
}

#[test]
fn check_invariants_passes_on_every_shape() {
    let mut a = ParticleAllocator::new();
    a.check_invariants();
    let ids: Vec<_> = (0..20).map(|i| a.insert(p(i))).collect();
    a.check_invariants();
    for &id in ids.iter().step_by(3) {
        a.remove(id);
        a.check_invariants();
    }
    a.sort_by_key(|r| *r.mass as u32);
    a.check_invariants();
    a.clear();
    a.check_invariants();
}

// --- the error path of try_insert, on a layout with three indices ----------

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<2>)]
struct Tiny {
    name: String,
}

#[test]
fn try_insert_on_a_full_table_gives_the_value_back() {
    let mut a = TinyAllocator::new();
    for i in 0..3 {
        a.try_insert(Tiny {
            name: format!("t{i}"),
        })
        .unwrap();
    }
    let err = a
        .try_insert(Tiny {
            name: "spare".into(),
        })
        .expect_err("three indices, all live");
    let msg = err.to_string();
    assert!(msg.contains("Id2_30"), "{msg}");
    assert!(format!("{err:?}").contains("InsertError"));
    assert_eq!(
        err.into_inner(),
        Tiny {
            name: "spare".into()
        }
    );
    assert_eq!(a.len(), 3);
    a.check_invariants();
    // and once a slot frees up, it succeeds again
    let victim = a.ids()[1];
    a.remove(victim);
    let id = a
        .try_insert(Tiny {
            name: "again".into(),
        })
        .unwrap();
    assert_eq!(id.index(), victim.index());
    assert_eq!(a.get(id).unwrap().name, "again");
    a.check_invariants();
}

#[test]
fn insert_with_id_on_a_full_table_panics_without_calling_the_closure() {
    let mut a = TinyAllocator::new();
    for i in 0..3 {
        a.insert(Tiny {
            name: format!("t{i}"),
        });
    }
    let mut called = false;
    let r = catch_unwind(AssertUnwindSafe(|| {
        a.insert_with_id(|_| {
            called = true;
            Tiny { name: "x".into() }
        })
    }));
    let err = r.expect_err("full");
    let msg = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("Id2_30"), "{msg}");
    assert!(!called);
    assert_eq!(a.len(), 3);
    a.check_invariants();
}

// --- panics in user callbacks leave the allocator consistent ------------------

#[test]
fn sort_by_with_a_panicking_comparator_moves_nothing() {
    let (mut a, ids) = filled(20);
    a.remove(ids[3]);
    let before_ids = a.ids().to_vec();
    let before_mass = a.columns().mass.to_vec();
    let mut calls = 0;
    let r = catch_unwind(AssertUnwindSafe(|| {
        a.sort_by(|x, y| {
            calls += 1;
            if calls == 15 {
                panic!("comparator gives up");
            }
            y.mass.partial_cmp(x.mass).unwrap()
        })
    }));
    assert!(r.is_err());
    assert_eq!(a.ids(), &before_ids[..]);
    assert_eq!(a.columns().mass, &before_mass[..]);
    assert_consistent(&a);
}

#[test]
fn retain_with_a_panicking_predicate_keeps_a_consistent_allocator() {
    let (mut a, ids) = filled(20);
    let mut seen = 0;
    let r = catch_unwind(AssertUnwindSafe(|| {
        a.retain(|_, m| {
            seen += 1;
            if seen == 10 {
                panic!("predicate gives up");
            }
            *m.mass as u32 % 2 == 0
        })
    }));
    assert!(r.is_err());
    assert_consistent(&a);
    // every id either still holds its own value or is gone; nothing else
    for (i, &id) in ids.iter().enumerate() {
        if let Some(r) = a.get(id) {
            assert_eq!(r.to_owned(), p(i as u32));
        }
    }
    assert_eq!(a.len(), 20, "a panicking predicate removes nothing");
}

#[test]
fn allocator_ids_and_views_are_send_and_sync_when_fields_are() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ParticleAllocator>();
    send_sync::<ParticleId>();
    send_sync::<ParticleRef<'static>>();
    send_sync::<ParticleColumns<'static>>();
    let (a, ids) = filled(3);
    let handle = std::thread::spawn(move || a.get(ids[2]).map(|r| r.to_owned()));
    assert_eq!(handle.join().unwrap(), Some(p(2)));
}

#[test]
fn reserve_beyond_memory_panics_and_leaves_the_allocator_intact() {
    let (mut a, ids) = filled(3);
    let r = catch_unwind(AssertUnwindSafe(|| a.reserve(usize::MAX)));
    assert!(r.is_err(), "capacity overflow is a panic");
    assert_consistent(&a);
    assert_eq!(a.get(ids[2]).unwrap().to_owned(), p(2));
    let id = a.insert(p(3));
    assert_eq!(a.get(id).unwrap().to_owned(), p(3));
}
