//! Ids reserved from a shared borrow: [`IdTable::reserve_id`] and its
//! batch form, for systems that run in parallel over `&table` and must name
//! the objects they will create before the rows exist.
//!
//! # How a reservation is taken
//!
//! While only `&IdTable` exists, nothing but reservations changes it, and
//! what they read is frozen: the slots, the queue's links, its length and
//! the slot count. So the ids the next inserts would issue form a fixed
//! sequence: the queued slots an insert may take (all but the `min_free - 1`
//! it holds back), then the fresh indices, then the held-back queued slots,
//! then nothing. A reservation claims the next `n` positions of that
//! sequence with one atomic step on `claims`, refusing, without claiming,
//! what would run past its end: a compare-and-swap for a batch, a
//! `fetch_add` for one id (a refused one puts the count back to the end,
//! which every claimer sees as full meanwhile). A claimed fresh position
//! is its index. A claimed queued position is taken off the queue's front by a
//! compare-and-swap of `head` along the frozen links: the queue's first
//! slots go to the claims of queued positions, one each, in FIFO order
//! (which claim gets which slot is a race, which slot is taken is not).
//! The first claim also sets the [`PENDING`] flag in the queue's length.
//!
//! # How it is settled
//!
//! The exclusive paths that read the queue (an insert that would take a
//! queued slot, a free, the reservation methods below) find the flag where
//! they read the length anyway, and settle first, out of line: the claimed
//! queued slots get their new generation and leave the queue, the claimed
//! fresh indices become slots, each such slot is marked in `bits` and
//! counted. A reserved slot's word holds the reserved id's generation and
//! the vacant dense field, so the id resolves to nothing until
//! [`IdTable::insert_reserved`] makes it live; an ordinary insert never
//! sees the slot again (it is in no queue and below the slot count).
//! Lookups never look at reservations. [`IdTable::release_reserved`] and
//! [`IdTable::clear`] hand reserved slots back to the queue with their
//! reserved generation spent, so a reserved id is never issued twice.

use super::free::PENDING;

/// The reservation cursor while no queued slot has been reserved since the
/// last exclusive access.
const UNSET: usize = usize::MAX;
use super::{IdTable, TableFull};
use crate::id::{Id, IdBits};
use crate::sync::Ordering;

/// Where the claims of the sequence of a frozen table fall (see the module
/// docs): `reusable` queued slots, `fresh` fresh indices starting at
/// `first_fresh`, then `held` queued slots.
#[derive(Clone, Copy, Debug)]
struct Plan {
    reusable: usize,
    fresh: usize,
    first_fresh: usize,
    held: usize,
}

impl Plan {
    fn total(self) -> usize {
        self.reusable + self.fresh + self.held
    }

    /// How many of the first `claims` positions are queued slots and how
    /// many are fresh indices.
    fn split(self, claims: usize) -> (usize, usize) {
        let early = claims.min(self.reusable);
        let fresh = claims.saturating_sub(self.reusable).min(self.fresh);
        let late = claims
            .saturating_sub(self.reusable + self.fresh)
            .min(self.held);
        (early + late, fresh)
    }
}

/// How a reservation waits for its row ([`IdTable::waiting`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Waiting {
    /// Settled: its slot is marked and holds its generation, vacant.
    Settled,
    /// The only claim pending, of a fresh index: its slot does not exist
    /// yet.
    SoleFresh,
}

impl<I: Id> IdTable<I> {
    /// The sequence the reservations claim from, for the table as frozen
    /// at the last exclusive access and a queue of `len` slots.
    fn plan_for(&self, len: usize) -> Plan {
        let slots = self.slots.len();
        let reusable = Self::reusable_of(len, self.config);
        let fresh = if slots > I::MAX_INDEX {
            0
        } else {
            (I::MAX_INDEX - slots).saturating_add(1)
        };
        Plan {
            reusable,
            fresh,
            first_fresh: slots,
            held: len - reusable,
        }
    }

    /// How many of the first `claims` positions of the sequence are queued
    /// slots and how many fresh indices.
    pub(super) fn plan_split(&self, claims: usize) -> (usize, usize) {
        self.claimed_plan().split(claims)
    }

