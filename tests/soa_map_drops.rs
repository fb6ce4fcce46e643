//! Drops and panic safety of `SoaMap<K, T>`.
//!
//! Every value put into a map is dropped exactly once — by whoever it is
//! given back to, or by the map: on a replaced stale entry, a refused older
//! key, `remove`, `retain`, `drain` (fully, partly, forgotten), `clear`,
//! `into_iter` (partly), `clone` and dropping the map; moves (growth,
//! swap-remove, replacement, sort) never drop.
//!
//! User code that panics inside the map's calls — a field's `Drop`, a
//! field's `Clone`, the callbacks of `retain` and `sort_by`, the iterator fed
//! to `extend` — leaves the map consistent (`check_invariants()`, every key
//! resolving to its own values) and drops nothing twice; everything made is
//! dropped exactly once by the end. A panic raised while another unwinds
//! aborts, so every trigger fires once and disarms itself.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::{SoaAllocator, SoaMap};

mod support;
use support::probe::{arm_clone, arm_drop, drops_of, Probe, BOOM_ON_CLONE, BOOM_ON_DROP, LEDGER};

/// Runs `body` on a fresh ledger; after it every trigger has fired and
/// every probe made was dropped exactly once.
fn exactly_once(body: impl FnOnce()) {
    LEDGER.with(|l| l.borrow_mut().clear());
    body();
    assert_eq!(BOOM_ON_DROP.with(Cell::get), None, "drop trigger not fired");
    assert_eq!(
        BOOM_ON_CLONE.with(Cell::get),
        None,
        "clone trigger not fired"
    );
    LEDGER.with(|l| {
        for (serial, &n) in l.borrow().iter().enumerate() {
            assert_eq!(n, 1, "probe {serial} dropped {n} times (0 = leaked)");
        }
    });
}

fn caught<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

/// The keying table.
#[derive(SoaAllocator)]
#[soa(id = idtable::Id32<6>)]
pub struct Unit {
    pub hp: i32,
}

/// The component: droppable fields around a plain one.
#[derive(SoaAllocator, Debug, Clone)]
pub struct Hex {
    pub a: Probe,
    pub n: u32,
    pub b: Probe,
}

fn hex(n: u32) -> Hex {
    Hex {
        a: Probe::new(n),
        n,
        b: Probe::new(n),
    }
}

type Model = HashMap<UnitId, u32>;

const ROWS: u32 = if cfg!(miri) { 5 } else { 12 };

/// `n` units, each with a component, after some churn of both.
fn filled(n: u32) -> (UnitAllocator, SoaMap<UnitId, Hex>, Model) {
    let mut units = UnitAllocator::new();
    let mut map = SoaMap::new();
    let mut model = Model::new();
    for k in 0..n {
        let u = units.insert(Unit { hp: 1 });
        assert!(map.insert(u, hex(k)).is_none());
        model.insert(u, k);
    }
    let victim = map.keys()[1];
    drop(map.remove(victim));
    model.remove(&victim);
    units.remove(victim);
    let u = units.insert(Unit { hp: 1 });
    map.insert(u, hex(n));
    model.insert(u, n);
    (units, map, model)
}

/// The map holds exactly `model`, no stored probe was dropped, and the
/// `dead` keys resolve to nothing.
fn assert_model(map: &SoaMap<UnitId, Hex>, model: &Model, dead: &[UnitId]) {
    map.check_invariants();
    assert_eq!(map.len(), model.len(), "len");
    for (&key, &n) in model {
        let r = map.get(key).unwrap_or_else(|| panic!("{key:?} lost"));
        assert_eq!((r.a.value, *r.n, r.b.value), (n, n, n));
        assert_eq!(drops_of(r.a.serial) + drops_of(r.b.serial), 0);
    }
    for key in dead {
        assert!(!map.contains_key(*key));
    }
}

#[test]
fn every_value_is_dropped_exactly_once_on_every_way_out() {
    exactly_once(|| {
        let (mut units, mut map, _) = filled(ROWS);
        let keys: Vec<UnitId> = map.keys().to_vec();

        // Same key: the old value comes back (dropped here).
        let old = map.insert(keys[0], hex(100)).unwrap();
        assert_eq!(old.n, 0);
        drop(old);

        // A newer key of a reused slot: the map drops the stale value.
        units.remove(keys[1]);
        let newer = units.insert(Unit { hp: 2 });
        assert_eq!(newer.index(), keys[1].index());
        let stale = map.get(keys[1]).map(|r| (r.a.serial, r.b.serial)).unwrap();
        assert!(map.insert(newer, hex(101)).is_none());
        assert_eq!((drops_of(stale.0), drops_of(stale.1)), (1, 1));

        // The older key now: `insert` drops the value, `try_insert` returns it.
        let refused = hex(102);
        let serials = (refused.a.serial, refused.b.serial);
        assert!(map.insert(keys[1], refused).is_none());
        assert_eq!((drops_of(serials.0), drops_of(serials.1)), (1, 1));
        let back = map.try_insert(keys[1], hex(103)).unwrap_err();
        assert_eq!(back.n, 103);
        drop(back);

        drop(map.remove(keys[2]));
        map.retain(|_, r| *r.n % 3 != 0);
        map.sort_by_key(|r| std::cmp::Reverse(*r.n));
        map.reserve(1000); // moves, never drops

        let copy = map.clone();
        let mut drain = map.drain();
        drop(drain.next());
        drop(drain); // drops the rest
        assert!(map.is_empty());

        let mut partial = copy.clone().into_iter();
        drop(partial.next());
        drop(partial);

        let mut forgotten = copy.clone();
        std::mem::forget(forgotten.drain()); // leaves the entries in the map
        assert_eq!(forgotten.len(), copy.len());
        forgotten.check_invariants();
        forgotten.clear();
        drop(copy);
    });
}

