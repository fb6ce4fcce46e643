//! A batch of reservations larger than any memory could hold the slots of
//! (`reserve_ids(1 << 59)` on an `Id64<62>` table: 2^59 slot words would be
//! 4 EiB) leaves every other call its documented behaviour: removals,
//! drains, `clear`, releases and saving work as on any table; a fill of an
//! id near the start of the batch works; an insert or fill that needs slot
//! words that cannot be allocated refuses, changing nothing; and errors say
//! what happened.

use idtable::{Id64, IdTable, IssueErrorKind, SoaAllocator};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id64<62>)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Unit {
    pub hp: u32,
}

const BATCH: usize = 1 << 59;

/// Three live units, then a batch of `BATCH` reservations from `&self`: the
/// units and the batch's first two ids and last id.
fn reserved_beyond_memory() -> (UnitAllocator, [UnitId; 3], [UnitId; 3]) {
    let mut units = UnitAllocator::new();
    let live = [1, 2, 3].map(|hp| units.insert(Unit { hp }));
    let shared = &units;
    let mut batch = shared
        .id_table()
        .try_reserve_ids(BATCH)
        .expect("the layout has room");
    assert_eq!(batch.len(), BATCH);
    let (first, second) = (batch.next().unwrap(), batch.next().unwrap());
    // The batch is fresh indices 3.., generation 1.
    let last = UnitId::from_bits(1 << 62 | (3 + BATCH as u64 - 1)).unwrap();
    assert_eq!((first.index(), second.index()), (3, 4));
    assert_eq!(units.reserved_len(), BATCH);
    (units, live, [first, second, last])
}

#[test]
fn removals_work_with_the_batch_waiting() {
    let (mut units, [a, b, c], [first, _, last]) = reserved_beyond_memory();
    assert_eq!(units.remove(a), Some(Unit { hp: 1 }));
    units.retain(|_, u| *u.hp != 2);
    assert!(!units.contains(b));
    assert_eq!(units.remove_many([c]), 1);
    let d = units.insert(Unit { hp: 4 }); // takes a freed slot
    let e = units.insert(Unit { hp: 5 });
    assert_eq!(units.extract_if(|_, u| *u.hp == 4).count(), 1);
    assert_eq!(units.ids(), [e]);
    assert!(!units.contains(d));
    assert_eq!(units.reserved_len(), BATCH);
    assert!(!units.contains(first) && !units.contains(last));
    units.check_invariants();
}

#[test]
fn drains_work_consumed_dropped_or_forgotten() {
    let (mut units, _, [first, ..]) = reserved_beyond_memory();
    assert_eq!(units.drain().count(), 3);
    assert!(units.is_empty());

    let (mut units, _, _) = reserved_beyond_memory();
    let mut drain = units.drain();
    assert!(drain.next().is_some());
    drop(drain);
    assert!(units.is_empty());
    units.check_invariants();

    let (mut units, _, _) = reserved_beyond_memory();
    let mut drain = units.drain();
    assert!(drain.next().is_some());
    std::mem::forget(drain);
    assert_eq!(units.len(), 2);
    assert_eq!(units.reserved_len(), BATCH);
    units.check_invariants();
    // Still fillable at the batch's start.
    assert_eq!(units.insert_reserved(first, Unit { hp: 9 }), Ok(()));
}

#[test]
fn clear_spends_the_batch() {
    let (mut units, [a, ..], [first, second, last]) = reserved_beyond_memory();
    units.clear();
    assert!(units.is_empty());
    assert_eq!(units.reserved_len(), 0);
    for id in [a, first, second, last] {
        assert_eq!(
            units.insert_reserved(id, Unit { hp: 0 }),
            Err(Unit { hp: 0 })
        );
        assert!(!units.release_reserved(id));
    }
    // The live units' slots were queued: inserts take them.
    let again = units.insert(Unit { hp: 7 });
    assert_eq!(again.index(), a.index());
    assert_ne!(again, a);
    units.check_invariants();
}

#[test]
fn releases_spend_ids_anywhere_in_the_batch() {
    let (mut units, _, [first, second, last]) = reserved_beyond_memory();
    let middle = UnitId::from_bits(1 << 62 | (3 + BATCH as u64 / 2)).unwrap();
    for id in [last, middle, second, first] {
        assert!(units.release_reserved(id));
        assert!(!units.release_reserved(id));
        assert_eq!(
            units.insert_reserved(id, Unit { hp: 0 }),
            Err(Unit { hp: 0 })
        );
    }
    assert_eq!(units.reserved_len(), BATCH - 4);
    // The first two had slot words made and were queued, in the order
    // released: inserts reuse them, with the next generation.
    let next = units.insert(Unit { hp: 8 });
    assert_eq!((next.index(), next.generation()), (second.index(), 2));
    let next = units.insert(Unit { hp: 9 });
    assert_eq!((next.index(), next.generation()), (first.index(), 2));
    units.check_invariants();
}

