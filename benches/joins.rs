//! Joins against the loop written by hand: the driver's keys, `get` /
//! `get_mut` on the other containers.
//!
//! * `join_one_map`: every unit holding a component (`&mut units`, `&map`),
//!   hp written through the table; the map held by 50% and by 10% of the
//!   units, at 10k and 1M units.
//! * `join_status_step`: burning on 10% (required), poisoned on 50%
//!   (`Maybe`), frozen on 33% (`Without`), hp written through the table.
//!
//! * `join_retain`: a cure, `retain` over `join((&mut burning, &units,
//!   Without(&frozen)))` dropping the fires of units below a tenth of the
//!   hp range (about a tenth of the rows it sees), against `SoaMap::retain`
//!   with `frozen.contains_key` and `units.get` inside; and a thaw,
//!   `extract_if` over `join((&mut frozen, &units))` taking the ice of the
//!   same units, against `SoaMap::extract_if` with `units.get` inside.
//!   Burning on 50%; the map is cloned afresh for each run, outside the
//!   timing.
//!
//! Each loop is a never-inlined function, as in a user's system; the units
//! have been churned (removed and re-inserted) so the maps' dense order is
//! not the table's.
//!
//!     cargo bench --manifest-path benches/Cargo.toml --bench joins

use std::hint::black_box;

use criterion::BatchSize;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use idtable::join::JoinItems;
use idtable::{join, Driver, Maybe, SoaMap, Without};

#[path = "support/units.rs"]
mod units;
use units::{built, Burning, Frozen, UnitAllocator, UnitId, World};

/// `n` units; each held by `burning` with probability `burn` percent, by
/// `poisoned` at 50% and `frozen` at 33% (the script of `support/units.rs`).
fn world(n: usize, burn: u64) -> World {
    built(World::new(n), n, burn)
}

#[inline(never)]
fn burn_by_hand(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) {
    for (id, fire) in burning.iter() {
        if let Some(unit) = units.get_mut(id) {
            *unit.hp -= *fire.dps;
        }
    }
}

/// The loop written by hand with the join's rule: the smaller of the two
/// drives (the table on a tie, as the first listed), so one function holds
/// both loops, as a join's does.
#[inline(never)]
fn burn_by_hand_smaller_drives(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) {
    if burning.len() < units.len() {
        for (id, fire) in burning.iter() {
            if let Some(unit) = units.get_mut(id) {
                *unit.hp -= *fire.dps;
            }
        }
    } else {
        for (id, unit) in units.iter_mut() {
            if let Some(fire) = burning.get(id) {
                *unit.hp -= *fire.dps;
            }
        }
    }
}

#[inline(never)]
fn burn_joined(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) {
    for (_, (unit, fire)) in join((&mut *units, burning)) {
        *unit.hp -= *fire.dps;
    }
}

/// The join with its driver fixed at compile time: one loop compiled.
#[inline(never)]
fn burn_joined_driver(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) {
    for (_, (unit, fire)) in join((&mut *units, Driver(burning))) {
        *unit.hp -= *fire.dps;
    }
}

#[inline(never)]
fn status_by_hand(w: &mut World) {
    for (id, fire) in w.burning.iter() {
        if w.frozen.contains_key(id) {
            continue;
        }
        let Some(unit) = w.units.get_mut(id) else {
            continue;
        };
        let poison = w.poisoned.get(id).map_or(0.0, |p| *p.dose);
        *unit.hp -= *fire.dps + poison;
    }
}

#[inline(never)]
fn status_joined(w: &mut World) {
    let sources = (
        &mut w.units,
        &w.burning,
        Maybe(&w.poisoned),
        Without(&w.frozen),
    );
    for (_, (unit, fire, poison, ())) in join(sources) {
        *unit.hp -= *fire.dps + poison.map_or(0.0, |p| *p.dose);
    }
}

#[inline(never)]
fn status_joined_driver(w: &mut World) {
    let sources = (
        &mut w.units,
        Driver(&w.burning),
        Maybe(&w.poisoned),
        Without(&w.frozen),
    );
    for (_, (unit, fire, poison, ())) in join(sources) {
        *unit.hp -= *fire.dps + poison.map_or(0.0, |p| *p.dose);
    }
}

#[inline(never)]
fn cure_by_hand(
    burning: &mut SoaMap<UnitId, Burning>,
    units: &UnitAllocator,
    frozen: &SoaMap<UnitId, Frozen>,
    limit: f32,
) {
    burning.retain(|id, _| {
        if frozen.contains_key(id) {
            return true;
        }
        units.get(id).is_none_or(|unit| *unit.hp >= limit)
    });
}

#[inline(never)]
fn cure_joined(
    burning: &mut SoaMap<UnitId, Burning>,
    units: &UnitAllocator,
    frozen: &SoaMap<UnitId, Frozen>,
    limit: f32,
) {
    join((burning, units, Without(frozen))).retain(|_, JoinItems((_, unit, ()))| *unit.hp >= limit);
}

#[inline(never)]
fn thaw_by_hand(frozen: &mut SoaMap<UnitId, Frozen>, units: &UnitAllocator, limit: f32) -> usize {
    frozen
        .extract_if(|id, _| units.get(id).is_some_and(|unit| *unit.hp < limit))
        .count()
}

