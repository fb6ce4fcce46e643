//! Shaped columns (issue 37, point 5): split and nested fields, aligned
//! columns and `par_chunks_mut`, each against what it replaces or the loop
//! written by hand, on the same data. Sizes 10,000 and 1,000,000 rows
//! (`-- --test`: 1,000 and 16,384, each routine once).
//!
//! Groups:
//!
//! * `shape_one_component`: `x = x * 0.99 + 0.25` over the `x` of a
//!   3-float position: `split` (`pos: [f32; 3]` with `#[soa(split)]`, the
//!   loop over `columns_mut().pos.column_mut(0)`), `nested` (`pos: P3` with
//!   `#[soa(nested)]`, over `pos.x`), `unsplit` (today's `[f32; 3]` column,
//!   `p[0]` of each), and `hand_vec` (a `Vec<f32>` of the x values: the
//!   floor). Targets: split and nested ≤ 1.05× hand_vec, ≥ 2× faster than
//!   unsplit.
//! * `shape_insert`, `shape_get`, `shape_remove`: a record of seven `f32`
//!   with `#[soa(nested)] pos: P3` and `#[soa(split)] vel: [f32; 3]`
//!   (`shaped`) against the same seven declared flat, one field each
//!   (`flat`): insert every row into a new allocator; look every row up in
//!   a seeded random order, summing `x`; remove every row in another such
//!   order. Target: shaped ≤ 1.05× flat.
//! * `shape_align`: `x += vx * dt` over two `f32` columns after a `u8`
//!   column, in an allocator made `with_capacity(n + 1)` (so without
//!   alignment the two columns do not start on a cache line: the bench
//!   prints where they start), with `#[soa(align = 64)]` on the struct
//!   (`align_64`) and without (`natural`). Target: align_64 no slower.
//! * `shape_par_chunks` (feature `rayon`, 1,000,000 rows): `x += vx * dt`
//!   in chunks of 4,096 rows handed to rayon's threads: `columns_mut()
//!   .par_chunks_mut(4096)` (`par_chunks_mut`) against rayon's own
//!   `par_chunks_mut` zipped over two `Vec<f32>` (`rayon_vecs`). Target:
//!   ≤ 1.1×.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --features rayon
//! --bench shaping` (without `--features rayon` the last group is left
//! out).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use idtable::SoaAllocator;

/// A 3-float position, columns only (what a nested field takes).
#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
#[soa(parts_only)]
pub struct P3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// The position split into three columns.
#[derive(SoaAllocator, Clone)]
pub struct SplitBody {
    #[soa(split)]
    pub pos: [f32; 3],
    pub mass: f32,
}

/// The position nested: its fields are three columns.
#[derive(SoaAllocator, Clone)]
pub struct NestedBody {
    #[soa(nested)]
    pub pos: P3,
    pub mass: f32,
}

/// Today's layout: the position is one column of `[f32; 3]`.
#[derive(SoaAllocator, Clone)]
pub struct UnsplitBody {
    pub pos: [f32; 3],
    pub mass: f32,
}

/// Seven `f32` columns, shaped: a nested position, a split velocity.
#[derive(SoaAllocator, Clone)]
pub struct Shaped {
    #[soa(nested)]
    pub pos: P3,
    #[soa(split)]
    pub vel: [f32; 3],
    pub mass: f32,
}

/// The same seven columns declared flat, one field each.
#[derive(SoaAllocator, Clone)]
pub struct Flat {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub vx: f32,
    pub vy: f32,
    pub vz: f32,
    pub mass: f32,
}

/// Two `f32` columns after a byte column, at their natural alignment.
#[derive(SoaAllocator, Clone)]
pub struct Natural {
    pub tag: u8,
    pub x: f32,
    pub vx: f32,
}

/// The same, every column at a multiple of 64 bytes.
#[derive(SoaAllocator, Clone)]
#[soa(align = 64)]
pub struct Aligned64 {
    pub tag: u8,
    pub x: f32,
    pub vx: f32,
}

const DT: f32 = 1.0 / 60.0;

fn value(i: usize) -> [f32; 7] {
    let f = (i % 1000) as f32;
    [f, f + 1.0, f + 2.0, 0.5, -0.5, 0.25, 1.0 + f * 0.001]
}

/// A seeded random permutation of `0..n` (Fisher–Yates over splitmix64).
fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = ((next() >> 32) * (i as u64 + 1)) >> 32;
        p.swap(i, j as usize);
    }
    p
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn configure(group: &mut Group<'_>, n: usize, test_mode: bool) {
    if test_mode {
        group.sample_size(10);
    } else if n >= 100_000 {
        group
            .sample_size(20)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(3000));
    } else {
        group
            .sample_size(40)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1500));
    }
}