#[test]
fn fills_at_the_start_work_and_a_fill_past_memory_refuses() {
    let (mut units, _, [first, second, last]) = reserved_beyond_memory();
    assert_eq!(units.insert_reserved(first, Unit { hp: 10 }), Ok(()));
    assert_eq!(units.insert_reserved(second, Unit { hp: 11 }), Ok(()));
    assert_eq!(*units.get(second).unwrap().hp, 11);
    assert_eq!(units.reserved_len(), BATCH - 2);
    // The last id needs 2^59 slot words before it: refused, value back,
    // nothing changed; it stays reserved.
    assert_eq!(
        units.insert_reserved(last, Unit { hp: 12 }),
        Err(Unit { hp: 12 })
    );
    assert_eq!(units.reserved_len(), BATCH - 2);
    assert_eq!(units.len(), 5);
    assert!(units.release_reserved(last));
    units.check_invariants();
}

#[test]
fn inserts_that_need_a_fresh_index_refuse_and_say_why() {
    let (mut units, [a, ..], [first, ..]) = reserved_beyond_memory();
    // The next fresh index comes after the batch, whose slot words cannot
    // be allocated.
    let err = units.try_insert(Unit { hp: 20 }).unwrap_err();
    assert_eq!(err.reason().kind(), IssueErrorKind::OutOfMemory);
    let message = err.reason().to_string();
    assert!(message.starts_with("cannot allocate the "), "{message}");
    assert!(!message.contains("full"), "{message}");
    assert_eq!(err.into_inner(), Unit { hp: 20 });
    assert_eq!(units.len(), 3);

    let insert = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        units.insert(Unit { hp: 21 });
    }));
    let payload = insert.unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(message.contains("cannot allocate the "), "{message}");

    let mut called = false;
    let with_id = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        units.insert_with_id(|_| {
            called = true;
            Unit { hp: 22 }
        });
    }));
    assert!(with_id.is_err());
    assert!(
        !called,
        "insert_with_id called its closure for an id it could not issue"
    );
    units.check_invariants();
    assert_eq!((units.len(), units.reserved_len()), (3, BATCH));

    // A removal queues a slot: the next insert takes it, no fresh index
    // needed.
    units.remove(a);
    let b = units.insert(Unit { hp: 23 });
    assert_eq!(b.index(), a.index());
    assert_eq!(units.insert_reserved(first, Unit { hp: 24 }), Ok(()));
    units.check_invariants();
}

#[test]
fn a_batch_too_large_is_refused_with_the_limit_and_full_means_full() {
    let mut units = UnitAllocator::new();
    units.insert(Unit { hp: 1 });
    let err = units.id_table().try_reserve_ids(1 << 60).unwrap_err();
    assert_eq!(err.kind(), IssueErrorKind::BatchTooLarge);
    assert_eq!(err.requested(), 1 << 60);
    let limit = isize::MAX as usize / 8; // slot words of 8 bytes
    assert_eq!(err.available(), limit - 1);
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "cannot reserve {} ids at once: the table can issue at most {} more",
            1usize << 60,
            limit - 1
        )),
        "{message}"
    );
    assert!(!message.contains("full"), "{message}");
    assert_eq!(units.reserved_len(), 0);

    // A table with no index left is full, and says so.
    let mut table = IdTable::<idtable::Id32<2>>::new();
    table.reserve_id();
    table.insert();
    assert_eq!(
        table.try_reserve_ids(2).unwrap_err().kind(),
        IssueErrorKind::BatchTooLarge
    );
    table.insert();
    let full = table.try_reserve_ids(2).unwrap_err();
    assert_eq!(full.kind(), IssueErrorKind::Full);
    assert_eq!(
        full.to_string(),
        "id table full: all 3 slots of the Id2_30 layout are live, reserved or retired"
    );
    let big = IdTable::<Id64<62>>::new();
    big.reserve_ids(limit);
    let full = big.try_reserve_id().unwrap_err();
    assert!(
        full.to_string().contains("can hold in memory"),
        "{full}: a table of this layout is bounded by memory, not by its indices"
    );
}

/// A save holds the batch as one number: the loaded allocator never issues
/// its ids, and is as small as the save.
#[cfg(feature = "serde")]
#[test]
fn a_save_holds_the_batch_as_one_number() {
    let (mut units, _, [first, second, last]) = reserved_beyond_memory();
    units.insert_reserved(first, Unit { hp: 30 }).unwrap();
    let json = serde_json::to_string(&units).unwrap();
    assert!(json.len() < 200, "{json}");
    assert!(
        json.contains(&format!("\"spent_tail\":{}", BATCH - 1)),
        "{json}"
    );
    let bytes = postcard::to_allocvec(&units).unwrap();
    assert!(bytes.len() < 64, "{} bytes", bytes.len());
    for loaded in [
        serde_json::from_str::<UnitAllocator>(&json).unwrap(),
        postcard::from_bytes::<UnitAllocator>(&bytes).unwrap(),
    ] {
        let mut loaded = loaded;
        loaded.check_invariants();
        assert_eq!(loaded.len(), 4);
        assert_eq!(loaded.reserved_len(), 0);
        assert_eq!(*loaded.get(first).unwrap().hp, 30);
        for id in [second, last] {
            assert!(!loaded.contains(id));
            assert_eq!(
                loaded.insert_reserved(id, Unit { hp: 0 }),
                Err(Unit { hp: 0 })
            );
        }
        // Its next fresh index is past the spent batch, whose slots cannot
        // be allocated: refused, not full.
        let err = loaded.try_insert(Unit { hp: 31 }).unwrap_err();
        assert_eq!(err.reason().kind(), IssueErrorKind::OutOfMemory);
        assert_eq!(serde_json::to_string(&loaded).unwrap(), json);
    }
}
