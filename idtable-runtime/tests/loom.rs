//! Every interleaving of a few threads reserving ids from a shared
//! `&IdTable` (`reserve_id`, `reserve_ids` and their `try_` forms), explored
//! by loom; afterwards the owner checks the ids with `&mut`.
//!
//! Built only with `--cfg loom`:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p idtable-runtime --test loom --release
//! ```
//!
//! The models of two threads taking one id each explore every interleaving;
//! the others bound the preemptions per execution (3 for two threads, 2
//! for three) unless `LOOM_MAX_PREEMPTIONS` says otherwise.

#![cfg(loom)]

use std::collections::BTreeSet;

use idtable_runtime::{Id, Id32, Id32_32, IdTable, OnExhausted, TableConfig};
use loom::sync::Arc;
use loom::thread;

/// Indices 0, 1 and 2: small enough to reach exhaustion in a model.
type Tiny = Id32<2>;

/// Explores the interleavings of `f`'s threads with at most `preemptions`
/// preemptions each (every interleaving for `None`), or as many as
/// `LOOM_MAX_PREEMPTIONS` says when it is set.
fn model(preemptions: Option<usize>, f: impl Fn() + Send + Sync + 'static) {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = preemptions;
    }
    builder.check(f);
}

/// Every interleaving: for the models of two threads doing one step each.
const ALL: Option<usize> = None;
/// The bound for two threads doing two steps each, or a free between two
/// shared borrows: a few seconds each.
const TWO_THREADS: Option<usize> = Some(3);
/// The bound for three threads: from a few seconds to a minute each on two
/// cores.
const THREE_THREADS: Option<usize> = Some(2);

/// What one thread did: the ids it got, in order, and how many of its
/// calls were refused.
#[derive(Debug, Default)]
struct Got<I> {
    ids: Vec<Vec<I>>,
    refused: usize,
}

/// One thread's work over the shared table.
type Job<I> = fn(&IdTable<I>) -> Got<I>;

/// Runs each job on its own thread over the shared table, then hands the
/// table back for exclusive use with what each thread got.
fn in_parallel<I: Id + Send + Sync + 'static>(
    table: IdTable<I>,
    jobs: &[Job<I>],
) -> (IdTable<I>, Vec<Got<I>>) {
    let table = Arc::new(table);
    let handles: Vec<_> = jobs
        .iter()
        .map(|&job| {
            let table = Arc::clone(&table);
            thread::spawn(move || job(&table))
        })
        .collect();
    let got = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let table = Arc::try_unwrap(table).unwrap_or_else(|_| panic!("a thread still holds the table"));
    (table, got)
}

fn one<I: Id>(t: &IdTable<I>) -> Got<I> {
    match t.try_reserve_id() {
        Ok(id) => Got {
            ids: vec![vec![id]],
            refused: 0,
        },
        Err(_) => Got {
            ids: Vec::new(),
            refused: 1,
        },
    }
}

fn two<I: Id>(t: &IdTable<I>) -> Got<I> {
    let mut got = one(t);
    let second = one(t);
    got.ids.extend(second.ids);
    got.refused += second.refused;
    got
}

fn batch<const N: usize, I: Id>(t: &IdTable<I>) -> Got<I> {
    match t.try_reserve_ids(N) {
        Ok(ids) => Got {
            ids: vec![ids.collect()],
            refused: 0,
        },
        Err(_) => Got {
            ids: Vec::new(),
            refused: 1,
        },
    }
}

/// More ids than any model reserves.
const LONGER: usize = 8;

/// The ids the next `n` inserts would issue (fewer if the table fills).
fn insert_sequence<I: Id>(t: &IdTable<I>, n: usize) -> Vec<I> {
    let mut t = t.clone();
    (0..n)
        .map_while(|_| t.try_insert().ok().map(|(id, _)| id))
        .collect()
}

fn config(min_free: usize) -> TableConfig {
    TableConfig {
        min_free,
        on_exhausted: OnExhausted::Retire,
    }
}

