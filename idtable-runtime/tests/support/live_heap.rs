//! A global allocator that counts the bytes live on each thread and the
//! allocation calls it makes, the check of GUARANTEES.md's bound on what a
//! load leaves on the heap, and slot indices hostile to a paged index. A
//! test binary includes this file as a module (`#[path]` from the facade's
//! tests) and so installs the allocator.

// Not every test binary that includes the file uses every helper.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: allocations made while the thread's locals are torn down
    // are not counted.
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

/// One call of `alloc`, `alloc_zeroed` or `realloc`.
fn count_call() {
    let _ = CALLS.try_with(|calls| calls.set(calls.get() + 1));
}

// SAFETY: every call is forwarded to `System` unchanged; the counter is a
// const-initialised thread-local `Cell`, which allocates nothing itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_call();
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_call();
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_call();
        // SAFETY: the caller's contract for `realloc` is passed on as is.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        new
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The bound of GUARANTEES.md for an input of `len` bytes.
pub fn bound(len: usize) -> usize {
    128 * len + 256 * 1024
}

/// Loads with `load`, checks that what it leaves on the heap holds the
/// bound for an input of `len` bytes, and returns what it loaded.
#[track_caller]
pub fn within_bound<T>(what: &str, len: usize, load: impl FnOnce() -> T) -> T {
    let before = LIVE.with(Cell::get);
    let loaded = load();
    let held = (LIVE.with(Cell::get) - before).max(0) as usize;
    assert!(
        held <= bound(len),
        "{what}: {held} bytes held for {len} bytes of input (bound {})",
        bound(len)
    );
    loaded
}

/// What a closure did to this thread's heap, from [`heap_effect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapEffect {
    /// Calls of `alloc`, `alloc_zeroed` and `realloc`.
    pub calls: usize,
    /// Bytes it left live (negative if it freed more than it allocated).
    pub live: isize,
}

/// Runs `f` and returns what it returned and what it did to this thread's
/// heap.
pub fn heap_effect<R>(f: impl FnOnce() -> R) -> (R, HeapEffect) {
    let (calls, live) = (CALLS.with(Cell::get), LIVE.with(Cell::get));
    let out = f();
    let effect = HeapEffect {
        calls: CALLS.with(Cell::get) - calls,
        live: LIVE.with(Cell::get) - live,
    };
    (out, effect)
}

/// Slot indices hostile to a paged index, at most `max`: `n` one per page for
/// pages of 64 to 4096, one per 2^20 and per 2^22, spread over all of the
/// range, the highest alone, and `N` pages down from the highest.
pub fn hostile_indices(max: usize, n: usize) -> Vec<(String, Vec<usize>)> {
    let mut layouts: Vec<(String, Vec<usize>)> = [6u32, 8, 10, 12, 20, 22]
        .iter()
        .map(|&bits| {
            let stride = 1usize << bits;
            let indices: Vec<usize> = (0..n)
                .map(|k| k * stride)
                .take_while(|&i| i <= max)
                .collect();
            (format!("one per 2^{bits}"), indices)
        })
        .collect();
    let spread = max / n;
    layouts.push(("spread".into(), (1..=n).map(|k| k * spread).collect()));
    layouts.push(("highest alone".into(), vec![max]));
    layouts.push((
        "highest down".into(),
        (0..n).map(|k| max.saturating_sub(k * 64)).collect(),
    ));
    layouts
}
