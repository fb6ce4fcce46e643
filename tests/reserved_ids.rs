//! Ids reserved from a shared borrow, through a derived allocator: a
//! reservation resolves to nothing (`get`, `contains`, joins) until its row
//! is inserted, is issued once, is accepted as a key by the maps at once, and
//! is refused by `insert_reserved` when it was not reserved, was filled or
//! was released. With the `rayon` feature, a model test reserves from many
//! threads at once between the exclusive steps (fills, releases, inserts,
//! removes, `clear`) and checks every id against a reference.

mod support;

use std::collections::{BTreeSet, HashMap};

use idtable::{join, remove_all, SoaAllocator, SoaMap};
use support::Rng;

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<6>, min_free = 2)]
pub struct Unit {
    pub hp: u32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Homing {
    pub target: UnitId,
}

#[test]
fn a_reservation_resolves_to_nothing_until_its_row_is_inserted() {
    let mut units = UnitAllocator::new();
    let first = units.insert(Unit { hp: 1 });
    let id = units.reserve_id();
    assert_ne!(id, first);
    assert!(units.get(id).is_none() && !units.contains(id));
    assert_eq!(units.dense_index(id), None);
    assert_eq!((units.len(), units.reserved_len()), (1, 1));

    // A map takes the id as a key before the row exists; a join over the
    // table and the map sees the object only once its row is in.
    let mut homing = SoaMap::<UnitId, Homing>::new();
    homing.insert(id, Homing { target: first });
    assert_eq!(join((&units, &homing)).into_iter().count(), 0);

    assert_eq!(units.insert_reserved(id, Unit { hp: 7 }), Ok(()));
    assert_eq!(units.get(id).map(|u| *u.hp), Some(7));
    assert_eq!(units.ids(), &[first, id]);
    assert_eq!(units.reserved_len(), 0);
    let seen: Vec<_> = join((&units, &homing))
        .into_iter()
        .map(|(k, (u, h))| (k, *u.hp, *h.target))
        .collect();
    assert_eq!(seen, [(id, 7, first)]);

    // Filled once: a second fill gives the value back.
    assert_eq!(
        units.insert_reserved(id, Unit { hp: 8 }),
        Err(Unit { hp: 8 })
    );
    units.check_invariants();
}

#[test]
fn insert_reserved_refuses_ids_that_are_not_waiting_reservations() {
    let mut units = UnitAllocator::new();
    let live = units.insert(Unit { hp: 1 });
    let gone = units.insert(Unit { hp: 2 });
    units.remove(gone);
    let forged = UnitId::from_bits(u32::MAX).unwrap();
    let released = units.reserve_id();
    assert!(units.release_reserved(released));
    assert!(!units.release_reserved(released));
    for id in [live, gone, forged, released] {
        assert_eq!(
            units.insert_reserved(id, Unit { hp: 9 }),
            Err(Unit { hp: 9 }),
            "{id:?}"
        );
        assert!(!units.release_reserved(id), "{id:?}");
    }
    assert_eq!(units.len(), 1);
    units.check_invariants();
}

#[test]
fn clear_and_remove_all_spend_reservations_and_inserts_never_reissue_them() {
    let mut units = UnitAllocator::new();
    let mut homing = SoaMap::<UnitId, Homing>::new();
    let anchor = units.insert(Unit { hp: 1 });
    let batch: Vec<UnitId> = units.reserve_ids(4).collect();
    assert_eq!(units.reserved_len(), 4);
    for &id in &batch {
        homing.insert(id, Homing { target: anchor });
    }
    // `remove_all` takes the components of an unfilled reservation; the
    // reservation itself stays until filled or released.
    let (row, component) = remove_all(batch[0], (&mut units, &mut homing));
    assert!(row.is_none() && component.is_some());
    assert!(!homing.contains_key(batch[0]));
    assert_eq!(units.reserved_len(), 4);

    let inserted: Vec<_> = (0..20).map(|n| units.insert(Unit { hp: n })).collect();
    for id in &batch {
        assert!(!inserted.contains(id), "{id:?} reserved and inserted");
    }
    units.clear();
    assert_eq!(units.reserved_len(), 0);
    for &id in &batch {
        assert!(units.insert_reserved(id, Unit { hp: 0 }).is_err());
    }
    let after: BTreeSet<_> = (0..40).map(|n| units.insert(Unit { hp: n })).collect();
    assert!(batch.iter().all(|id| !after.contains(id)));
    units.check_invariants();
}

/// The steps of the model test. `Reserve(n)` reserves `n` ids from a shared
/// borrow (from rayon's threads when the feature is on).
#[derive(Clone, Copy, Debug)]
enum Op {
    Reserve(usize),
    ReserveBatch(usize),
    Fill(usize),
    Release(usize),
    Insert,
    Remove(usize),
    Clear,
}

fn random_op(rng: &mut Rng) -> Op {
    match rng.below(20) {
        0..=3 => Op::Reserve(1 + rng.below(12)),
        4 => Op::ReserveBatch(rng.below(6)),
        5..=9 => Op::Fill(rng.below(usize::MAX)),
        10 => Op::Release(rng.below(usize::MAX)),
        11..=14 => Op::Insert,
        15..=18 => Op::Remove(rng.below(usize::MAX)),
        _ => Op::Clear,
    }
}

/// `n` ids reserved from `&units`, from several threads when rayon is on.
fn reserve_shared(units: &UnitAllocator, n: usize) -> Vec<UnitId> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(|_| units.reserve_id()).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        (0..n).map(|_| units.reserve_id()).collect()
    }
}

