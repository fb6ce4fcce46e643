//! `par_iter()` / `par_iter_mut()` of derived allocators (feature `rayon`):
//! they yield exactly what `iter()` / `iter_mut()` yield, in the same dense
//! order, whatever rayon splits; writes land on the right ids after churn;
//! every shape of struct gets them; no value is dropped twice or leaked.
//!
//! Under Miri (`MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-ignore-leaks"`: rayon's
//! deque does not pass Stacked Borrows, and its pool's threads outlive
//! `main`) the sizes shrink.

#![cfg(feature = "rayon")]

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::sync::Arc;

use idtable::SoaAllocator;
use rayon::iter::plumbing::{Producer, ProducerCallback};
use rayon::prelude::*;

/// Objects per allocator: small under Miri, which runs threads slowly.
const N: u32 = if cfg!(miri) { 20 } else { 5_000 };

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Body {
    pos: [f32; 3],
    vel: [f32; 3],
    tag: String,
    serial: u32,
}

fn body(i: u32) -> Body {
    Body {
        pos: [i as f32, 0.0, -(i as f32)],
        vel: [1.0, 2.0, 3.0],
        tag: format!("b{i}"),
        serial: i,
    }
}

/// `n` bodies, then a third removed and a sixth inserted again: the dense
/// order differs from the insertion order and freed slots are reused.
fn churned(n: u32) -> (BodyAllocator, Vec<BodyId>) {
    let mut bodies = BodyAllocator::new();
    let mut ids: Vec<BodyId> = (0..n).map(|i| bodies.insert(body(i))).collect();
    let mut removed = 0;
    ids.retain(|&id| {
        let keep = id.index() % 3 != 1;
        if !keep {
            bodies.remove(id);
            removed += 1;
        }
        keep
    });
    ids.extend((n..n + n / 6).map(|i| bodies.insert(body(i))));
    assert!(
        removed > 0 && bodies.ids() != ids,
        "dense order = insertion order"
    );
    (bodies, ids)
}

/// The serial answer: `(id, owned value)` in dense order.
fn serial(bodies: &BodyAllocator) -> Vec<(BodyId, Body)> {
    bodies.iter().map(|(id, b)| (id, b.to_owned())).collect()
}

#[test]
fn par_iter_yields_the_serial_pairs_in_dense_order() {
    let (bodies, _) = churned(N);
    let expected = serial(&bodies);
    for max_len in [1, 7, usize::MAX] {
        let got: Vec<(BodyId, Body)> = bodies
            .par_iter()
            .with_max_len(max_len)
            .map(|(id, b)| (id, b.to_owned()))
            .collect();
        assert_eq!(got, expected, "with_max_len({max_len})");
    }
    assert_eq!(bodies.par_iter().len(), bodies.len());
}

#[test]
fn indexed_adaptors_keep_the_dense_order() {
    let (bodies, _) = churned(N);
    let ids: Vec<BodyId> = bodies.par_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, bodies.ids());

    // `enumerate` numbers rows by dense index.
    bodies
        .par_iter()
        .enumerate()
        .for_each(|(dense, (id, _))| assert_eq!(bodies.dense_index(id), Some(dense)));

    // `zip` with a column pairs each row with its own column entry.
    let serials = bodies.columns().serial;
    bodies
        .par_iter()
        .with_min_len(64)
        .zip(serials.par_iter())
        .for_each(|((_, b), s)| assert_eq!(b.serial, s));

    // Reversed, and through `&allocator` as an `IntoParallelIterator`.
    let reversed: Vec<BodyId> = (&bodies).into_par_iter().rev().map(|(id, _)| id).collect();
    assert!(reversed.iter().rev().eq(bodies.ids()));
}

