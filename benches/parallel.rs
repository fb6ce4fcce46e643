//! The particles integration step, serial against rayon (feature `rayon`).
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --features rayon --bench
//! parallel`. After criterion's own output the bench prints a Markdown table of
//! the medians and the serial/parallel ratios of this run, read back from
//! `target/criterion` (relative to this package: benches/target/criterion).
//!
//! The step is the one of `examples/particles.rs` on the same `Particle`
//! struct, drag and gravity on `vel` and `pos += vel * dt`, plus `age += dt`
//! (which the demo does in its despawn pass instead, beside the ids, so this
//! bench keeps a third column in the kernel). Five ways to run it, on the
//! same data:
//!
//! * `columns_serial`: the serial kernel over whole columns (`columns_mut()`,
//!   `[f32; 3]` columns flattened so the loops vectorise);
//! * `columns_rayon_chunks`: the columns cut into chunks of `CHUNK` rows at
//!   the same indices with `par_chunks_mut`, the serial kernel on each
//!   chunk (what `particles --parallel` does);
//! * `columns_rayon_zip`: `pos.par_iter_mut().zip(vel.par_iter_mut())
//!   .zip(age.par_iter_mut())`, one particle per closure call (the pattern
//!   of the `idtable::par` docs);
//! * `rows_serial`: `iter_mut()`, one `ParticleMut` per particle;
//! * `rows_par_iter_mut`: `par_iter_mut()`, the same closure.
//!
//! Two groups time the same five variants:
//!
//! * `parallel_integrate` — **back to back**: steps run one after the other
//!   on one allocator, as in a loop with nothing else to do, so rayon's
//!   threads stay awake and part of the data stays in cache. The copy is
//!   reset from the template (untimed) every 500 steps so that velocities
//!   never decay into subnormal floats.
//! * `parallel_integrate_fresh` — **one step per fresh copy**: each timed
//!   step runs on its own copy of the template, made before the timer starts
//!   (`iter_batched_ref`, `BatchSize::LargeInput`), closer to a frame in
//!   which other work ran between two integration steps: the data is not in
//!   the cache of the thread that integrates it.
//!
//! Every variant is checked to give bit-identical columns before anything
//! is timed.
//!
//! After criterion's groups, a **paired** measurement of the one pair with a
//! target, `rows_par_iter_mut` against `columns_rayon_zip` (issue 12: ≤ 1.05×):
//! the two steps alternate, one of each per pair (which goes first swaps
//! every pair), each timed alone with `Instant`, in both groups' settings
//! (back to back on one allocator per variant, reset every 500 steps; or
//! one step per fresh copy, copied untimed). Criterion times each variant
//! in a stretch of its own, so on a shared 2-core machine a slow stretch
//! lands on one variant and moves their ratio by ±20% from run to run; in
//! a pair both steps run within microseconds of each other and meet the
//! same conditions (3 s per group and size, at least 300 pairs). The bench
//! prints the median of each variant's steps and the median of the
//! per-pair ratios, and writes them to `target/criterion/parallel-paired.json`
//! for `benches/report.py`.
//!
//! Sizes: 10,000 particles (360 KB, in cache: where handing out tasks costs
//! about as much as the work), 100,000 and 1,000,000 (36 MB, out of cache,
//! bound by memory bandwidth). `IDTABLE_BENCH_QUICK=1` or criterion's
//! `-- --test` use 1,000 and 16,384 and short measurements.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput};
use idtable::SoaAllocator;
use rayon::prelude::*;

#[derive(SoaAllocator, Clone)]
#[soa(id = idtable::Id24_8)]
struct Particle {
    pos: [f32; 3],
    vel: [f32; 3],
    age: f32,
    lifetime: f32,
    emitter: u32,
}

const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = 9.81;
const DRAG: f32 = 0.995;
/// Rows per task of `columns_rayon_chunks`, as in the particles demo.
const CHUNK: usize = 16 * 1024;