#[test]
fn clear_with_a_panicking_drop_in_any_row_empties_the_map_and_drops_the_rest_once() {
    for pos in [0, ROWS as usize / 2, ROWS as usize - 1] {
        exactly_once(|| {
            let (_, mut map, _) = filled(ROWS);
            let old = map.keys().to_vec();
            arm_drop(map.get(old[pos]).unwrap().b.serial);
            assert!(caught(|| map.clear()).is_err());
            assert_model(&map, &Model::new(), &old);
            LEDGER.with(|l| assert!(l.borrow().iter().all(|&n| n == 1)));
            map.insert(old[0], hex(7)); // still usable
            map.check_invariants();
        });
    }
}

#[test]
fn dropping_the_map_with_a_panicking_drop_drops_the_rest_once() {
    for pos in [0, ROWS as usize - 1] {
        exactly_once(|| {
            let (_, map, _) = filled(ROWS);
            arm_drop(map.get(map.keys()[pos]).unwrap().a.serial);
            assert!(caught(move || drop(map)).is_err());
        });
    }
}

#[test]
fn retain_with_a_panicking_drop_still_removes_exactly_the_rejected_entries() {
    exactly_once(|| {
        let (_, mut map, mut model) = filled(ROWS);
        let rejected: Vec<UnitId> = map
            .iter()
            .filter(|(_, r)| *r.n % 2 == 0)
            .map(|(k, _)| k)
            .collect();
        arm_drop(map.get(rejected[0]).unwrap().a.serial);
        assert!(caught(|| map.retain(|_, r| *r.n % 2 == 1)).is_err());
        for key in &rejected {
            model.remove(key);
        }
        assert_model(&map, &model, &rejected);
    });
}

#[test]
fn a_panicking_retain_predicate_removes_nothing() {
    exactly_once(|| {
        let (_, mut map, model) = filled(ROWS);
        let before = map.keys().to_vec();
        let mut seen = 0;
        let r = caught(|| {
            map.retain(|_, _| {
                seen += 1;
                assert!(seen < 4, "predicate panics");
                false
            })
        });
        assert!(r.is_err());
        assert_eq!(map.keys(), &before[..]);
        assert_model(&map, &model, &[]);
    });
}

#[test]
fn a_panicking_sort_callback_moves_and_drops_nothing() {
    exactly_once(|| {
        let (_, mut map, model) = filled(ROWS);
        let before = map.keys().to_vec();
        let mut calls = 0;
        let r = caught(|| {
            map.sort_by(|x, y| {
                calls += 1;
                assert!(calls < 5, "compare panics");
                y.n.cmp(x.n)
            })
        });
        assert!(r.is_err());
        assert_eq!(map.keys(), &before[..]);
        assert_model(&map, &model, &[]);
    });
}

#[test]
fn a_panicking_drop_of_a_replaced_stale_value_leaves_the_new_entry_in_place() {
    exactly_once(|| {
        let (mut units, mut map, mut model) = filled(ROWS);
        let old = map.keys()[3];
        units.remove(old);
        let newer = units.insert(Unit { hp: 1 });
        arm_drop(map.get(old).unwrap().a.serial);
        assert!(caught(|| map.insert(newer, hex(55))).is_err());
        model.remove(&old);
        model.insert(newer, 55);
        assert_model(&map, &model, &[old]);
    });
}

#[test]
fn a_partly_consumed_drain_with_a_panicking_value_drops_the_rest_once() {
    exactly_once(|| {
        let (_, mut map, _) = filled(ROWS);
        let victim = map.keys()[2];
        arm_drop(map.get(victim).unwrap().b.serial);
        let r = caught(|| {
            let mut drain = map.drain();
            drop(drain.next());
            drop(drain);
        });
        assert!(r.is_err());
        assert_model(&map, &Model::new(), &[victim]);
    });
}

#[test]
fn clone_with_a_panicking_field_clone_drops_the_partial_copy_and_keeps_the_original() {
    exactly_once(|| {
        let (_, map, model) = filled(ROWS);
        arm_clone(map.get(map.keys()[ROWS as usize / 2]).unwrap().b.serial);
        assert!(caught(|| map.clone()).is_err());
        assert_model(&map, &model, &[]);
    });
}

#[test]
fn extend_whose_iterator_panics_midway_keeps_what_was_inserted() {
    exactly_once(|| {
        let mut units = UnitAllocator::new();
        let keys: Vec<UnitId> = (0..6).map(|hp| units.insert(Unit { hp })).collect();
        let mut map = SoaMap::<UnitId, Hex>::new();
        let r = caught(|| {
            map.extend(keys.iter().enumerate().map(|(i, &k)| {
                assert!(i < 4, "iterator panics");
                (k, hex(i as u32))
            }))
        });
        assert!(r.is_err());
        let model: Model = (0..4).map(|i| (keys[i], i as u32)).collect();
        assert_model(&map, &model, &keys[4..]);
    });
}