#[test]
fn par_iter_mut_writes_land_on_their_ids_after_churn() {
    let (mut bodies, ids) = churned(N);
    bodies.par_iter_mut().with_max_len(3).for_each(|(id, b)| {
        b.pos[1] = id.index() as f32;
        b.tag.push('!');
        *b.serial += 1_000_000;
    });
    for &id in &ids {
        let b = bodies.get(id).unwrap();
        assert_eq!(b.pos[1], id.index() as f32);
        assert!(b.tag.ends_with('!'));
        assert_eq!(
            b.tag[1..b.tag.len() - 1].parse::<u32>().unwrap() + 1_000_000,
            *b.serial
        );
    }
    (&mut bodies)
        .into_par_iter()
        .zip(ids.par_iter())
        .for_each(|((_, b), _)| b.vel[0] = 0.0);
    assert!(bodies.columns().vel.iter().all(|v| v[0] == 0.0));
    bodies.check_invariants();
}

#[test]
fn parallel_column_loop_matches_the_serial_one() {
    let (mut bodies, _) = churned(N);
    let mut twin = bodies.clone();
    let dt = 0.25;
    let cols = bodies.columns_mut();
    cols.pos
        .par_iter_mut()
        .zip(cols.vel.par_iter())
        .for_each(|(p, v)| (0..3).for_each(|k| p[k] += v[k] * dt));
    let cols = twin.columns_mut();
    for (p, v) in cols.pos.iter_mut().zip(cols.vel.iter()) {
        (0..3).for_each(|k| p[k] += v[k] * dt);
    }
    assert_eq!(serial(&bodies), serial(&twin));
}

#[test]
fn empty_and_single_object_allocators() {
    let mut bodies = BodyAllocator::new();
    assert_eq!(bodies.par_iter().count(), 0);
    assert_eq!(bodies.par_iter_mut().len(), 0);
    let none: Vec<BodyId> = bodies.par_iter().map(|(id, _)| id).collect();
    assert!(none.is_empty());

    let id = bodies.insert(body(7));
    let one: Vec<(BodyId, Body)> = bodies
        .par_iter()
        .map(|(id, b)| (id, b.to_owned()))
        .collect();
    assert_eq!(one, vec![(id, body(7))]);
    bodies.par_iter_mut().for_each(|(_, b)| *b.serial = 8);
    assert_eq!(*bodies.get(id).unwrap().serial, 8);

    bodies.remove(id);
    assert_eq!(bodies.par_iter_mut().count(), 0);
}

/// Splits the producer at `mid`, each half again in its middle, and reads
/// the four pieces in order.
struct SplitTwice {
    mid: usize,
    len: usize,
}

impl<T> ProducerCallback<T> for SplitTwice {
    type Output = Vec<T>;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> Vec<T> {
        let (left, right) = producer.split_at(self.mid);
        let (a, b) = left.split_at(self.mid / 2);
        let (c, d) = right.split_at((self.len - self.mid) / 2);
        let pieces = [a, b, c, d].map(Producer::into_iter);
        assert_eq!(
            pieces
                .each_ref()
                .map(ExactSizeIterator::len)
                .iter()
                .sum::<usize>(),
            self.len
        );
        pieces.into_iter().flatten().collect()
    }
}

#[test]
fn producers_split_ids_and_rows_at_every_index() {
    let (mut bodies, _) = churned(if cfg!(miri) { 8 } else { 40 });
    let len = bodies.len();
    for mid in 0..=len {
        let expected = serial(&bodies);
        let split = SplitTwice { mid, len };
        let got: Vec<(BodyId, Body)> = bodies
            .par_iter()
            .with_producer(split)
            .into_iter()
            .map(|(id, b)| (id, b.to_owned()))
            .collect();
        assert_eq!(got, expected, "split at {mid}");

        let split = SplitTwice { mid, len };
        let rows = bodies.par_iter_mut().with_producer(split);
        assert!(rows.iter().map(|(id, _)| *id).eq(bodies_ids(&expected)));
        for (k, (_, b)) in rows.into_iter().enumerate() {
            *b.serial = k as u32;
        }
        assert!(bodies.columns().serial.iter().copied().eq(0..len as u32));
    }
}