#[inline(never)]
fn thaw_joined(frozen: &mut SoaMap<UnitId, Frozen>, units: &UnitAllocator, limit: f32) -> usize {
    join((frozen, units))
        .extract_if(|_, JoinItems((_, unit))| *unit.hp < limit)
        .count()
}

fn bench_retain(c: &mut Criterion) {
    let mut group = c.benchmark_group("join_retain");
    for n in sizes() {
        let w = world(n, 50);
        let limit = n as f32 / 10.0;
        let batch = if n > 100_000 {
            BatchSize::PerIteration
        } else {
            BatchSize::SmallInput
        };
        group.throughput(Throughput::Elements(w.burning.len() as u64));
        group.bench_function(BenchmarkId::new("cure, by hand", n), |b| {
            b.iter_batched(
                || w.burning.clone(),
                |mut burning| {
                    cure_by_hand(&mut burning, black_box(&w.units), &w.frozen, limit);
                    burning
                },
                batch,
            )
        });
        group.bench_function(BenchmarkId::new("cure, join", n), |b| {
            b.iter_batched(
                || w.burning.clone(),
                |mut burning| {
                    cure_joined(&mut burning, black_box(&w.units), &w.frozen, limit);
                    burning
                },
                batch,
            )
        });
        group.throughput(Throughput::Elements(w.frozen.len() as u64));
        group.bench_function(BenchmarkId::new("thaw, by hand", n), |b| {
            b.iter_batched(
                || w.frozen.clone(),
                |mut frozen| {
                    (
                        thaw_by_hand(&mut frozen, black_box(&w.units), limit),
                        frozen,
                    )
                },
                batch,
            )
        });
        group.bench_function(BenchmarkId::new("thaw, join", n), |b| {
            b.iter_batched(
                || w.frozen.clone(),
                |mut frozen| (thaw_joined(&mut frozen, black_box(&w.units), limit), frozen),
                batch,
            )
        });
    }
    group.finish();
}

fn sizes() -> [usize; 2] {
    [10_000, 1_000_000]
}

fn bench_one_map(c: &mut Criterion) {
    let mut group = c.benchmark_group("join_one_map");
    for n in sizes() {
        for burn in [50, 10] {
            let mut w = world(n, burn);
            let label = format!("{n}/{burn}%");
            group.throughput(Throughput::Elements(w.burning.len() as u64));
            group.bench_function(BenchmarkId::new("by hand", &label), |b| {
                b.iter(|| burn_by_hand(black_box(&mut w.units), black_box(&w.burning)))
            });
            group.bench_function(BenchmarkId::new("join", &label), |b| {
                b.iter(|| burn_joined(black_box(&mut w.units), black_box(&w.burning)))
            });
            group.bench_function(BenchmarkId::new("join, Driver", &label), |b| {
                b.iter(|| burn_joined_driver(black_box(&mut w.units), black_box(&w.burning)))
            });
            group.bench_function(BenchmarkId::new("by hand, smaller drives", &label), |b| {
                b.iter(|| {
                    burn_by_hand_smaller_drives(black_box(&mut w.units), black_box(&w.burning))
                })
            });
        }
    }
    group.finish();
}

fn bench_status_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("join_status_step");
    for n in sizes() {
        let mut w = world(n, 10);
        group.throughput(Throughput::Elements(w.burning.len() as u64));
        group.bench_function(BenchmarkId::new("by hand", n), |b| {
            b.iter(|| status_by_hand(black_box(&mut w)))
        });
        group.bench_function(BenchmarkId::new("join", n), |b| {
            b.iter(|| status_joined(black_box(&mut w)))
        });
        group.bench_function(BenchmarkId::new("join, Driver", n), |b| {
            b.iter(|| status_joined_driver(black_box(&mut w)))
        });
    }
    group.finish();
}

/// The two loops agree before anything is timed.
fn check(_: &mut Criterion) {
    let (mut a, mut b) = (world(5_000, 10), world(5_000, 10));
    status_by_hand(&mut a);
    status_joined(&mut b);
    assert_eq!(a.units.columns().hp, b.units.columns().hp);
    status_by_hand(&mut a);
    status_joined_driver(&mut b);
    assert_eq!(a.units.columns().hp, b.units.columns().hp);
    burn_by_hand(&mut a.units, &a.burning);
    burn_joined(&mut b.units, &b.burning);
    assert_eq!(a.units.columns().hp, b.units.columns().hp);
    burn_by_hand_smaller_drives(&mut a.units, &a.burning);
    burn_joined_driver(&mut b.units, &b.burning);
    assert_eq!(a.units.columns().hp, b.units.columns().hp);

    let limit = 500.0;
    cure_by_hand(&mut a.burning, &a.units, &a.frozen, limit);
    cure_joined(&mut b.burning, &b.units, &b.frozen, limit);
    assert!(a.burning.len() < b.units.len() && a.burning.keys() == b.burning.keys());
    let thawed = thaw_by_hand(&mut a.frozen, &a.units, limit);
    assert!(thawed > 0);
    assert_eq!(thaw_joined(&mut b.frozen, &b.units, limit), thawed);
    assert_eq!(a.frozen.keys(), b.frozen.keys());
}

criterion_group!(
    benches,
    check,
    bench_one_map,
    bench_status_step,
    bench_retain
);
criterion_main!(benches);
