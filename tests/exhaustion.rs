//! Scale and exhaustion: what an id promises once generations run out.
//!
//! * `retire` (the default): a slot whose generation reaches `MAX_GENERATION`
//!   is never issued again, so no id is ever issued twice; fresh slots take
//!   over, and once every index is live or retired the table reports full
//!   (`try_insert` gives the value back, `insert` panics naming the layout)
//!   and stays consistent.
//! * `min_free = n`: a freed slot is reissued only after `n - 1` more frees,
//!   so between two issues of one slot at least `n` frees happen: a slot lasts
//!   at least `n × MAX_GENERATION` frees of the whole table.
//! * `wrap`: the generation restarts at 1, so an id comes back — resolving to
//!   a new object — after exactly `MAX_GENERATION` reissues of its slot (and
//!   not before `n × MAX_GENERATION` frees with `min_free = n`). This is the
//!   documented risk of `wrap`.
//!
//! `tests/ids_and_reuse.rs` covers one slot of `Id24_8` retiring and wrapping,
//! and a few slots retiring under churn; this file drives every slot of a
//! table through exhaustion, checks the `min_free` arithmetic, and fills a
//! table whose every index is retired (the two tests that need 2^31 inserts
//! are `#[ignore]`d: run them with `cargo test --release -- --ignored`).

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::{Id, Id32, IdTable, OnExhausted, SoaAllocator, TableConfig};

mod support;
use support::Rng;

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Per-slot bookkeeping of every id a table issues.
#[derive(Default)]
struct Issued {
    /// Every id ever issued, as bits.
    all: HashSet<u64>,
    /// Last generation issued per slot, and how often the slot was issued.
    per_slot: HashMap<usize, (u64, u64)>,
    /// Slots freed at their last generation under `retire`.
    retired: HashSet<usize>,
}

impl Issued {
    /// Records an issue under `retire`: a fresh id, the slot's next
    /// generation, never a retired slot.
    fn issue_retire(&mut self, bits: u64, index: usize, generation: u64, max: u64) {
        assert!(self.all.insert(bits), "id {bits:#x} issued twice");
        assert!(
            !self.retired.contains(&index),
            "retired slot {index} reissued"
        );
        assert!((1..=max).contains(&generation));
        let entry = self.per_slot.entry(index).or_insert((0, 0));
        assert_eq!(
            generation,
            entry.0 + 1,
            "slot {index}: generations count up by one"
        );
        *entry = (generation, entry.1 + 1);
    }
}

// --- Id24_8: every slot of a 16-slot table wears out ------------------------------

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8)]
struct Short {
    key: u64,
}

#[test]
fn id24_8_every_slot_of_a_small_table_wears_out_and_retires_and_no_id_is_issued_twice() {
    // 16 live objects (4 under Miri), removed at random and replaced, until
    // every one of the first 16 slots has used all 255 generations.
    let live: usize = if cfg!(miri) { 4 } else { 16 };
    let max = u64::from(ShortId::MAX_GENERATION);
    assert_eq!(max, 255);
    let mut a = ShortAllocator::new();
    let mut rng = Rng(24);
    let mut issued = Issued::default();
    let mut values: HashMap<ShortId, u64> = HashMap::new();
    let mut dead = Vec::new();
    let mut n = 0u64;
    let mut insert = |a: &mut ShortAllocator, issued: &mut Issued, values: &mut HashMap<_, _>| {
        n += 1;
        let id = a.insert(Short { key: n });
        issued.issue_retire(
            u64::from(id.to_bits()),
            id.index(),
            u64::from(id.generation()),
            max,
        );
        values.insert(id, n);
    };
    for _ in 0..live {
        insert(&mut a, &mut issued, &mut values);
    }
    let first_slots: Vec<usize> = (0..live).collect();
    let mut ops = 0;
    while !first_slots.iter().all(|s| issued.retired.contains(s)) {
        ops += 1;
        assert!(ops < 40 * 255 * live, "the first slots never retire");
        let victim = a.ids()[rng.below(a.len())];
        assert_eq!(
            a.remove(victim),
            Some(Short {
                key: values[&victim]
            })
        );
        values.remove(&victim);
        if u64::from(victim.generation()) == max {
            issued.retired.insert(victim.index());
        }
        dead.push(victim);
        insert(&mut a, &mut issued, &mut values);
        // With min_free = 0 a freed slot is reused at once: new slots are taken
        // only to replace retired ones.
        let t = a.id_table();
        assert_eq!(t.slot_count(), live + issued.retired.len());
        assert_eq!(t.free_count(), 0);
        if ops % 64 == 0 {
            a.check_invariants();
        }
    }
    a.check_invariants();
    for s in &first_slots {
        assert_eq!(
            issued.per_slot[s],
            (max, max),
            "slot {s}: 255 issues, the last at 255"
        );
    }
    // No stale id resolves, and every live one resolves to its own value.
    for id in &dead {
        assert!(!a.contains(*id) && a.get(*id).is_none(), "{id:?} resolves");
    }
    for (&id, &key) in &values {
        assert_eq!(a.get(id).map(|r| *r.key), Some(key));
    }
    // Every generation of every retired slot, forged, resolves to nothing.
    for &s in &issued.retired {
        for generation in 1..=255u32 {
            let forged = ShortId::from_bits(generation << 24 | s as u32).unwrap();
            assert!(!a.contains(forged));
        }
    }
}

