//! `reserve(k)` keeps its promise: the next `k` inserts allocate nothing, for
//! every `min_free` and whatever was removed before (queued slots that
//! `min_free` holds back are not counted as reusable). Checked with a global
//! allocator that counts the allocations made on the current thread.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use idtable::{Id32_32, IdTable, SoaAllocator, SoaStorage, TableConfig};
use support::Rng;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the counter is a
// const-initialised thread-local `Cell`, which allocates nothing itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `realloc` is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (and reallocations) `f` makes on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[derive(SoaAllocator)]
struct Unit {
    hp: u32,
    pos: [f32; 2],
}

const MIN_FREE: [usize; 7] = [0, 1, 2, 3, 7, 64, 1000];

/// Tables with queues of every length around `min_free`: `live` inserted,
/// `freed` of them removed in a seeded random order.
fn histories() -> impl Iterator<Item = (usize, usize, usize, u64)> {
    MIN_FREE.into_iter().flat_map(|min_free| {
        [0usize, 1, 2, 5, 40, 130]
            .into_iter()
            .flat_map(move |live| {
                (0..=live)
                    .step_by((live / 7).max(1))
                    .map(move |freed| (min_free, live, freed, (live * 31 + freed) as u64))
            })
    })
}

/// What the check needs of an id table or a storage.
trait Reserving {
    type Id: Copy;
    fn with_min_free(min_free: usize) -> Self;
    fn insert_one(&mut self, n: usize) -> Self::Id;
    fn remove_one(&mut self, id: Self::Id);
    fn reserve(&mut self, additional: usize);
    fn check_invariants(&self);
}

impl Reserving for IdTable<Id32_32> {
    type Id = Id32_32;
    fn with_min_free(min_free: usize) -> Self {
        IdTable::with_config(TableConfig {
            min_free,
            ..TableConfig::default()
        })
    }
    fn insert_one(&mut self, _: usize) -> Id32_32 {
        self.insert().0
    }
    fn remove_one(&mut self, id: Id32_32) {
        self.remove(id);
    }
    fn reserve(&mut self, additional: usize) {
        IdTable::reserve(self, additional)
    }
    fn check_invariants(&self) {
        IdTable::check_invariants(self)
    }
}

impl Reserving for SoaStorage<UnitId, Unit> {
    type Id = UnitId;
    fn with_min_free(min_free: usize) -> Self {
        SoaStorage::with_config(TableConfig {
            min_free,
            ..TableConfig::default()
        })
    }
    fn insert_one(&mut self, n: usize) -> UnitId {
        self.insert(Unit {
            hp: n as u32,
            pos: [0.0; 2],
        })
    }
    fn remove_one(&mut self, id: UnitId) {
        self.remove(id);
    }
    fn reserve(&mut self, additional: usize) {
        SoaStorage::reserve(self, additional)
    }
    fn check_invariants(&self) {
        SoaStorage::check_invariants(self)
    }
}

/// For every history and every `k`: `reserve(k)`, then `k` inserts that
/// allocate nothing.
fn reserve_covers_the_next_inserts<R: Reserving>() {
    for (min_free, live, freed, seed) in histories() {
        for k in [1usize, 2, 3, min_free, min_free + 1, 50] {
            let mut subject = R::with_min_free(min_free);
            let mut ids: Vec<_> = (0..live).map(|n| subject.insert_one(n)).collect();
            let mut rng = Rng(seed);
            for _ in 0..freed {
                let id = ids.swap_remove(rng.below(ids.len()));
                subject.remove_one(id);
            }
            subject.reserve(k);
            let n = allocations_in(|| {
                for n in 0..k {
                    subject.insert_one(n);
                }
            });
            assert_eq!(
                n, 0,
                "min_free {min_free}, {live} inserted, {freed} freed: \
                 {k} inserts after reserve({k}) allocated"
            );
            subject.check_invariants();
        }
    }
}

#[test]
fn id_table_reserve_covers_the_next_inserts_for_every_min_free() {
    reserve_covers_the_next_inserts::<IdTable<Id32_32>>();
}

#[test]
fn storage_reserve_covers_the_next_inserts_for_every_min_free() {
    reserve_covers_the_next_inserts::<SoaStorage<UnitId, Unit>>();
}

#[test]
fn derived_allocator_with_min_free_reserves_enough() {
    #[derive(SoaAllocator)]
    #[soa(min_free = 16)]
    struct Shot {
        damage: u32,
    }
    let mut shots = ShotAllocator::new();
    let ids: Vec<_> = (0..32).map(|d| shots.insert(Shot { damage: d })).collect();
    for id in &ids[..20] {
        shots.remove(*id); // 20 queued, 15 of them held back
    }
    shots.reserve(100);
    let n = allocations_in(|| {
        for d in 0..100 {
            shots.insert(Shot { damage: d });
        }
    });
    assert_eq!(n, 0);
    assert_eq!(shots.len(), 112);
}