    /// Queued slots claimed since the last exclusive access.
    pub(super) fn pending_queue_claims(&self) -> usize {
        let claims = self.reserved.claims.load(Ordering::Relaxed);
        if claims == 0 {
            return 0;
        }
        self.claimed_plan().split(claims).0
    }

    /// The plan the pending claims were made on (frees since may have
    /// lengthened the queue behind them).
    fn claimed_plan(&self) -> Plan {
        self.plan_now().0
    }

    /// The plan claims are made on now, and whether the [`PENDING`] flag
    /// was set. Safe from a shared borrow while other threads claim: the
    /// first claimer stores `plan_len` before it sets the flag (release),
    /// so `plan_len` is read only after the flag was seen (acquire); it
    /// holds a settled borrow's length until then. Without the flag, every
    /// claim of this borrow was made on the queue's own length.
    fn plan_now(&self) -> (Plan, bool) {
        let pending = self.free.len.load(Ordering::Acquire) & PENDING != 0;
        let len = if pending {
            self.reserved.plan_len.load(Ordering::Relaxed)
        } else {
            self.free.settled_len()
        };
        (self.plan_for(len), pending)
    }

    /// The id a reservation makes of slot `s`, queued: its next generation.
    fn queued_id(&self, s: usize) -> I {
        Self::make_id(
            s,
            Self::next_generation_after(Self::slot_generation(self.slots[s])),
        )
    }

    /// [`next_id`](IdTable::next_id) while reservations are pending: the
    /// first position of the sequence no reservation has claimed, as the
    /// next insert will find it once they are settled.
    #[cold]
    pub(super) fn next_id_after_claims(&self) -> Result<I, TableFull> {
        let plan = self.claimed_plan();
        let claims = self.reserved.claims.load(Ordering::Relaxed);
        if claims >= plan.total() {
            return Err(TableFull::new::<I>());
        }
        let (queued, fresh) = plan.split(claims);
        if claims < plan.reusable || claims >= plan.reusable + plan.fresh {
            let s = self.queued().nth(queued).expect("a claimable queued slot");
            Ok(self.queued_id(s))
        } else {
            Ok(Self::make_id(plan.first_fresh + fresh, 1))
        }
    }

    /// Settles the reservations taken since the last exclusive access (see
    /// the module docs), if any: the test is inline, the work out of line.
    #[inline]
    pub(super) fn settle_reservations(&mut self) {
        if *self.free.len.get_mut() & PENDING != 0 {
            self.settle_pending();
        }
    }

    /// [`settle_reservations`](Self::settle_reservations)' work, where the
    /// queue's length shows the [`PENDING`] flag.
    #[cold]
    #[inline(never)]
    fn settle_pending(&mut self) {
        let len = *self.free.len.get_mut();
        let plan = self.claimed_plan();
        let claims = core::mem::take(&mut *self.reserved.claims.get_mut());
        let (queued, fresh) = plan.split(claims);
        // The claimed queued slots are the queue's first `queued`: off the
        // queue, each with its reserved id's generation.
        *self.reserved.cursor.get_mut() = UNSET;
        let rest = (len & !PENDING) - queued;
        let mut s = self.free.head;
        for i in 0..queued {
            // The link is read before the slot is rewritten (below the line
            // it lives in the slot); the last slot taken links on only if
            // slots stay queued behind it.
            let next = (i + 1 < queued || rest > 0).then(|| self.next_queued(s));
            let generation = Self::next_generation_after(Self::slot_generation(self.slots[s]));
            self.slots[s] = Self::pack(generation, Self::MASK);
            self.mark_reserved(s, true);
            match next {
                Some(after) => s = after,
                None => break,
            }
        }
        if queued > 0 && rest > 0 {
            self.free.head = s;
        }
        *self.free.len.get_mut() = rest;
        // The claimed fresh indices become slots of generation 1.
        if fresh > 0 {
            let first = self.slots.len();
            self.slots.resize(first + fresh, Self::pack(1, Self::MASK));
            self.links_follow_new_slots();
            self.mark_fresh_reserved(first..first + fresh);
        }
        self.reserved.count += queued + fresh;
    }