// --- three generations per slot: thousands of slots retire -----------------------

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<30>)] // 2 generation bits: each slot is issued 3 times
struct Brief {
    key: u64,
}

#[test]
fn retire_takes_fresh_slots_as_old_ones_wear_out_and_never_reissues_an_id() {
    let ops = if cfg!(miri) { 300 } else { 30_000 };
    let max = u64::from(BriefId::MAX_GENERATION);
    assert_eq!(max, 3);
    let mut a = BriefAllocator::new();
    let mut rng = Rng(30);
    let mut issued = Issued::default();
    let mut dead = Vec::new();
    for n in 0..ops {
        // Between 0 and 8 live, drifting at random.
        if a.is_empty() || (a.len() < 8 && rng.below(2) == 0) {
            let id = a.insert(Brief { key: n });
            issued.issue_retire(
                u64::from(id.to_bits()),
                id.index(),
                u64::from(id.generation()),
                max,
            );
        } else {
            let victim = a.ids()[rng.below(a.len())];
            a.remove(victim).unwrap();
            if u64::from(victim.generation()) == max {
                issued.retired.insert(victim.index());
            }
            dead.push(victim);
        }
        let t = a.id_table();
        assert_eq!(
            t.slot_count(),
            t.len() + t.free_count() + issued.retired.len(),
            "every slot is live, queued or retired"
        );
    }
    a.check_invariants();
    assert!(
        issued.retired.len() > ops as usize / 10,
        "{} retired",
        issued.retired.len()
    );
    for s in &issued.retired {
        assert_eq!(
            issued.per_slot[s].1, max,
            "retired slot {s} was issued exactly 3 times"
        );
    }
    for id in dead {
        assert!(!a.contains(id));
    }
}

// --- min_free: how long a slot lasts ------------------------------------------------

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8, min_free = 8)]
struct Spaced {
    key: u64,
}

