//! Insert and remove in the shapes a user's code takes (issues 26 and 38):
//! the container's `insert` and `remove` called through a user's small
//! `#[inline]` wrapper, through a never-inlined function, through an
//! `#[inline]` method of a generic trait called from generic code, through an
//! `#[inline]` method of a user's struct that holds the container, and from a
//! closure passed to a generic function; removal on a container cloned just
//! before each timed iteration (in cache) as well as on batches of clones made
//! before the timing starts (as `peers` does).
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
//! * the container's impl of [`Table`], a user's trait generic over the
//!   record: `#[inline] fn add(&mut self, r) -> Key { self.insert(r) }` and
//!   `#[inline] fn discard(&mut self, k) -> bool { self.remove(k).is_some() }`;
//! * `Holder`, a user's struct that holds the container, with `#[inline] fn
//!   spawn(&mut self, r) -> Key` and `#[inline] fn despawn(&mut self, k) ->
//!   bool` (the same two bodies on its field);
//! * `each_index` and `each_key`, a user's generic helpers that call a
//!   closure for each of `0..n` and for each key; never inlined, as a
//!   library's out-of-line `for_each` (the question is whether the closure,
//!   and the insert or remove in it, are inlined into the helper's loop);
//! * the timed loops, each never inlined: `loop_add_inline` and `loop_add`
//!   (insert `make(0..N)`, the ids pushed into a reserved `Vec`),
//!   `loop_remove_inline` (each result black-boxed) and `loop_take` (the
//!   `mass` of each returned record summed, the sum black-boxed);
//!   `loop_add_trait` and `loop_remove_trait`, generic over `T: Table<R>`
//!   (called with the container from the criterion closure) and calling
//!   `add` and `discard`; `loop_add_method` and `loop_remove_method`, on a
//!   `Holder`, calling `spawn` and `despawn`; `loop_add_closure` and
//!   `loop_remove_closure`, passing `|i| ids.push(c.insert(make(i)))` to
//!   `each_index` and `|k| black_box(c.remove(k).is_some())` to `each_key`.
//!   The loops of the same operation do the same work: the same records in,
//!   the same ids kept, each `bool` black-boxed.
//!
//! Groups (criterion ids `GROUP/CONTAINER/N`):
//!
//! * `insert/inline_wrapper`, `insert/never_inlined`, `insert/trait_method`,
//!   `insert/struct_method`, `insert/closure`: N inserts into an empty
//!   container (growth included), per insert;
//! * `remove/inline_wrapper_in_cache`, `remove/never_inlined_returned`,
//!   `remove/trait_method_in_cache`, `remove/struct_method_in_cache`,
//!   `remove/closure_in_cache`: a fixed seeded random half of the ids removed
//!   from a clone made just before the iteration (`BatchSize::PerIteration`,
//!   at both sizes: at 1M the clone's 80 MB cannot be in cache, but its tail
//!   is the most recently written), per removal; all but `never_inlined_returned`
//!   drop the removed value;
//! * `remove/batches`, `remove/batches_returned`: the same removals on clones
//!   made before timing in batches (`BatchSize::LargeInput`, as `peers`'s
//!   `remove_random`), per removal.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench shapes`
//! (one shape: `... --bench shapes -- '^insert/trait_method/'`);
//! `scripts/instructions.sh shapes` counts the instructions of each `add` and
//! `take` call and of each timed loop with callgrind, reports the code size
//! of `add` and `take`, and says for each loop whether the container's insert
//! or remove (or the wrapper, trait method or closure around it) is left as
//! a call.
//! On a loaded machine, the insert groups and the removals on a fresh clone
//! timed in alternation, one pass of each container's loop per round, with
//! no criterion benchmark run (medians per operation and idtable's ratios to
//! `hand_soa` and `DenseSlotMap`, printed):
//! `IDTABLE_SHAPES_ALTERNATE=31 cargo bench --manifest-path benches/Cargo.toml --bench shapes`.
//!
//! Environment: `IDTABLE_BENCH_QUICK=1`: N = 1,000 and 16,384 and short
//! measurements (as criterion's `-- --test`, which runs each routine once);
//! `IDTABLE_SHAPES_CHECK=0`: skip the checks of every shape run before the
//! benchmarks (for callgrind); `IDTABLE_SHAPES_RESERVED=1`: the insert groups
//! start from `with_capacity(N)` instead of an empty container (for
//! callgrind: the insert path without growth).

