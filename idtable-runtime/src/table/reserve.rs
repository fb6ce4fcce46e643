//! [`Reservations`]: ids reserved from a shared borrow
//! ([`IdTable::reserve_id`](super::IdTable::reserve_id) and its batch form),
//! for systems that run in parallel over `&table` and must name the objects
//! they will create before the rows exist.
//!
//! # How a reservation is taken
//!
//! While only `&IdTable` exists, nothing but reservations changes it, and
//! what they read is frozen: the slots, the free queue and the slot count.
//! So the ids the next inserts would issue form a fixed sequence, the
//! [`Plan`]: the queued slots an insert may take (all but the
//! `min_free - 1` it holds back), then the fresh indices, then the
//! held-back queued slots, then nothing. A reservation claims the next `n`
//! positions of that sequence with one atomic step on `claims`, refusing,
//! without claiming, what would run past its end: a compare-and-swap for a
//! batch, a `fetch_add` for one id (a refused one puts the count back to the
//! end, which every claimer sees as full meanwhile). A claimed fresh
//! position is its index. A claimed queued position is taken off the
//! queue's front by a compare-and-swap of `cursor` along the frozen links:
//! the queue's first slots go to the claims of queued positions, one each,
//! in FIFO order (which claim gets which slot is a race, which slot is
//! taken is not).
//!
//! # How it is settled
//!
//! Claims are pending while `claims` is not 0. Every exclusive path that
//! reads or changes the free queue or the slot count (an insert, a removal,
//! a fill, a release, a clear) settles them first, out of line, so the
//! sequence the claims were made on is still the table's when they are
//! settled. Settling allocates nothing and cannot fail, whatever the number
//! of claims: the claimed queued slots leave the queue, each word holding
//! its reserved id's generation and the dense field `RESERVED` (`MASK - 1`:
//! vacant, and no link of the free queue, see `table/free.rs`), which is the
//! reservation's mark; the claimed fresh indices join the [`Tail`]
//! (`table/tail.rs`), only counted. A tail index gets its slot word when a
//! fill of it or an insert of the fresh index after the tail needs it
//! ("making the tail"), which may fail for want of memory: the fill or the
//! insert then refuses, changing nothing. A reservation resolves to nothing
//! until it is filled (its slot is vacant, or past the slots); an ordinary
//! insert never sees it again (it is in no queue, and below the tail's
//! end). Lookups never look at reservations. Releasing a reservation, or
//! clearing the table, spends its id: a slot word goes back to the queue
//! with the reserved generation spent, a tail index is marked spent and
//! joins the queue when its word is made, so a reserved id is never issued
//! twice.
//!
//! Invariants: `claims` is 0 whenever an exclusive path other than the
//! settling itself runs; `cursor` is [`UNSET`] while no queued slot is
//! claimed; `held` is the number of slot words marked `RESERVED` (below the
//! live length's reach: a table whose every index is live has none).

use super::tail::Tail;
use super::IdTable;
use crate::id::Id;
use crate::sync::{const_fn, AtomicUsize, Ordering};

/// The reservation cursor while no queued slot has been claimed since the
/// last exclusive access.
const UNSET: usize = usize::MAX;

/// Where the positions of the sequence of a frozen table fall (see the
/// module docs): `reusable` queued slots, `fresh` fresh indices starting at
/// `first_fresh`, then `held` queued slots.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    reusable: usize,
    fresh: usize,
    first_fresh: usize,
    held: usize,
}

/// What position `k` of a [`Plan`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Position {
    /// The `n`-th slot of the free queue (from its front).
    Queued(usize),
    /// The fresh index `i`.
    Fresh(usize),
}

