//! Every value stored in an allocator is dropped exactly once — across
//! `remove`, `retain`, `drain` (fully, partly, forgotten), `clear`,
//! `into_iter` (partly), `clone` and dropping the allocator — for a record
//! with a `Drop` field, a zero-sized `Drop` field and an over-aligned `Drop`
//! field; moves (growth, swap-remove, sort) never drop.

use std::cell::Cell;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use idtable::SoaAllocator;

thread_local! {
    /// Tracked + Aligned values alive on this thread (made minus dropped).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// Zero-sized `Ghost`s made and dropped on this thread.
    static GHOSTS_MADE: Cell<usize> = const { Cell::new(0) };
    static GHOSTS_DROPPED: Cell<usize> = const { Cell::new(0) };
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

fn bump(cell: &'static std::thread::LocalKey<Cell<usize>>) {
    cell.with(|c| c.set(c.get() + 1));
}

/// A value that counts its own drops; clones get a counter of their own.
struct Tracked {
    n: u32,
    drops: Rc<Cell<usize>>,
    panic_on_drop: bool,
}

impl Tracked {
    fn new(n: u32) -> (Tracked, Rc<Cell<usize>>) {
        LIVE.with(|l| l.set(l.get() + 1));
        let drops = Rc::new(Cell::new(0));
        let t = Tracked {
            n,
            drops: drops.clone(),
            panic_on_drop: false,
        };
        (t, drops)
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        Tracked::new(self.n).0
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        LIVE.with(|l| l.set(l.get() - 1));
        if self.panic_on_drop {
            panic!("Tracked({}) panics on drop", self.n);
        }
    }
}

/// An over-aligned field with a destructor.
#[repr(align(64))]
struct Aligned {
    n: u32,
    drops: Rc<Cell<usize>>,
}

impl Clone for Aligned {
    fn clone(&self) -> Self {
        LIVE.with(|l| l.set(l.get() + 1));
        Aligned {
            n: self.n,
            drops: Rc::new(Cell::new(0)),
        }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        assert_eq!(self as *const Self as usize % 64, 0, "dropped misaligned");
        self.drops.set(self.drops.get() + 1);
        LIVE.with(|l| l.set(l.get() - 1));
    }
}

/// A zero-sized field with a destructor.
struct Ghost;

impl Ghost {
    fn new() -> Ghost {
        bump(&GHOSTS_MADE);
        Ghost
    }
}

impl Clone for Ghost {
    fn clone(&self) -> Self {
        Ghost::new()
    }
}

impl Drop for Ghost {
    fn drop(&mut self) {
        bump(&GHOSTS_DROPPED);
    }
}

fn ghosts_alive() -> usize {
    GHOSTS_MADE.with(Cell::get) - GHOSTS_DROPPED.with(Cell::get)
}

#[derive(SoaAllocator, Clone)]
struct Thing {
    a: Tracked,
    ghost: Ghost,
    b: Aligned,
    byte: u8,
}

/// The drop counters of the values made by [`Counters::make`].
#[derive(Default)]
struct Counters {
    a: Vec<Rc<Cell<usize>>>,
    b: Vec<Rc<Cell<usize>>>,
}

impl Counters {
    fn make(&mut self) -> Thing {
        let n = self.a.len() as u32;
        let (a, da) = Tracked::new(n);
        LIVE.with(|l| l.set(l.get() + 1));
        let db = Rc::new(Cell::new(0));
        let b = Aligned {
            n,
            drops: db.clone(),
        };
        self.a.push(da);
        self.b.push(db);
        Thing {
            a,
            ghost: Ghost::new(),
            b,
            byte: n as u8,
        }
    }

    /// Value `n` has been dropped `times` times (both droppable fields).
    fn dropped(&self, n: u32, times: usize) -> bool {
        let n = n as usize;
        self.a[n].get() == times && self.b[n].get() == times
    }

    fn assert_each(&self, what: &str, expect: impl Fn(u32) -> usize) {
        for n in 0..self.a.len() as u32 {
            let want = expect(n);
            assert_eq!(
                (self.a[n as usize].get(), self.b[n as usize].get()),
                (want, want),
                "{what}: value {n} dropped a wrong number of times"
            );
        }
    }

    fn assert_all_once(&self, what: &str) {
        self.assert_each(what, |_| 1);
    }
}

/// Runs `body` and checks that, when it returns, every value and ghost it
/// made is gone.
fn balanced(body: impl FnOnce()) {
    let (live0, ghosts0) = (live(), ghosts_alive());
    body();
    assert_eq!(live(), live0, "values leaked or dropped twice");
    assert_eq!(
        ghosts_alive(),
        ghosts0,
        "zero-sized values leaked or dropped twice"
    );
}

fn filled(n: u32, c: &mut Counters) -> (ThingAllocator, Vec<ThingId>) {
    let mut a = ThingAllocator::new();
    let ids = (0..n).map(|_| a.insert(c.make())).collect();
    (a, ids)
}

#[test]
fn remove_hands_the_value_out_undropped() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, ids) = filled(10, &mut c);
        let out = a.remove(ids[3]).unwrap();
        assert_eq!((out.a.n, out.b.n, out.byte), (3, 3, 3));
        c.assert_each("after remove", |_| 0);
        drop(out);
        c.assert_each("after dropping the removed value", |n| usize::from(n == 3));
        assert!(a.remove(ids[3]).is_none());
        c.assert_each("after a stale remove", |n| usize::from(n == 3));
        for &id in &ids[5..] {
            drop(a.remove(id));
        }
        c.assert_each("after more removes", |n| usize::from(n == 3 || n >= 5));
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn remove_many_drops_each_removed_value_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, ids) = filled(30, &mut c);
        // Every third id, listed twice, plus one already gone.
        drop(a.remove(ids[1]));
        let listed = ids
            .iter()
            .step_by(3)
            .chain(ids.iter().step_by(3))
            .chain([&ids[1]]);
        assert_eq!(a.remove_many(listed.into_iter().copied()), 10);
        c.assert_each("after remove_many", |n| usize::from(n % 3 == 0 || n == 1));
        assert_eq!(a.len(), 19);
        a.check_invariants();
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn retain_drops_each_removed_value_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, _) = filled(30, &mut c);
        a.retain(|_, m| m.a.n % 3 != 0);
        c.assert_each("after retain", |n| usize::from(n % 3 == 0));
        assert_eq!(a.len(), 20);
        a.check_invariants();
        a.retain(|_, m| m.b.n % 2 == 0);
        c.assert_each("after a second retain", |n| {
            usize::from(n % 3 == 0 || n % 2 == 1)
        });
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn fully_consumed_drain_hands_every_value_out_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, _) = filled(12, &mut c);
        let out: Vec<_> = a.drain().collect();
        assert_eq!(out.len(), 12);
        c.assert_each("values still held", |_| 0);
        drop(out);
        c.assert_all_once("after dropping the drained values");
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn partly_consumed_drain_drops_the_rest_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, _) = filled(12, &mut c);
        let mut d = a.drain();
        let taken: Vec<_> = d.by_ref().take(4).map(|(_, v)| v).collect();
        drop(d);
        let taken_n: Vec<u32> = taken.iter().map(|t| t.a.n).collect();
        c.assert_each("after dropping the drain", |n| {
            usize::from(!taken_n.contains(&n))
        });
        assert!(a.is_empty());
        drop(taken);
        c.assert_all_once("after dropping the taken values");
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn forgotten_drain_never_drops_a_value_twice() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, _) = filled(12, &mut c);
        let mut d = a.drain();
        let taken: Vec<_> = d.by_ref().take(4).map(|(_, v)| v).collect();
        std::mem::forget(d);
        a.check_invariants();
        drop(taken);
        drop(a);
        // Leaking the drain may leak what it did not yield (like
        // `Vec::drain`), but nothing is ever dropped twice.
        for n in 0..12 {
            assert!(c.dropped(n, 1) || c.dropped(n, 0), "value {n}");
        }
    });
}

