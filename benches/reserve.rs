//! Ids reserved from a shared borrow: what a reservation costs against a
//! plain insert, against hecs' `reserve_entity`, and from two threads.
//!
//! * `reserve_fill`: N = 10k objects of 4 fields (`pos`, `vel`: `[f32; 2]`,
//!   `damage`: `i32`, `owner`: `u32`) go into an empty container, made
//!   fresh for each batch outside the timing:
//!   * `idtable insert`: N `insert`s;
//!   * `floor: insert + one atomic RMW`: N `insert`s, each with one
//!     `fetch_add` on an atomic counter: the least a reservation from `&self`
//!     can add to an insert;
//!   * `idtable reserve+fill each`: N times `reserve_id` then
//!     `insert_reserved`;
//!   * `idtable reserve all, then fill`: N `reserve_id`s into a `Vec`
//!     (allocated outside the timing), then N `insert_reserved`s, the shape
//!     of a parallel step followed by a serial one;
//!   * `idtable reserve_ids, then fill`: one `reserve_ids(N)`, then the
//!     fills;
//!   * the same four for hecs 0.11 (`spawn`; `reserve_entity` then
//!     `insert`; all reserved then inserted; `reserve_entities(N)` then
//!     inserted), with the four fields as four components.
//! * `reserve_threads`: 1M ids reserved from `&` of an empty container, by
//!   one thread, or by two (each half), one id at a time or in batches of 64;
//!   hecs' `reserve_entity` beside it.
//!
//! Every loop is a never-inlined function whose result (the ids' bits
//! summed) goes through `black_box`.
//!
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs --bench reserve

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use idtable::SoaAllocator;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(SoaAllocator, Clone, Copy)]
pub struct Shot {
    pub pos: [f32; 2],
    pub vel: [f32; 2],
    pub damage: i32,
    pub owner: u32,
}

#[derive(Clone, Copy)]
struct Pos([f32; 2]);
#[derive(Clone, Copy)]
struct Vel([f32; 2]);
#[derive(Clone, Copy)]
struct Damage(i32);
#[derive(Clone, Copy)]
struct Owner(u32);

fn shot(n: usize) -> Shot {
    let x = n as f32;
    Shot {
        pos: [x, -x],
        vel: [1.0, 0.5],
        damage: (n % 7) as i32,
        owner: n as u32,
    }
}

fn components(n: usize) -> (Pos, Vel, Damage, Owner) {
    let s = shot(n);
    (Pos(s.pos), Vel(s.vel), Damage(s.damage), Owner(s.owner))
}

const N: usize = 10_000;
const THREADED: usize = 1_000_000;

#[inline(never)]
fn idt_insert(a: &mut ShotAllocator, n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        sum = sum.wrapping_add(a.insert(shot(i)).to_bits());
    }
    sum
}

/// The floor of any reservation from `&self`: `insert` plus one atomic
/// read-modify-write on a counter the loop owns (what a claim must pay at
/// least), nothing else.
#[inline(never)]
fn idt_insert_plus_one_atomic(a: &mut ShotAllocator, claims: &AtomicUsize, n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        let claim = claims.fetch_add(1, Ordering::Relaxed) as u64;
        sum = sum.wrapping_add(a.insert(shot(i)).to_bits() ^ claim);
    }
    sum
}

#[inline(never)]
fn idt_reserve_fill_each(a: &mut ShotAllocator, n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        let id = a.reserve_id();
        if a.insert_reserved(id, shot(i)).is_err() {
            unreachable!()
        }
        sum = sum.wrapping_add(id.to_bits());
    }
    sum
}

/// Fills the reserved `ids` in order (inlined into each loop below).
#[inline(always)]
fn idt_fill(a: &mut ShotAllocator, ids: &[ShotId]) -> u64 {
    let mut sum = 0u64;
    for (i, &id) in ids.iter().enumerate() {
        if a.insert_reserved(id, shot(i)).is_err() {
            unreachable!()
        }
        sum = sum.wrapping_add(id.to_bits());
    }
    sum
}

#[inline(never)]
fn idt_reserve_all_then_fill(a: &mut ShotAllocator, ids: &mut Vec<ShotId>, n: usize) -> u64 {
    ids.extend((0..n).map(|_| a.reserve_id()));
    idt_fill(a, ids)
}