/// Random reservations, fills, releases, inserts, removes and clears on a
/// table of 63 slots (so slots are reused constantly), against a reference:
/// the live objects and their values, the waiting reservations, and every id
/// ever handed out (none twice). A reservation made from shared borrows takes
/// the ids that reserving one by one would have taken (the free queue's next
/// slots, then fresh indices), whatever the threads' interleaving.
#[test]
fn reservations_from_threads_against_a_reference() {
    let steps = if cfg!(miri) { 200 } else { 20_000 };
    let mut rng = Rng(0x5EED_0027);
    let mut units = UnitAllocator::new();
    let mut live: HashMap<UnitId, u32> = HashMap::new();
    let mut waiting: Vec<UnitId> = Vec::new();
    let mut dead: Vec<UnitId> = Vec::new();
    let mut issued: BTreeSet<UnitId> = BTreeSet::new();
    let mut serial = 0u32;
    for step in 0..steps {
        let op = random_op(&mut rng);
        match op {
            Op::Reserve(n) | Op::ReserveBatch(n) => {
                // Only as many as the layout has room for, so the step never
                // panics: 63 indices, the live and waiting ones taken, and
                // `min_free` (2) may hold queued slots back.
                let n = n.min(61usize.saturating_sub(live.len() + waiting.len()));
                let expect: BTreeSet<UnitId> = {
                    let serial_copy = units.clone();
                    (0..n).map(|_| serial_copy.reserve_id()).collect()
                };
                let got = match op {
                    Op::Reserve(_) => reserve_shared(&units, n),
                    _ => units.reserve_ids(n).collect(),
                };
                let got_set: BTreeSet<_> = got.iter().copied().collect();
                assert_eq!(got_set, expect, "step {step}: {op:?}");
                for id in got {
                    assert!(issued.insert(id), "step {step}: {id:?} issued twice");
                    waiting.push(id);
                }
            }
            Op::Fill(i) if !waiting.is_empty() => {
                let id = waiting.swap_remove(i % waiting.len());
                serial += 1;
                assert_eq!(units.insert_reserved(id, Unit { hp: serial }), Ok(()));
                live.insert(id, serial);
            }
            Op::Release(i) if !waiting.is_empty() => {
                let id = waiting.swap_remove(i % waiting.len());
                assert!(units.release_reserved(id), "step {step}");
                dead.push(id);
            }
            Op::Fill(_) | Op::Release(_) => {}
            Op::Insert => {
                if live.len() + waiting.len() < 61 {
                    serial += 1;
                    let id = units.insert(Unit { hp: serial });
                    assert!(issued.insert(id), "step {step}: {id:?} issued twice");
                    live.insert(id, serial);
                }
            }
            Op::Remove(i) if !units.is_empty() => {
                let id = units.ids()[i % units.len()];
                assert_eq!(units.remove(id).map(|u| u.hp), live.remove(&id));
                dead.push(id);
            }
            Op::Remove(_) => {}
            Op::Clear => {
                units.clear();
                dead.extend(live.drain().map(|(id, _)| id));
                dead.append(&mut waiting);
            }
        }
        assert_eq!(units.len(), live.len(), "step {step}");
        assert_eq!(units.reserved_len(), waiting.len(), "step {step}");
        for (&id, &hp) in &live {
            assert_eq!(units.get(id).map(|u| *u.hp), Some(hp), "step {step}");
        }
        for &id in &waiting {
            assert!(units.get(id).is_none(), "step {step}: {id:?} waiting");
        }
        // Recently spent ids stay spent (the older ones were checked then).
        for &id in dead.iter().rev().take(64) {
            assert!(units.get(id).is_none(), "step {step}: {id:?} spent");
            let refused = units.insert_reserved(id, Unit { hp: 0 });
            assert!(refused.is_err(), "step {step}: {id:?} filled after spent");
        }
        if step % 64 == 0 {
            units.check_invariants();
        }
    }
    assert!(issued.len() > steps / 4, "the run issued too few ids");
}