#[test]
fn clear_drops_every_value_once_immediately() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, _) = filled(20, &mut c);
        a.clear();
        c.assert_all_once("after clear");
        assert_eq!(ghosts_alive(), 0);
        // the allocator is reusable and its new values are dropped once too
        let id = a.insert(c.make());
        assert!(c.dropped(20, 0));
        drop(a.remove(id));
        assert!(c.dropped(20, 1));
        a.insert(c.make());
        drop(a);
        c.assert_all_once("after dropping the allocator");
    });
}

#[test]
fn partly_consumed_into_iter_drops_the_rest_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (a, _) = filled(10, &mut c);
        let mut it = a.into_iter();
        let first = it.next().unwrap().1;
        let second = it.next().unwrap().1;
        drop(it);
        let kept = [first.a.n, second.a.n];
        c.assert_each("after dropping the iterator", |n| {
            usize::from(!kept.contains(&n))
        });
        drop((first, second));
        c.assert_all_once("after dropping the yielded values");
    });
}

#[test]
fn dropping_the_allocator_drops_every_value_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (a, _) = filled(100, &mut c);
        c.assert_each("while stored", |_| 0);
        drop(a);
        c.assert_all_once("after drop");
    });
}

#[test]
fn moves_never_drop_growth_swap_remove_sort_shrink() {
    balanced(|| {
        let mut c = Counters::default();
        let mut a = ThingAllocator::new();
        let mut ids = Vec::new();
        for _ in 0..300 {
            ids.push(a.insert(c.make())); // several reallocations
        }
        c.assert_each("after growth", |_| 0);
        let mut removed = Vec::new();
        for &id in ids.iter().step_by(7) {
            removed.push(a.remove(id).unwrap()); // swap-remove moves the last row
        }
        c.assert_each("after swap-removes", |_| 0);
        a.sort_by_key(|r| std::cmp::Reverse(r.a.n));
        a.sort_by(|x, y| x.b.n.cmp(&y.b.n));
        c.assert_each("after sorting", |_| 0);
        a.shrink_to_fit();
        a.reserve(1000);
        c.assert_each("after shrink and reserve", |_| 0);
        if let Some([x, y]) = a.get_disjoint_mut([ids[1], ids[2]]) {
            std::mem::swap(x.a, y.a);
        }
        c.assert_each("after swapping through get_disjoint_mut", |_| 0);
        for (id, r) in a.iter() {
            assert!(a.contains(id));
            assert_eq!(r.a.n == 1, id == ids[2]);
        }
        a.check_invariants();
        drop(removed);
        drop(a);
        c.assert_all_once("at the end");
    });
}

