//! Pieces shared by the data benchmarks: a counting global allocator (each
//! benchmark binary installs it with `#[global_allocator]`) and a seeded
//! shuffle.

#![allow(dead_code)] // each benchmark uses its own part

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that forwards to `System` and counts live bytes
/// (requested, and held: each live block's usable size), live allocations
/// and allocation calls.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static HELD: AtomicUsize = AtomicUsize::new(0);
static LIVE_BLOCKS: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    /// glibc: the bytes the block at `ptr` really holds (its request rounded
    /// up to the allocator's size class).
    fn malloc_usable_size(ptr: *mut u8) -> usize;
}

/// The bytes the block at `ptr` (of `layout`) holds: its usable size where
/// the C library says it (glibc), else what was requested.
fn held(ptr: *mut u8, layout_size: usize) -> usize {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if !ptr.is_null() {
        // SAFETY: `ptr` is a live block of the system allocator (glibc's
        // malloc behind `System`), which is what the call needs.
        return unsafe { malloc_usable_size(ptr) };
    }
    let _ = ptr;
    layout_size
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_add(1, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        let ptr = unsafe { System.alloc(layout) };
        HELD.fetch_add(held(ptr, layout.size()), Ordering::Relaxed);
        ptr
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_sub(1, Ordering::Relaxed);
        HELD.fetch_sub(held(ptr, layout.size()), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        let before = held(ptr, layout.size());
        // SAFETY: same contract as the caller's.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            HELD.fetch_sub(before, Ordering::Relaxed);
            HELD.fetch_add(held(new, new_size), Ordering::Relaxed);
        }
        new
    }
}

/// What building a value cost the heap.
pub struct Heap {
    /// Live bytes requested, after building (the allocator's own overhead
    /// not included).
    pub bytes: usize,
    /// Live bytes held, after building: each live block's usable size
    /// (its request rounded up to the allocator's size class; glibc's
    /// `malloc_usable_size`), so many small blocks pay their rounding.
    pub held: usize,
    /// `alloc` and `realloc` calls while building.
    pub calls: usize,
    /// Live allocations after building.
    pub blocks: usize,
}

/// Builds a value and measures what it holds on the heap.
pub fn heap_of<T>(build: impl FnOnce() -> T) -> (Heap, T) {
    let held = HELD.load(Ordering::Relaxed);
    let (bytes, blocks, calls) = (
        LIVE.load(Ordering::Relaxed),
        LIVE_BLOCKS.load(Ordering::Relaxed),
        CALLS.load(Ordering::Relaxed),
    );
    let value = build();
    let heap = Heap {
        bytes: LIVE.load(Ordering::Relaxed) - bytes,
        held: HELD.load(Ordering::Relaxed) - held,
        calls: CALLS.load(Ordering::Relaxed) - calls,
        blocks: LIVE_BLOCKS.load(Ordering::Relaxed) - blocks,
    };
    (heap, value)
}

/// A seeded shuffle of 0..n (xorshift).
pub fn order(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = 0x9e37_79b9_u32 ^ n as u32;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        order.swap(i, state as usize % (i + 1));
    }
    order
}
