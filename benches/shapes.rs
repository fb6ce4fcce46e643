//! Insert and remove in the shapes a user's code takes (issue 26): the
//! container's `insert` and `remove` called through a user's small
//! `#[inline]` wrapper and through a never-inlined function, and removal on a
//! container cloned just before each timed iteration (in cache) as well as on
//! batches of clones made before the timing starts (as `peers` does).
//!
//! Containers: idtable's derived allocator (default `Id32_32`), `hand_soa`
//! (the hand-written floor with idtable's layout and id scheme,
//! `support/record.rs`), slotmap's `DenseSlotMap` and `SlotMap`, each storing
//! the 64-byte, 8-field record of `peers`, at N = 10,000 and 1,000,000.
//!
//! Every container gets the same code, written once in `shapes!`: a module
//! per container (`shapes::on_idtable`, `shapes::on_hand_soa`,
//! `shapes::on_dense_slotmap`, `shapes::on_slotmap`) with
//!
//! * `add_inline`: `#[inline] fn(c, r) -> Key { c.insert(r) }`;
//! * `add`: the same, `#[inline(never)]`;
//! * `remove_inline`: `#[inline] fn(c, k) -> bool { c.remove(k).is_some() }`
//!   (the value dropped);
//! * `take`: `#[inline(never)] fn(c, k) -> Option<Record> { c.remove(k) }`;
//! * the timed loops, each never inlined: `loop_add_inline` and `loop_add`
//!   (insert `make(0..N)`, the ids pushed into a reserved `Vec`),
//!   `loop_remove_inline` (each result black-boxed) and `loop_take` (the
//!   `mass` of each returned record summed, the sum black-boxed).
//!
//! Groups (criterion ids `GROUP/CONTAINER/N`):
//!
//! * `insert/inline_wrapper`, `insert/never_inlined`: N inserts into an empty
//!   container (growth included), per insert;
//! * `remove/inline_wrapper_in_cache`, `remove/never_inlined_returned`: a fixed
//!   seeded random half of the ids removed from a clone made just before the
//!   iteration (`BatchSize::PerIteration`, at both sizes: at 1M the clone's
//!   80 MB cannot be in cache, but its tail is the most recently written),
//!   per removal;
//! * `remove/batches`, `remove/batches_returned`: the same removals on clones
//!   made before timing in batches (`BatchSize::LargeInput`, as `peers`'s
//!   `remove_random`), per removal.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench shapes`;
//! `scripts/instructions.sh shapes` counts the instructions of each `add` and
//! `take` call with callgrind and reports their code size.
//! Environment: `IDTABLE_BENCH_QUICK=1`: N = 1,000 and 16,384 and short
//! measurements (as criterion's `-- --test`, which runs each routine once);
//! `IDTABLE_SHAPES_CHECK=0`: skip the checks of every shape run before the
//! benchmarks (for callgrind); `IDTABLE_SHAPES_RESERVED=1`: the insert groups
//! start from `with_capacity(N)` instead of an empty container (for
//! callgrind: the insert path without growth).

use std::time::Duration;

use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};

#[macro_use]
#[path = "support/record.rs"]
mod record;
mod support;

use record::HandSoa;