/// The two groups: back to back, and one step per fresh copy.
const GROUPS: [&str; 2] = ["parallel_integrate", "parallel_integrate_fresh"];
/// Serial variant, parallel variant: the ratios of the summary table.
const PAIRS: [(&str, &str); 3] = [
    ("columns_serial", "columns_rayon_chunks"),
    ("columns_serial", "columns_rayon_zip"),
    ("rows_serial", "rows_par_iter_mut"),
];

/// `n` particles with varied, deterministic values (SplitMix64).
fn particles(n: usize) -> ParticleAllocator {
    let mut state = 0x1D7A_B1E5_0A11_0CA7u64;
    let mut unit = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut all = ParticleAllocator::with_capacity(n);
    for i in 0..n {
        all.insert(Particle {
            pos: [unit() * 100.0, unit() * 3.0, unit() * 100.0],
            vel: [unit() * 3.0 - 1.5, unit() * 4.0 + 2.0, unit() * 3.0 - 1.5],
            age: unit(),
            lifetime: 0.5 + unit() * 2.0,
            emitter: (i % 1000) as u32,
        });
    }
    all
}

/// The serial kernel over rows of the three columns (whole or a chunk).
#[inline(always)]
fn integrate_rows(pos: &mut [[f32; 3]], vel: &mut [[f32; 3]], age: &mut [f32]) {
    for v in vel.iter_mut() {
        v[0] *= DRAG;
        v[1] = v[1] * DRAG - GRAVITY * DT;
        v[2] *= DRAG;
    }
    for (p, v) in pos.as_flattened_mut().iter_mut().zip(vel.as_flattened()) {
        *p += *v * DT;
    }
    for a in age.iter_mut() {
        *a += DT;
    }
}

/// The same step for one particle.
#[inline(always)]
fn integrate_one(pos: &mut [f32; 3], vel: &mut [f32; 3], age: &mut f32) {
    vel[0] *= DRAG;
    vel[1] = vel[1] * DRAG - GRAVITY * DT;
    vel[2] *= DRAG;
    for k in 0..3 {
        pos[k] += vel[k] * DT;
    }
    *age += DT;
}

fn columns_serial(all: &mut ParticleAllocator) {
    let c = all.columns_mut();
    integrate_rows(c.pos, c.vel, c.age);
}

fn columns_rayon_chunks(all: &mut ParticleAllocator) {
    let c = all.columns_mut();
    c.pos
        .par_chunks_mut(CHUNK)
        .zip(c.vel.par_chunks_mut(CHUNK))
        .zip(c.age.par_chunks_mut(CHUNK))
        .for_each(|((pos, vel), age)| integrate_rows(pos, vel, age));
}

fn columns_rayon_zip(all: &mut ParticleAllocator) {
    let c = all.columns_mut();
    c.pos
        .par_iter_mut()
        .zip(c.vel.par_iter_mut())
        .zip(c.age.par_iter_mut())
        .for_each(|((pos, vel), age)| integrate_one(pos, vel, age));
}

fn rows_serial(all: &mut ParticleAllocator) {
    all.iter_mut()
        .for_each(|(_, p)| integrate_one(p.pos, p.vel, p.age));
}

fn rows_par_iter_mut(all: &mut ParticleAllocator) {
    all.par_iter_mut()
        .for_each(|(_, p)| integrate_one(p.pos, p.vel, p.age));
}

type Variant = (&'static str, fn(&mut ParticleAllocator));

const VARIANTS: [Variant; 5] = [
    ("columns_serial", columns_serial),
    ("columns_rayon_chunks", columns_rayon_chunks),
    ("columns_rayon_zip", columns_rayon_zip),
    ("rows_serial", rows_serial),
    ("rows_par_iter_mut", rows_par_iter_mut),
];

/// Every variant turns `template` into the same bits.
fn check_variants_agree(template: &ParticleAllocator) {
    let bits = |a: &ParticleAllocator| -> Vec<u32> {
        let c = a.columns();
        let floats = c.pos.as_flattened().iter().chain(c.vel.as_flattened());
        floats.chain(c.age).map(|x| x.to_bits()).collect()
    };
    let mut reference = template.clone();
    columns_serial(&mut reference);
    for (name, step) in VARIANTS {
        let mut a = template.clone();
        step(&mut a);
        assert!(bits(&a) == bits(&reference), "{name} computes another step");
    }
}

/// Steps back to back, as a frame loop with nothing else to do would:
/// `iters` steps, timed, on a copy of `template` that is reset (untimed)
/// every `RESET_EVERY` steps so that velocities never decay into subnormal
/// floats (0.995^500 = 0.08).
fn back_to_back(
    template: &ParticleAllocator,
    step: fn(&mut ParticleAllocator),
    iters: u64,
) -> Duration {
    const RESET_EVERY: u64 = 500;
    let mut a = template.clone();
    let mut timed = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        reset(&mut a, template);
        let batch = (iters - done).min(RESET_EVERY);
        let start = Instant::now();
        for _ in 0..batch {
            step(black_box(&mut a));
        }
        timed += start.elapsed();
        done += batch;
    }
    timed
}