fn bodies_ids(rows: &[(BodyId, Body)]) -> impl Iterator<Item = BodyId> + '_ {
    rows.iter().map(|(id, _)| *id)
}

// ---------------------------------------------------------------------------
// Shapes: no field, generics, many fields.

#[derive(SoaAllocator, Debug, PartialEq)]
struct Marker {}

#[test]
fn fieldless_struct() {
    let mut markers = MarkerAllocator::new();
    let ids: Vec<MarkerId> = (0..N).map(|_| markers.insert(Marker {})).collect();
    markers.remove(ids[0]);
    let got: Vec<MarkerId> = markers.par_iter().map(|(id, _)| id).collect();
    assert_eq!(got, markers.ids());
    assert_eq!(markers.par_iter_mut().count(), N as usize - 1);
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Generic<'x, T: Clone + Debug, const K: usize>
where
    T: PartialEq,
{
    name: &'x str,
    values: [T; K],
}

/// Sum of `values` over all rows, in parallel; needs only what `par_iter`
/// needs of the generic `T`.
fn parallel_total<T, const K: usize>(a: &GenericAllocator<'_, T, K>) -> u64
where
    T: Clone + Debug + PartialEq + Sync + Into<u64> + Copy,
{
    a.par_iter()
        .map(|(_, g)| g.values.iter().map(|&v| v.into()).sum::<u64>())
        .sum()
}

#[test]
fn generic_struct_with_lifetime_type_and_const_parameters() {
    let text = String::from("abcdef");
    let mut a = GenericAllocator::<'_, u32, 2>::new();
    for i in 0..N {
        a.insert(Generic {
            name: &text[(i % 6) as usize..],
            values: [i, 1],
        });
    }
    let n = u64::from(N);
    assert_eq!(parallel_total(&a), n * (n - 1) / 2 + n);
    a.par_iter_mut()
        .for_each(|(_, g)| g.values[1] = g.name.len() as u32);
    let names: Vec<usize> = a.par_iter().map(|(_, g)| g.values[1] as usize).collect();
    assert!(names
        .iter()
        .zip(a.columns().name)
        .all(|(&n, s)| n == s.len()));
}

/// Split arrays of a type parameter: the parallel iterators ask their
/// element for `Sync` or `Send`, and nothing of the struct.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Samples<T> {
    #[soa(split)]
    pair: [T; 2],
    weight: u8,
}

fn parallel_pair_total<T: Sync + Copy + Into<u64>>(a: &SamplesAllocator<T>) -> u64 {
    a.par_iter()
        .map(|(_, s)| (*s.pair[0]).into() + (*s.pair[1]).into())
        .sum()
}

fn parallel_swap<T: Send>(a: &mut SamplesAllocator<T>) {
    a.par_iter_mut().for_each(|(_, s)| {
        let [first, second] = s.pair;
        std::mem::swap(first, second);
    });
}

#[test]
fn split_array_of_a_type_parameter() {
    let mut a = SamplesAllocator::<u32>::new();
    for i in 0..N {
        a.insert(Samples {
            pair: [i, 1],
            weight: 0,
        });
    }
    let n = u64::from(N);
    assert_eq!(parallel_pair_total(&a), n * (n - 1) / 2 + n);
    parallel_swap(&mut a);
    assert!(a.columns().pair.column(0).iter().all(|&v| v == 1));
    assert_eq!(a.columns().pair.column(1), (0..N).collect::<Vec<u32>>());
}

/// A lifetime named like the one the derive would use for its views.
#[derive(SoaAllocator)]
struct Named<'a, K> {
    name: &'a str,
    key: K,
}