/// idtable, default layout (`Id32_32`).
mod idt {
    record!(#[derive(idtable::SoaAllocator, Clone, Copy, Debug, PartialEq)]);
}

const _: () = assert!(std::mem::size_of::<idt::Record>() == 64);

/// The shapes of one container, the same code for each: `$c` is the
/// container type, `$key` its id, `$rec` the record it stores and `$make`
/// the `fn(usize) -> $rec` building the i-th record.
macro_rules! shapes {
    ($module:ident, $name:literal, $c:ty, $key:ty, $rec:ty, $make:expr) => {
        pub mod $module {
            use std::hint::black_box;

            pub type C = $c;
            pub type Key = $key;
            pub type Rec = $rec;
            pub const NAME: &str = $name;

            #[inline(always)]
            pub fn make(i: usize) -> Rec {
                ($make)(i)
            }

            /// A user's small insert helper, with an inlining hint.
            #[inline]
            pub fn add_inline(c: &mut C, r: Rec) -> Key {
                c.insert(r)
            }

            /// The same, never inlined: value in, id out.
            #[inline(never)]
            pub fn add(c: &mut C, r: Rec) -> Key {
                c.insert(r)
            }

            /// A user's small remove helper, with an inlining hint; the
            /// removed value is dropped.
            #[inline]
            pub fn remove_inline(c: &mut C, k: Key) -> bool {
                c.remove(k).is_some()
            }

            /// Removes `k` and returns its value, never inlined.
            #[inline(never)]
            pub fn take(c: &mut C, k: Key) -> Option<Rec> {
                c.remove(k)
            }

            #[inline(never)]
            pub fn loop_add_inline(c: &mut C, n: usize, ids: &mut Vec<Key>) {
                for i in 0..n {
                    ids.push(add_inline(c, make(i)));
                }
            }

            #[inline(never)]
            pub fn loop_add(c: &mut C, n: usize, ids: &mut Vec<Key>) {
                for i in 0..n {
                    ids.push(add(c, make(i)));
                }
            }

            #[inline(never)]
            pub fn loop_remove_inline(c: &mut C, victims: &[Key]) {
                for &k in victims {
                    black_box(remove_inline(c, k));
                }
            }

            #[inline(never)]
            pub fn loop_take(c: &mut C, victims: &[Key]) {
                let mut sum = 0.0f32;
                for &k in victims {
                    if let Some(r) = take(c, k) {
                        sum += r.mass;
                    }
                }
                black_box(sum);
            }

            /// A container of `make(0..n)` and its ids (built without the
            /// functions above, so callgrind counts only their timed calls).
            pub fn build(n: usize) -> (C, Vec<Key>) {
                let mut c = C::new();
                let ids = (0..n).map(|i| c.insert(make(i))).collect();
                (c, ids)
            }

            /// Checks every shape on `n` records: same ids from both inserts,
            /// the victims' records returned and gone, the others kept.
            pub fn check(n: usize, half: &[usize]) {
                let (c, ids) = build(n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add(&mut a, n, &mut a_ids);
                assert!(a_ids == ids && a.len() == n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add_inline(&mut a, n, &mut a_ids);
                assert!(a_ids == ids && a.len() == n);
                let victims: Vec<Key> = half.iter().map(|&i| ids[i]).collect();
                let mut b = c.clone();
                loop_remove_inline(&mut b, &victims);
                let mut t = c.clone();
                for &i in half {
                    let r = take(&mut t, ids[i]).expect("live");
                    assert!(r.flags == i as u32 && remove_inline(&mut a, ids[i]));
                }
                assert!(b.len() == n - half.len() && t.len() == b.len() && a.len() == b.len());
                assert!(victims.iter().all(|&k| take(&mut b, k).is_none()));
                let kept = (0..n).filter(|&i| !half.contains(&i));
                assert!(kept.take(64).all(|i| take(&mut t, ids[i]).is_some()));
            }
        }
    };
}

shapes!(
    on_idtable,
    "idtable",
    crate::idt::RecordAllocator,
    crate::idt::RecordId,
    crate::idt::Record,
    |i| convert!(crate::idt::Record, crate::record::make(i))
);
shapes!(
    on_hand_soa,
    "hand_soa",
    crate::HandSoa,
    u64,
    crate::record::Record,
    crate::record::make
);
shapes!(
    on_dense_slotmap,
    "dense_slotmap",
    slotmap::DenseSlotMap<slotmap::DefaultKey, crate::record::Record>,
    slotmap::DefaultKey,
    crate::record::Record,
    crate::record::make
);
shapes!(
    on_slotmap,
    "slotmap",
    slotmap::SlotMap<slotmap::DefaultKey, crate::record::Record>,
    slotmap::DefaultKey,
    crate::record::Record,
    crate::record::make
);

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn group<'c>(c: &'c mut Criterion, name: &str, n: usize, elems: usize, quick: bool) -> Group<'c> {
    let mut g = c.benchmark_group(name);
    if quick {
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300));
    } else if n >= 100_000 {
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(1000))
            .measurement_time(Duration::from_millis(3000));
    } else {
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(1500));
    }
    g.throughput(Throughput::Elements(elems as u64));
    g
}