// The kernels, never inlined into criterion's loop, so each is one
// function whose code can be read (and counted) alone.

#[inline(never)]
fn scale_slice(xs: &mut [f32]) {
    for x in xs {
        *x = *x * 0.99 + 0.25;
    }
}

#[inline(never)]
fn scale_unsplit(pos: &mut [[f32; 3]]) {
    for p in pos {
        p[0] = p[0] * 0.99 + 0.25;
    }
}

#[inline(never)]
fn integrate(xs: &mut [f32], vs: &[f32]) {
    for (x, v) in xs.iter_mut().zip(vs) {
        *x += v * DT;
    }
}

fn one_component(c: &mut Criterion, n: usize, test_mode: bool) {
    let mut split: SplitBodyAllocator = (0..n)
        .map(|i| {
            let v = value(i);
            SplitBody {
                pos: [v[0], v[1], v[2]],
                mass: v[6],
            }
        })
        .collect();
    let mut nested: NestedBodyAllocator = (0..n)
        .map(|i| {
            let v = value(i);
            NestedBody {
                pos: P3 {
                    x: v[0],
                    y: v[1],
                    z: v[2],
                },
                mass: v[6],
            }
        })
        .collect();
    let mut unsplit: UnsplitBodyAllocator = (0..n)
        .map(|i| {
            let v = value(i);
            UnsplitBody {
                pos: [v[0], v[1], v[2]],
                mass: v[6],
            }
        })
        .collect();
    let mut hand: Vec<f32> = (0..n).map(|i| value(i)[0]).collect();
    // The same numbers everywhere, before and after a step.
    scale_slice(split.columns_mut().pos.column_mut(0));
    scale_slice(nested.columns_mut().pos.x);
    scale_unsplit(unsplit.columns_mut().pos);
    scale_slice(&mut hand);
    assert_eq!(split.columns().pos.column(0), &hand[..]);
    assert_eq!(nested.columns().pos.x, &hand[..]);
    assert!(unsplit
        .columns()
        .pos
        .iter()
        .map(|p| p[0])
        .eq(hand.iter().copied()));

    let mut g = c.benchmark_group("shape_one_component");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("split", n), |b| {
        b.iter(|| scale_slice(black_box(&mut split).columns_mut().pos.column_mut(0)))
    });
    g.bench_function(BenchmarkId::new("nested", n), |b| {
        b.iter(|| scale_slice(black_box(&mut nested).columns_mut().pos.x))
    });
    g.bench_function(BenchmarkId::new("unsplit", n), |b| {
        b.iter(|| scale_unsplit(black_box(&mut unsplit).columns_mut().pos))
    });
    g.bench_function(BenchmarkId::new("hand_vec", n), |b| {
        b.iter(|| scale_slice(black_box(&mut hand)))
    });
    g.finish();
}

/// The operations the record groups time, for one allocator type.
trait Records: Default + Clone {
    type Id: Copy;
    fn put(&mut self, i: usize) -> Self::Id;
    fn x(&self, id: Self::Id) -> f32;
    fn take(&mut self, id: Self::Id) -> bool;
}

impl Records for ShapedAllocator {
    type Id = ShapedId;
    #[inline(always)]
    fn put(&mut self, i: usize) -> ShapedId {
        let v = value(i);
        self.insert(Shaped {
            pos: P3 {
                x: v[0],
                y: v[1],
                z: v[2],
            },
            vel: [v[3], v[4], v[5]],
            mass: v[6],
        })
    }
    #[inline(always)]
    fn x(&self, id: ShapedId) -> f32 {
        self.get(id).map_or(0.0, |r| *r.pos.x)
    }
    #[inline(always)]
    fn take(&mut self, id: ShapedId) -> bool {
        self.remove(id).is_some()
    }
}

impl Records for FlatAllocator {
    type Id = FlatId;
    #[inline(always)]
    fn put(&mut self, i: usize) -> FlatId {
        let v = value(i);
        self.insert(Flat {
            x: v[0],
            y: v[1],
            z: v[2],
            vx: v[3],
            vy: v[4],
            vz: v[5],
            mass: v[6],
        })
    }
    #[inline(always)]
    fn x(&self, id: FlatId) -> f32 {
        self.get(id).map_or(0.0, |r| *r.x)
    }
    #[inline(always)]
    fn take(&mut self, id: FlatId) -> bool {
        self.remove(id).is_some()
    }
}

#[inline(never)]
fn timed_inserts<A: Records>(mut a: A, n: usize) -> A {
    for i in 0..n {
        a.put(i);
    }
    a
}