#[inline(never)]
fn idt_reserve_batch_then_fill(a: &mut ShotAllocator, ids: &mut Vec<ShotId>, n: usize) -> u64 {
    ids.extend(a.reserve_ids(n));
    idt_fill(a, ids)
}

#[inline(never)]
fn hecs_spawn(w: &mut hecs::World, n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        sum = sum.wrapping_add(w.spawn(components(i)).to_bits().get());
    }
    sum
}

#[inline(never)]
fn hecs_reserve_insert_each(w: &mut hecs::World, n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        let e = w.reserve_entity();
        w.insert(e, components(i)).unwrap();
        sum = sum.wrapping_add(e.to_bits().get());
    }
    sum
}

#[inline(never)]
fn hecs_reserve_all_then_insert(w: &mut hecs::World, ids: &mut Vec<hecs::Entity>, n: usize) -> u64 {
    ids.extend((0..n).map(|_| w.reserve_entity()));
    hecs_fill(w, ids)
}

#[inline(never)]
fn hecs_reserve_batch_then_insert(
    w: &mut hecs::World,
    ids: &mut Vec<hecs::Entity>,
    n: usize,
) -> u64 {
    ids.extend(w.reserve_entities(n as u32));
    hecs_fill(w, ids)
}

/// Inserts the components of the reserved `ids` in order (inlined into
/// each loop above).
#[inline(always)]
fn hecs_fill(w: &mut hecs::World, ids: &[hecs::Entity]) -> u64 {
    let mut sum = 0u64;
    for (i, &e) in ids.iter().enumerate() {
        w.insert(e, components(i)).unwrap();
        sum = sum.wrapping_add(e.to_bits().get());
    }
    sum
}

type IdtLoop = fn(&mut ShotAllocator, &mut Vec<ShotId>, usize) -> u64;
type HecsLoop = fn(&mut hecs::World, &mut Vec<hecs::Entity>, usize) -> u64;

/// The floor's counter.
static CLAIMS: AtomicUsize = AtomicUsize::new(0);

/// The `reserve_fill` loops, each given an empty container and an empty
/// `Vec` with room for N ids. The floor goes first: the group's first
/// function measured its batches on a heap that was still being faulted in
/// (`insert` moved between 50 and 220 µs as the first).
const IDT_LOOPS: [(&str, IdtLoop); 5] = [
    ("floor: insert + one atomic RMW", |a, _, n| {
        idt_insert_plus_one_atomic(a, &CLAIMS, n)
    }),
    ("idtable insert", |a, _, n| idt_insert(a, n)),
    ("idtable reserve+fill each", |a, _, n| {
        idt_reserve_fill_each(a, n)
    }),
    ("idtable reserve all, then fill", idt_reserve_all_then_fill),
    (
        "idtable reserve_ids, then fill",
        idt_reserve_batch_then_fill,
    ),
];

const HECS_LOOPS: [(&str, HecsLoop); 4] = [
    ("hecs spawn", |w, _, n| hecs_spawn(w, n)),
    ("hecs reserve+insert each", |w, _, n| {
        hecs_reserve_insert_each(w, n)
    }),
    (
        "hecs reserve all, then insert",
        hecs_reserve_all_then_insert,
    ),
    (
        "hecs reserve_entities, then insert",
        hecs_reserve_batch_then_insert,
    ),
];

/// Every loop leaves N live objects, none reserved.
fn check_reserve_fill() {
    for (_, run) in IDT_LOOPS {
        let mut a = ShotAllocator::new();
        run(&mut a, &mut Vec::new(), N);
        assert_eq!((a.len(), a.reserved_len()), (N, 0));
        assert_eq!(
            a.columns().owner.iter().map(|&o| o as usize).sum::<usize>(),
            N * (N - 1) / 2
        );
    }
    for (_, run) in HECS_LOOPS {
        let mut w = hecs::World::new();
        run(&mut w, &mut Vec::new(), N);
        let owners = w.query_mut::<(&Pos, &Vel, &Damage, &Owner)>();
        let mut sum = 0;
        for (p, v, d, o) in owners {
            assert_eq!((p.0[0], v.0[0], d.0), (o.0 as f32, 1.0, (o.0 % 7) as i32));
            sum += o.0 as usize;
        }
        assert_eq!(sum, N * (N - 1) / 2);
    }
}

