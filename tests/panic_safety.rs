//! User code that panics inside our calls: a field's `Drop` (during
//! `remove`, `clear`, `retain`, dropping the allocator, a drain or an owning
//! iterator), a field's `Clone` (during `clone()`), and the callbacks of
//! `retain`, `sort_by`, `sort_by_key`, `insert_with_id`, and the iterators fed
//! to `extend`, `FromIterator` and `remove_many`.
//!
//! After the panic is caught:
//! * the allocator (if it is still alive) passes `check_invariants()` and
//!   holds exactly the model: every live id resolves to its own values, in
//!   every field, and no removed id resolves;
//! * no value is dropped twice, and no live row holds a dropped value (every
//!   probe stored in a live row has a drop count of 0);
//! * when everything is dropped at the end, every value made has been dropped
//!   exactly once (nothing leaked either, though leaking would be allowed);
//! * the allocator keeps working (insert, remove, clear).
//!
//! `tests/drops.rs` and `tests/allocator_api.rs` already cover a panicking
//! destructor in the first field during `clear`, `drop` and `retain`, and
//! panicking `sort_by` / `retain` / `insert_with_id` callbacks without drop
//! counting; this file covers every field position, row position and entry
//! point with per-value drop counters.
//!
//! A panic raised while another unwinds aborts the process, so every trigger
//! here is one-shot: it disarms itself as it fires.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::SoaAllocator;

mod support;
use support::probe::{arm_clone, arm_drop, drops_of, Probe, BOOM_ON_CLONE, BOOM_ON_DROP, LEDGER};

// --- probes: values that count their drops, and can panic once ------------------

