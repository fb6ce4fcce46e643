//! Lookups in a `SoaMap` allocate nothing: `get`, `get_mut`, `contains_key`,
//! `dense_index`, `get_disjoint_mut`, `remove` of a key the map does not
//! hold, a join's probes, and `entry` on a vacant key, whether the entry is
//! dropped, only modified (`and_modify` does nothing on a vacant key) or
//! given a closure that panics. The sparse index gets a page when a key is
//! inserted, not when one is looked up. Measured with a global allocator
//! that counts the allocation calls made on the current thread and the
//! bytes left live.

#[path = "../idtable-runtime/tests/support/live_heap.rs"]
mod live_heap;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use idtable::map::Entry;
use idtable::{join, Id32_32, Maybe, SoaAllocator, SoaMap, Without};
use live_heap::{heap_effect, HeapEffect};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Burn {
    pub dps: f32,
    pub source: String,
}

/// Nothing allocated, nothing left live.
const NOTHING: HeapEffect = HeapEffect { calls: 0, live: 0 };

fn key(index: usize, generation: u64) -> Id32_32 {
    Id32_32::new(index, generation).unwrap()
}

/// `n` keys of distinct 64-index pages spread over all of `Id32_32`'s
/// slot indices, each page asked once: without the fix, each costs a page.
fn spread_keys(n: usize) -> impl Iterator<Item = Id32_32> {
    let max = u32::MAX as usize - 1;
    let stride = (max / n) & !63;
    (0..n).map(move |i| key(i * stride + 7, 1 + (i % 3) as u64))
}

fn burn(i: usize) -> Burn {
    Burn {
        dps: i as f32,
        source: format!("burn {i}"),
    }
}

/// Unwinds with a payload of no size and no panic hook: the unwind itself
/// leaves nothing live once caught.
fn bail() -> ! {
    resume_unwind(Box::new(()))
}

#[test]
fn the_counter_sees_allocations_and_frees() {
    let (v, effect) = heap_effect(|| vec![1u8; 100]);
    assert!(effect.calls >= 1, "the counting allocator is not in use");
    assert_eq!(effect.live, 100);
    let ((), effect) = heap_effect(|| drop(v));
    assert_eq!(
        effect,
        HeapEffect {
            calls: 0,
            live: -100
        }
    );
}

#[test]
fn vacant_entries_dropped_leave_an_empty_map_as_it_was() {
    let n = if cfg!(miri) { 50 } else { 20_000 };
    let mut burning: SoaMap<Id32_32, Burn> = SoaMap::new();
    let mut heat: SoaMap<Id32_32, f32> = SoaMap::new();
    let ((), effect) = heap_effect(|| {
        for k in spread_keys(n) {
            match burning.entry(k) {
                Some(Entry::Vacant(place)) => assert_eq!(place.key(), k),
                other => panic!("{k:?}: {other:?}"),
            }
            let modified = heat.entry(k).unwrap().and_modify(|_| unreachable!());
            assert!(matches!(modified, Entry::Vacant(_)));
        }
    });
    assert_eq!(effect, NOTHING, "{n} vacant entries dropped");
    assert_eq!((burning.index_bytes(), heat.index_bytes()), (0, 0));
    assert_eq!((burning.capacity(), heat.capacity()), (0, 0));
    assert!(burning.is_empty() && heat.is_empty());
    burning.check_invariants();
    heat.check_invariants();
}

#[test]
fn a_panicking_or_insert_with_leaves_the_map_as_it_was() {
    let n = if cfg!(miri) { 20 } else { 20_000 };
    let mut burning: SoaMap<Id32_32, Burn> = SoaMap::new();
    // One unwind first: whatever the first one sets up on the thread is
    // not the map's.
    assert!(catch_unwind(|| bail()).is_err());
    let ((), effect) = heap_effect(|| {
        for (i, k) in spread_keys(n).enumerate() {
            let caught = catch_unwind(AssertUnwindSafe(|| {
                let place = burning.entry(k).unwrap();
                if i % 2 == 0 {
                    place.or_insert_with(|| bail());
                } else {
                    place.or_insert_with_key(|_| bail());
                }
            }));
            assert!(caught.is_err());
        }
    });
    // Unwinding allocates its exception and frees it when caught: the
    // calls are the unwinder's, the bytes left live would be the map's.
    assert_eq!(effect.live, 0, "{n} panicking closures");
    assert_eq!((burning.index_bytes(), burning.capacity()), (0, 0));
    assert!(burning.is_empty());
    burning.check_invariants();
}

/// A map holding keys in near and far pages, with the keys it holds and
/// keys it does not: a vacant slot index of a held page, slot indices of
/// pages never written (below the table's end, past it, and near the top),
/// an older and a newer key of a held slot index.
fn map_and_absent_keys() -> (SoaMap<Id32_32, Burn>, Vec<Id32_32>, Vec<Id32_32>) {
    let held: Vec<Id32_32> = (0..200)
        .map(|i| key(i * 3, 2))
        .chain([key(3_000_000_000, 2), key(u32::MAX as usize - 1, 2)])
        .collect();
    let mut burning = SoaMap::new();
    for (i, &k) in held.iter().enumerate() {
        burning.insert(k, burn(i));
    }
    let absent = vec![
        key(1, 1),
        key(4, 2),
        key(5_000, 1),
        key(70_000, 1),
        key(3_000_000_001, 2),
        key(4_000_000_000, 1),
        key(u32::MAX as usize - 2, 1),
        key(3, 1),
        key(3, 3),
        key(3_000_000_000, 1),
        key(3_000_000_000, 5),
    ];
    (burning, held, absent)
}