    /// An insert that found reservations pending: settles them, then
    /// inserts.
    #[cold]
    #[inline(never)]
    pub(super) fn settle_then_insert(&mut self) -> Result<(I, usize), TableFull> {
        self.settle_reservations();
        self.try_insert()
    }

    /// Keeps the free list's side links in step with slots just added,
    /// moving the links out of the slots when the table passes the line.
    #[inline]
    fn links_follow_new_slots(&mut self) {
        if self.slots.len() > Self::LINKS_IN_SLOTS || !self.free.links.is_empty() {
            self.grow_links();
        }
    }

    #[inline]
    fn mark_reserved(&mut self, s: usize, on: bool) {
        let bits = &mut self.reserved.bits;
        let word = s / 64;
        if bits.len() <= word {
            if !on {
                return;
            }
            bits.resize(word + 1, 0);
        }
        if on {
            bits[word] |= 1 << (s % 64);
        } else {
            bits[word] &= !(1 << (s % 64));
        }
    }

    /// Marks the slots of `range` reserved, a word at a time.
    fn mark_fresh_reserved(&mut self, range: core::ops::Range<usize>) {
        let bits = &mut self.reserved.bits;
        let words = range.end.div_ceil(64);
        if bits.len() < words {
            bits.resize(words, 0);
        }
        let mut s = range.start;
        while s < range.end {
            let word = s / 64;
            let low = s % 64;
            let high = (range.end - word * 64).min(64);
            bits[word] |= (u64::MAX >> (64 - (high - low))) << low;
            s = word * 64 + high;
        }
    }

    fn is_marked(&self, s: usize) -> bool {
        self.reserved
            .bits
            .get(s / 64)
            .is_some_and(|w| w & (1 << (s % 64)) != 0)
    }

    /// Whether `id` is a settled reservation of this table: its slot is
    /// marked and holds its generation, vacant.
    fn holds_reservation(&self, id: I) -> bool {
        let s = id.index();
        self.is_marked(s)
            && self.slots[s].to_u64() == Self::pack(id.generation().to_u64(), Self::MASK).to_u64()
    }

    /// Number of ids reserved and not yet filled
    /// ([`insert_reserved`](IdTable::insert_reserved)) or released
    /// ([`release_reserved`](IdTable::release_reserved)).
    ///
    /// ```
    /// use idtable::{Id24_8, IdTable};
    ///
    /// let mut table = IdTable::<Id24_8>::new();
    /// let a = table.reserve_id();
    /// let _b = table.reserve_id();
    /// assert_eq!(table.reserved_len(), 2);
    /// table.insert_reserved(a).unwrap();
    /// assert_eq!(table.reserved_len(), 1);
    /// ```
    pub fn reserved_len(&self) -> usize {
        let claims = self.reserved.claims.load(Ordering::Relaxed);
        let (queued, fresh) = if claims == 0 {
            (0, 0)
        } else {
            self.claimed_plan().split(claims)
        };
        self.reserved.count + queued + fresh
    }

    /// How `id` waits for its row, if it is a reservation of this table
    /// still waiting: settled ([`Waiting::Settled`]), or the one claim
    /// pending, a fresh index ([`Waiting::SoleFresh`], which filling makes
    /// live without settling first). Other pending claims are settled here.
    #[inline(always)]
    pub(crate) fn waiting(&mut self, id: I) -> Option<Waiting> {
        if *self.free.len.get_mut() & PENDING != 0 {
            if self.is_sole_fresh_claim(id) {
                return Some(Waiting::SoleFresh);
            }
            self.settle_pending();
        }
        (id.index() < self.slots.len() && self.holds_reservation(id)).then_some(Waiting::Settled)
    }

