//! Rayon loops called from a program's main thread against the same loops
//! run inside `ThreadPool::install`, and against the sequential loop
//! (feature `rayon`). Not criterion: `install` moves the caller onto one of
//! the pool's threads, so the loop of ticks is timed here, each tick alone
//! with `Instant`, and medians are taken over many ticks.
//!
//! Run (once with the default pool, one thread per core, once with one):
//!
//! ```sh
//! cargo bench --manifest-path benches/Cargo.toml --features rayon --bench pool
//! RAYON_NUM_THREADS=1 cargo bench --manifest-path benches/Cargo.toml --features rayon --bench pool
//! ```
//!
//! A tick is the step of a small shoot-'em-up: `Ship` rows (position,
//! velocity, cooldown), two loops per tick, each cut into chunks of
//! `CHUNK` rows for rayon:
//!
//! 1. `pos += vel * dt`, wrapped into the arena: rayon's `par_chunks_mut`
//!    over the `pos` column zipped with `par_chunks` of `vel`
//!    (`columns_mut()` gives plain slices);
//! 2. the cooldowns count down and restart: idtable's row ranges,
//!    `columns_mut().par_chunks_mut(CHUNK)`.
//!
//! Variants, on copies of the same ships:
//!
//! * `sequential`: both loops over whole columns, no rayon;
//! * `from_main`: the parallel loops called from the main thread, on
//!   rayon's global pool (what a program gets that calls `par_*` from
//!   `main`);
//! * `from_main_grain`: the same, with chunks of `len / threads` rows (one
//!   chunk per thread of the pool);
//! * `in_install`: the parallel loops of `from_main`, with the whole loop of
//!   ticks run inside `ThreadPoolBuilder::new().build()?.install(..)`
//!   (the pool takes its size from `RAYON_NUM_THREADS` as the global one
//!   does).
//!
//! Each round runs every variant for `ticks` ticks (the variants' order
//! rotates from round to round), records each tick's time, and takes each
//! variant's median and 99th percentile; the ratios are each variant's
//! median over `sequential`'s of the same round. The table gives, per size,
//! the median over the rounds of each (and the range of the medians and of
//! the ratios). Every variant leaves the same columns, bit for bit (checked
//! before anything is timed). Before the table, the program prints how many
//! chunks of one 2,000-row loop the calling thread runs itself, from `main`
//! and inside `install`.
//!
//! `-- --test` (as CI runs it): one short round, small sizes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use idtable::SoaAllocator;
use rayon::prelude::*;

#[derive(SoaAllocator, Clone)]
struct Ship {
    pos: [f32; 2],
    vel: [f32; 2],
    cooldown: f32,
}

const DT: f32 = 1.0 / 60.0;
const ARENA: f32 = 1000.0;
const FIRE_EVERY: f32 = 0.25;
/// Rows per chunk of the parallel loops.
const CHUNK: usize = 256;

const VARIANTS: [&str; 4] = ["sequential", "from_main", "from_main_grain", "in_install"];

/// `n` ships with varied, deterministic values (SplitMix64).
fn ships(n: usize) -> ShipAllocator {
    let mut state = 0x5EED_5A1F_0000_0001_u64;
    let mut unit = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| Ship {
            pos: [unit() * ARENA, unit() * ARENA],
            vel: [unit() * 200.0 - 100.0, unit() * 200.0 - 100.0],
            cooldown: unit() * FIRE_EVERY,
        })
        .collect()
}

#[inline(always)]
fn wrap(x: f32) -> f32 {
    if x < 0.0 {
        x + ARENA
    } else if x >= ARENA {
        x - ARENA
    } else {
        x
    }
}

#[inline(always)]
fn move_rows(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    for (p, v) in pos.iter_mut().zip(vel) {
        p[0] = wrap(p[0] + v[0] * DT);
        p[1] = wrap(p[1] + v[1] * DT);
    }
}

#[inline(always)]
fn cool_rows(cooldown: &mut [f32]) {
    for c in cooldown {
        *c = if *c <= 0.0 { FIRE_EVERY } else { *c - DT };
    }
}

fn tick_sequential(ships: &mut ShipAllocator) {
    let c = ships.columns_mut();
    move_rows(c.pos, c.vel);
    cool_rows(c.cooldown);
}

fn tick_parallel(ships: &mut ShipAllocator, chunk: usize) {
    let c = ships.columns_mut();
    c.pos
        .par_chunks_mut(chunk)
        .zip(c.vel.par_chunks(chunk))
        .for_each(|(p, v)| move_rows(p, v));
    ships
        .columns_mut()
        .par_chunks_mut(chunk)
        .for_each(|c| cool_rows(c.cooldown));
}