#[test]
fn min_free_n_reissues_a_slot_only_after_n_minus_1_later_frees() {
    const N: u64 = 8;
    let ops = if cfg!(miri) { 400 } else { 60_000 };
    let max = u64::from(SpacedId::MAX_GENERATION);
    let mut a = SpacedAllocator::new();
    let mut rng = Rng(8);
    let mut issued = Issued::default();
    let mut frees = 0u64;
    // The free count right after each slot was last freed.
    let mut freed_at: HashMap<usize, u64> = HashMap::new();
    // The free count at each slot's previous issue.
    let mut issued_at: HashMap<usize, u64> = HashMap::new();
    let mut reissues = 0;
    for n in 0..ops {
        if a.is_empty() || (a.len() < 20 && rng.below(2) == 0) {
            let id = a.insert(Spaced { key: n });
            let s = id.index();
            issued.issue_retire(u64::from(id.to_bits()), s, u64::from(id.generation()), max);
            if let Some(&at) = freed_at.get(&s) {
                reissues += 1;
                assert!(
                    frees - at >= N - 1,
                    "slot {s} reissued after only {} later frees",
                    frees - at
                );
                assert!(
                    frees - issued_at[&s] >= N,
                    "fewer than n frees between two issues"
                );
            }
            issued_at.insert(s, frees);
        } else {
            let victim = a.ids()[rng.below(a.len())];
            a.remove(victim).unwrap();
            frees += 1;
            freed_at.insert(victim.index(), frees);
            if u64::from(victim.generation()) == max {
                issued.retired.insert(victim.index());
            }
        }
    }
    a.check_invariants();
    assert!(reissues > ops / 4, "only {reissues} reissues");
    // Hence: a slot's last generation comes no sooner than
    // (MAX_GENERATION - 1) * n frees after its first issue.
    if !cfg!(miri) {
        assert!(
            !issued.retired.is_empty(),
            "60,000 operations retire some slot"
        );
    }
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<30>, min_free = 4, on_exhausted = wrap)]
struct Looping {
    key: u64,
}

#[test]
fn wrap_with_min_free_n_brings_an_id_back_only_after_n_times_max_generation_frees() {
    const N: u64 = 4;
    let ops = if cfg!(miri) { 400 } else { 40_000 };
    let max = u64::from(LoopingId::MAX_GENERATION); // 3
    let mut a = LoopingAllocator::new();
    let mut rng = Rng(4);
    let mut frees = 0u64;
    // Per id bits: the free count when it was last issued, and its value.
    let mut last_issue: HashMap<u32, u64> = HashMap::new();
    let mut held: HashMap<u32, LoopingId> = HashMap::new();
    let mut recurrences = 0;
    for n in 0..ops {
        if a.is_empty() || (a.len() < 10 && rng.below(2) == 0) {
            let id = a.insert(Looping { key: n });
            let bits = id.to_bits();
            if let Some(&at) = last_issue.get(&bits) {
                recurrences += 1;
                assert!(
                    frees - at >= N * max,
                    "{id:?} came back after {} frees, fewer than n * MAX_GENERATION",
                    frees - at
                );
                // The documented risk: an id held from the earlier issue
                // resolves again, to the new object.
                let old = held[&bits];
                assert_eq!(a.get(old).map(|r| *r.key), Some(n));
            }
            last_issue.insert(bits, frees);
            held.insert(bits, id);
        } else {
            let victim = a.ids()[rng.below(a.len())];
            a.remove(victim).unwrap();
            frees += 1;
        }
    }
    a.check_invariants();
    assert!(recurrences > 0, "ids came back under wrap");
    // wrap never retires: every slot is live or queued.
    let t = a.id_table();
    assert_eq!(t.slot_count(), t.len() + t.free_count());
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<30>, on_exhausted = wrap)]
struct Cycling {
    key: u64,
}

#[test]
fn wrap_on_every_slot_restarts_at_generation_one_and_the_table_never_fills() {
    // Four live objects, removed at random and replaced: slots are reused at
    // once, so the table keeps exactly four slots and cycles each through
    // generations 1, 2, 3, 1, 2, 3, ...
    let ops = if cfg!(miri) { 200 } else { 20_000 };
    let mut a = CyclingAllocator::new();
    let mut rng = Rng(3);
    let mut per_slot: HashMap<usize, u64> = HashMap::new();
    let mut issue = |a: &mut CyclingAllocator, key: u64| {
        let id = a.insert(Cycling { key });
        let count = per_slot.entry(id.index()).or_default();
        *count += 1;
        assert_eq!(u64::from(id.generation()), (*count - 1) % 3 + 1, "{id:?}");
        id
    };
    let mut ids: Vec<CyclingId> = (0..4).map(|k| issue(&mut a, k)).collect();
    for n in 0..ops {
        let k = rng.below(4);
        a.remove(ids[k]).unwrap();
        ids[k] = issue(&mut a, n);
        assert_eq!(a.id_table().slot_count(), 4);
    }
    a.check_invariants();
    assert!(per_slot.values().all(|&c| c > 3), "every slot wrapped");
}