    /// Whether the pending claims are one, of a fresh index, and `id` is
    /// its id: the slot past the table's end, generation 1. The slots are
    /// as the claim saw them (no exclusive access settled since), so the
    /// claimed index is the slot count.
    #[inline]
    fn is_sole_fresh_claim(&mut self, id: I) -> bool {
        // A full table has no fresh index: an id of the all-ones index
        // (which `from_bits` accepts) must not pass for one.
        *self.reserved.claims.get_mut() == 1
            && id.index() == self.slots.len()
            && id.index() <= I::MAX_INDEX
            && id.generation().to_u64() == 1
            && Self::reusable_of(*self.reserved.plan_len.get_mut(), self.config) == 0
    }

    /// Makes the waiting reservation `id` live ([`waiting`] said how it
    /// waits, and nothing ran since), appended to the dense order.
    ///
    /// [`waiting`]: Self::waiting
    #[inline(always)]
    pub(crate) fn fill_waiting(&mut self, id: I, how: Waiting) -> usize {
        let dense = self.ids.len();
        match how {
            Waiting::Settled => {
                debug_assert!(self.holds_reservation(id));
                self.slots[id.index()] = Self::pack(id.generation().to_u64(), dense as u64);
                self.mark_reserved(id.index(), false);
                self.reserved.count -= 1;
            }
            Waiting::SoleFresh => {
                // What settling then filling would leave: no claim pending,
                // the queue as it is, one more slot, live.
                debug_assert!(self.is_sole_fresh_claim(id));
                // No queued slot was claimed, so the cursor is unset.
                debug_assert_eq!(*self.reserved.cursor.get_mut(), UNSET);
                *self.reserved.claims.get_mut() = 0;
                // The flag is cleared by an atomic store of the whole word:
                // a plain `&= !PENDING` compiles to a one-byte store, and
                // the next claim's eight-byte load of the word would wait
                // for it to leave the store buffer instead of being
                // forwarded (half the time of reserving an id and filling
                // it at once).
                let len = *self.free.len.get_mut() & !PENDING;
                self.free.len.store(len, Ordering::Relaxed);
                self.slots.push(Self::pack(1, dense as u64));
                self.links_follow_new_slots();
            }
        }
        self.ids.push(id);
        dense
    }

    /// Makes the reserved `id` live, appended to the dense order, and
    /// returns its dense index; `None` (and nothing changes) if `id` is not
    /// a reservation of this table still waiting for its row: never
    /// reserved, reserved by another table, filled or released already.
    ///
    /// ```
    /// use idtable::{Id32_32, IdTable};
    ///
    /// let mut table = IdTable::<Id32_32>::new();
    /// let id = table.reserve_id();
    /// assert!(!table.contains(id)); // reserved, not live
    /// assert_eq!(table.insert_reserved(id), Some(0));
    /// assert!(table.contains(id));
    /// assert_eq!(table.insert_reserved(id), None); // filled already
    /// ```
    pub fn insert_reserved(&mut self, id: I) -> Option<usize> {
        let how = self.waiting(id)?;
        Some(self.fill_waiting(id, how))
    }

    /// Gives back a reservation that will not be filled: its slot returns
    /// to the free queue (or retires), and the id is spent, never issued
    /// again. `false` (and nothing changes) if `id` is not a reservation of
    /// this table still waiting for its row.
    ///
    /// ```
    /// use idtable::{Id32_32, IdTable};
    ///
    /// let mut table = IdTable::<Id32_32>::new();
    /// let id = table.reserve_id();
    /// assert!(table.release_reserved(id));
    /// assert!(!table.release_reserved(id));
    /// assert_eq!(table.insert_reserved(id), None);
    /// let (next, _) = table.insert();
    /// assert_ne!(next, id); // the same slot, the next generation
    /// ```
    pub fn release_reserved(&mut self, id: I) -> bool {
        self.settle_reservations();
        if id.index() >= self.slots.len() || !self.holds_reservation(id) {
            return false;
        }
        self.mark_reserved(id.index(), false);
        self.reserved.count -= 1;
        self.release(id);
        true
    }