/// Runs `ticks` ticks of `variant`, each timed alone.
fn run(
    variant: &str,
    ships: &mut ShipAllocator,
    ticks: usize,
    pool: &rayon::ThreadPool,
) -> Vec<Duration> {
    let grain = ships.len().div_ceil(rayon::current_num_threads()).max(1);
    let timed = |ships: &mut ShipAllocator, tick: &dyn Fn(&mut ShipAllocator)| {
        (0..ticks)
            .map(|_| {
                let start = Instant::now();
                tick(black_box(&mut *ships));
                start.elapsed()
            })
            .collect::<Vec<_>>()
    };
    match variant {
        "sequential" => timed(ships, &tick_sequential),
        "from_main" => timed(ships, &|s| tick_parallel(s, CHUNK)),
        "from_main_grain" => timed(ships, &|s| tick_parallel(s, grain)),
        "in_install" => pool.install(|| timed(ships, &|s| tick_parallel(s, CHUNK))),
        _ => unreachable!(),
    }
}

/// The 99th percentile (nearest rank) of sorted `xs`.
fn p99(sorted: &[f64]) -> f64 {
    sorted[(sorted.len() * 99).div_ceil(100).max(1) - 1]
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn range(xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

fn micros(d: f64) -> String {
    if d >= 1000.0 {
        format!("{:.2} ms", d / 1000.0)
    } else if d >= 10.0 {
        format!("{d:.1} µs")
    } else {
        format!("{d:.2} µs")
    }
}

/// Every variant leaves the same columns after `ticks` ticks.
fn check(n: usize, ticks: usize, pool: &rayon::ThreadPool) {
    let mut expected = ships(n);
    run("sequential", &mut expected, ticks, pool);
    for variant in &VARIANTS[1..] {
        let mut got = ships(n);
        run(variant, &mut got, ticks, pool);
        let (a, b) = (expected.columns(), got.columns());
        assert!(
            a.pos == b.pos && a.vel == b.vel && a.cooldown == b.cooldown,
            "{variant} differs from sequential"
        );
    }
}

/// How many of the first loop's chunks the thread that calls it runs
/// itself, of how many, for one tick of `n` ships.
fn chunks_run_by_caller(n: usize) -> (usize, usize) {
    let mut ships = ships(n);
    let caller = std::thread::current().id();
    let c = ships.columns_mut();
    let own: Vec<bool> = c
        .pos
        .par_chunks_mut(CHUNK)
        .zip(c.vel.par_chunks(CHUNK))
        .map(|(p, v)| {
            move_rows(p, v);
            std::thread::current().id() == caller
        })
        .collect();
    (own.iter().filter(|&&b| b).count(), own.len())
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test" || a == "--list");
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .expect("a thread pool");
    // (rows, ticks per variant and round); rounds.
    let (sizes, rounds): (&[(usize, usize)], usize) = if test_mode {
        (&[(2_000, 20), (10_000, 5)], 1)
    } else {
        (&[(2_000, 20_000), (100_000, 2_000)], 7)
    };
    let threads = rayon::current_num_threads();
    println!(
        "pool: global pool {threads} thread(s), install pool {} thread(s); RAYON_NUM_THREADS={}; \
         chunk {CHUNK} rows, from_main_grain {threads} chunk(s) per loop; {rounds} round(s)",
        pool.current_num_threads(),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".into()),
    );
    let (main_own, chunks) = chunks_run_by_caller(2_000);
    let (pool_own, _) = pool.install(|| chunks_run_by_caller(2_000));
    println!(
        "chunks of one 2,000-row loop run by the calling thread: from main {main_own} of {chunks}, \
         inside install {pool_own} of {chunks}"
    );
    println!();
    println!("| rows | variant | median per tick (range of rounds) | 99th percentile | ÷ sequential (range) |");
    println!("| ---: | --- | ---: | ---: | ---: |");
    for &(n, ticks) in sizes {
        check(n, 3, &pool);
        let template = ships(n);
        // [variant][round]: median µs per tick, ratio to sequential.
        let mut medians = vec![Vec::new(); VARIANTS.len()];
        let mut ratios = vec![Vec::new(); VARIANTS.len()];
        let mut tails = vec![Vec::new(); VARIANTS.len()];
        for round in 0..rounds {
            let mut of_round = [0.0; VARIANTS.len()];
            let mut tail_of_round = [0.0; VARIANTS.len()];
            for k in 0..VARIANTS.len() {
                let v = (k + round) % VARIANTS.len();
                let mut ships = template.clone();
                let mut times: Vec<f64> = run(VARIANTS[v], &mut ships, ticks, &pool)
                    .iter()
                    .map(|d| d.as_secs_f64() * 1e6)
                    .collect();
                of_round[v] = median(&mut times);
                tail_of_round[v] = p99(&times);
            }
            for v in 0..VARIANTS.len() {
                medians[v].push(of_round[v]);
                ratios[v].push(of_round[v] / of_round[0]);
                tails[v].push(tail_of_round[v]);
            }
        }
        for v in 0..VARIANTS.len() {
            let (lo, hi) = range(&medians[v]);
            let (rlo, rhi) = range(&ratios[v]);
            println!(
                "| {n} | `{}` | {} ({}–{}) | {} | {:.2}× ({:.2}–{:.2}) |",
                VARIANTS[v],
                micros(median(&mut medians[v].clone())),
                micros(lo),
                micros(hi),
                micros(median(&mut tails[v])),
                median(&mut ratios[v].clone()),
                rlo,
                rhi,
            );
        }
    }
}
