//! The 8-field, 64-byte record of the `peers` and `shapes` benchmarks, and
//! `hand_soa`, the hand-written floor with idtable's layout and id scheme.
//! Each bench includes this file as a module (`#[macro_use] #[path =
//! "support/record.rs"] mod record;`), which makes `record!` and `convert!`
//! visible after it.

#![allow(dead_code)] // each benchmark uses its own part

use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};
use std::mem::{align_of, size_of};
use std::ptr::{self, NonNull};

// ---------------------------------------------------------------------------
// The record: 64 bytes, 8 fields, declared once per container family (each
// derive generates `RecordRef` & co., so each lives in its own module).

macro_rules! record {
    ($(#[$meta:meta])*) => {
        $(#[$meta])*
        pub struct Record {
            pub pos: [f32; 3],
            pub vel: [f32; 3],
            pub mass: f32,
            pub charge: f32,
            pub age: f32,
            pub flags: u32,
            pub color: [u8; 4],
            pub pad: [u32; 5],
        }
    };
}

/// The plain record: stored by the slot maps, thunderdome, `HashMap`, the
/// raw-`Vec` floor and soa_derive's `RecordVec`.
pub mod plain {
    use soa_derive::StructOfArray;
    record!(#[derive(Clone, Copy, Debug, PartialEq, StructOfArray)] #[soa_derive(Clone, Debug)]);
}

#[inline(always)]
pub fn make(i: usize) -> Record {
    let f = i as f32;
    Record {
        pos: [f, f + 1.0, f + 2.0],
        vel: [0.5, -0.25, 0.125],
        mass: 1.0 + (i & 7) as f32,
        charge: -1.0,
        age: 0.0,
        flags: i as u32,
        color: [1, 2, 3, 4],
        pad: [0; 5],
    }
}

/// A record of another family with the same fields (`convert!(idt::Record, r)`).
macro_rules! convert {
    ($to:path, $r:expr) => {{
        let r = $r;
        $to {
            pos: r.pos,
            vel: r.vel,
            mass: r.mass,
            charge: r.charge,
            age: r.age,
            flags: r.flags,
            color: r.color,
            pad: r.pad,
        }
    }};
}

#[allow(unused_imports)] // `shapes` has no use for `RecordVec`
pub use plain::{Record, RecordVec};

const _: () = assert!(size_of::<Record>() == 64);

// ---------------------------------------------------------------------------
// The hand-written floor: the layout and id scheme of idtable's derived
// allocator with its default `Id32_32`, written out for this one record.

/// Bytes per row of each column, in field order.
const HAND_SIZES: [usize; 8] = [
    size_of::<[f32; 3]>(), // pos
    size_of::<[f32; 3]>(), // vel
    size_of::<f32>(),      // mass
    size_of::<f32>(),      // charge
    size_of::<f32>(),      // age
    size_of::<u32>(),      // flags
    size_of::<[u8; 4]>(),  // color
    size_of::<[u32; 5]>(), // pad
];

/// `HAND_OFFSETS[i] * cap` is the byte offset of column `i` in an
/// allocation for `cap` rows; `HAND_OFFSETS[8]` is the row size.
const HAND_OFFSETS: [usize; 9] = {
    let mut o = [0; 9];
    let mut i = 0;
    while i < 8 {
        o[i + 1] = o[i] + HAND_SIZES[i];
        i += 1;
    }
    o
};

/// Alignment of the allocation: the record's, the largest of its fields'.
const HAND_ALIGN: usize = align_of::<Record>();

// Every column starts at a multiple of `HAND_ALIGN` (offsets are sums of
// sizes that are multiples of it, times the capacity), which is enough for
// each field's alignment; and the columns add up to the record.
const _: () = {
    let mut i = 0;
    while i < 8 {
        assert!(HAND_SIZES[i] % HAND_ALIGN == 0);
        i += 1;
    }
    assert!(align_of::<[f32; 3]>() <= HAND_ALIGN);
    assert!(align_of::<[u32; 5]>() <= HAND_ALIGN);
    assert!(align_of::<[u8; 4]>() <= HAND_ALIGN);
    assert!(HAND_OFFSETS[8] == size_of::<Record>());
};

const LOW: u64 = 0xFFFF_FFFF;
const VACANT: u64 = u32::MAX as u64;

/// The hand-written floor: the 8 fields as 8 columns in one allocation with
/// one length and one capacity (grown by doubling with `realloc`, columns
/// moved up last first, as idtable does), unchecked column writes, and
/// idtable's default id scheme: `slots[s] = generation << 32 | row`,
/// `dense[row] = generation << 32 | slot` (the key), generations from 1 and
/// incremented on reuse, and idtable's FIFO free list threaded through the
/// vacant slots (min_free 0): a vacant slot's row field is `u32::MAX` when it
/// is the last queued (or never queued) and `u32::MAX - 1 - next` otherwise,
/// both at least `len` (this floor stays below 2^31 slots). Every field is
/// `Copy`: rows are overwritten and freed without dropping anything.
pub struct HandSoa {
    /// Room for `cap` rows; column `i` at byte `HAND_OFFSETS[i] * cap`.
    /// Allocated with `hand_layout(cap)` when `cap > 0`, dangling (and
    /// aligned) when `cap == 0`. Rows `0..len` of every column are
    /// initialised; `len <= cap <= u32::MAX`.
    pub buf: NonNull<u8>,
    pub len: usize,
    pub cap: usize,
    pub slots: Vec<u64>,
    /// One key per row (`dense.len() == len`).
    pub dense: Vec<u64>,
    /// The oldest and newest queued slots (meaningless while `free_len == 0`).
    pub free_head: u32,
    pub free_tail: u32,
    pub free_len: usize,
}

fn hand_layout(cap: usize) -> Layout {
    cap.checked_mul(HAND_OFFSETS[8])
        .and_then(|size| Layout::from_size_align(size, HAND_ALIGN).ok())
        .expect("capacity overflow")
}

impl HandSoa {
    /// Row 0 of column `i` (`i <= 8`; 8 is the end of the block), as a
    /// pointer to `T`: the field's type, or `u8` for its bytes. Reading or
    /// writing through it is the caller's to justify.
    #[inline(always)]
    pub fn col<T>(&self, i: usize) -> *mut T {
        // SAFETY: `HAND_OFFSETS[i] * cap <= HAND_OFFSETS[8] * cap`, the size
        // of the allocation (0 when `cap == 0`, where the offset is 0), so
        // the pointer stays in bounds of the block.
        unsafe {
            self.buf
                .as_ptr()
                .add(HAND_OFFSETS[i] * self.cap)
                .cast::<T>()
        }
    }

    /// Grows the allocation to `new_cap` rows: `alloc` the first time,
    /// `realloc` after, then every column moved up to its new offset, last
    /// column first.
    #[cold]
    #[inline(never)]
    pub fn grow(&mut self, new_cap: usize) {
        assert!(new_cap > self.cap && new_cap <= u32::MAX as usize);
        let layout = hand_layout(new_cap);
        let raw = if self.cap == 0 {
            // SAFETY: the layout's size is `new_cap * 64 > 0`.
            unsafe { alloc(layout) }
        } else {
            // SAFETY: `buf` was allocated with `hand_layout(self.cap)`, of the
            // same alignment; the new size is not zero and fits `isize`
            // (checked by `Layout::from_size_align` in `hand_layout`).
            unsafe { realloc(self.buf.as_ptr(), hand_layout(self.cap), layout.size()) }
        };
        let Some(buf) = NonNull::new(raw) else {
            handle_alloc_error(layout)
        };
        let (old, new, len) = (self.cap, new_cap, self.len);
        for i in (1..8).rev() {
            // SAFETY: both ranges are in the new block of `64 * new` bytes:
            // the source `[off_i * old, + len * size_i)` holds column i's
            // initialised rows (moved there by `realloc`), and the
            // destination ends at `off_i * new + len * size_i <=
            // off_{i+1} * new`. `ptr::copy` allows the two to overlap.
            // Last column first: the destination starts at `off_i * new >=
            // off_i * old`, past the old place of columns `0..i` (still to
            // move), and ends before the new place of columns `i+1..` (moved).
            unsafe {
                ptr::copy(
                    buf.as_ptr().add(HAND_OFFSETS[i] * old),
                    buf.as_ptr().add(HAND_OFFSETS[i] * new),
                    len * HAND_SIZES[i],
                )
            };
        }
        self.buf = buf;
        self.cap = new_cap;
    }

    /// Writes `r` into row `row` of every column.
    ///
    /// # Safety
    ///
    /// `row < cap`. (What the row held, if anything, is overwritten without
    /// being dropped: every field is `Copy`.)
    #[inline(always)]
    unsafe fn write_row(&mut self, row: usize, r: Record) {
        // SAFETY: each pointer has its column's field type and is aligned
        // for it (const assertions above), `row < cap` is in the column's
        // room, and the columns do not overlap.
        unsafe {
            self.col::<[f32; 3]>(0).add(row).write(r.pos);
            self.col::<[f32; 3]>(1).add(row).write(r.vel);
            self.col::<f32>(2).add(row).write(r.mass);
            self.col::<f32>(3).add(row).write(r.charge);
            self.col::<f32>(4).add(row).write(r.age);
            self.col::<u32>(5).add(row).write(r.flags);
            self.col::<[u8; 4]>(6).add(row).write(r.color);
            self.col::<[u32; 5]>(7).add(row).write(r.pad);
        }
    }

    /// Row `row`'s record, read out of the columns.
    ///
    /// # Safety
    ///
    /// `row < len` (initialised).
    #[inline(always)]
    unsafe fn read_row(&self, row: usize) -> Record {
        // SAFETY: `row < len` is initialised; each pointer has its column's
        // field type; every field is `Copy`.
        unsafe {
            Record {
                pos: *self.col::<[f32; 3]>(0).add(row),
                vel: *self.col::<[f32; 3]>(1).add(row),
                mass: *self.col::<f32>(2).add(row),
                charge: *self.col::<f32>(3).add(row),
                age: *self.col::<f32>(4).add(row),
                flags: *self.col::<u32>(5).add(row),
                color: *self.col::<[u8; 4]>(6).add(row),
                pad: *self.col::<[u32; 5]>(7).add(row),
            }
        }
    }

    /// A copy of the record of `k`, if live (for `check_hand_soa`).
    pub fn get(&self, k: u64) -> Option<Record> {
        self.get_mass(k)?;
        let row = (self.slots[(k & LOW) as usize] & LOW) as usize;
        // SAFETY: `k` is live, so `row < len`.
        Some(unsafe { self.read_row(row) })
    }

    /// Number of live records.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The `mass` column.
    #[inline(always)]
    pub fn mass(&self) -> &[f32] {
        // SAFETY: column 2 is the `f32` mass column; rows `0..len` are
        // initialised; the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.col::<f32>(2), self.len) }
    }

    #[inline(always)]
    pub fn new() -> Self {
        HandSoa {
            buf: NonNull::<Record>::dangling().cast(),
            len: 0,
            cap: 0,
            slots: Vec::new(),
            dense: Vec::new(),
            free_head: 0,
            free_tail: 0,
            free_len: 0,
        }
    }
    #[inline(always)]
    pub fn with_capacity(n: usize) -> Self {
        let mut c = HandSoa::new();
        if n > 0 {
            c.grow(n);
        }
        c.slots.reserve(n);
        c.dense.reserve(n);
        c
    }
    #[inline(always)]
    pub fn insert(&mut self, r: Record) -> u64 {
        let row = self.len;
        if row == self.cap {
            self.grow((self.cap * 2).max(4));
        }
        // SAFETY: `row < cap` after growing.
        unsafe { self.write_row(row, r) };
        self.len = row + 1;
        let key = match self.free_len {
            1.. => {
                let slot = self.free_head;
                let s = &mut self.slots[slot as usize];
                self.free_head = (VACANT - 1).wrapping_sub(*s & LOW) as u32;
                self.free_len -= 1;
                // Generation + 1 (wraps after 2^32 reuses of one slot, far
                // beyond these benchmarks).
                let key = (*s & !LOW).wrapping_add(1 << 32) | slot as u64;
                *s = (key & !LOW) | row as u64;
                key
            }
            0 => {
                let slot = self.slots.len() as u64;
                self.slots.push(1 << 32 | row as u64);
                1 << 32 | slot
            }
        };
        self.dense.push(key);
        key
    }
    #[inline(always)]
    pub fn get_mass(&self, k: u64) -> Option<f32> {
        let s = *self.slots.get((k & LOW) as usize)?;
        let row = (s & LOW) as usize;
        // A vacant slot's row is u32::MAX >= len.
        if s >> 32 != k >> 32 || row >= self.len {
            return None;
        }
        // SAFETY: `row < len`: initialised.
        Some(unsafe { *self.col::<f32>(2).add(row) })
    }
    /// Removes the record of `k` and returns it, or `None` if `k` is not
    /// live: the row's fields are read out of the columns, then the last row
    /// is copied over it.
    #[inline(always)]
    pub fn remove(&mut self, k: u64) -> Option<Record> {
        let slot = (k & LOW) as usize;
        let &s = self.slots.get(slot)?;
        let row = (s & LOW) as usize;
        if s >> 32 != k >> 32 || row >= self.len {
            return None;
        }
        // SAFETY: `row < len`.
        let value = unsafe { self.read_row(row) };
        let last = self.len - 1;
        if row != last {
            for (i, size) in HAND_SIZES.into_iter().enumerate() {
                // SAFETY: `row < last < len`: two distinct initialised rows of
                // column i, so the copy does not overlap; the old value of
                // `row` is `Copy`, nothing to drop.
                unsafe {
                    let c = self.col::<u8>(i);
                    ptr::copy_nonoverlapping(c.add(last * size), c.add(row * size), size);
                }
            }
            let moved = self.dense[last];
            self.slots[(moved & LOW) as usize] = (moved & !LOW) | row as u64;
        }
        self.dense.swap_remove(row);
        self.len = last;
        self.slots[slot] = (s & !LOW) | VACANT;
        if self.free_len == 0 {
            self.free_head = slot as u32;
        } else {
            let tail = &mut self.slots[self.free_tail as usize];
            *tail = (*tail & !LOW) | (VACANT - 1 - slot as u64);
        }
        self.free_tail = slot as u32;
        self.free_len += 1;
        Some(value)
    }
}

impl Drop for HandSoa {
    fn drop(&mut self) {
        if self.cap != 0 {
            // SAFETY: allocated with this layout (invariant of `buf`); the
            // rows are `Copy`, nothing to drop.
            unsafe { dealloc(self.buf.as_ptr(), hand_layout(self.cap)) };
        }
    }
}

impl Clone for HandSoa {
    fn clone(&self) -> Self {
        let mut c = HandSoa::with_capacity(self.len);
        for (i, size) in HAND_SIZES.into_iter().enumerate() {
            // SAFETY: column i of `self` has `len` initialised rows; column i
            // of `c` has room for `len` rows; the blocks are distinct.
            unsafe { ptr::copy_nonoverlapping(self.col::<u8>(i), c.col::<u8>(i), self.len * size) };
        }
        c.len = self.len;
        c.slots.clone_from(&self.slots);
        c.dense.clone_from(&self.dense);
        (c.free_head, c.free_tail, c.free_len) = (self.free_head, self.free_tail, self.free_len);
        c
    }
}