/// The benchmarks of one container module.
macro_rules! bench_shapes {
    ($m:ident, $c:expr, $n:expr, $half:expr, $quick:expr, $reserved:expr) => {{
        let (c, n, half, quick, reserved): (&mut Criterion, usize, &[usize], bool, bool) =
            ($c, $n, $half, $quick, $reserved);
        let id = BenchmarkId::new($m::NAME, n);
        let fresh = || {
            let c = if reserved {
                $m::C::with_capacity(n)
            } else {
                $m::C::new()
            };
            (c, Vec::<$m::Key>::with_capacity(n))
        };

        let mut g = group(c, "insert/inline_wrapper", n, n, quick);
        g.bench_function(id.clone(), |b| {
            b.iter_batched(
                fresh,
                |(mut c, mut ids)| {
                    $m::loop_add_inline(&mut c, n, &mut ids);
                    (c, ids)
                },
                BatchSize::LargeInput,
            )
        });
        g.finish();
        let mut g = group(c, "insert/never_inlined", n, n, quick);
        g.bench_function(id.clone(), |b| {
            b.iter_batched(
                fresh,
                |(mut c, mut ids)| {
                    $m::loop_add(&mut c, n, &mut ids);
                    (c, ids)
                },
                BatchSize::LargeInput,
            )
        });
        g.finish();

        let (full, ids) = $m::build(n);
        let victims: Vec<$m::Key> = half.iter().map(|&i| ids[i]).collect();
        let victims = &victims[..];
        for (name, size, returned) in [
            (
                "remove/inline_wrapper_in_cache",
                BatchSize::PerIteration,
                false,
            ),
            (
                "remove/never_inlined_returned",
                BatchSize::PerIteration,
                true,
            ),
            ("remove/batches", BatchSize::LargeInput, false),
            ("remove/batches_returned", BatchSize::LargeInput, true),
        ] {
            let mut g = group(c, name, n, victims.len(), quick);
            g.bench_function(id.clone(), |b| {
                b.iter_batched(
                    || full.clone(),
                    |mut c| {
                        if returned {
                            $m::loop_take(&mut c, victims);
                        } else {
                            $m::loop_remove_inline(&mut c, victims);
                        }
                        c
                    },
                    size,
                )
            });
            g.finish();
        }
    }};
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let quick = std::env::var("IDTABLE_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty());
    let sizes: &[usize] = if quick || test_mode {
        &[1_000, 16_384]
    } else {
        &[10_000, 1_000_000]
    };
    // `scripts/instructions.sh shapes` turns the checks off: they call `add`
    // and `take`, whose calls it counts.
    let check = std::env::var("IDTABLE_SHAPES_CHECK").map_or(true, |v| v != "0");
    let reserved = std::env::var("IDTABLE_SHAPES_RESERVED").is_ok_and(|v| v == "1");
    let mut c = Criterion::default().configure_from_args();
    for &n in sizes {
        // A fixed seeded random half of 0..n, in random order.
        let half = &support::order(n)[..n / 2];
        if check {
            let check_n = n.min(4_000);
            let check_half = &support::order(check_n)[..check_n / 2];
            on_idtable::check(check_n, check_half);
            on_hand_soa::check(check_n, check_half);
            on_dense_slotmap::check(check_n, check_half);
            on_slotmap::check(check_n, check_half);
        }
        bench_shapes!(on_idtable, &mut c, n, half, quick, reserved);
        bench_shapes!(on_hand_soa, &mut c, n, half, quick, reserved);
        bench_shapes!(on_dense_slotmap, &mut c, n, half, quick, reserved);
        bench_shapes!(on_slotmap, &mut c, n, half, quick, reserved);
    }
    c.final_summary();
}