    /// Releases every settled reservation (for [`clear`](IdTable::clear)),
    /// in slot order.
    pub(super) fn release_all_reserved(&mut self) {
        self.settle_reservations();
        if self.reserved.count == 0 {
            return;
        }
        let bits = core::mem::take(&mut self.reserved.bits);
        for (w, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let s = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let generation = Self::slot_generation(self.slots[s]);
                self.release(Self::make_id(s, generation));
            }
        }
        self.reserved.count = 0;
    }

    /// Whether slot `s` holds a settled reservation (for the invariant
    /// checks).
    pub(super) fn slot_is_reserved(&self, s: usize) -> bool {
        self.is_marked(s)
    }

    /// Settled reservations, counted.
    pub(super) fn reserved_count(&self) -> usize {
        self.reserved.count
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> IdTable<I> {
    /// Claims the next `n` positions of the sequence (see the module docs)
    /// with one atomic step, or nothing if fewer than `n` remain.
    fn claim(&self, n: usize) -> Result<(Plan, usize), TableFull> {
        // Claims pending from an earlier shared borrow were made on the
        // queue as it was then; frees since appended behind them, and the
        // sequence goes on from where they left it.
        let (plan, pending) = self.plan_now();
        let total = plan.total();
        let claims = &self.reserved.claims;
        let first = if n == 1 {
            // One position needs no compare-and-swap: a claim past the end
            // is refused, and the count it added is put back to the end,
            // which every claimer sees as full meanwhile.
            let k = claims.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                claims.store(total, Ordering::Relaxed);
                return Err(TableFull::new::<I>());
            }
            k
        } else {
            claims
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| {
                    k.checked_add(n).filter(|&end| end <= total)
                })
                .map_err(|_| TableFull::new::<I>())?
        };
        if n > 0 && !pending {
            // Every claimer of this borrow read the same length. The flag is
            // set by a read-modify-write: a plain store of the same value
            // fails the loom models (`tests/loom.rs`).
            let len = self.free.settled_len();
            self.reserved.plan_len.store(len, Ordering::Relaxed);
            self.free.len.fetch_or(PENDING, Ordering::Release);
        }
        Ok((plan, first))
    }

    /// Takes `count` slots off the queue's front, returning the first (the
    /// others follow it along the links). The caller claimed them.
    fn take_queued(&self, count: usize) -> usize {
        let cursor = &self.reserved.cursor;
        let mut seen = cursor.load(Ordering::Relaxed);
        loop {
            let head = if seen == UNSET { self.free.head } else { seen };
            // The last slot taken links to garbage, which only a claim past
            // the queue's end would follow: none is made.
            let mut after = head;
            for _ in 0..count {
                after = self.next_queued(after);
            }
            // `after` may equal `UNSET` only if it is garbage; store it as
            // is: no later claim reads it.
            match cursor.compare_exchange_weak(seen, after, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return head,
                Err(now) => seen = now,
            }
        }
    }

    /// Reserves the id the table will give the next object, from a shared
    /// borrow: lock-free, from any thread, and never the same id twice. The
    /// id resolves to nothing until [`insert_reserved`](IdTable::insert_reserved)
    /// makes it live; no ordinary insert issues it. Ids come from the free
    /// queue's oldest slots (as far as `min_free` lets an insert take them),
    /// then fresh indices.
    ///
    /// ```
    /// use idtable::{Id24_8, IdTable};
    ///
    /// let mut table = IdTable::<Id24_8>::new();
    /// let shared = &table;
    /// let (a, b) = std::thread::scope(|s| {
    ///     let a = s.spawn(|| shared.reserve_id());
    ///     let b = s.spawn(|| shared.reserve_id());
    ///     (a.join().unwrap(), b.join().unwrap())
    /// });
    /// assert_ne!(a, b);
    /// let (c, _) = table.insert(); // never a reserved id
    /// assert!(c != a && c != b);
    /// table.insert_reserved(b).unwrap();
    /// assert!(table.contains(b) && !table.contains(a));
    /// ```
    ///
    /// # Panics
    ///
    /// When every index of the layout is live, retired or reserved; see
    /// [`try_reserve_id`](IdTable::try_reserve_id).
    #[track_caller]
    pub fn reserve_id(&self) -> I {
        match self.try_reserve_id() {
            Ok(id) => id,
            Err(full) => panic!("{full}"),
        }
    }

    /// [`reserve_id`](IdTable::reserve_id), or [`TableFull`] when no id can
    /// be issued.
    ///
    /// ```
    /// use idtable::{Id32, IdTable};
    ///
    /// let table = IdTable::<Id32<2>>::new(); // three usable indices
    /// for _ in 0..3 {
    ///     assert!(table.try_reserve_id().is_ok());
    /// }
    /// assert!(table.try_reserve_id().is_err());
    /// ```
    pub fn try_reserve_id(&self) -> Result<I, TableFull> {
        let (plan, k) = self.claim(1)?;
        if k >= plan.reusable && k < plan.reusable + plan.fresh {
            return Ok(Self::make_id(plan.first_fresh + (k - plan.reusable), 1));
        }
        Ok(self.queued_id(self.take_queued(1)))
    }

    /// Reserves `n` ids at once (one claim for the batch), as
    /// [`reserve_id`](IdTable::reserve_id) would one by one.
    ///
    /// ```
    /// use idtable::{Id32_32, IdTable};
    ///
    /// let mut table = IdTable::<Id32_32>::new();
    /// let ids: Vec<_> = table.reserve_ids(64).collect();
    /// assert_eq!(table.reserved_len(), 64);
    /// for &id in &ids {
    ///     table.insert_reserved(id).unwrap();
    /// }
    /// assert_eq!(table.ids(), &ids[..]);
    /// ```
    ///
    /// # Panics
    ///
    /// When fewer than `n` ids can be issued (nothing is reserved then).
    #[track_caller]
    pub fn reserve_ids(&self, n: usize) -> ReservedIds<'_, I> {
        match self.try_reserve_ids(n) {
            Ok(ids) => ids,
            Err(full) => panic!("{full}"),
        }
    }

    /// [`reserve_ids`](IdTable::reserve_ids), or [`TableFull`] (with
    /// nothing reserved) when fewer than `n` ids can be issued.
    ///
    /// ```
    /// use idtable::{Id32, IdTable};
    ///
    /// let table = IdTable::<Id32<2>>::new(); // three usable indices
    /// assert!(table.try_reserve_ids(4).is_err());
    /// assert_eq!(table.reserved_len(), 0);
    /// assert_eq!(table.try_reserve_ids(3).unwrap().count(), 3);
    /// ```
    pub fn try_reserve_ids(&self, n: usize) -> Result<ReservedIds<'_, I>, TableFull> {
        let (plan, first) = self.claim(n)?;
        let end = first + n;
        let (q_before, f_before) = plan.split(first);
        let (q_end, f_end) = plan.split(end);
        let queued = q_end - q_before;
        let head = if queued > 0 {
            self.take_queued(queued)
        } else {
            0
        };
        Ok(ReservedIds {
            table: self,
            queued,
            next_queued: head,
            fresh: plan.first_fresh + f_before..plan.first_fresh + f_end,
        })
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
impl<I: Id> Iterator for ReservedIds<'_, I> {
    type Item = I;

    #[inline]
    fn next(&mut self) -> Option<I> {
        if self.queued > 0 {
            let s = self.next_queued;
            self.queued -= 1;
            if self.queued > 0 {
                self.next_queued = self.table.next_queued(s);
            }
            return Some(self.table.queued_id(s));
        }
        let index = self.fresh.next()?;
        Some(IdTable::<I>::make_id(index, 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.queued + self.fresh.len();
        (n, Some(n))
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> ExactSizeIterator for ReservedIds<'_, I> {}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> core::iter::FusedIterator for ReservedIds<'_, I> {}

#[cfg(all(test, target_has_atomic = "ptr"))]
mod tests {
    use super::super::{OnExhausted, TableConfig};
    use super::*;
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

    /// A batch of fresh reservations settled at once marks its slots a
    /// word at a time: every one fills once, whatever word it falls in.
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
            min_free in 0..4usize,
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
                        // has none and never issues them.
                        let parts = t.to_parts();
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
