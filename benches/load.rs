//! Bulk load and save with postcard (feature `serde`): a `#[soa(serde)]`
//! allocator against the same columns in a plain struct of `Vec`s.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --features serde
//! --bench load`; `python3 benches/report.py` reads the medians (and the
//! encoded sizes this bench writes to `target/criterion/load-bytes.json`).
//!
//! The data: `N` = 1,000 and 10,000 rows of `Body` (4 fields, 32 bytes a
//! row) with seeded varied values, inserted into a fresh `BodyAllocator`
//! (no removals, so its free queue is empty), and the same columns copied
//! into `PlainColumns { pos, vel, mass, flags }`, one `Vec` per field.
//!
//! * `load/idtable/N`: `postcard::from_bytes::<BodyAllocator>` of the
//!   allocator's bytes: the id table (slots, dense ids, free queue) and the
//!   4 columns, checked on the way in;
//! * `load/plain_vecs/N`: `postcard::from_bytes::<PlainColumns>` of the plain
//!   struct's bytes: the same 4 columns, no ids;
//! * `save/idtable/N`, `save/plain_vecs/N`: `postcard::to_allocvec` of each.
//!
//! Per row. The result is dropped outside the timed part (`iter_batched`,
//! `BatchSize::LargeInput`). Before timing, both loads are checked to give
//! back what was saved. `IDTABLE_BENCH_QUICK=1` or criterion's `-- --test`
//! shorten the measurements (same sizes).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use idtable::SoaAllocator;
use serde::{Deserialize, Serialize};

#[derive(SoaAllocator, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[soa(serde)]
struct Body {
    pos: [f32; 3],
    vel: [f32; 3],
    mass: f32,
    flags: u32,
}

/// The same columns without ids: what a loader of plain arrays reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PlainColumns {
    pos: Vec<[f32; 3]>,
    vel: Vec<[f32; 3]>,
    mass: Vec<f32>,
    flags: Vec<u32>,
}

const SIZES: [usize; 2] = [1_000, 10_000];

/// `n` bodies with varied, deterministic values (SplitMix64).
fn bodies(n: usize) -> BodyAllocator {
    let mut state = 0x1D7A_B1E5_0000_0010u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut unit = move || (next() >> 40) as f32 / (1u64 << 24) as f32;
    (0..n)
        .map(|i| Body {
            pos: [unit() * 100.0, unit() * 100.0, unit() * 100.0],
            vel: [unit() - 0.5, unit() - 0.5, unit() - 0.5],
            mass: 1.0 + unit(),
            flags: (i as u32).wrapping_mul(0x9E37_79B9),
        })
        .collect()
}

fn plain(a: &BodyAllocator) -> PlainColumns {
    let c = a.columns();
    PlainColumns {
        pos: c.pos.to_vec(),
        vel: c.vel.to_vec(),
        mass: c.mass.to_vec(),
        flags: c.flags.to_vec(),
    }
}

/// Decodes `bytes`: the timed body of both `load` benchmarks. Never inlined
/// (one call per load), so `scripts/instructions.sh load` can count its
/// instructions alone.
#[inline(never)]
fn timed_load<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> T {
    postcard::from_bytes(black_box(bytes)).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let quick = std::env::var("IDTABLE_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty());
    let mut c = Criterion::default().configure_from_args();
    let mut sizes = Vec::new();
    for n in SIZES {
        let all = bodies(n);
        let cols = plain(&all);
        let all_bytes = postcard::to_allocvec(&all).unwrap();
        let cols_bytes = postcard::to_allocvec(&cols).unwrap();
        let loaded: BodyAllocator = postcard::from_bytes(&all_bytes).unwrap();
        assert!(loaded.ids() == all.ids() && plain(&loaded) == cols);
        loaded.check_invariants();
        assert!(postcard::from_bytes::<PlainColumns>(&cols_bytes).unwrap() == cols);
        println!(
            "load/{n}: idtable {} bytes ({:.1} per row), plain_vecs {} bytes ({:.1} per row)",
            all_bytes.len(),
            all_bytes.len() as f64 / n as f64,
            cols_bytes.len(),
            cols_bytes.len() as f64 / n as f64
        );
        sizes.push(format!(
            "{{\"n\": {n}, \"idtable\": {}, \"plain_vecs\": {}}}",
            all_bytes.len(),
            cols_bytes.len()
        ));

        for group in ["load", "save"] {
            let mut g = c.benchmark_group(group);
            g.throughput(Throughput::Elements(n as u64));
            if quick {
                g.sample_size(10)
                    .warm_up_time(Duration::from_millis(100))
                    .measurement_time(Duration::from_millis(300));
            } else {
                g.sample_size(50)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            }
            if group == "load" {
                g.bench_function(BenchmarkId::new("idtable", n), |b| {
                    b.iter_batched(
                        || (),
                        |()| timed_load::<BodyAllocator>(&all_bytes),
                        BatchSize::LargeInput,
                    )
                });
                g.bench_function(BenchmarkId::new("plain_vecs", n), |b| {
                    b.iter_batched(
                        || (),
                        |()| timed_load::<PlainColumns>(&cols_bytes),
                        BatchSize::LargeInput,
                    )
                });
            } else {
                g.bench_function(BenchmarkId::new("idtable", n), |b| {
                    b.iter_batched(
                        || (),
                        |()| postcard::to_allocvec(black_box(&all)).unwrap(),
                        BatchSize::LargeInput,
                    )
                });
                g.bench_function(BenchmarkId::new("plain_vecs", n), |b| {
                    b.iter_batched(
                        || (),
                        |()| postcard::to_allocvec(black_box(&cols)).unwrap(),
                        BatchSize::LargeInput,
                    )
                });
            }
            g.finish();
        }
    }
    c.final_summary();
    if !test_mode {
        let dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| "target".into())
            .join("criterion");
        if std::fs::create_dir_all(&dir).is_ok() {
            let body = format!("{{\"rows\": [\n  {}\n]}}\n", sizes.join(",\n  "));
            let _ = std::fs::write(dir.join("load-bytes.json"), body);
        }
    }
}
