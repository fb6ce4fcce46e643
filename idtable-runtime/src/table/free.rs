//! [`FreeQueue`]: the FIFO queue of freed slots.
//!
//! The queue owns one thing besides its own fields: the dense field of each
//! slot it holds (the low `INDEX_BITS` of the slot's word; the generation
//! above them stays the table's). Where its links live depends only on the
//! table's slot count:
//!
//! * **At most [`FreeQueue::IN_SLOTS`] slots** (half the layout's indices:
//!   2^31 - 1 for `Id32_32`, 32,767 for `Id16_16`): each queued slot but the
//!   last holds the link to the next one in its dense field, written as
//!   `MASK - 2 - next`, at least the slot count, so never a live dense
//!   index, and below `MASK - 1`, the dense field of a reserved slot
//!   (`table/reserve.rs`). The last queued slot holds `MASK`, like every
//!   other vacant slot. The queue then costs no memory beyond the slots.
//! * **More slots**: that encoding could collide with a live dense index, so
//!   every queued slot holds `MASK` and the links live in `side`, one word
//!   per slot, made when the table crosses the line (in
//!   [`FreeQueue::slots_grew`], the cold path of a fresh slot).
//!
//! Either way a vacant slot's dense field is at least the number of live
//! ids, so a lookup that reaches it fails on the same bounds check as any
//! other miss; pushing a slot writes one word and never allocates; popping
//! reads the link from the word the insert reads anyway.
//!
//! Invariants, checked by [`FreeQueue::check`]: `len` slots are queued, each
//! once, each vacant; `head` is the oldest and `tail` the newest while
//! `len > 0`; `side` is empty exactly while the links live in the slots, and
//! otherwise has one word per slot.

use alloc::vec::Vec;

use crate::id::{index_mask, Id, IdBits};

/// The queue's head, tail and length, and the side links once the table
/// has outgrown links in its slots (see the module docs).
pub(super) struct FreeQueue<I: Id> {
    /// The oldest queued slot (meaningless while `len` is 0).
    head: usize,
    /// The newest queued slot (meaningless while `len` is 0).
    tail: usize,
    len: usize,
    /// Empty while the links live in the slots; otherwise `side[s]` is the
    /// slot queued after `s` (meaningless for a slot not queued, or last).
    side: Vec<I::Bits>,
}

impl<I: Id> Clone for FreeQueue<I> {
    fn clone(&self) -> Self {
        FreeQueue {
            head: self.head,
            tail: self.tail,
            len: self.len,
            side: self.side.clone(),
        }
    }
}

impl<I: Id> FreeQueue<I> {
    const MASK: u64 = index_mask(I::INDEX_BITS);

    /// The most slots a table can have while the links live in the slots:
    /// half the layout's indices.
    pub(super) const IN_SLOTS: usize = {
        let half = Self::MASK / 2;
        if half > usize::MAX as u64 {
            usize::MAX
        } else {
            half as usize
        }
    };

    /// An empty queue.
    pub(super) const fn new() -> Self {
        FreeQueue {
            head: 0,
            tail: 0,
            len: 0,
            side: Vec::new(),
        }
    }

    /// A queue of `order`'s slots, oldest first, for a table of `slots`
    /// whose queued slots' dense fields hold `MASK` (a table built from
    /// its parts). The slots must be vacant and distinct.
    pub(super) fn from_order(
        slots: &mut [I::Bits],
        order: impl IntoIterator<Item = usize>,
    ) -> Self {
        let mut queue = Self::new();
        if !Self::links_in_slots(slots.len()) {
            queue.side = alloc::vec![I::Bits::from_u64_truncating(0); slots.len()];
        }
        for s in order {
            queue.push(slots, s);
        }
        queue
    }

    /// Whether a table of `slot_count` slots keeps the links in them.
    #[inline(always)]
    fn links_in_slots(slot_count: usize) -> bool {
        slot_count <= Self::IN_SLOTS
    }

    /// Number of queued slots.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The oldest queued slot, if any.
    #[inline]
    pub(super) fn front(&self) -> Option<usize> {
        (self.len > 0).then_some(self.head)
    }

    /// Puts vacant slot `s`, whose dense field holds `MASK`, at the back.
    #[inline(always)]
    pub(super) fn push(&mut self, slots: &mut [I::Bits], s: usize) {
        if self.len == 0 {
            self.head = s;
        } else if Self::links_in_slots(slots.len()) {
            let tail = &mut slots[self.tail];
            let word = tail.to_u64() & !Self::MASK | (Self::MASK - 2 - s as u64);
            *tail = I::Bits::from_u64_truncating(word);
        } else {
            self.link_on_side(s);
        }
        self.tail = s;
        self.len += 1;
    }

    /// [`push`](Self::push)'s link past the line: in `side`.
    #[cold]
    #[inline(never)]
    fn link_on_side(&mut self, s: usize) {
        self.side[self.tail] = I::Bits::from_u64_truncating(s as u64);
    }

