//! `remove` never allocates: freed slots are queued through the vacant slots
//! themselves (or, past half the layout's indices, through links grown with
//! the slots on insert), not in a queue that grows on removal.
//!
//! A counting global allocator counts the calls made by this thread while a
//! closure runs; each test removes every object, in an order that makes the
//! free list long, after churn that has already reused slots.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use idtable::{IdTable, SoaAllocator};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn note_call() {
    // `try_with`: the allocator may run while thread locals are torn down.
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            let _ = CALLS.try_with(|calls| calls.set(calls.get() + 1));
        }
    });
}

// SAFETY: every method forwards to `System` with the same arguments; the
// counting touches only `const`-initialised thread locals, which never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through `alloc`/`realloc` above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocation calls this thread makes while `f` runs.
fn allocations_in<R>(f: impl FnOnce() -> R) -> (R, usize) {
    CALLS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let out = f();
    COUNTING.with(|c| c.set(false));
    (out, CALLS.with(Cell::get))
}

#[test]
fn the_counter_sees_allocations() {
    let (v, calls) = allocations_in(|| vec![1u8; 100]);
    assert_eq!(v.len(), 100);
    assert!(calls >= 1, "the counting allocator is not in use");
}

#[derive(SoaAllocator)]
struct Body {
    pos: [f32; 3],
    name: String,
}

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8, min_free = 16)]
struct Spark {
    life: f32,
}

/// A scrambled order of `0..n` (a fixed odd stride).
fn scrambled(n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| (i * 7919) % n)
}

#[test]
fn removing_every_body_allocates_nothing() {
    let n = if cfg!(miri) { 50 } else { 5_000 };
    let mut bodies = BodyAllocator::new();
    let mut ids: Vec<_> = (0..n)
        .map(|i| {
            bodies.insert(Body {
                pos: [i as f32; 3],
                name: format!("body {i}"),
            })
        })
        .collect();
    // Churn: half the slots are freed and reused once.
    for i in scrambled(n).take(n / 2) {
        bodies.remove(ids[i]).unwrap();
        ids[i] = bodies.insert(Body {
            pos: [0.0; 3],
            name: String::new(),
        });
    }
    let removed: Vec<_> = scrambled(n).map(|i| ids[i]).collect();
    // Dropping a removed body frees its name; frees are not counted.
    let (_, calls) = allocations_in(|| {
        for &id in &removed {
            drop(bodies.remove(id).unwrap());
        }
    });
    assert_eq!(calls, 0, "removing {n} bodies allocated {calls} times");
    assert!(bodies.is_empty());
    assert_eq!(bodies.id_table().free_count(), n);
    bodies.id_table().check_invariants();
}

#[test]
fn removing_with_min_free_and_32_bit_ids_allocates_nothing() {
    let n = if cfg!(miri) { 40 } else { 4_000 };
    let mut sparks = SparkAllocator::new();
    let ids: Vec<_> = (0..n)
        .map(|i| sparks.insert(Spark { life: i as f32 }))
        .collect();
    let (_, calls) = allocations_in(|| {
        for i in scrambled(n) {
            assert!(sparks.remove(ids[i]).is_some());
        }
    });
    assert_eq!(calls, 0, "removing {n} sparks allocated {calls} times");
    sparks.id_table().check_invariants();
    // Inserting takes the oldest freed slot once 16 wait.
    let first_freed = ids[0].index();
    assert_eq!(sparks.insert(Spark { life: 0.0 }).index(), first_freed);
}

#[test]
fn removing_from_a_table_past_half_its_indices_allocates_nothing() {
    // Id32<6>: 63 indices; past 31 slots the links are on the side.
    let mut table = IdTable::<idtable::Id32<6>>::new();
    let ids: Vec<_> = (0..63).map(|_| table.insert().0).collect();
    let (_, calls) = allocations_in(|| {
        for i in scrambled(63) {
            table.remove(ids[i]).unwrap();
        }
    });
    assert_eq!(calls, 0, "removing 63 ids allocated {calls} times");
    table.check_invariants();
    assert_eq!(table.free_count(), 63);
}

/// Reservations waiting (claims pending, some of the free queue's slots,
/// most of them fresh indices) are settled by the removal without
/// allocating: the claimed fresh indices are counted, not given slot words.
#[test]
fn removing_with_reservations_waiting_allocates_nothing() {
    let n = if cfg!(miri) { 40 } else { 4_000 };
    let waiting = if cfg!(miri) { 100 } else { 100_000 };
    let mut sparks = SparkAllocator::new();
    let mut ids: Vec<_> = (0..n)
        .map(|i| sparks.insert(Spark { life: i as f32 }))
        .collect();
    for &id in ids.iter().take(n / 4) {
        sparks.remove(id);
    }
    let reserved: Vec<_> = sparks.reserve_ids(waiting).collect();
    let (_, calls) = allocations_in(|| {
        for &id in &ids[n / 4..n / 2] {
            assert!(sparks.remove(id).is_some());
        }
    });
    assert_eq!(
        calls, 0,
        "removing with {waiting} reservations waiting allocated {calls} times"
    );
    assert_eq!(sparks.reserved_len(), waiting);
    sparks.id_table().check_invariants();
    // The reservations fill afterwards, each once.
    for (i, &id) in reserved.iter().enumerate() {
        assert!(sparks.insert_reserved(id, Spark { life: i as f32 }).is_ok());
    }
    ids.retain(|&id| sparks.contains(id));
    assert_eq!(sparks.len(), ids.len() + waiting);
    sparks.id_table().check_invariants();

    // The same on a bare table, claims pending from its shared borrow.
    let mut table = IdTable::<idtable::Id32_32>::new();
    let live: Vec<_> = (0..n).map(|_| table.insert().0).collect();
    table.reserve_ids(waiting).for_each(drop);
    let (_, calls) = allocations_in(|| {
        for &id in &live {
            table.remove(id).unwrap();
        }
    });
    assert_eq!(
        calls, 0,
        "IdTable::remove with {waiting} reservations waiting allocated {calls} times"
    );
    assert_eq!(table.reserved_len(), waiting);
    table.check_invariants();
}