impl Plan {
    /// The sequence of a table with `queue_len` queued slots and
    /// `slot_count` slots, which can have at most `slot_limit` slots, under
    /// `min_free`.
    #[inline]
    pub(super) fn new(
        queue_len: usize,
        slot_count: usize,
        slot_limit: usize,
        min_free: usize,
    ) -> Self {
        let reusable = queue_len.saturating_sub(min_free.saturating_sub(1));
        Plan {
            reusable,
            fresh: slot_limit.saturating_sub(slot_count),
            first_fresh: slot_count,
            held: queue_len - reusable,
        }
    }

    /// How many queued slots come first.
    #[inline]
    pub(super) fn reusable(self) -> usize {
        self.reusable
    }

    /// Number of positions.
    #[inline]
    pub(super) fn total(self) -> usize {
        self.reusable + self.fresh + self.held
    }

    /// How many of the first `claims` positions are queued slots and how
    /// many are fresh indices.
    #[inline]
    pub(super) fn split(self, claims: usize) -> (usize, usize) {
        let early = claims.min(self.reusable);
        let fresh = claims.saturating_sub(self.reusable).min(self.fresh);
        let late = claims
            .saturating_sub(self.reusable + self.fresh)
            .min(self.held);
        (early + late, fresh)
    }

    /// Position `k`, or `None` past the end.
    #[inline]
    pub(super) fn position(self, k: usize) -> Option<Position> {
        if k >= self.total() {
            None
        } else if k < self.reusable {
            Some(Position::Queued(k))
        } else if k < self.reusable + self.fresh {
            Some(Position::Fresh(self.first_fresh + (k - self.reusable)))
        } else {
            Some(Position::Queued(k - self.fresh))
        }
    }

    /// The fresh indices among positions `start..end`.
    #[inline]
    pub(super) fn fresh_between(self, start: usize, end: usize) -> core::ops::Range<usize> {
        let (_, before) = self.split(start);
        let (_, upto) = self.split(end);
        self.first_fresh + before..self.first_fresh + upto
    }
}

/// The reservations of one table: the claims pending since the last
/// exclusive access, and the settled reservations.
pub(super) struct Reservations {
    /// Positions of the [`Plan`] claimed since the last exclusive access.
    claims: OwnLine<AtomicUsize>,
    /// The queue's front as claims left it, or [`UNSET`] while they took no
    /// queued slot (then it is the queue's own front).
    cursor: AtomicUsize,
    /// How many slot words hold a settled reservation (`RESERVED`).
    held: usize,
    /// The settled reservations of fresh indices past the slot words.
    tail: Tail,
}

/// A value alone in its cache line (assumed 64 bytes): `claims` is the one
/// word threads reserving at once all write, and the words every claim
/// only reads stay out of its line.
#[repr(align(64))]
struct OwnLine<T>(T);

impl Clone for Reservations {
    fn clone(&self) -> Self {
        Reservations {
            claims: OwnLine(AtomicUsize::new(self.claims.0.load(Ordering::Relaxed))),
            cursor: AtomicUsize::new(self.cursor.load(Ordering::Relaxed)),
            held: self.held,
            tail: self.tail.clone(),
        }
    }
}

impl Reservations {
    const_fn! {
        pub(super) const fn new() -> Self {
            Reservations {
                claims: OwnLine(AtomicUsize::new(0)),
                cursor: AtomicUsize::new(UNSET),
                held: 0,
                tail: Tail::new(),
            }
        }
    }

    /// Reservations of a loaded table: none waiting, and a tail of `spent`
    /// spent indices past its `slot_count` slots.
    pub(super) fn loaded(slot_count: usize, spent: usize) -> Self {
        let mut r = Self::new();
        r.tail = Tail::all_spent(slot_count, spent);
        r
    }

    /// Positions claimed since the last exclusive access, as a shared
    /// borrow sees them.
    #[inline]
    pub(super) fn claims(&self) -> usize {
        self.claims.0.load(Ordering::Relaxed)
    }

    /// Whether claims wait to be settled (with exclusive access).
    #[inline(always)]
    pub(super) fn pending(&mut self) -> bool {
        *self.claims.0.get_mut() != 0
    }