/// A table of `live` objects of which those at `freed` were removed, in
/// that order (so the free queue holds their slots in that order).
fn table_with_queue<I: Id>(config: TableConfig, live: usize, freed: &[usize]) -> IdTable<I> {
    let mut t = IdTable::with_config(config);
    let ids: Vec<I> = (0..live).map(|_| t.insert().0).collect();
    for &i in freed {
        t.remove(ids[i]);
    }
    t
}

/// Checks what the threads got against `expected` (the ids the next
/// inserts would have issued): the reserved ids are its first ones, each
/// issued once; each thread's ids come in its order, and a batch's queued
/// slots are one run of the queue and its fresh indices one run (which
/// claim gets which queued slot is a race); then, with `&mut`, that
/// ordinary inserts never issue a reserved id and that every reservation
/// is filled exactly once (the first one released instead).
fn check<I: Id>(mut t: IdTable<I>, got: &[Got<I>], expected: &[I]) {
    // Not settled yet: the slot count is the one the claims were made on.
    let first_fresh = t.slot_count();
    let is_fresh = |id: &I| id.index() >= first_fresh;
    let all: Vec<I> = got
        .iter()
        .flat_map(|g| g.ids.iter().flatten())
        .copied()
        .collect();
    let set: BTreeSet<I> = all.iter().copied().collect();
    assert_eq!(set.len(), all.len(), "an id was reserved twice: {got:?}");
    let prefix: BTreeSet<I> = expected[..all.len()].iter().copied().collect();
    assert_eq!(set, prefix, "not the next ids of the sequence: {got:?}");
    let position = |id: &I| expected.iter().position(|e| e == id).unwrap();
    for g in got {
        let positions: Vec<usize> = g.ids.iter().flatten().map(position).collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "a thread's ids out of the sequence's order: {got:?}"
        );
        for run in &g.ids {
            for part in [true, false] {
                let of_part: Vec<I> = expected
                    .iter()
                    .copied()
                    .filter(|id| is_fresh(id) == part)
                    .collect();
                let mine: Vec<I> = run
                    .iter()
                    .copied()
                    .filter(|id| is_fresh(id) == part)
                    .collect();
                if let Some(first) = mine.first() {
                    let at = of_part.iter().position(|id| id == first).unwrap();
                    assert_eq!(
                        mine[..],
                        of_part[at..at + mine.len()],
                        "a batch is not one run: {got:?}"
                    );
                }
            }
        }
    }
    if all.len() == expected.len() {
        // The reservations took every id left.
        assert!(t.try_insert().is_err(), "the table is full");
        assert!(t.next_id().is_err(), "the table is full");
    }
    assert_eq!(t.reserved_len(), all.len());
    for &id in &all {
        assert!(!t.contains(id), "{id:?} resolves before its row exists");
    }

    let inserted: Vec<I> = (0..2)
        .map_while(|_| t.try_insert().ok().map(|(id, _)| id))
        .collect();
    for id in &inserted {
        assert!(!set.contains(id), "insert issued the reserved {id:?}");
    }
    if let Some((&released, rest)) = all.split_first() {
        assert!(t.release_reserved(released));
        assert!(!t.release_reserved(released));
        assert_eq!(t.insert_reserved(released), None);
        for &id in rest {
            assert!(t.insert_reserved(id).is_some(), "{id:?} was reserved");
            assert!(t.contains(id));
            assert_eq!(t.insert_reserved(id), None, "{id:?} filled twice");
        }
        assert!(!t.contains(released));
    }
    assert_eq!(t.reserved_len(), 0);
    t.check_invariants();
}

/// The usual model: the table `table` makes, shared by one thread per
/// job, then [`check`]ed; `refused` calls of the jobs must fail.
fn reserve_and_check<I: Id + Send + Sync + 'static>(
    preemptions: Option<usize>,
    table: fn() -> IdTable<I>,
    jobs: &[Job<I>],
    refused: usize,
) {
    let jobs = jobs.to_vec();
    model(preemptions, move || {
        let t = table();
        let expected = insert_sequence(&t, LONGER);
        let (t, got) = in_parallel(t, &jobs);
        assert_eq!(
            got.iter().map(|g| g.refused).sum::<usize>(),
            refused,
            "{got:?}"
        );
        check(t, &got, &expected);
    });
}