#[test]
fn clone_drops_its_own_copies_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, ids) = filled(10, &mut c);
        let before = live();
        let b = a.clone();
        assert_eq!(live(), before + 20, "each row clones both droppable fields");
        assert_eq!(b.len(), 10);
        for &id in &ids {
            let (x, y) = (a.get(id).unwrap(), b.get(id).unwrap());
            assert_eq!((x.a.n, x.b.n, *x.byte), (y.a.n, y.b.n, *y.byte));
        }
        drop(b);
        assert_eq!(live(), before);
        c.assert_each("after dropping the clone", |_| 0);
        a.remove(ids[0]);
        drop(a);
        c.assert_all_once("after dropping the original");
    });
}

#[test]
fn get_mut_replacing_a_field_drops_the_old_value_once() {
    balanced(|| {
        let mut c = Counters::default();
        let (mut a, ids) = filled(3, &mut c);
        let (fresh, fresh_drops) = Tracked::new(99);
        let old = std::mem::replace(a.get_mut(ids[1]).unwrap().a, fresh);
        assert_eq!(old.n, 1);
        drop(old);
        assert_eq!(c.a[1].get(), 1);
        *a.get_mut(ids[1]).unwrap().a = Tracked::new(100).0; // drops 99 in place
        assert_eq!(fresh_drops.get(), 1);
        drop(a);
        assert!(c.dropped(0, 1) && c.dropped(2, 1));
        assert_eq!(c.b[1].get(), 1);
    });
}

#[test]
fn over_aligned_column_stays_aligned_and_zero_sized_column_has_every_row() {
    balanced(|| {
        let mut c = Counters::default();
        let mut a = ThingAllocator::new();
        for round in 0..6 {
            for _ in 0..(10 << round) {
                a.insert(c.make());
            }
            let cols = a.columns();
            assert_eq!(cols.b.as_ptr() as usize % 64, 0, "aligned after growth");
            assert_eq!(cols.ghost.len(), a.len());
            assert_eq!(cols.a.len(), a.len());
            for (i, b) in cols.b.iter().enumerate() {
                assert_eq!(b as *const Aligned as usize % 64, 0, "row {i}");
                assert_eq!(b.n, cols.a[i].n);
            }
        }
        assert_eq!(ghosts_alive(), a.len());
        a.shrink_to_fit();
        assert_eq!(
            a.columns().b.as_ptr() as usize % 64,
            0,
            "aligned after shrink"
        );
        drop(a);
        c.assert_all_once("at the end");
    });
}