    /// Whether nothing is pending and the tail is empty: the next fresh
    /// index is the slot count, and an insert needs nothing settled.
    #[inline(always)]
    pub(super) fn calm(&mut self) -> bool {
        (*self.claims.0.get_mut() | self.tail.len()) == 0
    }

    /// Ends the pending claims for settling: returns how many there were.
    /// The caller settles that many positions of the plan they were made
    /// on.
    #[inline]
    pub(super) fn take_claims(&mut self) -> usize {
        *self.cursor.get_mut() = UNSET;
        core::mem::take(&mut *self.claims.0.get_mut())
    }

    /// Positions claimed, with exclusive access.
    #[inline]
    pub(super) fn claims_mut(&mut self) -> usize {
        *self.claims.0.get_mut()
    }

    /// Ends the one pending claim, of a fresh index, which the caller made
    /// live itself (no queued slot was claimed, so the cursor is unset).
    #[inline]
    pub(super) fn end_sole_claim(&mut self) {
        debug_assert_eq!(self.claims_mut(), 1);
        *self.claims.0.get_mut() = 0;
    }

    /// Counts `n` more slot words holding a reservation.
    #[inline]
    pub(super) fn hold(&mut self, n: usize) {
        self.held += n;
    }

    /// Counts one slot word less holding a reservation (filled or
    /// released).
    #[inline]
    pub(super) fn unhold(&mut self) {
        self.held -= 1;
    }

    /// Number of slot words holding a reservation.
    #[inline]
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// The tail of reserved fresh indices.
    #[inline(always)]
    pub(super) fn tail(&self) -> &Tail {
        &self.tail
    }

    /// The tail, to settle, spend or take from.
    #[inline]
    pub(super) fn tail_mut(&mut self) -> &mut Tail {
        &mut self.tail
    }

    /// Number of settled reservations.
    #[inline]
    pub(super) fn count(&self) -> usize {
        self.held + self.tail.reserved()
    }
}

#[cfg(target_has_atomic = "ptr")]
impl Reservations {
    /// Claims the next `n` of `total` positions with one atomic step: the
    /// first position claimed, or, claiming nothing if fewer than `n`
    /// remain, the positions claimed already as last seen.
    #[inline]
    pub(super) fn claim(&self, n: usize, total: usize) -> Result<usize, usize> {
        let claims = &self.claims.0;
        if n == 1 {
            // One position needs no compare-and-swap: a claim past the end
            // is refused, and the count it added is put back to the end,
            // which every claimer sees as full meanwhile.
            let k = claims.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                claims.store(total, Ordering::Relaxed);
                return Err(total);
            }
            Ok(k)
        } else {
            claims.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| {
                k.checked_add(n).filter(|&end| end <= total)
            })
        }
    }

    /// Takes `count` slots off the queue's front as claims left it, from
    /// `front` (the queue's own front) along the frozen links `after`,
    /// returning the first (the others follow it along the links). The
    /// caller claimed them.
    #[inline]
    pub(super) fn take_queued(
        &self,
        count: usize,
        front: usize,
        after: impl Fn(usize) -> usize,
    ) -> usize {
        let cursor = &self.cursor;
        let mut seen = cursor.load(Ordering::Relaxed);
        loop {
            let head = if seen == UNSET { front } else { seen };
            // The last slot taken links to garbage, which only a claim past
            // the queue's end would follow: none is made.
            let mut next = head;
            for _ in 0..count {
                next = after(next);
            }
            // `next` may equal `UNSET` only if it is garbage; store it as
            // is: no later claim reads it.
            match cursor.compare_exchange_weak(seen, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return head,
                Err(now) => seen = now,
            }
        }
    }
}