fn reserve_fill(c: &mut Criterion) {
    check_reserve_fill();
    let mut g = c.benchmark_group("reserve_fill");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(30);
    let large = BatchSize::LargeInput;
    for (name, run) in IDT_LOOPS {
        g.bench_function(BenchmarkId::new(name, N), |b| {
            let fresh = || (ShotAllocator::new(), Vec::with_capacity(N));
            b.iter_batched_ref(fresh, |(a, ids)| black_box(run(a, ids, N)), large)
        });
    }
    for (name, run) in HECS_LOOPS {
        g.bench_function(BenchmarkId::new(name, N), |b| {
            let fresh = || (hecs::World::new(), Vec::with_capacity(N));
            b.iter_batched_ref(fresh, |(w, ids)| black_box(run(w, ids, N)), large)
        });
    }
    g.finish();
}

/// `total` ids reserved by `reserve` from `table` on `threads` threads
/// (each its share); the ids' bits summed.
#[inline(never)]
fn reserve_on_threads<T: Sync, F>(table: &T, threads: usize, total: usize, reserve: F) -> u64
where
    F: Fn(&T, usize) -> u64 + Sync,
{
    if threads == 1 {
        return reserve(table, total);
    }
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| reserve(table, total / threads)))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    })
}

#[inline(never)]
fn idt_reserve_each(a: &ShotAllocator, n: usize) -> u64 {
    (0..n)
        .map(|_| a.reserve_id().to_bits())
        .fold(0, u64::wrapping_add)
}

#[inline(never)]
fn idt_reserve_batches(a: &ShotAllocator, n: usize) -> u64 {
    let mut sum = 0u64;
    for _ in 0..n / 64 {
        sum = a
            .reserve_ids(64)
            .map(|id| id.to_bits())
            .fold(sum, u64::wrapping_add);
    }
    sum
}

#[inline(never)]
fn hecs_reserve_each(w: &hecs::World, n: usize) -> u64 {
    (0..n)
        .map(|_| w.reserve_entity().to_bits().get())
        .fold(0, u64::wrapping_add)
}

#[inline(never)]
fn hecs_reserve_batches(w: &hecs::World, n: usize) -> u64 {
    let mut sum = 0u64;
    for _ in 0..n / 64 {
        sum = w
            .reserve_entities(64)
            .map(|e| e.to_bits().get())
            .fold(sum, u64::wrapping_add);
    }
    sum
}

/// One `reserve_threads` function: `total` ids reserved by `reserve` from
/// `&` of a container `make` builds fresh for each batch.
fn bench_threads<T: Sync>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    threads: usize,
    make: fn() -> T,
    reserve: fn(&T, usize) -> u64,
) {
    let id = BenchmarkId::new(format!("{name}, {threads} thread(s)"), THREADED);
    g.bench_function(id, |b| {
        b.iter_batched_ref(
            make,
            |t| black_box(reserve_on_threads(&*t, threads, THREADED, reserve)),
            BatchSize::LargeInput,
        )
    });
}

fn reserve_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("reserve_threads");
    g.throughput(Throughput::Elements(THREADED as u64));
    g.sample_size(10);
    for threads in [1, 2] {
        let (idt, hecs) = (ShotAllocator::new, hecs::World::new);
        bench_threads(&mut g, "idtable reserve_id", threads, idt, idt_reserve_each);
        bench_threads(
            &mut g,
            "idtable reserve_ids(64)",
            threads,
            idt,
            idt_reserve_batches,
        );
        bench_threads(
            &mut g,
            "hecs reserve_entity",
            threads,
            hecs,
            hecs_reserve_each,
        );
        bench_threads(
            &mut g,
            "hecs reserve_entities(64)",
            threads,
            hecs,
            hecs_reserve_batches,
        );
    }
    g.finish();
}

criterion_group!(benches, reserve_fill, reserve_threads);
criterion_main!(benches);