/// Copies the columns the step changes back from `template`.
fn reset(a: &mut ParticleAllocator, template: &ParticleAllocator) {
    let (to, from) = (a.columns_mut(), template.columns());
    to.pos.copy_from_slice(from.pos);
    to.vel.copy_from_slice(from.vel);
    to.age.copy_from_slice(from.age);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let quick = std::env::var("IDTABLE_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty());
    let sizes: &[usize] = if quick || test_mode {
        &[1_000, 16_384]
    } else {
        &[10_000, 100_000, 1_000_000]
    };
    let threads = rayon::current_num_threads();
    println!(
        "parallel: rayon pool of {threads} threads, {} cores available",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    let mut c = Criterion::default().configure_from_args();
    for group in GROUPS {
        for &n in sizes {
            let template = particles(n);
            check_variants_agree(&template);
            let mut g = c.benchmark_group(group);
            g.throughput(Throughput::Elements(n as u64));
            if quick {
                g.sample_size(10)
                    .warm_up_time(Duration::from_millis(100))
                    .measurement_time(Duration::from_millis(300));
            } else if n >= 1_000_000 {
                g.sample_size(30)
                    .sampling_mode(SamplingMode::Flat)
                    .warm_up_time(Duration::from_secs(1))
                    .measurement_time(Duration::from_secs(4));
            } else {
                g.sample_size(50)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            }
            for (name, step) in VARIANTS {
                g.bench_function(BenchmarkId::new(name, n), |b| {
                    if group == GROUPS[0] {
                        b.iter_custom(|iters| back_to_back(&template, step, iters))
                    } else {
                        b.iter_batched_ref(
                            || template.clone(),
                            |a| step(black_box(a)),
                            BatchSize::LargeInput,
                        )
                    }
                });
            }
            g.finish();
        }
    }
    c.final_summary();
    let (budget, min_pairs) = if quick || test_mode {
        (Duration::from_millis(50), 20)
    } else {
        (Duration::from_secs(3), 300)
    };
    let paired = paired_runs(sizes, budget, min_pairs);
    if !test_mode {
        summary(sizes, threads);
        paired_summary(&paired);
    }
}

/// The paired measurement of one size and group (see the module docs).
struct Paired {
    group: &'static str,
    n: usize,
    pairs: usize,
    /// Medians of the single steps, in nanoseconds.
    rows_ns: f64,
    zip_ns: f64,
    /// Median of `rows / zip` over the pairs.
    ratio: f64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// One step of `step` on `a`, timed.
fn timed_step(step: fn(&mut ParticleAllocator), a: &mut ParticleAllocator) -> f64 {
    let start = Instant::now();
    step(black_box(a));
    start.elapsed().as_nanos() as f64
}

/// `rows_par_iter_mut` and `columns_rayon_zip` in alternating pairs, for
/// `budget` per size and group, and at least `MIN_PAIRS` pairs (a step on
/// a fresh copy of 1M particles comes with two 36 MB copies, so the budget
/// alone would leave few pairs there).
fn paired_runs(sizes: &[usize], budget: Duration, min_pairs: usize) -> Vec<Paired> {
    const RESET_EVERY: usize = 500;
    let mut out = Vec::new();
    for group in GROUPS {
        for &n in sizes {
            let template = particles(n);
            let fresh = group == GROUPS[1];
            let (mut rows_a, mut zip_a) = (template.clone(), template.clone());
            let (mut rows_t, mut zip_t, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            // Warm up both (threads awake, code and data in place).
            for _ in 0..3 {
                rows_par_iter_mut(&mut rows_a);
                columns_rayon_zip(&mut zip_a);
            }
            let start = Instant::now();
            let mut i = 0;
            while i < min_pairs || start.elapsed() < budget {
                if fresh {
                    rows_a = template.clone();
                    zip_a = template.clone();
                } else if i % RESET_EVERY == 0 {
                    reset(&mut rows_a, &template);
                    reset(&mut zip_a, &template);
                }
                let (r, z) = if i % 2 == 0 {
                    let r = timed_step(rows_par_iter_mut, &mut rows_a);
                    (r, timed_step(columns_rayon_zip, &mut zip_a))
                } else {
                    let z = timed_step(columns_rayon_zip, &mut zip_a);
                    (timed_step(rows_par_iter_mut, &mut rows_a), z)
                };
                rows_t.push(r);
                zip_t.push(z);
                ratios.push(r / z);
                i += 1;
            }
            out.push(Paired {
                group,
                n,
                pairs: i,
                rows_ns: median(rows_t),
                zip_ns: median(zip_t),
                ratio: median(ratios),
            });
        }
    }
    out
}

/// Prints the paired table and writes `target/criterion/parallel-paired.json`.
fn paired_summary(paired: &[Paired]) {
    println!("\nPaired, `rows_par_iter_mut` against `columns_rayon_zip` (medians):\n");
    println!(
        "| group | N | pairs | `rows_par_iter_mut` | `columns_rayon_zip` | median of pair ratios |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut json = Vec::new();
    for p in paired {
        println!(
            "| `{}` | {} | {} | {} | {} | {:.2}× |",
            p.group,
            size_label(p.n),
            p.pairs,
            time(p.rows_ns),
            time(p.zip_ns),
            p.ratio
        );
        json.push(serde_json::json!({
            "group": p.group, "n": p.n, "pairs": p.pairs,
            "rows_par_iter_mut_ns": p.rows_ns, "columns_rayon_zip_ns": p.zip_ns, "ratio": p.ratio,
        }));
    }
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "target".into())
        .join("criterion");
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::write(
            dir.join("parallel-paired.json"),
            serde_json::to_string_pretty(&serde_json::json!({ "rows": json })).unwrap_or_default(),
        )
    });
    if let Err(e) = written {
        eprintln!("could not write parallel-paired.json: {e}");
    }
}

/// Criterion's median of `variant` at `n`, in nanoseconds, from this run's
/// `target/criterion/.../new/estimates.json`.
fn median_ns(group: &str, variant: &str, n: usize) -> Option<f64> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "target".into());
    let path = dir
        .join("criterion")
        .join(group)
        .join(variant)
        .join(n.to_string())
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// The Markdown table of benches/NOTES.md ("Parallel integration (rayon)"):
/// medians, and serial / parallel.
fn summary(sizes: &[usize], threads: usize) {
    println!("\nMedians of this run, rayon pool of {threads} threads:\n");
    println!(
        "| group | N | serial | parallel | serial median | parallel median | serial / parallel |"
    );
    println!("| --- | ---: | --- | --- | ---: | ---: | ---: |");
    for group in GROUPS {
        for &n in sizes {
            for (serial, parallel) in PAIRS {
                let s = median_ns(group, serial, n);
                let p = median_ns(group, parallel, n);
                let (Some(s), Some(p)) = (s, p) else {
                    println!("| `{group}` | {n} | `{serial}` | `{parallel}` | (no estimate) | | |");
                    continue;
                };
                println!(
                    "| `{group}` | {} | `{serial}` | `{parallel}` | {} | {} | {:.2}× |",
                    size_label(n),
                    time(s),
                    time(p),
                    s / p
                );
            }
        }
    }
}

/// `10000` as `10k`, `1000000` as `1M`.
fn size_label(n: usize) -> String {
    match n {
        n if n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}