/// The ids of one [`IdTable::reserve_ids`] batch: its queued slots
/// (oldest first), then its fresh indices. Every id of the batch is reserved
/// when the iterator is made; dropping it before the end leaves the ids it
/// did not yield reserved, counted by [`reserved_len`](IdTable::reserved_len)
/// until [`clear`](IdTable::clear).
///
/// ```
/// use idtable::table::ReservedIds;
/// use idtable::{Id, Id32_32, IdTable};
///
/// let table = IdTable::<Id32_32>::new();
/// let mut batch: ReservedIds<'_, Id32_32> = table.reserve_ids(3);
/// assert_eq!(batch.len(), 3);
/// let first = batch.next().unwrap();
/// assert_eq!((first.index(), batch.len()), (0, 2));
/// drop(batch);
/// assert_eq!(table.reserved_len(), 3); // the batch's ids stay reserved
/// ```
#[cfg(target_has_atomic = "ptr")]
pub struct ReservedIds<'a, I: Id> {
    table: &'a IdTable<I>,
    queued: usize,
    next_queued: usize,
    fresh: core::ops::Range<usize>,
}

#[cfg(target_has_atomic = "ptr")]
impl<'a, I: Id> ReservedIds<'a, I> {
    /// The batch of `queued` slots from `first_queued` along the queue's
    /// links, then the `fresh` indices.
    pub(super) fn new(
        table: &'a IdTable<I>,
        queued: usize,
        first_queued: usize,
        fresh: core::ops::Range<usize>,
    ) -> Self {
        ReservedIds {
            table,
            queued,
            next_queued: first_queued,
            fresh,
        }
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> Iterator for ReservedIds<'_, I> {
    type Item = I;

    #[inline]
    fn next(&mut self) -> Option<I> {
        if self.queued > 0 {
            let s = self.next_queued;
            self.queued -= 1;
            if self.queued > 0 {
                self.next_queued = self.table.queued_after(s);
            }
            return Some(self.table.queued_id(s));
        }
        let index = self.fresh.next()?;
        Some(self.table.fresh_id(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.queued + self.fresh.len();
        (n, Some(n))
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> ExactSizeIterator for ReservedIds<'_, I> {}

/// Shows how many ids the batch has left to yield.
#[cfg(target_has_atomic = "ptr")]
impl<I: Id> core::fmt::Debug for ReservedIds<'_, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReservedIds")
            .field("left", &self.len())
            .finish_non_exhaustive()
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> core::iter::FusedIterator for ReservedIds<'_, I> {}

#[cfg(all(test, target_has_atomic = "ptr"))]
mod tests {
    use super::super::{OnExhausted, TableConfig};
    use super::*;
    use crate::id::Id;
    use crate::id::{Id32, Id32_32};
    use alloc::collections::BTreeSet;
    use proptest::prelude::*;

    fn config(min_free: usize, on_exhausted: OnExhausted) -> TableConfig {
        TableConfig {
            min_free,
            on_exhausted,
        }
    }

    /// A table with a few freed slots queued.
    fn churned(min_free: usize) -> IdTable<Id32_32> {
        let mut t = IdTable::with_config(config(min_free, OnExhausted::Retire));
        let ids: Vec<_> = (0..8).map(|_| t.insert().0).collect();
        for &id in ids.iter().step_by(2) {
            t.remove(id);
        }
        t
    }

    /// Each reservation takes the id the next insert would have issued.
    #[test]
    fn reservations_follow_the_insert_sequence() {
        for min_free in [0, 1, 3, 5] {
            let mut t = churned(min_free);
            let mut expect = t.clone();
            let mut reserved = Vec::new();
            for _ in 0..6 {
                let next = t.next_id().unwrap();
                let id = t.reserve_id();
                assert_eq!(id, next, "min_free {min_free}");
                reserved.push(id);
            }
            let issued: Vec<_> = (0..6).map(|_| expect.insert().0).collect();
            assert_eq!(reserved, issued, "min_free {min_free}");
            assert_eq!(t.reserved_len(), 6);
            for &id in &reserved {
                assert!(!t.contains(id));
                assert!(t.insert_reserved(id).is_some(), "{id:?} was reserved");
            }
            assert_eq!(t.reserved_len(), 0);
            assert_eq!(t.ids()[4..], reserved[..]);
            t.check_invariants();
        }
    }

    /// Reserving then filling one id at a time (the fill makes the fresh
    /// slot itself, without settling) leaves the table that inserting
    /// leaves, removals and `min_free` included, across the line where the
    /// free list's links leave the slots.
    #[test]
    fn reserve_then_fill_one_at_a_time_is_an_insert() {
        for min_free in [0, 1, 3] {
            let mut t = IdTable::<Id32<6>>::with_config(config(min_free, OnExhausted::Retire));
            let mut expect = t.clone();
            for round in 0..200usize {
                let id = t.reserve_id();
                let (want, dense) = expect.insert();
                assert_eq!(id, want, "min_free {min_free}, round {round}");
                assert_eq!(t.insert_reserved(id), Some(dense));
                assert_eq!(t.insert_reserved(id), None);
                // Up to 45 live (past the line at 31 slots), then churn.
                if round % 3 == 2 || t.len() > 45 {
                    let gone = t.ids()[round % t.len()];
                    assert_eq!(t.remove(gone), expect.remove(gone));
                    assert!(!t.contains(gone));
                }
                t.check_invariants();
                assert_eq!(t.reserved_len(), 0);
                assert!(t == expect, "min_free {min_free}, round {round}");
            }
        }
    }

    /// A batch of fresh reservations settled at once (into the tail), some
    /// released (given slot words and queued), the rest filled from the
    /// last: every one fills once.
    #[test]
    fn a_settled_batch_fills_each_id_once() {
        let mut t = IdTable::<Id32_32>::new();
        for _ in 0..61 {
            t.insert();
        }
        let ids: Vec<_> = t.reserve_ids(150).collect();
        assert_eq!(ids[0].index(), 61);
        for &id in ids.iter().step_by(7) {
            assert!(t.release_reserved(id));
        }
        t.check_invariants();
        for (i, &id) in ids.iter().enumerate().rev() {
            let filled = t.insert_reserved(id).is_some();
            assert_eq!(filled, i % 7 != 0, "{id:?}");
        }
        assert_eq!(t.reserved_len(), 0);
        assert_eq!(t.len(), 61 + 150 - 150usize.div_ceil(7));
        t.check_invariants();
    }

    #[test]
    fn a_batch_is_the_same_ids_as_one_by_one() {
        let t = churned(0);
        let one_by_one: BTreeSet<_> = {
            let c = t.clone();
            (0..7).map(|_| c.reserve_id()).collect()
        };
        let batch: BTreeSet<_> = t.reserve_ids(7).collect();
        assert_eq!(batch, one_by_one);
        assert_eq!(t.reserved_len(), 7);
    }

    #[test]
    fn inserts_never_issue_a_reserved_id() {
        let mut t = churned(0);
        let reserved: Vec<_> = t.reserve_ids(3).collect();
        let queued_left = t.free_count();
        let inserted: Vec<_> = (0..10).map(|_| t.insert().0).collect();
        assert_eq!(queued_left, 1);
        t.check_invariants();
        for id in &reserved {
            assert!(!inserted.contains(id));
            assert!(!t.contains(*id));
        }
        for id in reserved {
            t.insert_reserved(id).unwrap();
        }
        t.check_invariants();
        assert_eq!(t.len(), 4 + 10 + 3);
    }

    #[test]
    fn a_released_or_cleared_reservation_is_spent() {
        let mut t = churned(0);
        let a = t.reserve_id();
        let b = t.reserve_id();
        assert!(t.release_reserved(a));
        assert!(!t.release_reserved(a));
        assert_eq!(t.insert_reserved(a), None);
        t.clear();
        assert_eq!(t.reserved_len(), 0);
        assert_eq!(t.insert_reserved(b), None);
        let after: Vec<_> = (0..20).map(|_| t.insert().0).collect();
        assert!(!after.contains(&a) && !after.contains(&b));
        t.check_invariants();
    }

    #[test]
    fn exhaustion_counts_reservations() {
        let mut t = IdTable::<Id32<3>>::new(); // 7 usable indices
        let live: Vec<_> = (0..4).map(|_| t.insert().0).collect();
        let reserved: Vec<_> = t.reserve_ids(3).collect();
        assert!(t.try_reserve_id().is_err());
        assert!(t.try_reserve_ids(1).is_err());
        assert!(t.try_insert().is_err());
        assert!(t.next_id().is_err());
        t.remove(live[0]);
        let (again, _) = t.insert();
        assert_eq!(again.index(), live[0].index());
        for id in reserved {
            t.insert_reserved(id).unwrap();
        }
        assert_eq!(t.len(), 7);
        t.check_invariants();
    }

    #[test]
    fn refused_reservations_claim_nothing() {
        let mut t = IdTable::<Id32<2>>::new(); // 3 usable indices
        let a = t.reserve_id();
        let b = t.reserve_id();
        // Refused claims count nothing: a batch longer than what is left,
        // then, on the full table, single ids and a batch of one (both
        // through the `fetch_add` path).
        for _ in 0..3 {
            assert!(t.try_reserve_ids(2).is_err());
            assert_eq!(t.reserved_len(), 2);
        }
        let c = t.reserve_id();
        for _ in 0..3 {
            assert!(t.try_reserve_id().is_err());
            assert!(t.try_reserve_ids(1).is_err());
            assert_eq!(t.reserved_len(), 3);
            assert!(t.next_id().is_err());
        }
        for id in [a, b, c] {
            t.insert_reserved(id).unwrap();
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.reserved_len(), 0);
        t.check_invariants();
        t.remove(a);
        assert_eq!(t.reserve_id().index(), a.index());
        t.check_invariants();
    }

    /// A full table has no fresh index: an id of the all-ones index,
    /// which `from_bits` accepts, is not taken for the pending claim even
    /// when it sits where a fresh claim's would.
    #[test]
    fn a_forged_all_ones_index_is_not_a_fresh_claim() {
        let mut t = IdTable::<Id32<2>>::with_config(config(2, OnExhausted::Retire));
        let ids: Vec<_> = (0..3).map(|_| t.insert().0).collect();
        t.remove(ids[1]);
        // Every index is in use: the claim takes the held queued slot.
        let held = t.reserve_id();
        assert_eq!(held.index(), ids[1].index());
        let forged = Id32::<2>::from_bits(1 << 2 | 3).unwrap();
        assert_eq!(forged.index(), 3);
        assert_eq!(t.insert_reserved(forged), None);
        assert!(t.insert_reserved(held).is_some());
        assert_eq!(t.len(), 3);
        t.check_invariants();
    }

    #[test]
    fn threads_reserve_the_same_set_as_one_thread() {
        let t = churned(2);
        let expect: BTreeSet<_> = {
            let c = t.clone();
            (0..400).map(|_| c.reserve_id()).collect()
        };
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|n| {
                    let t = &t;
                    s.spawn(move || {
                        let mut mine = Vec::new();
                        while mine.len() < 100 {
                            if mine.len() % 15 == n * 5 {
                                mine.extend(t.reserve_ids(5));
                            } else {
                                mine.push(t.reserve_id());
                            }
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let got_set: BTreeSet<_> = got.iter().copied().collect();
        assert_eq!(got_set.len(), got.len(), "an id was reserved twice");
        assert_eq!(t.reserved_len(), 400);
        assert_eq!(got_set, expect);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Reserve,
        ReserveMany(usize),
        Fill(usize),
        Release(usize),
        Insert,
        Remove(usize),
        Clear,
        Reload,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Reserve),
            1 => (0..5usize).prop_map(Op::ReserveMany),
            3 => any::<usize>().prop_map(Op::Fill),
            1 => any::<usize>().prop_map(Op::Release),
            3 => Just(Op::Insert),
            3 => any::<usize>().prop_map(Op::Remove),
            1 => Just(Op::Clear),
            1 => Just(Op::Reload),
        ]
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config(256, 4))]
        /// Against a model: every id handed out (inserted or reserved) is
        /// new; a reservation resolves to nothing until filled; filling and
        /// releasing accept exactly the waiting reservations; the table's
        /// invariants hold after every exclusive step.
        #[test]
        fn reservations_against_a_model(
            min_free in prop_oneof![
                4 => 0..4usize,
                1 => Just(usize::MAX),
                1 => Just(1usize << (usize::BITS - 1)),
                1 => Just((1usize << (usize::BITS - 1)) + 1),
            ],
            wrap in any::<bool>(),
            ops in proptest::collection::vec(op(), 1..120),
        ) {
            let policy = if wrap { OnExhausted::Wrap } else { OnExhausted::Retire };
            // 32 indices, 2^27 generations: nothing wraps in a run.
            let mut t = IdTable::<Id32<5>>::with_config(config(min_free, policy));
            let mut issued = BTreeSet::new();
            let mut waiting: Vec<Id32<5>> = Vec::new();
            for op in ops {
                match op {
                    Op::Reserve => {
                        if let Ok(id) = t.try_reserve_id() {
                            prop_assert!(issued.insert(id), "{id:?} issued twice");
                            prop_assert!(!t.contains(id));
                            waiting.push(id);
                        }
                    }
                    Op::ReserveMany(n) => {
                        if let Ok(ids) = t.try_reserve_ids(n) {
                            for id in ids {
                                prop_assert!(issued.insert(id), "{id:?} issued twice");
                                waiting.push(id);
                            }
                        }
                    }
                    Op::Fill(i) if !waiting.is_empty() => {
                        let id = waiting.swap_remove(i % waiting.len());
                        prop_assert!(t.insert_reserved(id).is_some());
                        prop_assert!(t.contains(id));
                        prop_assert_eq!(t.insert_reserved(id), None);
                    }
                    Op::Release(i) if !waiting.is_empty() => {
                        let id = waiting.swap_remove(i % waiting.len());
                        prop_assert!(t.release_reserved(id));
                        prop_assert!(!t.contains(id));
                    }
                    Op::Fill(_) | Op::Release(_) => {}
                    Op::Insert => {
                        if let Ok((id, _)) = t.try_insert() {
                            prop_assert!(issued.insert(id), "{id:?} issued twice");
                        }
                    }
                    Op::Remove(i) if !t.is_empty() => {
                        let id = t.ids()[i % t.len()];
                        t.remove(id);
                    }
                    Op::Remove(_) => {}
                    Op::Clear => {
                        t.clear();
                        for id in waiting.drain(..) {
                            prop_assert_eq!(t.insert_reserved(id), None);
                        }
                    }
                    Op::Reload => {
                        // Saved reservations are spent: the loaded table
                        // has none and never issues them. With serde, the
                        // table is saved through it (which must agree with
                        // its parts).
                        let parts = t.to_parts();
                        #[cfg(feature = "serde")]
                        {
                            let json = serde_json::to_string(&t).unwrap();
                            let saved: super::super::IdTableParts =
                                serde_json::from_str(&json).unwrap();
                            prop_assert_eq!(&saved, &parts);
                        }
                        t = IdTable::from_parts(&parts, t.config()).unwrap();
                        for id in waiting.drain(..) {
                            prop_assert_eq!(t.insert_reserved(id), None);
                        }
                    }
                }
                prop_assert_eq!(t.reserved_len(), waiting.len());
                for &id in &waiting {
                    prop_assert!(!t.contains(id));
                }
                let mut settled = t.clone();
                settled.settle_reservations();
                settled.check_invariants();
            }
        }
    }
}
