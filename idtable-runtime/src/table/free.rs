//! The FIFO queue of freed slots, threaded through the vacant slots.
//!
//! A vacant slot keeps its last generation in its word; what its dense field
//! holds depends on the table's size:
//!
//! * **Up to half the layout's indices** ([`IdTable::LINKS_IN_SLOTS`] slots,
//!   2^31 - 1 for `Id32_32`, 32,767 for `Id16_16`): a queued slot's dense
//!   field holds the link to the next queued slot, written as
//!   `MASK - 1 - next`; the last queued slot, like a retired one, holds
//!   `MASK`. With at most half the indices in use, `MASK - 1 - next` is at
//!   least the number of slots, so it is never a live dense index: a lookup
//!   that reaches a vacant slot gets a dense index past the end of the
//!   columns and fails on the same bounds check as any other miss. Queueing
//!   and dequeuing cost no memory beyond the slots.
//! * **More slots**: the encoding could collide with a live dense index, so
//!   vacant dense fields hold `MASK` and the links move to `links`, one word
//!   per slot, allocated when the table crosses the line and grown with the
//!   slots (on inserts that take a fresh slot).
//!
//! Either way, freeing a slot writes one word (the previous tail's link) and
//! never allocates, and taking the oldest slot reads the link from the word
//! the insert reads anyway for the generation.

use alloc::vec::Vec;

use super::IdTable;
use crate::id::{Id, IdBits};
use crate::sync::{const_fn, AtomicUsize, Ordering};

/// Set in [`FreeList::len`] by the first id reserved from a shared borrow
/// since the last exclusive one (see `reserve.rs`): the queue's head and
/// length then lag behind what the reservations took. The paths that read
/// the queue with `&mut` test it where they read the length anyway and
/// settle the reservations first, on a cold path.
pub(super) const PENDING: usize = 1 << (usize::BITS - 1);

/// Head, tail and length of the queue; the links themselves live in the
/// slots or in `links` (see the module docs).
///
/// `len` is an atomic only so that a reservation from `&IdTable` can flag
/// itself (`reserve.rs`); every `&mut` path reads and writes it through
/// `get_mut`, a plain memory access.
pub(super) struct FreeList<B> {
    /// The oldest queued slot (meaningless while the length is 0).
    pub(super) head: usize,
    /// The newest queued slot (meaningless while the length is 0).
    pub(super) tail: usize,
    /// Number of queued slots as of the last exclusive access, with
    /// [`PENDING`] set while reservations have taken from it since.
    pub(super) len: AtomicUsize,
    /// Empty while the links live in the slots; otherwise one per slot:
    /// `links[s]` is the slot queued after `s` (meaningless for `s` not
    /// queued, or last).
    pub(super) links: Vec<B>,
}

impl<B: Clone> Clone for FreeList<B> {
    fn clone(&self) -> Self {
        FreeList {
            head: self.head,
            tail: self.tail,
            len: AtomicUsize::new(self.len.load(Ordering::Relaxed)),
            links: self.links.clone(),
        }
    }
}

impl<B> FreeList<B> {
    const_fn! {
        pub(super) const fn new() -> Self {
            FreeList {
                head: 0,
                tail: 0,
                len: AtomicUsize::new(0),
                links: Vec::new(),
            }
        }
    }

    /// The queue's length as of the last exclusive access (without the
    /// pending flag).
    #[inline(always)]
    pub(super) fn settled_len(&self) -> usize {
        self.len.load(Ordering::Relaxed) & !PENDING
    }

    /// The queue's oldest slot as of the last exclusive access.
    #[inline(always)]
    pub(super) fn settled_head(&self) -> usize {
        self.head
    }
}

impl<I: Id> IdTable<I> {
    /// The most slots a table can have while its free-list links live in the
    /// vacant slots' dense fields: half the layout's indices.
    pub(super) const LINKS_IN_SLOTS: usize = {
        let half = Self::MASK / 2;
        if half > usize::MAX as u64 {
            usize::MAX
        } else {
            half as usize
        }
    };

