//! Model test of `SoaMap<K, T>`: random operation sequences run against a
//! map keyed by the ids of a real allocator (which removes objects and
//! reuses their slots) and against a plain model, a `HashMap` from slot
//! index to `(key, value)` plus the dense order of the keys.
//!
//! Keys are drawn from every id the allocator ever issued (live or stale),
//! from ids one generation off those, and from forged bit patterns. After
//! every operation the map must hold as many entries as the model and
//! resolve each key it was asked about exactly as the model says; every 32
//! operations (and at the end) it must pass `check_invariants()`, hold the
//! model's keys in the model's dense order with the model's values, and
//! resolve every key ever seen as the model says.
//!
//! Layouts: `Id32_32` (the default), `Id24_8`, and `Id32<4>` (15 slots, so
//! slots are reused all the time), each for at least 100,000 operations.
//!
//! The model, the operations and the runner are the test kit's
//! (`idtable_test_kit::soa_map`), shared with the fuzz target
//! `soa_map_edits`.

use std::sync::atomic::{AtomicUsize, Ordering};

use idtable::SoaMap;
use idtable_test_kit::soa_map::strategy::ops;
use idtable_test_kit::soa_map::{
    burn, every_operation, run, Burn, BurnRef, Keys, Model, ShortAllocator, Tiny, TinyAllocator,
    TinyId, Wide, WideAllocator, WideId,
};
use proptest::test_runner::{Config, RngSeed, TestRunner};

fn owned(r: BurnRef<'_>) -> Burn {
    r.to_owned()
}

/// Operations run so far, per layout, to check the 100,000.
static OPS_WIDE: AtomicUsize = AtomicUsize::new(0);
static OPS_SHORT: AtomicUsize = AtomicUsize::new(0);
static OPS_TINY: AtomicUsize = AtomicUsize::new(0);

const CASES: u32 = if cfg!(miri) { 2 } else { 128 };
/// 128 cases of 850 operations on average: over 100,000 per layout (the
/// shortfall needs nine standard deviations).
const OPS: std::ops::Range<usize> = if cfg!(miri) { 10..30 } else { 700..1000 };
const MIN_TOTAL: usize = if cfg!(miri) { 20 } else { 100_000 };

fn model_test<A: Keys>(counter: &AtomicUsize) {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        rng_seed: if cfg!(miri) {
            RngSeed::Fixed(0x50a_3a9)
        } else {
            RngSeed::Random
        },
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops(OPS), |ops| {
        counter.fetch_add(ops.len(), Ordering::Relaxed);
        run::<A>(&ops, 32);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let total = counter.load(Ordering::Relaxed);
    assert!(total >= MIN_TOTAL, "only {total} operations ran");
}

#[test]
fn model_keys_of_the_default_layout() {
    model_test::<WideAllocator>(&OPS_WIDE);
}

#[test]
fn model_keys_of_id24_8() {
    model_test::<ShortAllocator>(&OPS_SHORT);
}

#[test]
fn model_keys_of_a_15_slot_layout_reused_all_the_time() {
    model_test::<TinyAllocator>(&OPS_TINY);
}

/// The model itself must be able to fail: a map that let an older key
/// replace a newer one would be caught.
#[test]
#[should_panic(expected = "assertion")]
fn the_model_rejects_a_wrong_answer() {
    let mut units = TinyAllocator::new();
    let old = units.insert(Tiny { hp: 1 });
    units.remove(old);
    let new = units.insert(Tiny { hp: 1 });
    let mut model = Model::default();
    model.try_insert(new, burn(1)).unwrap();
    // A wrong subject: answers as if the older key replaced the entry.
    let wrong: Result<Option<Burn>, Burn> = Ok(None);
    assert_eq!(model.try_insert(old, burn(2)), wrong);
}

/// A fixed sequence through every operation and every kind of key, so a
/// plain run covers them all whatever proptest draws.
#[test]
fn model_every_operation_once_per_layout() {
    let ops = every_operation();
    run::<WideAllocator>(&ops, 1);
    run::<ShortAllocator>(&ops, 1);
    run::<TinyAllocator>(&ops, 1);
}

/// The example of the contract, step by step.
#[test]
fn a_reused_slot_never_resolves_to_the_old_component() {
    let mut units = TinyAllocator::new();
    let mut burning: SoaMap<TinyId, Burn> = SoaMap::new();
    let u = units.insert(Tiny { hp: 10 });
    assert_eq!(burning.insert(u, burn(1)), None);
    units.remove(u);
    let u2 = units.insert(Tiny { hp: 5 });
    assert_eq!(u2.index(), u.index());
    assert!(!burning.contains_key(u2));
    assert!(burning.get(u2).is_none());
    assert_eq!(burning.remove(u2), None);
    assert_eq!(burning.remove(u), Some(burn(1)));
}

#[test]
fn debug_lists_key_and_row_and_clone_copies() {
    let mut units = WideAllocator::new();
    let mut burning: SoaMap<WideId, Burn> = SoaMap::new();
    let u = units.insert(Wide { hp: 1 });
    burning.insert(u, burn(3));
    let text = format!("{burning:?}");
    assert_eq!(
        text,
        format!("{{{u:?}: BurnRef {{ dps: 3, tag: \"b3\" }}}}")
    );
    let copy = burning.clone();
    assert_eq!(copy.get(u).map(owned), Some(burn(3)));
}