#[inline(never)]
fn timed_gets<A: Records>(a: &A, ids: &[A::Id]) -> f32 {
    let mut acc = [0.0f32; 4];
    for (k, &id) in ids.iter().enumerate() {
        acc[k % 4] += a.x(black_box(id));
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

#[inline(never)]
fn timed_removes<A: Records>(a: &mut A, ids: &[A::Id]) -> usize {
    ids.iter().map(|&id| usize::from(a.take(id))).sum()
}

fn records<A: Records>(c: &mut Criterion, name: &str, n: usize, test_mode: bool) {
    let mut full = A::default();
    let ids: Vec<A::Id> = (0..n).map(|i| full.put(i)).collect();
    let gets: Vec<A::Id> = permutation(n, 0x37_0001 ^ n as u64)
        .iter()
        .map(|&i| ids[i])
        .collect();
    let removes: Vec<A::Id> = permutation(n, 0x37_0002 ^ n as u64)
        .iter()
        .map(|&i| ids[i])
        .collect();
    let want: f32 = timed_gets(&full, &gets);

    let mut g = c.benchmark_group("shape_insert");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_batched(A::default, |a| timed_inserts(a, n), BatchSize::LargeInput)
    });
    g.finish();

    let mut g = c.benchmark_group("shape_get");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter(|| {
            let got = timed_gets(&full, &gets);
            debug_assert_eq!(got, want);
            got
        })
    });
    g.finish();

    let mut g = c.benchmark_group("shape_remove");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_batched(
            || full.clone(),
            |mut a| {
                assert_eq!(timed_removes(&mut a, &removes), n);
                a
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn align(c: &mut Criterion, n: usize, test_mode: bool) {
    // `n + 1`: a capacity that is not a multiple of 64, so the byte
    // column leaves the next ones off a cache line.
    let mut natural = NaturalAllocator::with_capacity(n + 1);
    let mut aligned = Aligned64Allocator::with_capacity(n + 1);
    for i in 0..n {
        let v = value(i);
        natural.insert(Natural {
            tag: i as u8,
            x: v[0],
            vx: v[3],
        });
        aligned.insert(Aligned64 {
            tag: i as u8,
            x: v[0],
            vx: v[3],
        });
    }
    assert_eq!(aligned.columns().x.as_ptr() as usize % 64, 0);
    assert_eq!(aligned.columns().vx.as_ptr() as usize % 64, 0);
    let mut g = c.benchmark_group("shape_align");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("natural", n), |b| {
        b.iter(|| {
            let cols = black_box(&mut natural).columns_mut();
            integrate(cols.x, cols.vx)
        })
    });
    g.bench_function(BenchmarkId::new("align_64", n), |b| {
        b.iter(|| {
            let cols = black_box(&mut aligned).columns_mut();
            integrate(cols.x, cols.vx)
        })
    });
    g.finish();
    // Where the natural columns start, for the record.
    let cols = natural.columns();
    println!(
        "shape_align/{n}: natural x at {} and vx at {} bytes past a 64-byte boundary",
        cols.x.as_ptr() as usize % 64,
        cols.vx.as_ptr() as usize % 64
    );
}

#[cfg(feature = "rayon")]
fn par_chunks(c: &mut Criterion, n: usize, test_mode: bool) {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let mut table: NaturalAllocator = (0..n)
        .map(|i| {
            let v = value(i);
            Natural {
                tag: i as u8,
                x: v[0],
                vx: v[3],
            }
        })
        .collect();
    let mut xs: Vec<f32> = (0..n).map(|i| value(i)[0]).collect();
    let vs: Vec<f32> = (0..n).map(|i| value(i)[3]).collect();
    let mut g = c.benchmark_group("shape_par_chunks");
    configure(&mut g, n, test_mode);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("par_chunks_mut", n), |b| {
        b.iter(|| {
            black_box(&mut table)
                .columns_mut()
                .par_chunks_mut(CHUNK)
                .for_each(|chunk| integrate(chunk.x, chunk.vx))
        })
    });
    g.bench_function(BenchmarkId::new("rayon_vecs", n), |b| {
        b.iter(|| {
            black_box(&mut xs)
                .par_chunks_mut(CHUNK)
                .zip(vs.par_chunks(CHUNK))
                .for_each(|(x, v)| integrate(x, v))
        })
    });
    g.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let sizes: &[usize] = if test_mode {
        &[1_000, 16_384]
    } else {
        &[10_000, 1_000_000]
    };
    let mut c = Criterion::default().configure_from_args();
    for &n in sizes {
        one_component(&mut c, n, test_mode);
        records::<ShapedAllocator>(&mut c, "shaped", n, test_mode);
        records::<FlatAllocator>(&mut c, "flat", n, test_mode);
        align(&mut c, n, test_mode);
    }
    #[cfg(feature = "rayon")]
    par_chunks(&mut c, *sizes.last().unwrap_or(&1_000), test_mode);
    c.final_summary();
}