#[test]
fn generic_names_that_the_derive_also_uses() {
    let text = "xyz".repeat(4);
    let mut a = NamedAllocator::<'_, u8>::new();
    for i in 0..text.len() {
        let name = &text[i..];
        a.insert(Named { name, key: i as u8 });
    }
    let lens: Vec<(usize, u8)> = (&a)
        .into_par_iter()
        .map(|(_, n)| (n.name.len(), *n.key))
        .collect();
    assert_eq!(lens, (0..12).map(|k| (12 - k, k as u8)).collect::<Vec<_>>());
    (&mut a).into_par_iter().for_each(|(_, n)| *n.key = 0);
    assert!(a.columns().key.iter().all(|&k| k == 0));
}

#[repr(align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line([u8; 64]);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Wide {
    f0: u8,
    f1: u16,
    f2: u32,
    f3: u64,
    f4: u128,
    f5: f32,
    f6: f64,
    f7: String,
    f8: Vec<u32>,
    f9: Box<u32>,
    f10: (),
    f11: PhantomData<u64>,
    f12: Line,
    f13: Option<Box<str>>,
    f14: [u16; 3],
    f15: bool,
    f16: char,
}

fn wide(i: u32) -> Wide {
    Wide {
        f0: i as u8,
        f1: i as u16,
        f2: i,
        f3: u64::from(i) << 20,
        f4: u128::from(i) << 70,
        f5: i as f32,
        f6: f64::from(i),
        f7: i.to_string(),
        f8: vec![i; (i % 4) as usize],
        f9: Box::new(i),
        f10: (),
        f11: PhantomData,
        f12: Line([i as u8; 64]),
        f13: (i % 2 == 0).then(|| i.to_string().into_boxed_str()),
        f14: [i as u16; 3],
        f15: i % 2 == 1,
        f16: char::from_u32(0x41 + i % 26).unwrap(),
    }
}

#[test]
fn many_fields() {
    let mut a = WideAllocator::new();
    let ids: Vec<WideId> = (0..N).map(|i| a.insert(wide(i))).collect();
    for &id in ids.iter().step_by(4) {
        a.remove(id);
    }
    a.par_iter_mut().for_each(|(_, w)| {
        *w.f2 += 1;
        w.f8.push(7);
        **w.f9 += 1;
    });
    let expected: Vec<(WideId, Wide)> = a.iter().map(|(id, w)| (id, w.to_owned())).collect();
    let got: Vec<(WideId, Wide)> = a.par_iter().map(|(id, w)| (id, w.to_owned())).collect();
    assert_eq!(got, expected);
    for (id, w) in &got {
        let i = w.f7.parse::<u32>().unwrap();
        assert_eq!((w.f2, *w.f9), (i + 1, i + 1));
        assert_eq!(w.f8.last(), Some(&7));
        assert_eq!(a.get(*id).unwrap().f12.0[0], i as u8);
    }
}

// ---------------------------------------------------------------------------
// Drops.

/// Counts its values alive: +1 when made, -1 when dropped.
#[derive(Debug)]
struct Counted {
    live: Arc<AtomicIsize>,
    n: u32,
}