#[test]
fn lookups_of_keys_not_held_allocate_nothing() {
    let (mut burning, held, absent) = map_and_absent_keys();
    let index_bytes = burning.index_bytes();
    let rounds = if cfg!(miri) { 1 } else { 100 };
    let ((), effect) = heap_effect(|| {
        for _ in 0..rounds {
            for &k in &absent {
                assert!(burning.get(k).is_none());
                assert!(burning.get_mut(k).is_none());
                assert!(!burning.contains_key(k));
                assert!(burning.dense_index(k).is_none());
                assert!(burning.get_disjoint_mut([held[0], k]).is_none());
                assert!(burning.remove(k).is_none());
                // Vacant, or `None` for a key older than the stored one.
                let entry = burning.entry(k).map(|e| e.and_modify(|_| unreachable!()));
                assert!(!matches!(entry, Some(Entry::Occupied(_))), "{k:?}");
            }
            for &k in &held {
                assert!(burning.get(k).is_some());
                assert!(matches!(burning.entry(k), Some(Entry::Occupied(_))));
            }
        }
    });
    assert_eq!(effect, NOTHING);
    assert_eq!(burning.index_bytes(), index_bytes);
    assert_eq!(burning.len(), held.len());
    burning.check_invariants();
}

#[test]
fn a_panicking_or_insert_with_leaves_a_full_map_as_it_was() {
    let (mut burning, held, absent) = map_and_absent_keys();
    let (index_bytes, capacity) = (burning.index_bytes(), burning.capacity());
    assert!(catch_unwind(|| bail()).is_err());
    let ((), effect) = heap_effect(|| {
        for &k in &absent {
            let caught = catch_unwind(AssertUnwindSafe(|| {
                if let Some(place) = burning.entry(k) {
                    place.or_insert_with(|| bail());
                }
            }));
            // A key older than the stored one has no entry.
            assert_eq!(caught.is_err(), burning.entry(k).is_some(), "{k:?}");
        }
    });
    assert_eq!(effect.live, 0);
    assert_eq!(
        (burning.index_bytes(), burning.capacity(), burning.len()),
        (index_bytes, capacity, held.len())
    );
    burning.check_invariants();
}

#[test]
fn joins_probe_without_allocating() {
    let (mut burning, held, absent) = map_and_absent_keys();
    let mut heat: SoaMap<Id32_32, f32> = SoaMap::new();
    let mut frozen: SoaMap<Id32_32, ()> = SoaMap::new();
    for (i, &k) in held.iter().enumerate() {
        if i % 2 == 0 {
            heat.insert(k, i as f32);
        }
        if i % 5 == 0 {
            frozen.insert(k, ());
        }
    }
    let ((), effect) = heap_effect(|| {
        let mut joined = join((&mut burning, &heat, Without(&frozen)));
        for &k in &absent {
            assert!(joined.get(k).is_none());
        }
        let mut visited = 0;
        for (_, (h, fire, ())) in join((&heat, &burning, Without(&frozen))) {
            assert_eq!(*h, *fire.dps);
            visited += 1;
        }
        // Even positions, not multiples of 10.
        assert_eq!(visited, held.len().div_ceil(2) - held.len().div_ceil(10));
        let frozen_too = join((&heat, Maybe(&frozen)))
            .into_iter()
            .filter(|(_, (_, f))| f.is_some())
            .count();
        assert_eq!(frozen_too, held.len().div_ceil(10));
    });
    assert_eq!(effect, NOTHING);
}

#[test]
fn a_vacant_entry_makes_its_page_when_it_inserts() {
    let mut burning: SoaMap<Id32_32, Burn> = SoaMap::new();
    let k = key(3_000_000_000, 1);
    assert!(matches!(burning.entry(k), Some(Entry::Vacant(_))));
    assert_eq!(burning.index_bytes(), 0);
    let row = burning.entry(k).unwrap().or_insert_with(|| burn(1));
    row.source.push('!');
    assert!(burning.index_bytes() > 0);
    assert_eq!(burning.get(k).unwrap().source, "burn 1!");
    // A newer key through a vacant entry replaces the stale row in place.
    let newer = key(3_000_000_000, 4);
    let bytes = burning.index_bytes();
    let (found, effect) = heap_effect(|| matches!(burning.entry(newer), Some(Entry::Vacant(_))));
    assert!(found);
    assert_eq!(effect, NOTHING);
    *burning.entry(newer).unwrap().or_insert(burn(2)).dps += 0.5;
    assert_eq!(burning.index_bytes(), bytes);
    assert_eq!(burning.keys(), &[newer]);
    assert_eq!(*burning.get(newer).unwrap().dps, 2.5);
    // A key of an empty slot index in the same page uses the page.
    burning
        .entry(key(3_000_000_001, 1))
        .unwrap()
        .or_insert(burn(3));
    assert_eq!(burning.index_bytes(), bytes);
    assert_eq!(burning.len(), 2);
    burning.check_invariants();
}