fn empty() -> IdTable<Id32_32> {
    IdTable::new()
}

/// Slots 1 and 0 queued, in that order; fresh indices from 3.
fn queue_1_0() -> IdTable<Id32_32> {
    table_with_queue(config(0), 3, &[1, 0])
}

/// Two ids left: queued slot 1, then fresh index 2.
fn tiny_with_two_left() -> IdTable<Tiny> {
    table_with_queue(config(0), 2, &[1])
}

#[test]
fn two_threads_reserve_from_an_empty_table() {
    reserve_and_check(ALL, empty, &[one, one], 0);
}

#[test]
fn three_threads_reserve_from_an_empty_table() {
    reserve_and_check(THREE_THREADS, empty, &[one, one, one], 0);
}

/// Queue 2, 0, 3: the reservations take those slots, oldest first, then
/// fresh index 4.
#[test]
fn the_free_queue_goes_first_in_fifo_order() {
    fn queue_2_0_3() -> IdTable<Id32_32> {
        let t = table_with_queue::<Id32_32>(config(0), 4, &[2, 0, 3]);
        let indices: Vec<usize> = insert_sequence(&t, 4).iter().map(|id| id.index()).collect();
        assert_eq!(indices, [2, 0, 3, 4]);
        t
    }
    reserve_and_check(TWO_THREADS, queue_2_0_3, &[two, two], 0);
}

#[test]
fn three_threads_take_the_free_queue_and_a_fresh_index() {
    reserve_and_check(THREE_THREADS, queue_1_0, &[one, one, one], 0);
}

/// A batch spanning the queue and the fresh indices, against two single
/// reservations in another thread.
#[test]
fn a_batch_against_single_reservations() {
    reserve_and_check(TWO_THREADS, queue_1_0, &[batch::<3, _>, two], 0);
}

/// Three threads for the last two ids: exactly one is refused, and the
/// table is full afterwards.
#[test]
fn three_threads_race_for_the_last_two_ids() {
    reserve_and_check(THREE_THREADS, tiny_with_two_left, &[one, one, one], 1);
}

/// A batch of two against one reservation for the last two ids: one of
/// them is refused, and a refused batch reserves nothing.
#[test]
fn a_batch_races_a_reservation_for_the_last_ids() {
    reserve_and_check(ALL, tiny_with_two_left, &[batch::<2, _>, one], 1);
}

/// `min_free = 2` with slot 0 queued: it is held back until fresh index 2
/// is gone, for reservations as for inserts; the third thread is refused.
#[test]
fn min_free_holds_a_queued_slot_back() {
    fn held_back() -> IdTable<Tiny> {
        let t = table_with_queue::<Tiny>(config(2), 2, &[0]);
        let indices: Vec<usize> = insert_sequence(&t, 3).iter().map(|id| id.index()).collect();
        assert_eq!(indices, [2, 0]);
        t
    }
    reserve_and_check(THREE_THREADS, held_back, &[one, one, one], 1);
}

/// Two shared borrows with a free between them: the free settles the
/// first borrow's claims before it queues its slot, so the second borrow
/// goes on along the queue as it is then, the newly freed slot last, in
/// FIFO order.
#[test]
fn a_free_between_two_shared_borrows() {
    model(TWO_THREADS, || {
        let t = table_with_queue::<Id32_32>(config(0), 5, &[1, 3, 0]);
        let before: BTreeSet<Id32_32> = insert_sequence(&t, 2).into_iter().collect();
        let (mut t, first) = in_parallel(t, &[one, one]);
        let first: BTreeSet<Id32_32> = first
            .iter()
            .flat_map(|g| g.ids.iter().flatten())
            .copied()
            .collect();
        assert_eq!(
            first, before,
            "the first borrow took the queue's first two slots"
        );
        let freed = t.ids()[0];
        t.remove(freed);
        assert_eq!(t.reserved_len(), 2, "settled by the free, still reserved");
        for &id in &first {
            assert!(t.insert_reserved(id).is_some());
        }
        let expected = insert_sequence(&t, LONGER);
        let indices: Vec<usize> = expected[..2].iter().map(|id| id.index()).collect();
        assert_eq!(indices, [0, freed.index()]);
        let (t, second) = in_parallel(t, &[one, one]);
        check(t, &second, &expected);
    });
}