thread_local! {
    /// Zero-sized ghosts made and dropped on this thread.
    static GHOSTS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The ghost clone (counted from 1) that panics, once.
    static GHOST_CLONE_BOOM: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Every armed trigger has fired (so the panic came from where we meant).
fn assert_fired() {
    assert_eq!(BOOM_ON_DROP.with(Cell::get), None, "drop trigger not fired");
    assert_eq!(
        BOOM_ON_CLONE.with(Cell::get),
        None,
        "clone trigger not fired"
    );
    assert_eq!(
        GHOST_CLONE_BOOM.with(Cell::get),
        None,
        "ghost trigger not fired"
    );
}

/// No probe made on this thread was dropped more than once.
fn assert_never_dropped_twice() {
    LEDGER.with(|l| {
        for (serial, &n) in l.borrow().iter().enumerate() {
            assert!(n <= 1, "probe {serial} dropped {n} times");
        }
    });
}

/// A zero-sized field with a destructor (and a clone that can panic once).
#[derive(Debug)]
struct Ghost;

impl Ghost {
    fn new() -> Ghost {
        GHOSTS.with(|g| g.set((g.get().0 + 1, g.get().1)));
        Ghost
    }
}

impl Clone for Ghost {
    fn clone(&self) -> Ghost {
        if let Some(at) = GHOST_CLONE_BOOM.with(Cell::get) {
            if at == 1 {
                GHOST_CLONE_BOOM.with(|b| b.set(None));
                panic!("ghost clone panics");
            }
            GHOST_CLONE_BOOM.with(|b| b.set(Some(at - 1)));
        }
        Ghost::new()
    }
}

impl Drop for Ghost {
    fn drop(&mut self) {
        GHOSTS.with(|g| g.set((g.get().0, g.get().1 + 1)));
    }
}

fn ghosts_alive() -> usize {
    GHOSTS.with(|g| g.get().0 - g.get().1)
}

/// Runs `body` on a fresh ledger and checks, after it, that every probe it
/// made was dropped exactly once and every ghost is gone.
fn exactly_once(body: impl FnOnce()) {
    LEDGER.with(|l| l.borrow_mut().clear());
    let ghosts = ghosts_alive();
    body();
    assert_fired();
    LEDGER.with(|l| {
        for (serial, &n) in l.borrow().iter().enumerate() {
            assert_eq!(n, 1, "probe {serial} dropped {n} times (0 = leaked)");
        }
    });
    assert_eq!(ghosts_alive(), ghosts, "ghosts leaked or dropped twice");
}

// --- the record: droppable fields first, in the middle and last ------------------

#[derive(SoaAllocator, Debug, Clone)]
struct Row {
    a: Probe,
    n: u32,
    b: Probe,
    ghost: Ghost,
    c: Probe,
}

fn row(n: u32) -> Row {
    Row {
        a: Probe::new(n),
        n,
        b: Probe::new(n),
        ghost: Ghost::new(),
        c: Probe::new(n),
    }
}

#[derive(Clone, Copy, Debug)]
enum Field {
    A,
    B,
    C,
}

const FIELDS: [Field; 3] = [Field::A, Field::B, Field::C];

/// The serial of `field` in the live row of `id`.
fn serial(a: &RowAllocator, id: RowId, field: Field) -> usize {
    let r = a.get(id).expect("live");
    match field {
        Field::A => r.a.serial,
        Field::B => r.b.serial,
        Field::C => r.c.serial,
    }
}

/// Which rows to make panic: the first, a middle and the last dense row.
fn positions(len: usize) -> [usize; 3] {
    [0, len / 2, len - 1]
}

/// Rows kept per test; smaller under Miri.
const ROWS: u32 = if cfg!(miri) { 5 } else { 12 };

type Model = HashMap<RowId, u32>;

fn filled(n: u32) -> (RowAllocator, Model) {
    let mut a = RowAllocator::new();
    let mut model = Model::new();
    for k in 0..n {
        model.insert(a.insert(row(k)), k);
    }
    // Some churn, so ids have reused slots and the dense order is shuffled.
    let victim = a.ids()[1];
    model.remove(&victim);
    drop(a.remove(victim));
    model.insert(a.insert(row(n)), n);
    (a, model)
}

/// The allocator holds exactly `model`, every stored probe is undropped, and
/// `dead` ids resolve to nothing.
fn assert_model(a: &RowAllocator, model: &Model, dead: &[RowId]) {
    a.check_invariants();
    assert_eq!(a.len(), model.len(), "len");
    for (&id, &n) in model {
        let r = a.get(id).unwrap_or_else(|| panic!("{id:?} lost"));
        assert_eq!(
            (*r.n, r.a.value, r.b.value, r.c.value),
            (n, n, n, n),
            "{id:?} resolves to another object"
        );
        for s in [r.a.serial, r.b.serial, r.c.serial] {
            assert_eq!(drops_of(s), 0, "{id:?} holds dropped probe {s}");
        }
    }
    for &id in a.ids() {
        assert!(
            model.contains_key(&id),
            "{id:?} is live but not in the model"
        );
    }
    for &id in dead {
        if !model.contains_key(&id) {
            assert!(a.get(id).is_none() && !a.contains(id), "{id:?} came back");
        }
    }
    assert_eq!(a.columns().ghost.len(), a.len());
    assert_never_dropped_twice();
}

/// The allocator still works after the panic: insert, read, remove, clear.
fn assert_still_usable(a: &mut RowAllocator, model: &mut Model) {
    let id = a.insert(row(1000));
    model.insert(id, 1000);
    assert_model(a, model, &[]);
    if let Some(&any) = model.keys().next() {
        let n = model.remove(&any).unwrap();
        assert_eq!(a.remove(any).map(|r| r.n), Some(n));
    }
    assert_model(a, model, &[]);
    a.clear();
    model.clear();
    assert_model(a, model, &[]);
}

fn caught<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

// --- a field's Drop ------------------------------------------------------------

#[test]
fn remove_then_a_panicking_drop_of_the_removed_value_leaves_the_allocator_consistent() {
    for field in FIELDS {
        exactly_once(|| {
            let (mut a, mut model) = filled(ROWS);
            let id = a.ids()[3];
            arm_drop(serial(&a, id, field));
            let others = [
                serial(&a, id, Field::A),
                serial(&a, id, Field::B),
                serial(&a, id, Field::C),
            ];
            // The value is dropped at the end of the statement, in our frame.
            let r = caught(|| {
                a.remove(id);
            });
            assert!(r.is_err(), "{field:?}: the destructor's panic propagates");
            model.remove(&id);
            // every field of the removed value was dropped, once
            for s in others {
                assert_eq!(drops_of(s), 1, "{field:?}: probe {s}");
            }
            assert_model(&a, &model, &[id]);
            assert_still_usable(&mut a, &mut model);
        });
    }
}

#[test]
fn clear_with_a_panicking_drop_in_any_field_and_row_drops_everything_else_once() {
    for field in FIELDS {
        for pos in positions(ROWS as usize) {
            exactly_once(|| {
                let (mut a, model) = filled(ROWS);
                let old: Vec<RowId> = a.ids().to_vec();
                arm_drop(serial(&a, old[pos], field));
                let r = caught(|| a.clear());
                assert!(r.is_err(), "{field:?} at {pos}");
                let mut empty = Model::new();
                assert_model(&a, &empty, &old);
                // everything stored was dropped, once, by the clear itself
                LEDGER.with(|l| assert!(l.borrow().iter().all(|&n| n == 1)));
                drop(model);
                assert_still_usable(&mut a, &mut empty);
            });
        }
    }
}

#[test]
fn dropping_the_allocator_with_a_panicking_drop_in_any_field_and_row_drops_everything_else_once() {
    for field in FIELDS {
        for pos in positions(ROWS as usize) {
            exactly_once(|| {
                let (a, _model) = filled(ROWS);
                arm_drop(serial(&a, a.ids()[pos], field));
                let r = caught(move || drop(a));
                assert!(r.is_err(), "{field:?} at {pos}");
            });
        }
    }
}

#[test]
fn retain_with_a_panicking_drop_in_any_field_still_removes_exactly_the_rejected_rows() {
    for field in FIELDS {
        exactly_once(|| {
            let (mut a, mut model) = filled(ROWS);
            let old: Vec<RowId> = a.ids().to_vec();
            let odd = a.iter().filter(|(_, row)| *row.n % 2 == 1).count();
            // Remove the odd values; the second one removed panics on drop.
            let mut removed = Vec::new();
            let r = caught(|| {
                a.retain(|id, row| {
                    let keep = *row.n % 2 == 0;
                    if !keep {
                        removed.push(id);
                        if removed.len() == 2 {
                            arm_drop(match field {
                                Field::A => row.a.serial,
                                Field::B => row.b.serial,
                                Field::C => row.c.serial,
                            });
                        }
                    }
                    keep
                })
            });
            assert!(r.is_err(), "{field:?}");
            // Every row the predicate rejected is gone, the panicking one
            // included (the pass finishes, dropping the rest); the kept rows
            // are live and intact.
            assert_eq!(removed.len(), odd, "{field:?}: every row is visited first");
            for id in &removed {
                model.remove(id);
            }
            assert_model(&a, &model, &old);
            assert_eq!(a.len(), ROWS as usize - odd);
            assert_still_usable(&mut a, &mut model);
        });
    }
}

#[test]
fn remove_many_with_a_panicking_drop_in_any_field_still_removes_every_listed_row() {
    for field in FIELDS {
        exactly_once(|| {
            let (mut a, mut model) = filled(ROWS);
            let old: Vec<RowId> = a.ids().to_vec();
            let listed: Vec<RowId> = old.iter().copied().skip(1).step_by(3).collect();
            arm_drop(serial(&a, listed[1], field));
            let r = caught(|| a.remove_many(listed.iter().copied()));
            assert!(r.is_err(), "{field:?}");
            for id in &listed {
                model.remove(id);
            }
            assert_model(&a, &model, &old);
            assert_eq!(a.len(), ROWS as usize - listed.len());
            assert_still_usable(&mut a, &mut model);
        });
    }
}

#[test]
fn dropping_a_partly_consumed_drain_with_a_panicking_value_drops_the_rest_once() {
    for field in FIELDS {
        exactly_once(|| {
            let (mut a, _) = filled(ROWS);
            let old: Vec<RowId> = a.ids().to_vec();
            // The drain yields the last row first; row 0 is in the rest.
            arm_drop(serial(&a, old[0], field));
            let mut taken = Vec::new();
            let r = caught(|| {
                let mut d = a.drain();
                taken.extend(d.by_ref().take(3));
                drop(d);
            });
            assert!(r.is_err(), "{field:?}");
            assert_eq!(taken.len(), 3);
            let mut empty = Model::new();
            assert_model(&a, &empty, &old);
            // the taken values are ours, undropped
            for (_, row) in &taken {
                assert_eq!(drops_of(row.a.serial), 0);
            }
            drop(taken);
            assert_still_usable(&mut a, &mut empty);
        });
    }
}

#[test]
fn a_panic_while_consuming_a_drain_drops_the_rest_once_and_empties_the_allocator() {
    exactly_once(|| {
        let (mut a, _) = filled(ROWS);
        let old: Vec<RowId> = a.ids().to_vec();
        arm_drop(serial(&a, old[ROWS as usize - 3], Field::B));
        let mut seen = 0;
        let r = caught(|| {
            for (_, value) in a.drain() {
                seen += 1;
                drop(value); // the third value yielded panics here
            }
        });
        assert!(r.is_err());
        assert_eq!(seen, 3);
        let mut empty = Model::new();
        assert_model(&a, &empty, &old);
        assert_still_usable(&mut a, &mut empty);
    });
}

#[test]
fn dropping_a_partly_consumed_into_iter_with_a_panicking_value_drops_the_rest_once() {
    for field in FIELDS {
        exactly_once(|| {
            let (a, _) = filled(ROWS);
            arm_drop(serial(&a, a.ids()[0], field));
            let mut it = a.into_iter();
            let first = it.next().expect("a row");
            let r = caught(move || drop(it));
            assert!(r.is_err(), "{field:?}");
            drop(first);
        });
    }
}

// --- a field's Clone ---------------------------------------------------------------

#[test]
fn clone_with_a_panicking_field_clone_drops_the_partial_copy_and_leaves_the_original() {
    for field in FIELDS {
        for pos in positions(ROWS as usize) {
            exactly_once(|| {
                let (a, model) = filled(ROWS);
                let made_before = LEDGER.with(|l| l.borrow().len());
                arm_clone(serial(&a, a.ids()[pos], field));
                let r = caught(|| a.clone());
                assert!(r.is_err(), "{field:?} at {pos}");
                // every copy made before the panic was dropped, once
                LEDGER.with(|l| {
                    let l = l.borrow();
                    assert!(
                        l[made_before..].iter().all(|&n| n == 1),
                        "{field:?} at {pos}: partial copies {:?}",
                        &l[made_before..]
                    );
                });
                // the original is untouched
                assert_model(&a, &model, &[]);
                let copy = a.clone();
                assert_model(&copy, &model, &[]);
            });
        }
    }
}

#[test]
fn clone_with_a_panicking_zero_sized_field_clone_drops_the_partial_copy() {
    exactly_once(|| {
        let (a, model) = filled(ROWS);
        let ghosts = ghosts_alive();
        GHOST_CLONE_BOOM.with(|b| b.set(Some(4))); // the fourth row's ghost
        let r = caught(|| a.clone());
        assert!(r.is_err());
        assert_eq!(ghosts_alive(), ghosts, "partial ghost copies dropped");
        assert_model(&a, &model, &[]);
    });
}

// --- callbacks -------------------------------------------------------------------------

#[test]
fn retain_with_a_panicking_predicate_removes_nothing() {
    let panic_at = [1, ROWS as usize / 2, ROWS as usize];
    for at in panic_at {
        exactly_once(|| {
            let (mut a, mut model) = filled(ROWS);
            let old: Vec<RowId> = a.ids().to_vec();
            let mut calls = 0;
            let mut removed = Vec::new();
            let r = caught(|| {
                a.retain(|id, row| {
                    calls += 1;
                    if calls == at {
                        panic!("predicate gives up");
                    }
                    let keep = *row.n % 3 != 0;
                    if !keep {
                        removed.push((id, row.a.serial));
                    }
                    keep
                })
            });
            assert!(r.is_err());
            for &(_, s) in &removed {
                assert_eq!(drops_of(s), 0, "rejected before the panic: not removed");
            }
            assert_model(&a, &model, &old);
            assert_eq!(
                a.len(),
                ROWS as usize,
                "a panicking predicate removes nothing"
            );
            assert_still_usable(&mut a, &mut model);
        });
    }
}

#[test]
fn remove_many_whose_iterator_panics_removes_nothing() {
    let n = ROWS as usize;
    for at in [1, n / 2, n + 2] {
        exactly_once(|| {
            let (mut a, mut model) = filled(ROWS);
            let old: Vec<RowId> = a.ids().to_vec();
            let next = a.id_table().next_id().unwrap();
            // Every id, last first, then every id again; the iterator
            // panics at its `at`-th item, after the ones before it were
            // found (and marked).
            let listed = old.iter().rev().chain(&old).enumerate().map(|(k, &id)| {
                if k + 1 == at {
                    panic!("the keys give up");
                }
                id
            });
            let r = caught(|| a.remove_many(listed));
            assert!(r.is_err());
            assert_model(&a, &model, &old);
            assert_eq!(a.ids(), &old[..], "a panicking iterator removes nothing");
            assert_eq!(a.id_table().next_id().unwrap(), next, "no slot was freed");
            assert_still_usable(&mut a, &mut model);
        });
    }
}

#[test]
fn sort_by_and_sort_by_key_with_a_panicking_callback_move_and_drop_nothing() {
    exactly_once(|| {
        let (mut a, mut model) = filled(ROWS);
        let before: Vec<RowId> = a.ids().to_vec();
        let mut calls = 0;
        let r = caught(|| {
            a.sort_by_key(|r| {
                calls += 1;
                if calls == 7 {
                    panic!("key gives up");
                }
                std::cmp::Reverse(*r.n)
            })
        });
        assert!(r.is_err());
        assert_eq!(
            a.ids(),
            &before[..],
            "sort_by_key moved rows before panicking"
        );
        assert_model(&a, &model, &[]);
        // only the row removed by `filled` was dropped
        LEDGER.with(|l| assert_eq!(l.borrow().iter().filter(|&&n| n > 0).count(), 3));

        let mut calls = 0;
        let r = caught(|| {
            a.sort_by(|x, y| {
                calls += 1;
                if calls == 5 {
                    panic!("comparator gives up");
                }
                y.b.value.cmp(&x.b.value)
            })
        });
        assert!(r.is_err());
        assert_eq!(a.ids(), &before[..], "sort_by moved rows before panicking");
        assert_model(&a, &model, &[]);

        // A key whose `Ord` panics, not the key function.
        #[derive(PartialEq, Eq)]
        struct Touchy(u32);
        impl Ord for Touchy {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                if self.0 == 2 || other.0 == 2 {
                    panic!("cannot compare 2");
                }
                self.0.cmp(&other.0)
            }
        }
        impl PartialOrd for Touchy {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        let r = caught(|| a.sort_by_key(|r| Touchy(*r.n)));
        assert!(r.is_err());
        assert_eq!(a.ids(), &before[..]);
        assert_model(&a, &model, &[]);

        // and sorting works afterwards
        a.sort_by_key(|r| std::cmp::Reverse(*r.n));
        let ns: Vec<u32> = a.columns().n.to_vec();
        assert!(ns.windows(2).all(|w| w[0] > w[1]));
        assert_model(&a, &model, &[]);
        assert_still_usable(&mut a, &mut model);
    });
}

#[test]
fn insert_with_id_whose_closure_panics_uses_up_no_id_and_drops_its_parts_once() {
    exactly_once(|| {
        let (mut a, mut model) = filled(ROWS);
        // Free a slot so the offered id reuses it with a new generation.
        let victim = a.ids()[4];
        model.remove(&victim);
        drop(a.remove(victim));
        let mut offered = None;
        let mut part = None;
        let r = caught(|| {
            a.insert_with_id(|id| {
                offered = Some(id);
                let half = Probe::new(7);
                part = Some(half.serial);
                panic!("cannot build the value");
            })
        });
        assert!(r.is_err());
        let offered = offered.expect("closure called");
        assert_eq!(
            drops_of(part.unwrap()),
            1,
            "the closure's locals are dropped once"
        );
        assert!(!a.contains(offered));
        assert_model(&a, &model, &[victim, offered]);
        // No id was used up: the next insert gets exactly the offered id.
        let id = a.insert(row(77));
        assert_eq!(id, offered);
        model.insert(id, 77);
        assert_model(&a, &model, &[victim]);
        assert_still_usable(&mut a, &mut model);
    });
}

/// An iterator over owned rows whose `next` panics on call `panic_at`.
struct Faulty {
    rows: std::vec::IntoIter<Row>,
    calls: usize,
    panic_at: usize,
    hint: (usize, Option<usize>),
}

impl Iterator for Faulty {
    type Item = Row;
    fn next(&mut self) -> Option<Row> {
        self.calls += 1;
        if self.calls == self.panic_at {
            panic!("iterator gives up");
        }
        self.rows.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.hint
    }
}

fn faulty(from: u32, n: u32, panic_at: usize) -> Faulty {
    let rows: Vec<Row> = (from..from + n).map(row).collect();
    let len = rows.len();
    Faulty {
        rows: rows.into_iter(),
        calls: 0,
        panic_at,
        hint: (len, Some(len)),
    }
}

#[test]
fn extend_whose_iterator_panics_midway_keeps_what_was_inserted() {
    exactly_once(|| {
        let (mut a, mut model) = filled(ROWS);
        let before: Vec<RowId> = a.ids().to_vec();
        let r = caught(|| a.extend(faulty(100, 6, 4)));
        assert!(r.is_err());
        // The three rows yielded before the panic are in, in order, with new ids;
        // the three left in the iterator were dropped with it.
        assert_eq!(a.len(), before.len() + 3);
        assert_eq!(&a.ids()[..before.len()], &before[..]);
        for (k, &id) in a.ids()[before.len()..].iter().enumerate() {
            assert!(!before.contains(&id));
            model.insert(id, 100 + k as u32);
        }
        assert_model(&a, &model, &[]);
        assert_still_usable(&mut a, &mut model);
    });
}

#[test]
fn extend_with_an_impossible_size_hint_panics_before_inserting_and_loses_nothing() {
    exactly_once(|| {
        let (mut a, mut model) = filled(ROWS);
        let mut it = faulty(100, 3, usize::MAX);
        it.hint = (usize::MAX, None); // a lying size_hint is safe code
        let r = caught(|| a.extend(it));
        assert!(
            r.is_err(),
            "reserving usize::MAX rows is a capacity overflow"
        );
        assert_model(&a, &model, &[]);
        assert_still_usable(&mut a, &mut model);
    });
}

#[test]
fn from_iter_whose_iterator_panics_midway_drops_what_it_collected_once() {
    for panic_at in [1, 2, 5] {
        exactly_once(|| {
            let r = caught(|| faulty(0, 6, panic_at).collect::<RowAllocator>());
            assert!(r.is_err(), "panic at call {panic_at}");
        });
    }
}

// --- a full table ----------------------------------------------------------------

#[derive(SoaAllocator, Debug)]
#[soa(id = idtable::Id32<1>)] // one index
struct Solo {
    p: Probe,
}

#[test]
fn insert_into_a_full_table_panics_naming_the_layout_and_drops_the_value_once() {
    exactly_once(|| {
        let mut a = SoloAllocator::new();
        let first = a.insert(Solo { p: Probe::new(1) });
        let spare = Probe::new(2);
        let spare_serial = spare.serial;
        let r = caught(|| a.insert(Solo { p: spare }));
        let payload = r.expect_err("full");
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(msg.contains("Id1_31"), "{msg}");
        assert_eq!(drops_of(spare_serial), 1, "the value is dropped, once");
        a.check_invariants();
        assert_eq!(a.get(first).map(|r| r.p.value), Some(1));
        assert_eq!(first.generation(), 1);
    });
}