use std::hint::black_box;
use std::time::{Duration, Instant};

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

/// A user's trait over the containers, generic over the record: each
/// container's impl (in `shapes!`) marks both methods `#[inline]`.
pub trait Table<R> {
    type Key: Copy;
    /// Inserts `r`, returns its id.
    fn add(&mut self, r: R) -> Self::Key;
    /// Removes the record of `k`, dropping it; `true` if it was live.
    fn discard(&mut self, k: Self::Key) -> bool;
}

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

            impl crate::Table<Rec> for C {
                type Key = Key;
                #[inline]
                fn add(&mut self, r: Rec) -> Key {
                    self.insert(r)
                }
                #[inline]
                fn discard(&mut self, k: Key) -> bool {
                    self.remove(k).is_some()
                }
            }

            /// A user's struct that holds the container.
            pub struct Holder {
                pub table: C,
            }

            impl Holder {
                #[inline]
                pub fn spawn(&mut self, r: Rec) -> Key {
                    self.table.insert(r)
                }
                #[inline]
                pub fn despawn(&mut self, k: Key) -> bool {
                    self.table.remove(k).is_some()
                }
            }

            /// Calls `f` for each of `0..n`.
            #[inline(never)]
            pub fn each_index<F: FnMut(usize)>(n: usize, mut f: F) {
                for i in 0..n {
                    f(i);
                }
            }

            /// Calls `f` for each key.
            #[inline(never)]
            pub fn each_key<F: FnMut(Key)>(keys: &[Key], mut f: F) {
                for &k in keys {
                    f(k);
                }
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

            /// Generic over the container: the criterion closure calls it
            /// with `C` and `make`.
            #[inline(never)]
            pub fn loop_add_trait<R, T: crate::Table<R>>(
                t: &mut T,
                n: usize,
                ids: &mut Vec<T::Key>,
                make: impl Fn(usize) -> R,
            ) {
                for i in 0..n {
                    ids.push(t.add(make(i)));
                }
            }

            #[inline(never)]
            pub fn loop_remove_trait<R, T: crate::Table<R>>(t: &mut T, victims: &[T::Key]) {
                for &k in victims {
                    black_box(t.discard(k));
                }
            }

            #[inline(never)]
            pub fn loop_add_method(h: &mut Holder, n: usize, ids: &mut Vec<Key>) {
                for i in 0..n {
                    ids.push(h.spawn(make(i)));
                }
            }

            #[inline(never)]
            pub fn loop_remove_method(h: &mut Holder, victims: &[Key]) {
                for &k in victims {
                    black_box(h.despawn(k));
                }
            }

            #[inline(never)]
            pub fn loop_add_closure(c: &mut C, n: usize, ids: &mut Vec<Key>) {
                each_index(n, |i| ids.push(c.insert(make(i))));
            }

            #[inline(never)]
            pub fn loop_remove_closure(c: &mut C, victims: &[Key]) {
                each_key(victims, |k| {
                    black_box(c.remove(k).is_some());
                });
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

            /// Checks every shape on `n` records: same ids from every insert,
            /// the victims' records returned and gone, the others kept.
            pub fn check(n: usize, half: &[usize]) {
                let (c, ids) = build(n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add(&mut a, n, &mut a_ids);
                assert!(a_ids == ids && a.len() == n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add_trait(&mut a, n, &mut a_ids, make);
                assert!(a_ids == ids && a.len() == n);
                let mut h = Holder { table: C::new() };
                let mut h_ids = Vec::new();
                loop_add_method(&mut h, n, &mut h_ids);
                assert!(h_ids == ids && h.table.len() == n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add_closure(&mut a, n, &mut a_ids);
                assert!(a_ids == ids && a.len() == n);
                let (mut a, mut a_ids) = (C::new(), Vec::new());
                loop_add_inline(&mut a, n, &mut a_ids);
                assert!(a_ids == ids && a.len() == n);
                let victims: Vec<Key> = half.iter().map(|&i| ids[i]).collect();
                let mut others = [c.clone(), c.clone()];
                loop_remove_trait(&mut others[0], &victims);
                loop_remove_closure(&mut others[1], &victims);
                let mut h = Holder { table: c.clone() };
                loop_remove_method(&mut h, &victims);
                let mut b = c.clone();
                loop_remove_inline(&mut b, &victims);
                let mut t = c.clone();
                for &i in half {
                    let r = take(&mut t, ids[i]).expect("live");
                    assert!(r.flags == i as u32 && remove_inline(&mut a, ids[i]));
                }
                assert!(b.len() == n - half.len() && t.len() == b.len() && a.len() == b.len());
                assert!(victims.iter().all(|&k| take(&mut b, k).is_none()));
                for mut o in others.into_iter().chain([h.table]) {
                    assert!(o.len() == n - half.len());
                    assert!(victims.iter().all(|&k| take(&mut o, k).is_none()));
                    let kept = (0..n).filter(|&i| !half.contains(&i));
                    assert!(kept.take(64).all(|i| take(&mut o, ids[i]).is_some()));
                }
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

/// One insert group of one container: `$setup` makes the input (an empty
/// container, or a `Holder` of one, and a `Vec` with room for the ids),
/// `$fill` inserts `make(0..n)` into `$c` and pushes the ids into `$ids`.
macro_rules! insert_group {
    ($crit:expr, $name:expr, $id:expr, $n:expr, $quick:expr, $setup:expr, |$c:ident, $ids:ident| $fill:expr) => {{
        let mut g = group($crit, $name, $n, $n, $quick);
        g.bench_function($id.clone(), |b| {
            b.iter_batched(
                $setup,
                |(mut $c, mut $ids)| {
                    $fill;
                    ($c, $ids)
                },
                BatchSize::LargeInput,
            )
        });
        g.finish();
    }};
}

/// One removal group of one container: `$setup` clones the full container
/// (or a `Holder` of it) with batch size `$size`, `$remove` removes the
/// victims from `$c`.
macro_rules! remove_group {
    ($crit:expr, $name:expr, $id:expr, $n:expr, $removals:expr, $quick:expr, $size:expr, $setup:expr, |$c:ident| $remove:expr) => {{
        let mut g = group($crit, $name, $n, $removals, $quick);
        g.bench_function($id.clone(), |b| {
            b.iter_batched(
                $setup,
                |mut $c| {
                    $remove;
                    $c
                },
                $size,
            )
        });
        g.finish();
    }};
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
        let fresh_holder = || {
            let (table, ids) = fresh();
            ($m::Holder { table }, ids)
        };

        let q = quick;
        insert_group!(c, "insert/inline_wrapper", id, n, q, fresh, |t, ids| {
            $m::loop_add_inline(&mut t, n, &mut ids)
        });
        insert_group!(c, "insert/never_inlined", id, n, q, fresh, |t, ids| {
            $m::loop_add(&mut t, n, &mut ids)
        });

        let (full, ids) = $m::build(n);
        let victims: Vec<$m::Key> = half.iter().map(|&i| ids[i]).collect();
        let (victims, r) = (&victims[..], victims.len());
        let (per_iter, batches) = (BatchSize::PerIteration, BatchSize::LargeInput);
        let clone = || full.clone();
        let name = "remove/inline_wrapper_in_cache";
        remove_group!(c, name, id, n, r, q, per_iter, clone, |t| {
            $m::loop_remove_inline(&mut t, victims)
        });
        let name = "remove/never_inlined_returned";
        remove_group!(c, name, id, n, r, q, per_iter, clone, |t| {
            $m::loop_take(&mut t, victims)
        });
        remove_group!(c, "remove/batches", id, n, r, q, batches, clone, |t| {
            $m::loop_remove_inline(&mut t, victims)
        });
        let name = "remove/batches_returned";
        remove_group!(c, name, id, n, r, q, batches, clone, |t| {
            $m::loop_take(&mut t, victims)
        });

        // Issue 38's shapes.
        insert_group!(c, "insert/trait_method", id, n, q, fresh, |t, ids| {
            $m::loop_add_trait(&mut t, n, &mut ids, $m::make)
        });
        insert_group!(
            c,
            "insert/struct_method",
            id,
            n,
            q,
            fresh_holder,
            |h, ids| { $m::loop_add_method(&mut h, n, &mut ids) }
        );
        insert_group!(c, "insert/closure", id, n, q, fresh, |t, ids| {
            $m::loop_add_closure(&mut t, n, &mut ids)
        });
        let name = "remove/trait_method_in_cache";
        remove_group!(c, name, id, n, r, q, per_iter, clone, |t| {
            $m::loop_remove_trait(&mut t, victims)
        });
        let holder = || $m::Holder {
            table: full.clone(),
        };
        let name = "remove/struct_method_in_cache";
        remove_group!(c, name, id, n, r, q, per_iter, holder, |h| {
            $m::loop_remove_method(&mut h, victims)
        });
        let name = "remove/closure_in_cache";
        remove_group!(c, name, id, n, r, q, per_iter, clone, |t| {
            $m::loop_remove_closure(&mut t, victims)
        });
    }};
}

/// One pass of the alternation: `$setup` (untimed) makes `$x`, `$body` is
/// timed, `$x` is dropped untimed (as criterion drops `iter_batched`'s
/// outputs).
macro_rules! timed {
    ($setup:expr, |$x:ident| $body:expr) => {
        Box::new(move || {
            let mut $x = $setup;
            let start = Instant::now();
            $body;
            let elapsed = start.elapsed();
            drop(black_box($x));
            elapsed
        }) as Box<dyn FnMut() -> Duration + '_>
    };
}

/// A pass of the alternation: its criterion id, its operations, and the
/// pass, which returns the time of its timed part.
type Pass<'a> = (String, usize, Box<dyn FnMut() -> Duration + 'a>);

/// The passes of one container: every insert group and every removal group
/// made on a clone just before it (not the batches), as `bench_shapes!` runs
/// them.
macro_rules! alternate_passes {
    ($m:ident, $passes:expr, $n:expr, $full:expr, $victims:expr) => {{
        let (passes, n, full, victims): (&mut Vec<Pass>, usize, &$m::C, &[$m::Key]) =
            ($passes, $n, $full, $victims);
        let id = |g: &str| format!("{g}/{}/{n}", $m::NAME);
        let fresh = move || ($m::C::new(), Vec::<$m::Key>::with_capacity(n));
        let holder = move || {
            (
                $m::Holder {
                    table: $m::C::new(),
                },
                Vec::with_capacity(n),
            )
        };
        let r = victims.len();
        passes.extend([
            (
                id("insert/inline_wrapper"),
                n,
                timed!(fresh(), |x| $m::loop_add_inline(&mut x.0, n, &mut x.1)),
            ),
            (
                id("insert/never_inlined"),
                n,
                timed!(fresh(), |x| $m::loop_add(&mut x.0, n, &mut x.1)),
            ),
            (
                id("insert/trait_method"),
                n,
                timed!(fresh(), |x| $m::loop_add_trait(
                    &mut x.0,
                    n,
                    &mut x.1,
                    $m::make
                )),
            ),
            (
                id("insert/struct_method"),
                n,
                timed!(holder(), |x| $m::loop_add_method(&mut x.0, n, &mut x.1)),
            ),
            (
                id("insert/closure"),
                n,
                timed!(fresh(), |x| $m::loop_add_closure(&mut x.0, n, &mut x.1)),
            ),
            (
                id("remove/inline_wrapper_in_cache"),
                r,
                timed!(full.clone(), |x| $m::loop_remove_inline(&mut x, victims)),
            ),
            (
                id("remove/never_inlined_returned"),
                r,
                timed!(full.clone(), |x| $m::loop_take(&mut x, victims)),
            ),
            (
                id("remove/trait_method_in_cache"),
                r,
                timed!(full.clone(), |x| $m::loop_remove_trait(&mut x, victims)),
            ),
            (
                id("remove/struct_method_in_cache"),
                r,
                timed!(
                    $m::Holder {
                        table: full.clone()
                    },
                    |x| { $m::loop_remove_method(&mut x, victims) }
                ),
            ),
            (
                id("remove/closure_in_cache"),
                r,
                timed!(full.clone(), |x| $m::loop_remove_closure(&mut x, victims)),
            ),
        ]);
    }};
}

/// With `IDTABLE_SHAPES_ALTERNATE=<rounds>`: at each size, every pass of
/// every container (`alternate_passes!`) in turn, once each per round, for
/// that many rounds; then each one's median per operation, printed with its
/// ratio to `hand_soa` and `dense_slotmap` in the same group. On a shared
/// machine a change of load then hits every container alike, where
/// criterion's runs, one container after the other, meet it at different
/// times.
fn alternate(rounds: usize, sizes: &[usize]) {
    for &n in sizes {
        let half = &support::order(n)[..n / 2];
        let (idt, idt_ids) = on_idtable::build(n);
        let (hand, hand_ids) = on_hand_soa::build(n);
        let (dense, dense_ids) = on_dense_slotmap::build(n);
        let (slot, slot_ids) = on_slotmap::build(n);
        let idt_victims: Vec<_> = half.iter().map(|&i| idt_ids[i]).collect();
        let hand_victims: Vec<_> = half.iter().map(|&i| hand_ids[i]).collect();
        let dense_victims: Vec<_> = half.iter().map(|&i| dense_ids[i]).collect();
        let slot_victims: Vec<_> = half.iter().map(|&i| slot_ids[i]).collect();
        let mut passes: Vec<Pass> = Vec::new();
        alternate_passes!(on_idtable, &mut passes, n, &idt, &idt_victims);
        alternate_passes!(on_hand_soa, &mut passes, n, &hand, &hand_victims);
        alternate_passes!(on_dense_slotmap, &mut passes, n, &dense, &dense_victims);
        alternate_passes!(on_slotmap, &mut passes, n, &slot, &slot_victims);
        let mut times = vec![Vec::with_capacity(rounds); passes.len()];
        for _ in 0..rounds {
            for ((_, _, pass), times) in passes.iter_mut().zip(&mut times) {
                times.push(pass());
            }
        }
        let medians: Vec<(String, f64)> = passes
            .iter()
            .zip(&mut times)
            .map(|((name, ops, _), times)| {
                times.sort();
                (
                    name.clone(),
                    times[rounds / 2].as_secs_f64() * 1e9 / *ops as f64,
                )
            })
            .collect();
        let of = |name: &str, container: &str| {
            let peer = name.replacen("/idtable/", &format!("/{container}/"), 1);
            medians.iter().find(|(n, _)| *n == peer).map(|m| m.1)
        };
        for (name, ns) in &medians {
            let ratios = match (of(name, "hand_soa"), of(name, "dense_slotmap")) {
                (Some(hand), Some(dense)) if name.contains("/idtable/") => {
                    format!(
                        " ({:.2}x hand_soa, {:.2}x dense_slotmap)",
                        ns / hand,
                        ns / dense
                    )
                }
                _ => String::new(),
            };
            println!("alternating {name}: median {ns:.2} ns per op of {rounds}{ratios}");
        }
    }
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
    let alternate_rounds = std::env::var("IDTABLE_SHAPES_ALTERNATE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(rounds) = alternate_rounds.filter(|&r| r > 0) {
        alternate(rounds, sizes);
        return;
    }
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