/// `free_count`, `reserved_len` and `next_id` from a shared borrow while
/// another thread reserves, on a table whose earlier reservations were
/// settled: they see the reservations or not, and answer for the queue
/// the claims are made on, never for the one the earlier claims were made
/// on (a stale plan made `free_count` wrap and `next_id` panic).
#[test]
fn a_reader_races_reservations() {
    model(ALL, || {
        let mut t = table_with_queue::<Id32_32>(config(0), 4, &[0, 1, 2]);
        let earlier = t.reserve_id();
        t.insert(); // settles `earlier` and takes slot 1: slot 2 is queued
        let expected = insert_sequence(&t, 3);
        let t = Arc::new(t);
        let reader = {
            let t = Arc::clone(&t);
            thread::spawn(move || (t.free_count(), t.reserved_len(), t.next_id().unwrap()))
        };
        let reserved = [t.reserve_id(), t.reserve_id()];
        let (free, len, next) = reader.join().unwrap();
        assert_eq!(reserved[..], expected[..2]);
        assert!(free <= 1, "free_count {free}");
        assert!((1..=3).contains(&len), "reserved_len {len}");
        assert!(expected.contains(&next), "next_id {next:?}");
        let mut t = Arc::try_unwrap(t).unwrap_or_else(|_| panic!("a thread still holds the table"));
        assert_eq!(t.next_id().unwrap(), expected[2]);
        assert_eq!((t.free_count(), t.reserved_len()), (0, 3));
        for id in [earlier, reserved[0], reserved[1]] {
            assert!(t.insert_reserved(id).is_some());
        }
        t.check_invariants();
    });
}

/// `min_free = usize::MAX` ("never reuse while fresh indices last") with
/// slot 0 queued: two threads reserve fresh indices, and the owner's
/// inserts neither issue them nor take the held-back slot.
#[test]
fn min_free_of_usize_max_holds_the_queue_back() {
    fn hoarding() -> IdTable<Id32_32> {
        let t = table_with_queue::<Id32_32>(config(usize::MAX), 2, &[0]);
        let indices: Vec<usize> = insert_sequence(&t, 3).iter().map(|id| id.index()).collect();
        assert_eq!(indices, [2, 3, 4]);
        t
    }
    reserve_and_check(ALL, hoarding, &[one, one], 0);
}

/// A save taken while claims are pending (no exclusive access since the
/// threads reserved) loads into a table that never issues a reserved id
/// and keeps the slots and ids it had.
#[cfg(feature = "serde")]
#[test]
fn a_save_with_claims_pending_never_reissues_them() {
    model(TWO_THREADS, || {
        let t = table_with_queue::<Id32_32>(config(1), 4, &[2, 0]);
        let (t, got) = in_parallel(t, &[one, batch::<2, _>]);
        let reserved: Vec<Id32_32> = got
            .iter()
            .flat_map(|g| g.ids.iter().flatten())
            .copied()
            .collect();
        assert_eq!(reserved.len(), 3);
        let json = serde_json::to_string(&t).unwrap();
        let parts: idtable_runtime::IdTableParts = serde_json::from_str(&json).unwrap();
        assert_eq!(parts, t.to_parts());
        let mut loaded = IdTable::<Id32_32>::from_parts(&parts, t.config()).unwrap();
        loaded.check_invariants();
        assert_eq!(loaded.ids(), t.ids());
        assert_eq!(loaded.reserved_len(), 0, "saved spent");
        let issued: Vec<Id32_32> = (0..6).map(|_| loaded.insert().0).collect();
        for id in &reserved {
            assert!(!issued.contains(id), "{id:?} issued after loading");
            assert_eq!(loaded.insert_reserved(*id), None);
        }
    });
}