// --- a table whose every index is retired ------------------------------------------

/// Issues and frees the single slot of an `Id32<1>` table until its 2^31 - 1
/// generations are used up, checking that the generation counts up by one
/// each time (so no id repeats).
fn exhaust_single_slot(t: &mut IdTable<Id32<1>>) -> (Id32<1>, Id32<1>) {
    let max = <Id32<1> as Id>::MAX_GENERATION;
    assert_eq!(max, (1 << 31) - 1);
    let (first, _) = t.insert();
    assert_eq!((first.index(), first.generation()), (0, 1));
    t.remove(first).unwrap();
    let mut last = first;
    for generation in 2..=max {
        let (id, dense) = t.insert();
        // (one comparison of the whole id: index 0, this generation)
        assert_eq!(id.to_bits(), generation << 1, "{id:?}");
        assert_eq!(dense, 0);
        t.remove(id).unwrap();
        last = id;
    }
    (first, last)
}

#[test]
#[ignore = "2^31 inserts (about 20 s of CPU in release): cargo test --release --test exhaustion -- --ignored"]
fn a_table_whose_every_slot_is_retired_reports_full_and_stays_consistent() {
    let mut t = IdTable::<Id32<1>>::new();
    let (first, last) = exhaust_single_slot(&mut t);
    assert_eq!(last.generation(), (1 << 31) - 1);
    t.check_invariants();
    assert_eq!((t.len(), t.slot_count(), t.free_count()), (0, 1, 0));
    let err = t.try_insert().expect_err("the only slot is retired");
    assert_eq!(
        err.to_string(),
        "id table full: all 1 slots of the Id1_31 layout are live, reserved or retired"
    );
    assert!(t.next_id().is_err());
    let r = catch_unwind(AssertUnwindSafe(|| t.insert()));
    assert!(panic_message(r.expect_err("insert panics")).contains("Id1_31"));
    t.check_invariants();
    assert!(!t.contains(first) && !t.contains(last));
    assert_eq!(t.remove(last), None);
    t.clear();
    t.check_invariants();
    assert!(
        t.try_insert().is_err(),
        "clear does not bring a retired slot back"
    );
}

#[test]
#[ignore = "2^31 inserts (about 20 s of CPU in release): cargo test --release --test exhaustion -- --ignored"]
fn wrap_on_a_single_slot_restarts_at_generation_one_and_the_first_id_resolves_again() {
    let config = TableConfig {
        min_free: 0,
        on_exhausted: OnExhausted::Wrap,
    };
    let mut t = IdTable::<Id32<1>>::with_config(config);
    let (first, last) = exhaust_single_slot(&mut t);
    t.check_invariants();
    assert_eq!(t.free_count(), 1, "wrap queues the exhausted slot again");
    let (again, _) = t.insert();
    assert_eq!((again.index(), again.generation()), (0, 1));
    // The documented risk: the very first id, held all along, is live again.
    assert_eq!(again, first);
    assert!(t.contains(first));
    assert!(!t.contains(last));
    t.check_invariants();
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<1>)] // one index, 2^31 - 1 generations
struct Last {
    name: String,
}