    /// Takes the oldest slot off the queue, which must not be empty. Its
    /// dense field still holds a link or `MASK`: the caller rewrites the
    /// whole word.
    #[inline(always)]
    pub(super) fn pop(&mut self, slots: &[I::Bits]) -> usize {
        debug_assert!(self.len > 0, "pop from an empty free queue");
        let s = self.head;
        self.head = self.after(slots, s);
        self.len -= 1;
        s
    }

    /// The slot queued after `s` (garbage for the last one, never
    /// followed).
    #[inline(always)]
    pub(super) fn after(&self, slots: &[I::Bits], s: usize) -> usize {
        if Self::links_in_slots(slots.len()) {
            Self::link_in(slots[s])
        } else {
            self.after_on_side(s)
        }
    }

    /// The slot a queued slot's word links to, below the line.
    #[inline(always)]
    fn link_in(word: I::Bits) -> usize {
        ((Self::MASK - 2).wrapping_sub(word.to_u64()) & Self::MASK) as usize
    }

    #[cold]
    #[inline(never)]
    fn after_on_side(&self, s: usize) -> usize {
        self.side[s].to_u64() as usize
    }

    /// The queued slots, oldest first.
    pub(super) fn iter<'a>(
        &'a self,
        slots: &'a [I::Bits],
    ) -> impl ExactSizeIterator<Item = usize> + 'a {
        let mut s = self.head;
        (0..self.len).map(move |i| {
            if i > 0 {
                s = self.after(slots, s);
            }
            s
        })
    }

    /// Keeps the links right after slots were appended (each vacant with
    /// `MASK`, reserved, or live): moves them out of the slots when the
    /// table passes [`IN_SLOTS`](Self::IN_SLOTS), and afterwards keeps one
    /// side link per slot. A no-op below the line. Allocates only what
    /// [`try_reserve_for`](Self::try_reserve_for) would have reserved.
    #[cold]
    #[inline(never)]
    pub(super) fn slots_grew(&mut self, slots: &mut [I::Bits]) {
        if Self::links_in_slots(slots.len()) {
            return;
        }
        if !self.side.is_empty() {
            self.side
                .resize(slots.len(), I::Bits::from_u64_truncating(0));
            return;
        }
        // Crossing the line: each link moves from its slot (as it was,
        // below the line) to the side, read before the slot is cleared.
        // The side's room, if reserved, is in `self.side` already.
        let mut side = core::mem::take(&mut self.side);
        side.resize(slots.len(), I::Bits::from_u64_truncating(0));
        let mut s = self.head;
        for i in 0..self.len {
            let word = slots[s].to_u64();
            slots[s] = I::Bits::from_u64_truncating(word | Self::MASK);
            if i + 1 < self.len {
                let next = Self::link_in(I::Bits::from_u64_truncating(word));
                side[s] = I::Bits::from_u64_truncating(next as u64);
                s = next;
            }
        }
        self.side = side;
    }

    /// Room for the side links of a table of `slot_count` slots, so that
    /// [`slots_grew`](Self::slots_grew) to that many allocates nothing;
    /// `false` (and nothing changes) if it cannot be had.
    pub(super) fn try_reserve_for(&mut self, slot_count: usize) -> bool {
        if Self::links_in_slots(slot_count) {
            return true;
        }
        self.side
            .try_reserve_exact(slot_count.saturating_sub(self.side.len()))
            .is_ok()
    }

    /// Room for `additional` more slots' side links, when they are kept.
    pub(super) fn reserve(&mut self, additional: usize) {
        if !self.side.is_empty() {
            self.side.reserve(additional);
        }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.side.shrink_to_fit();
    }

    /// Whether the links live on the side (for tests).
    #[cfg(test)]
    pub(super) fn links_on_side(&self) -> bool {
        !self.side.is_empty()
    }

    /// Checks the queue's invariants (module docs) for a table of `slots`
    /// with `live` live ids, and returns which slots are queued.
    ///
    /// # Panics
    ///
    /// With a message naming the first invariant that does not hold.
    pub(super) fn check(&self, slots: &[I::Bits], live: usize) -> Vec<bool> {
        let in_slots = Self::links_in_slots(slots.len());
        if in_slots {
            assert!(self.side.is_empty(), "side links below the line");
        } else {
            assert_eq!(self.side.len(), slots.len(), "one side link per slot");
        }
        let mut queued = alloc::vec![false; slots.len()];
        let mut s = self.head;
        for i in 0..self.len {
            if i > 0 {
                s = self.after(slots, s);
            }
            assert!(
                s < slots.len(),
                "the free queue names slot {s}, past the slots"
            );
            assert!(!queued[s], "slot {s} is queued twice");
            queued[s] = true;
            let dense = slots[s].to_u64() & Self::MASK;
            assert!(dense >= live as u64, "queued slot {s} is occupied");
            let last = i + 1 == self.len;
            if in_slots {
                assert_eq!(
                    dense == Self::MASK,
                    last,
                    "queued slot {s}: only the last one has no link"
                );
            } else {
                assert_eq!(dense, Self::MASK, "queued slot {s} has a link in its slot");
            }
            if last {
                assert_eq!(s, self.tail, "the free queue's tail is not its last slot");
            }
        }
        queued
    }
}