// --- the error path: the value comes back undropped ------------------------------

#[derive(SoaAllocator)]
#[soa(id = idtable::Id32<1>)] // a single index
struct Lonely {
    a: Tracked,
}

#[test]
fn try_insert_on_a_full_table_returns_the_value_undropped() {
    balanced(|| {
        let mut a = LonelyAllocator::new();
        let (first, first_drops) = Tracked::new(1);
        a.insert(Lonely { a: first });
        let (spare, spare_drops) = Tracked::new(2);
        let err = a.try_insert(Lonely { a: spare }).unwrap_err();
        assert_eq!(spare_drops.get(), 0);
        let back = err.into_inner();
        assert_eq!(back.a.n, 2);
        assert_eq!(spare_drops.get(), 0);
        drop(back);
        assert_eq!(spare_drops.get(), 1);
        drop(a);
        assert_eq!(first_drops.get(), 1);
    });
}

// --- zero-sized records ---------------------------------------------------------

#[derive(SoaAllocator)]
struct Phantom {
    ghost: Ghost,
    marker: PhantomData<u64>,
}

#[test]
fn zero_sized_records_are_dropped_once_each() {
    balanced(|| {
        let mut a = PhantomAllocator::new();
        let ids: Vec<_> = (0..1000)
            .map(|_| {
                a.insert(Phantom {
                    ghost: Ghost::new(),
                    marker: PhantomData,
                })
            })
            .collect();
        assert_eq!(ghosts_alive(), 1000);
        assert_eq!(a.columns().ghost.len(), 1000);
        for &id in ids.iter().step_by(2) {
            assert!(a.remove(id).is_some());
        }
        assert_eq!(ghosts_alive(), 500);
        a.retain(|id, _| id.index() % 4 == 1);
        assert_eq!(ghosts_alive(), 250);
        assert_eq!(a.len(), 250);
        let mut d = a.drain();
        d.next();
        drop(d);
        assert_eq!(ghosts_alive(), 0);
        a.insert(Phantom {
            ghost: Ghost::new(),
            marker: PhantomData,
        });
        a.check_invariants();
        drop(a);
        assert_eq!(ghosts_alive(), 0);
    });
}

// --- destructors that panic ---------------------------------------------------------

fn poisoned(c: &mut Counters, n: u32, bad: u32) -> (ThingAllocator, Vec<ThingId>) {
    let mut a = ThingAllocator::new();
    let ids = (0..n)
        .map(|k| {
            let mut t = c.make();
            t.a.panic_on_drop = k == bad;
            a.insert(t)
        })
        .collect();
    (a, ids)
}

#[test]
fn a_panicking_destructor_in_clear_drops_every_other_value_once() {
    let mut c = Counters::default();
    let (mut a, _) = poisoned(&mut c, 10, 4);
    let r = catch_unwind(AssertUnwindSafe(|| a.clear()));
    assert!(r.is_err(), "the destructor's panic propagates");
    assert!(a.is_empty());
    a.check_invariants();
    c.assert_all_once("after a panicking clear");
    drop(a);
    c.assert_all_once("after dropping the allocator");
}

#[test]
fn a_panicking_destructor_in_drop_drops_every_other_value_once() {
    let mut c = Counters::default();
    let (a, _) = poisoned(&mut c, 10, 7);
    let r = catch_unwind(AssertUnwindSafe(|| drop(a)));
    assert!(r.is_err());
    c.assert_all_once("after a panicking drop");
}

#[test]
fn a_panicking_destructor_in_retain_leaves_a_consistent_allocator() {
    let mut c = Counters::default();
    let (mut a, ids) = poisoned(&mut c, 10, 2);
    let r = catch_unwind(AssertUnwindSafe(|| a.retain(|_, m| m.a.n % 2 == 1)));
    assert!(r.is_err());
    a.check_invariants();
    // every listed row is live and holds its own value
    for (i, &id) in a.ids().iter().enumerate() {
        let n = a.columns().a[i].n;
        assert_eq!(id, ids[n as usize]);
    }
    // value 2 was removed (its destructor ran once); nothing ran twice
    assert!(!a.contains(ids[2]));
    assert!(c.dropped(2, 1));
    drop(a);
    c.assert_all_once("after dropping the allocator");
}
