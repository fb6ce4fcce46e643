//! Pieces shared by the data benchmarks: a counting global allocator (each
//! benchmark binary installs it with `#[global_allocator]`) and a seeded
//! shuffle.

#![allow(dead_code)] // each benchmark uses its own part

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that forwards to `System` and counts live bytes,
/// live allocations and allocation calls.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIVE_BLOCKS: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_add(1, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What building a value cost the heap.
pub struct Heap {
    /// Live bytes requested, after building (the allocator's own overhead
    /// not included).
    pub bytes: usize,
    /// `alloc` and `realloc` calls while building.
    pub calls: usize,
    /// Live allocations after building.
    pub blocks: usize,
}

/// Builds a value and measures what it holds on the heap.
pub fn heap_of<T>(build: impl FnOnce() -> T) -> (Heap, T) {
    let (bytes, blocks, calls) = (
        LIVE.load(Ordering::Relaxed),
        LIVE_BLOCKS.load(Ordering::Relaxed),
        CALLS.load(Ordering::Relaxed),
    );
    let value = build();
    let heap = Heap {
        bytes: LIVE.load(Ordering::Relaxed) - bytes,
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