#[test]
#[ignore = "2^31 inserts through a derived allocator (about 20 s of CPU in release): cargo test --release --test exhaustion -- --ignored"]
fn a_derived_allocator_whose_every_slot_is_retired_gives_values_back_and_stays_consistent() {
    let mut a = LastAllocator::new();
    let first = a.insert(Last {
        name: "first".into(),
    });
    a.remove(first).unwrap();
    let empty = String::new(); // no allocation per insert
    let mut last = first;
    for generation in 2..=LastId::MAX_GENERATION {
        let id = a.insert(Last {
            name: empty.clone(),
        });
        assert_eq!(id.to_bits(), generation << 1);
        a.remove(id);
        last = id;
    }
    a.check_invariants();
    assert_eq!(a.id_table().slot_count(), 1);
    assert_eq!(a.id_table().free_count(), 0);

    let err = a
        .try_insert(Last {
            name: "spare".into(),
        })
        .expect_err("every index is retired");
    assert!(err.to_string().contains("Id1_31"), "{err}");
    assert_eq!(
        err.into_inner(),
        Last {
            name: "spare".into()
        }
    );

    let r = catch_unwind(AssertUnwindSafe(|| a.insert(Last { name: "x".into() })));
    assert!(panic_message(r.expect_err("insert panics")).contains("Id1_31"));

    let mut called = false;
    let r = catch_unwind(AssertUnwindSafe(|| {
        a.insert_with_id(|_| {
            called = true;
            Last { name: "y".into() }
        })
    }));
    assert!(
        r.is_err() && !called,
        "insert_with_id panics before building"
    );

    a.check_invariants();
    assert!(a.is_empty());
    assert!(a.get(first).is_none() && a.get(last).is_none());
    assert_eq!(a.remove(last), None);
}

#[test]
#[ignore = "2^24 inserts and reservations (about a second in release): cargo test --release --test exhaustion -- --ignored"]
fn id24_8_filled_to_its_last_index_with_reservations_outstanding() {
    // Every usable index of `Id24_8` (0 to `MAX_INDEX`, 2^24 - 1 of them)
    // but the last 1,000 live, then those reserved
    // from a shared borrow (a batch and single ids, from two threads): the
    // table is full for inserts and reservations alike, a freed slot goes to
    // the next claimant, and the reservations still fill.
    const INDICES: usize = ShortId::MAX_INDEX + 1; // usable indices
    let mut a = ShortAllocator::with_capacity(INDICES);
    for key in 0..(INDICES - 1000) as u64 {
        a.insert(Short { key });
    }
    let (batch, singles) = std::thread::scope(|s| {
        let shared = &a;
        let batch = s.spawn(move || shared.reserve_ids(600).collect::<Vec<_>>());
        let singles = s.spawn(move || (0..400).map(|_| shared.reserve_id()).collect::<Vec<_>>());
        (batch.join().unwrap(), singles.join().unwrap())
    });
    let reserved: HashSet<ShortId> = batch.iter().chain(&singles).copied().collect();
    assert_eq!(reserved.len(), 1000, "an id was reserved twice");
    assert!(reserved.iter().all(|id| id.index() >= INDICES - 1000));
    assert!(reserved.iter().any(|id| id.index() == INDICES - 1)); // the last
    assert_eq!(a.reserved_len(), 1000);

    // Full: no id for an insert or a reservation, and nothing changes.
    assert!(a.id_table().try_reserve_id().is_err());
    assert!(a.id_table().try_reserve_ids(1).is_err());
    let err = a
        .try_insert(Short { key: 1 })
        .expect_err("every index is taken");
    assert_eq!(err.into_inner(), Short { key: 1 });
    let r = catch_unwind(AssertUnwindSafe(|| a.reserve_id()));
    assert!(panic_message(r.expect_err("reserve_id panics")).contains("Id24_8"));
    assert_eq!((a.len(), a.reserved_len()), (INDICES - 1000, 1000));

    // A freed slot is reissued (next generation) to the next claimant.
    let victim = a.ids()[12_345];
    a.remove(victim);
    let again = a.reserve_id();
    assert_eq!(again.index(), victim.index());
    assert_eq!(again.generation(), victim.generation() + 1);
    assert!(a.get(victim).is_none() && a.get(again).is_none());

    for (n, id) in reserved.into_iter().chain([again]).enumerate() {
        a.insert_reserved(id, Short { key: n as u64 }).unwrap();
    }
    assert_eq!((a.len(), a.reserved_len()), (INDICES, 0));
    assert!(a.try_insert(Short { key: 2 }).is_err());
    a.check_invariants();
}