    /// The dense field that links a queued slot to `next`.
    #[inline(always)]
    fn encode_link(next: usize) -> u64 {
        Self::MASK - 1 - next as u64
    }

    /// The slot a queued slot's dense field links to (garbage for `MASK`,
    /// the last queued slot, whose link is never followed).
    #[inline(always)]
    fn decode_link(dense: u64) -> usize {
        (Self::MASK - 1).wrapping_sub(dense) as usize
    }

    /// Puts vacant slot `s` (its word already written, dense field `MASK`)
    /// at the back of the queue.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, s: usize) {
        // Reservations pending need no settling here: they take from the
        // queue's front, a free appends at its back (the flag stays set).
        let free = &mut self.free;
        if *free.len.get_mut() & !PENDING == 0 {
            free.head = s;
        } else if free.links.is_empty() {
            let tail = &mut self.slots[free.tail];
            let word = tail.to_u64() & !Self::MASK | Self::encode_link(s);
            *tail = I::Bits::from_u64_truncating(word);
        } else {
            free.links[free.tail] = I::Bits::from_u64_truncating(s as u64);
        }
        free.tail = s;
        *free.len.get_mut() += 1;
    }

    /// Takes the oldest slot off the queue (which must not be empty and
    /// have no reservation pending). Its word still holds its last
    /// generation; the caller rewrites the word.
    #[inline(always)]
    pub(super) fn dequeue(&mut self) -> usize {
        debug_assert!(
            *self.free.len.get_mut() > 0,
            "dequeue from an empty free list"
        );
        debug_assert!(
            *self.free.len.get_mut() & PENDING == 0,
            "dequeue with reservations pending"
        );
        let s = self.free.head;
        self.free.head = self.next_queued(s);
        *self.free.len.get_mut() -= 1;
        s
    }

    /// The queued slot after `s` (garbage for the last one).
    #[inline(always)]
    pub(super) fn next_queued(&self, s: usize) -> usize {
        if self.free.links.is_empty() {
            Self::decode_link(self.slots[s].to_u64() & Self::MASK)
        } else {
            self.free.links[s].to_u64() as usize
        }
    }

    /// The queued slots as of the last exclusive access, oldest first
    /// (slots reserved since are still among them).
    pub(super) fn queued(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        let mut s = self.free.settled_head();
        (0..self.free.settled_len()).map(move |i| {
            if i > 0 {
                s = self.next_queued(s);
            }
            s
        })
    }

    /// Keeps the links right after a fresh slot was pushed: moves them out of
    /// the slots when the table passes [`LINKS_IN_SLOTS`](Self::LINKS_IN_SLOTS)
    /// slots, and afterwards keeps one link per slot. Called only then, so
    /// never for tables below the line.
    #[cold]
    #[inline(never)]
    pub(super) fn grow_links(&mut self) {
        if self.free.links.is_empty() {
            let mut links = Vec::with_capacity(self.slots.capacity());
            links.resize(self.slots.len(), I::Bits::from_u64_truncating(0));
            let queued: Vec<usize> = self.queued().collect();
            for pair in queued.windows(2) {
                links[pair[0]] = I::Bits::from_u64_truncating(pair[1] as u64);
            }
            for &s in &queued {
                let word = self.slots[s].to_u64() | Self::MASK;
                self.slots[s] = I::Bits::from_u64_truncating(word);
            }
            self.free.links = links;
        } else {
            self.free
                .links
                .resize(self.slots.len(), I::Bits::from_u64_truncating(0));
        }
    }

    /// Switches an empty-queued table built from parts to side links when it
    /// has too many slots for links in the slots.
    pub(super) fn links_for_slot_count(&mut self) {
        debug_assert_eq!(self.free.settled_len(), 0);
        if self.slots.len() > Self::LINKS_IN_SLOTS {
            self.free.links = alloc::vec![I::Bits::from_u64_truncating(0); self.slots.len()];
        }
    }
}