impl Counted {
    fn new(live: &Arc<AtomicIsize>, n: u32) -> Counted {
        live.fetch_add(1, Relaxed);
        Counted {
            live: live.clone(),
            n,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let before = self.live.fetch_sub(1, Relaxed);
        assert!(before > 0, "a value was dropped twice");
    }
}

#[derive(SoaAllocator)]
struct Owner {
    first: Counted,
    second: Box<Counted>,
}

#[test]
fn no_value_is_dropped_twice_or_leaked() {
    let live = Arc::new(AtomicIsize::new(0));
    let mut owners = OwnerAllocator::new();
    let ids: Vec<OwnerId> = (0..N)
        .map(|n| {
            owners.insert(Owner {
                first: Counted::new(&live, n),
                second: Box::new(Counted::new(&live, n)),
            })
        })
        .collect();
    for &id in ids.iter().step_by(5) {
        drop(owners.remove(id));
    }
    assert_eq!(live.load(Relaxed), 2 * owners.len() as isize);

    // Replacing values on worker threads drops the old ones there, once.
    owners.par_iter_mut().for_each(|(_, o)| {
        *o.first = Counted::new(&live, o.first.n + 1);
        let fresh = Box::new(Counted::new(&live, o.second.n + 1));
        drop(std::mem::replace(o.second, fresh)); // a new box, the old one freed here
    });
    assert_eq!(live.load(Relaxed), 2 * owners.len() as isize);

    // Reading in parallel moves nothing.
    let total: u64 = owners.par_iter().map(|(_, o)| u64::from(o.first.n)).sum();
    assert!(total > 0);
    assert_eq!(live.load(Relaxed), 2 * owners.len() as isize);

    drop(owners);
    assert_eq!(live.load(Relaxed), 0);
}

// ---------------------------------------------------------------------------
// A renamed facade path.

mod facade {
    pub use idtable as reexported;
}

#[derive(SoaAllocator)]
#[soa(crate = facade::reexported)]
struct ThroughReexport {
    v: u32,
}

#[test]
fn crate_path_override() {
    let mut a = ThroughReexportAllocator::new();
    for v in 0..N {
        a.insert(ThroughReexport { v });
    }
    let sum: u32 = a.par_iter().map(|(_, r)| *r.v).sum();
    assert_eq!(sum, N * (N - 1) / 2);
    a.par_iter_mut().for_each(|(_, r)| *r.v = 1);
    assert_eq!(a.par_iter().map(|(_, r)| *r.v).sum::<u32>(), N);
}

/// A group's join split between threads yields the sequential join's pairs,
/// in its order, with an optional source held past the optional prefix
/// and an excluded one; writes through it land once per key.
#[test]
fn grouped_par_iter_yields_the_sequential_grouped_join() {
    use idtable::group::Group;
    use idtable::{Maybe, SoaMap, Without};

    let (mut bodies, ids) = churned(N);
    let mut heat: SoaMap<BodyId, u32> = SoaMap::new();
    let mut cold: SoaMap<BodyId, bool> = SoaMap::new();
    let mut spin: SoaMap<BodyId, i64> = SoaMap::new();
    let live: Vec<BodyId> = ids
        .iter()
        .copied()
        .filter(|&id| bodies.contains(id))
        .collect();
    let mut group = Group::new((&mut bodies, &mut heat, Without(&mut cold), Maybe(&mut spin)));
    let mut edit = group.edit((&mut bodies, &mut heat, Without(&mut cold), Maybe(&mut spin)));
    for (n, &id) in live.iter().enumerate() {
        if n % 3 != 0 {
            edit.insert(id, n as u32);
        }
        if n % 7 == 0 {
            edit.insert(id, true);
        }
        if n % 2 == 0 {
            edit.insert(id, n as i64);
        }
    }
    let serial: Vec<(BodyId, u32, Option<i64>)> = group
        .join((&mut bodies, &mut heat, Without(&mut cold), Maybe(&mut spin)))
        .map(|(id, (_, h, (), s))| (id, *h, s.map(|s| *s)))
        .collect();
    assert!(!serial.is_empty());
    let parallel: Vec<(BodyId, u32, Option<i64>)> = group
        .join((&mut bodies, &mut heat, Without(&mut cold), Maybe(&mut spin)))
        .par_iter()
        .map(|(id, (body, h, (), s))| {
            *body.serial += 1_000_000;
            (id, *h, s.map(|s| *s))
        })
        .collect();
    assert_eq!(parallel, serial);
    for (id, ..) in &serial {
        assert!(*bodies.get(*id).unwrap().serial >= 1_000_000);
    }
    let touched = bodies
        .iter()
        .filter(|(_, b)| *b.serial >= 1_000_000)
        .count();
    assert_eq!(touched, serial.len());
}
