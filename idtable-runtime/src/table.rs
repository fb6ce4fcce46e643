//! The id table engine: sparse slots, the dense-to-id array, the FIFO free
//! queue and the exhaustion policy.
//!
//! [`IdTable`] is the bookkeeping half of every derived allocator. It owns no
//! values: it maps ids to dense indices `0..len` and tells its caller how to
//! keep its own columns packed. Users who store their own columns (in `Vec`s,
//! on the GPU, in a file) can drive it directly:
//!
//! ```
//! use idtable::{IdTable, Id24_8};
//!
//! let mut table = IdTable::<Id24_8>::new();
//! let mut names: Vec<&str> = Vec::new(); // one column, kept parallel to table.ids()
//!
//! let (a, dense) = table.insert();
//! debug_assert_eq!(dense, names.len());
//! names.push("a");
//! let (b, _) = table.insert();
//! names.push("b");
//!
//! // Removing `a` vacates dense index 0 and moves the last element into it:
//! let moved = table.remove(a).unwrap();
//! let removed = names.swap_remove(moved.index);
//! assert_eq!(removed, "a");
//! assert_eq!(names[table.dense_index(b).unwrap()], "b");
//! assert_eq!(table.dense_index(a), None); // stale: resolves to nothing
//! ```

use alloc::vec::Vec;
use core::fmt;

use crate::id::{index_mask, Id, IdBits, LayoutName};
use crate::marks;
use crate::sync::const_fn;

mod free;
mod parts;
mod reserve;
#[cfg(feature = "serde")]
pub(crate) mod serde;
mod tail;
use free::FreeQueue;
pub use parts::{IdTableParts, PartsError};
#[cfg(target_has_atomic = "ptr")]
pub use reserve::ReservedIds;
use reserve::{Plan, Position, Reservations};

/// How a reservation waits for its row ([`IdTable::waiting`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Waiting {
    /// Settled: its slot word holds its generation, marked `RESERVED`.
    Settled,
    /// The only claim pending, of a fresh index: its slot does not exist
    /// yet.
    SoleFresh,
}

/// What a table does with a slot whose generation is used up.
///
/// ```
/// use idtable::OnExhausted;
/// assert_eq!(OnExhausted::default(), OnExhausted::Retire);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnExhausted {
    /// The slot is never issued again: no id is ever issued twice. The table
    /// loses one index each time a slot retires.
    #[default]
    Retire,
    /// The slot's generation starts again at 1. An id held across
    /// `MAX_GENERATION` reuses of its slot resolves again, to the new object:
    /// choose this only when ids are never held that long.
    Wrap,
}

/// How an [`IdTable`] hands out slots.
///
/// ```
/// use idtable::{IdTable, Id24_8, OnExhausted, TableConfig};
///
/// let config = TableConfig { min_free: 1024, on_exhausted: OnExhausted::Retire };
/// let table = IdTable::<Id24_8>::with_config(config);
/// assert_eq!(table.config(), config);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableConfig {
    /// Freed slots are reused only once at least this many are waiting in the
    /// free queue (while fresh indices remain). With `min_free = n`, a freed
    /// slot is reissued no sooner than `n - 1` other slots have been freed
    /// after it, so one slot's generation wears out `n` times slower under
    /// churn. Default 0: reuse as soon as a slot is free.
    pub min_free: usize,
    /// What happens when a slot's generation is used up. Default
    /// [`OnExhausted::Retire`].
    pub on_exhausted: OnExhausted,
}

impl TableConfig {
    /// `TableConfig::default()`, in `const` context: freed slots reused at
    /// once, exhausted slots retired.
    ///
    /// ```
    /// use idtable::TableConfig;
    /// assert_eq!(TableConfig::DEFAULT, TableConfig::default());
    /// ```
    pub const DEFAULT: TableConfig = TableConfig {
        min_free: 0,
        on_exhausted: OnExhausted::Retire,
    };
}

/// What [`IdTable::remove`] did to the dense order: the element at `last`
/// moved into `index` (nothing moved when `index == last`). A caller keeping
/// columns does `column.swap_remove(index)` on each.
///
/// ```
/// use idtable::{IdTable, Id32_32, SwapRemove};
///
/// let mut table = IdTable::<Id32_32>::new();
/// let (a, _) = table.insert();
/// let (_b, _) = table.insert();
/// let (c, _) = table.insert();
/// // Removing the first of three moves the last (dense 2) into dense 0...
/// assert_eq!(table.remove(a), Some(SwapRemove { index: 0, last: 2 }));
/// assert_eq!(table.dense_index(c), Some(0));
/// // ...and removing the last moves nothing.
/// let last = *table.ids().last().unwrap();
/// assert_eq!(table.remove(last), Some(SwapRemove { index: 1, last: 1 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SwapRemove {
    /// The dense index the removed element occupied, now holding the element
    /// that was last.
    pub index: usize,
    /// The dense index of the element that moved (the old last index, equal
    /// to the new length).
    pub last: usize,
}

/// Why a table issued no id ([`IssueError::kind`] tells which):
///
/// * [`Full`](IssueErrorKind::Full): every index the table can have is
///   live, reserved or retired;
/// * [`BatchTooLarge`](IssueErrorKind::BatchTooLarge): a batch of
///   reservations asked for more ids than the table can still issue
///   (nothing was reserved);
/// * [`OutOfMemory`](IssueErrorKind::OutOfMemory): the slot words of
///   reservations settled earlier could not be allocated, so the insert
///   (or fill) that needs them refused (nothing changed).
///
/// The message names the layout and the numbers involved.
///
/// ```
/// use idtable::{IdTable, Id32, IssueErrorKind};
///
/// let mut table = IdTable::<Id32<2>>::new(); // indices 0, 1, 2 (3 is reserved)
/// let err = table.try_reserve_ids(4).unwrap_err();
/// assert_eq!(err.kind(), IssueErrorKind::BatchTooLarge);
/// assert_eq!((err.requested(), err.available()), (4, 3));
/// assert!(err.to_string().contains("at most 3 more"));
/// for _ in 0..3 {
///     table.try_insert().unwrap();
/// }
/// let err = table.try_insert().unwrap_err();
/// assert_eq!(err.kind(), IssueErrorKind::Full);
/// assert!(err.to_string().contains("Id2_30"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IssueError {
    kind: IssueErrorKind,
    layout_index_bits: u32,
    layout_generation_bits: u32,
    /// The most slots a table of the layout can have.
    limit: usize,
    /// Ids a batch asked for, or slot words that could not be allocated.
    requested: usize,
    /// Ids the table could still issue.
    available: usize,
}

/// What [`IssueError`] reports.
///
/// ```
/// use idtable::{IdTable, Id32, IssueErrorKind};
///
/// let table = IdTable::<Id32<1>>::new(); // one usable index
/// table.reserve_id();
/// assert_eq!(table.try_reserve_id().unwrap_err().kind(), IssueErrorKind::Full);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueErrorKind {
    /// Every index the table can have is live, reserved or retired.
    Full,
    /// A batch of reservations larger than what the table can still issue.
    BatchTooLarge,
    /// The slot words of reservations settled earlier (past the table's
    /// slots) could not be allocated.
    OutOfMemory,
}

impl IssueError {
    fn new<I: Id>(kind: IssueErrorKind, limit: usize, requested: usize, available: usize) -> Self {
        IssueError {
            kind,
            layout_index_bits: I::INDEX_BITS,
            layout_generation_bits: I::GENERATION_BITS,
            limit,
            requested,
            available,
        }
    }

    /// Which refusal this is.
    pub fn kind(&self) -> IssueErrorKind {
        self.kind
    }

    /// The ids a refused batch asked for, the slot words that could not be
    /// allocated, or 1 for a single id of a full table.
    pub fn requested(&self) -> usize {
        self.requested
    }

    /// The ids the table could still issue when it refused (0 when full).
    pub fn available(&self) -> usize {
        self.available
    }
}

impl fmt::Display for IssueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, g) = (self.layout_index_bits, self.layout_generation_bits);
        match self.kind {
            IssueErrorKind::Full if (self.limit as u128) < (1u128 << b) - 1 => write!(
                f,
                "id table full: all {} slots a table of the Id{b}_{g} layout can hold in memory \
                 are live, reserved or retired",
                self.limit
            ),
            IssueErrorKind::Full => write!(
                f,
                "id table full: all {} slots of the Id{b}_{g} layout are live, reserved or retired",
                self.limit
            ),
            IssueErrorKind::BatchTooLarge => write!(
                f,
                "cannot reserve {} ids at once: the table can issue at most {} more \
                 (a table of the Id{b}_{g} layout has at most {} slots)",
                self.requested, self.available, self.limit
            ),
            IssueErrorKind::OutOfMemory => write!(
                f,
                "cannot allocate the {} slots of ids reserved earlier (Id{b}_{g} layout): \
                 fill or release those reservations, or clear the table",
                self.requested
            ),
        }
    }
}

impl fmt::Debug for IssueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IssueError({self})")
    }
}

impl core::error::Error for IssueError {}

/// The id table engine shared by every derived allocator.
///
/// # Layout and invariants
///
/// A table is three mechanisms, each with its own invariants, kept where
/// they are stated:
///
/// * **the slots and ids** (this file): `slots[s]` (one integer of the id's
///   width per slot ever issued) packs `generation << INDEX_BITS | dense`;
///   `ids[d]` is the live id at dense index `d`, for `d` in `0..len`, and
///   `slots[ids[d].index()] == ids[d].generation() << INDEX_BITS | d`.
///   Exactly `len` slots are occupied: those whose dense field is below
///   `len`. A vacant slot's dense field is at least `len`: `MASK` (the
///   reserved all-ones index), a link of the free queue, or `MASK - 1` for a
///   slot holding a reservation. A vacant slot is queued, reserved, or
///   retired (its generation is `MAX_GENERATION` and the policy is
///   [`OnExhausted::Retire`]). A live, reserved or retired
///   slot's generation is that of its last id issued, at least 1; a queued
///   slot's is one less than its next id's: its last id's, or 0 for a slot
///   whose generations wrap ([`OnExhausted::Wrap`]) and start again at 1.
/// * **the free queue** (`table/free.rs`): the FIFO queue of vacant slots
///   that may be issued again, which owns the dense fields of the slots it
///   holds;
/// * **the reservations** (`table/reserve.rs`): ids claimed from a shared
///   borrow, settled before any exclusive change into vacant slots marked
///   `MASK - 1`, or, for fresh indices, into a count past the slots (the
///   tail, `table/tail.rs`) that gets slot words when a fill or an insert
///   needs them.
///
/// An id resolves only when its generation equals its slot's and the slot is
/// occupied, so a stale or forged id resolves to nothing or to the object it
/// was issued for, never to another one. Ids carry no table identity: an id
/// issued by another table of the same id type is just bits here, and
/// resolves to this table's object with those bits if there is one.
/// [`check_invariants`](IdTable::check_invariants) checks all of the above.
///
/// Memory: one `I::Bits` per slot plus one id per live object (8 bytes per
/// live object for 32-bit layouts, 16 for [`Id32_32`](crate::Id32_32)). The
/// free queue costs nothing more while the table has at most half its
/// layout's indices as slots (2^31 - 1 for `Id32_32`, 8,388,607 for
/// [`Id24_8`](crate::Id24_8), 32,767 for [`Id16_16`](crate::Id16_16)); past
/// that, one more `I::Bits` per slot.
///
/// ```
/// use idtable::{Id, IdTable, Id16_16};
///
/// let mut table = IdTable::<Id16_16>::new();
/// let ids: Vec<_> = (0..4).map(|_| table.insert().0).collect();
/// table.remove(ids[1]);
/// assert_eq!(table.len(), 3);
/// assert_eq!(table.slot_count(), 4); // slots are kept for reuse...
/// assert_eq!(table.free_count(), 1); // ...in a FIFO queue
/// assert!(!table.contains(ids[1]));
/// table.check_invariants();
/// ```
pub struct IdTable<I: Id> {
    slots: Vec<I::Bits>,
    ids: Vec<I>,
    free: FreeQueue<I>,
    reserved: Reservations,
    config: TableConfig,
    /// An insert takes a queued slot while at least this many wait (and
    /// fresh indices remain): `min_free`, or 1 for `min_free = 0`.
    reuse_at: usize,
}

impl<I: Id> Clone for IdTable<I> {
    fn clone(&self) -> Self {
        IdTable {
            slots: self.slots.clone(),
            ids: self.ids.clone(),
            free: self.free.clone(),
            reserved: self.reserved.clone(),
            config: self.config,
            reuse_at: self.reuse_at,
        }
    }
}

/// Two tables are equal when they would behave the same from now on: the
/// same generation in every slot, the same live ids in the same dense
/// order, the same free queue and the same [`TableConfig`]. Where a free
/// slot keeps its queue link is not compared.
///
/// ```
/// use idtable::{Id24_8, IdTable};
///
/// let mut a = IdTable::<Id24_8>::new();
/// let (x, _) = a.insert();
/// a.insert();
/// let mut b = a.clone();
/// assert_eq!(a, b);
/// b.remove(x);
/// assert_ne!(a, b);
/// let reloaded = IdTable::<Id24_8>::from_parts(&b.to_parts(), b.config()).unwrap();
/// assert_eq!(reloaded, b);
/// ```
impl<I: Id> PartialEq for IdTable<I> {
    fn eq(&self, other: &Self) -> bool {
        self.same_as(other)
    }
}

impl<I: Id> Eq for IdTable<I> {}

impl<I: Id> Default for IdTable<I> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Id> fmt::Debug for IdTable<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdTable")
            .field("layout", &LayoutName::<I>::new())
            .field("ids", &self.ids)
            .field("slots", &self.slots.len())
            .field("free", &self.free_count())
            .field("reserved", &self.reserved_len())
            .field("config", &self.config)
            .finish()
    }
}

/// The slot words: `generation << INDEX_BITS | dense`.
impl<I: Id> IdTable<I> {
    const MASK: u64 = index_mask(I::INDEX_BITS);
    const MAX_GENERATION: u64 = u64::MAX >> (64 - I::GENERATION_BITS);

    /// The most slots a table can have: the layout's indices, or as many as
    /// a `Vec` of slot words can hold.
    const SLOT_LIMIT: usize = {
        let by_memory = isize::MAX as usize / core::mem::size_of::<I::Bits>();
        if I::MAX_INDEX < by_memory {
            I::MAX_INDEX + 1
        } else {
            by_memory
        }
    };

    /// Below this many slots an insert takes its slot on the inline path:
    /// the free queue keeps its links in the slots, and a fresh index is
    /// left after the one taken.
    const FAST_SLOTS: usize = if FreeQueue::<I>::IN_SLOTS < Self::SLOT_LIMIT {
        FreeQueue::<I>::IN_SLOTS
    } else {
        Self::SLOT_LIMIT
    };

    #[inline(always)]
    fn pack(generation: u64, dense: u64) -> I::Bits {
        I::Bits::from_u64_truncating(generation << I::INDEX_BITS | dense)
    }

    #[inline(always)]
    fn generation_of(word: I::Bits) -> u64 {
        word.to_u64() >> I::INDEX_BITS
    }

    #[inline(always)]
    fn dense_of(word: I::Bits) -> u64 {
        word.to_u64() & Self::MASK
    }

    /// The generation of the last id issued from slot `s`: what its word
    /// holds, or `MAX_GENERATION` for a queued slot whose generations wrap.
    fn last_generation(&self, s: usize) -> u64 {
        match Self::generation_of(self.slots[s]) {
            0 => Self::MAX_GENERATION,
            g => g,
        }
    }

    /// The id of slot `index` at `generation`, which is at least 1 and at
    /// most `MAX_GENERATION` (the invariants see to it; a debug build
    /// checks). Without the check of a release build, an impossible id
    /// would be the all-ones one, which never resolves: no branch and no
    /// panic on the insert path.
    #[inline(always)]
    fn make_id(index: usize, generation: u64) -> I {
        Self::id_of_bits(generation << I::INDEX_BITS | index as u64)
    }

    /// [`make_id`](Self::make_id) of the id's bits.
    #[inline(always)]
    fn id_of_bits(bits: u64) -> I {
        let id = I::from_bits(I::Bits::from_u64_truncating(bits));
        debug_assert!(id.is_some(), "generation 0 issued: {bits:#x}");
        id.unwrap_or_else(Self::never_resolves)
    }

    /// The all-ones id: its index is the reserved one.
    #[inline(always)]
    fn never_resolves() -> I {
        match I::from_bits(I::Bits::from_u64_truncating(u64::MAX)) {
            Some(id) => id,
            None => unreachable!("the all-ones id has generation bits"),
        }
    }

    /// The id the queued slot `s` issues next.
    #[inline]
    pub(super) fn queued_id(&self, s: usize) -> I {
        Self::make_id(s, Self::generation_of(self.slots[s]) + 1)
    }

    /// The id of the fresh index `index`.
    #[inline]
    pub(super) fn fresh_id(&self, index: usize) -> I {
        Self::make_id(index, 1)
    }

    /// The dense field of a slot word holding a reservation: vacant (at
    /// least the live length whenever a reservation exists) and never a
    /// link of the free queue (`table/free.rs`).
    const RESERVED: u64 = Self::MASK - 1;

    /// The slot queued after `s` (garbage for the last one).
    #[inline]
    pub(super) fn queued_after(&self, s: usize) -> usize {
        self.free.after(&self.slots, s)
    }

    /// The ids the next inserts would issue, as of now (see
    /// `table/reserve.rs`).
    #[inline]
    fn plan(&self) -> Plan {
        Plan::new(
            self.free.len(),
            self.tail_end(),
            Self::SLOT_LIMIT,
            self.config.min_free,
        )
    }

    /// The first index past the reserved tail (`table/tail.rs`): the next
    /// fresh index.
    #[inline]
    fn tail_end(&self) -> usize {
        self.slots.len() + self.reserved.tail().len()
    }

    /// The refusal of a table with no id left to issue.
    fn full(&self) -> IssueError {
        IssueError::new::<I>(IssueErrorKind::Full, Self::SLOT_LIMIT, 1, 0)
    }

    /// The id at position `k` of `plan`.
    fn id_at(&self, plan: Plan, k: usize) -> Option<I> {
        match plan.position(k)? {
            Position::Queued(n) => {
                let s = self.free.iter(&self.slots).nth(n)?;
                Some(self.queued_id(s))
            }
            Position::Fresh(index) => Some(Self::make_id(index, 1)),
        }
    }
}

impl<I: Id> IdTable<I> {
    const_fn! {
        /// An empty table with the default [`TableConfig`].
        ///
        /// ```
        /// use idtable::{IdTable, Id32_32, TableConfig};
        /// let table = IdTable::<Id32_32>::new();
        /// assert!(table.is_empty());
        /// assert_eq!(table.config(), TableConfig::default());
        /// ```
        pub const fn new() -> Self {
            Self::with_config(TableConfig::DEFAULT)
        }
    }

    const_fn! {
        /// An empty table with the given configuration.
        ///
        /// ```
        /// use idtable::{Id, IdTable, Id32_32, TableConfig};
        ///
        /// let mut table = IdTable::<Id32_32>::with_config(TableConfig {
        ///     min_free: 2,
        ///     ..TableConfig::default()
        /// });
        /// let (a, _) = table.insert();
        /// table.remove(a);
        /// // One slot waits, fewer than `min_free`: a fresh index is taken.
        /// assert_eq!(table.insert().0.index(), 1);
        /// ```
        pub const fn with_config(config: TableConfig) -> Self {
            IdTable {
                slots: Vec::new(),
                ids: Vec::new(),
                free: FreeQueue::new(),
                reserved: Reservations::new(),
                config,
                reuse_at: if config.min_free == 0 { 1 } else { config.min_free },
            }
        }
    }

    /// A table of checked parts (`table/parts.rs`): slot words holding each
    /// slot's last generation with the vacant dense field or its live dense
    /// index, the live ids, and the queued slots, oldest first.
    fn from_checked(
        mut slots: Vec<I::Bits>,
        ids: Vec<I>,
        free: &[u64],
        spent_tail: usize,
        config: TableConfig,
    ) -> Self {
        for &s in free {
            let s = s as usize;
            if Self::generation_of(slots[s]) == Self::MAX_GENERATION {
                // Queued with its last generation (the policy wraps): its
                // next id starts again at 1.
                slots[s] = Self::pack(0, Self::MASK);
            }
        }
        let free = FreeQueue::from_order(&mut slots, free.iter().map(|&s| s as usize));
        let mut table = Self::with_config(config);
        table.reserved = Reservations::loaded(slots.len(), spent_tail);
        table.slots = slots;
        table.ids = ids;
        table.free = free;
        table
    }

    /// The table's configuration.
    ///
    /// ```
    /// use idtable::{IdTable, Id24_8, OnExhausted, TableConfig};
    /// let config = TableConfig { min_free: 64, on_exhausted: OnExhausted::Wrap };
    /// assert_eq!(IdTable::<Id24_8>::with_config(config).config().min_free, 64);
    /// ```
    pub fn config(&self) -> TableConfig {
        self.config
    }

    /// Number of live ids (the dense length).
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// table.insert();
    /// assert_eq!(table.len(), 2);
    /// table.remove(a);
    /// assert_eq!(table.len(), 1);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// `true` when no id is live.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// assert!(table.is_empty());
    /// let (a, _) = table.insert();
    /// assert!(!table.is_empty());
    /// table.remove(a);
    /// assert!(table.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of slots ever issued (live, free, reserved and retired),
    /// counting those of reservations settled past the slot words
    /// (`table/tail.rs`), and not the claims still pending.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// table.remove(a);
    /// table.insert(); // reuses slot 0
    /// table.insert(); // takes slot 1
    /// assert_eq!(table.slot_count(), 2);
    /// ```
    pub fn slot_count(&self) -> usize {
        self.tail_end()
    }

    /// Number of freed slots waiting in the FIFO queue (not counting those
    /// taken by reservations).
    ///
    /// ```
    /// use idtable::{Id, IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// let (b, _) = table.insert();
    /// table.remove(a);
    /// table.remove(b);
    /// assert_eq!(table.free_count(), 2);
    /// assert_eq!(table.insert().0.index(), a.index()); // oldest first
    /// assert_eq!(table.free_count(), 1);
    /// ```
    pub fn free_count(&self) -> usize {
        let (queued, _) = self.plan().split(self.reserved.claims());
        self.free.len() - queued
    }

    /// Live ids in dense order: `ids()[d]` is the id at dense index `d`.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// let (b, _) = table.insert();
    /// let (c, _) = table.insert();
    /// assert_eq!(table.ids(), &[a, b, c]);
    /// table.remove(a); // `c` moves into dense index 0
    /// assert_eq!(table.ids(), &[c, b]);
    /// ```
    #[inline]
    pub fn ids(&self) -> &[I] {
        &self.ids
    }

    /// How many live ids fit before the dense array reallocates.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// assert_eq!(table.capacity(), 0);
    /// table.reserve(100);
    /// assert!(table.capacity() >= 100);
    /// ```
    pub fn capacity(&self) -> usize {
        self.ids.capacity()
    }

    /// Reserves room for `additional` more live ids.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// table.reserve(10);
    /// let cap = table.capacity();
    /// for _ in 0..10 {
    ///     table.insert();
    /// }
    /// assert_eq!(table.capacity(), cap); // no reallocation
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.settle_reservations();
        self.ids.reserve(additional);
        let fresh_needed = additional.saturating_sub(self.plan().reusable());
        // Fresh inserts make the reserved tail's slot words first: room for
        // them too, if it can be had (else the inserts will say so).
        let tail = self.reserved.tail().len();
        if tail == 0
            || self
                .slots
                .try_reserve(tail.saturating_add(fresh_needed))
                .is_err()
        {
            self.slots.reserve(fresh_needed);
        }
        self.free.reserve(fresh_needed);
    }

    /// Shrinks the dense array (and the free queue's side links, when the
    /// table has them) to fit.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// table.reserve(1000);
    /// let (id, _) = table.insert();
    /// table.shrink_to_fit();
    /// assert!(table.capacity() < 1000);
    /// assert!(table.contains(id));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.slots.shrink_to_fit();
        self.free.shrink_to_fit();
    }

    /// The id the next [`insert`](IdTable::insert) will issue, without
    /// changing the table, or [`IssueError`].
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let next = table.next_id().unwrap();
    /// assert_eq!(table.insert().0, next);
    /// ```
    pub fn next_id(&self) -> Result<I, IssueError> {
        // Reservations pending took the first positions of the sequence;
        // the next insert settles them and takes the one after.
        self.id_at(self.plan(), self.reserved.claims())
            .ok_or_else(|| self.full())
    }

    /// Issues a new id. Returns it and its dense index (always the old
    /// [`len`](IdTable::len)), or [`IssueError`] when every index of the
    /// layout is live, reserved or retired, or when the slot words of
    /// reservations settled earlier, which the next fresh index comes
    /// after, cannot be allocated.
    ///
    /// ```
    /// use idtable::{IdTable, Id32};
    ///
    /// let mut table = IdTable::<Id32<1>>::new(); // one usable index
    /// let (id, dense) = table.try_insert().unwrap();
    /// assert_eq!(dense, 0);
    /// assert!(table.try_insert().is_err()); // full: the table is unchanged
    /// assert_eq!(table.ids(), &[id]);
    /// ```
    #[inline(always)]
    pub fn try_insert(&mut self) -> Result<(I, usize), IssueError> {
        let id = if self.insert_is_plain() {
            self.insert_plain()
        } else {
            match self.insert_cold() {
                Some(id) => id,
                None => return Err(self.refusal()),
            }
        };
        Ok((id, self.ids.len() - 1))
    }

    /// Whether the next insert takes the inline path
    /// ([`insert_plain`](Self::insert_plain)): no reservation pending nor
    /// settled past the slots, and fewer than
    /// [`FAST_SLOTS`](Self::FAST_SLOTS) slots, so the free queue keeps its
    /// links in the slots and a fresh index is left. Otherwise
    /// [`insert_cold`](Self::insert_cold) issues the id.
    #[inline(always)]
    pub(crate) fn insert_is_plain(&mut self) -> bool {
        self.reserved.calm() && self.slots.len() < Self::FAST_SLOTS
    }

    /// Issues the id of a row its caller appended to its columns (at dense
    /// index `len()`, before the call), where
    /// [`insert_is_plain`](Self::insert_is_plain) said so and nothing ran
    /// since: the oldest queued slot if at least `min_free` (and one) wait,
    /// else a fresh index.
    #[inline(always)]
    pub(crate) fn insert_plain(&mut self) -> I {
        debug_assert!(self.insert_is_plain());
        let slot_count = self.slots.len();
        let dense = self.ids.len();
        let id = if self.free.len() >= self.reuse_at {
            let s = self.free.pop(&self.slots);
            let word = &mut self.slots[s];
            // The next generation, in place: `+ 1` above the index bits.
            let next = (word.to_u64() & !Self::MASK) + (1 << I::INDEX_BITS);
            *word = I::Bits::from_u64_truncating(next | dense as u64);
            Self::id_of_bits(next | s as u64)
        } else {
            self.slots.push(Self::pack(1, dense as u64));
            Self::make_id(slot_count, 1)
        };
        self.ids.push(id);
        id
    }

    /// Every other insert: settles pending reservations, then takes the
    /// first position of the [`Plan`] (where fresh indices may have run
    /// out, and the queue may keep its links on the side); a fresh index
    /// past reserved ones settled earlier makes their slot words first.
    /// `None`, with nothing changed, when the table refuses: see
    /// [`refusal`](Self::refusal) for why.
    #[cold]
    #[inline(never)]
    pub(crate) fn insert_cold(&mut self) -> Option<I> {
        self.settle_reservations();
        let dense = self.ids.len();
        let position = match self.plan().position(0) {
            Some(position) => position,
            // Spent indices of the tail join the queue once they have
            // slot words: the table is full only if they cannot.
            None if self.reserved.tail().spent() > 0 && self.make_tail(self.tail_end(), false) => {
                self.plan().position(0)?
            }
            None => return None,
        };
        let id = match position {
            Position::Queued(_) => {
                let s = self.free.pop(&self.slots);
                let generation = Self::generation_of(self.slots[s]) + 1;
                self.slots[s] = Self::pack(generation, dense as u64);
                Self::make_id(s, generation)
            }
            Position::Fresh(index) => {
                if !self.make_tail(index, false) {
                    return None;
                }
                self.push_fresh_slot(Self::pack(1, dense as u64));
                Self::make_id(index, 1)
            }
        };
        self.ids.push(id);
        Some(id)
    }

    /// Why [`insert_cold`](Self::insert_cold) issued nothing (nothing has
    /// changed since): the table is full, or the slot words of the
    /// reservations settled past the slots, which the next fresh index
    /// comes after, cannot be allocated.
    #[cold]
    pub(crate) fn refusal(&mut self) -> IssueError {
        self.settle_reservations();
        match self.plan().position(0) {
            Some(Position::Fresh(_)) => self.tail_out_of_memory(),
            None if self.reserved.tail().spent() > 0 => self.tail_out_of_memory(),
            _ => self.full(),
        }
    }

    /// The refusal of a fill or an insert whose reserved tail's slot words
    /// cannot be allocated.
    fn tail_out_of_memory(&self) -> IssueError {
        let (tail, available) = (self.reserved.tail().len(), self.plan().total());
        IssueError::new::<I>(
            IssueErrorKind::OutOfMemory,
            Self::SLOT_LIMIT,
            tail,
            available,
        )
    }

    /// Gives the reserved tail's indices below `need` their slot words
    /// (`table/tail.rs`), or, with `all`, every index of the tail if that
    /// much memory can be had. A reserved index gets a word holding its
    /// reservation, a spent one joins the back of the free queue (or
    /// retires). `false`, with nothing changed, if the memory for the
    /// indices below `need` cannot be had.
    #[cold]
    #[inline(never)]
    fn make_tail(&mut self, need: usize, all: bool) -> bool {
        let start = self.slots.len();
        let end = self.tail_end();
        debug_assert!(need <= end);
        if need <= start {
            return true;
        }
        let room = |table: &mut Self, upto: usize| {
            table.slots.try_reserve_exact(upto - start).is_ok() && table.free.try_reserve_for(upto)
        };
        let upto = if all && room(self, end) {
            end
        } else if room(self, need) {
            need
        } else {
            return false;
        };
        self.slots.resize(upto, Self::pack(1, Self::RESERVED));
        self.free.slots_grew(&mut self.slots);
        let IdTable {
            slots,
            free,
            reserved,
            config,
            ..
        } = self;
        let config = *config;
        let held = reserved.tail_mut().take_front(start, upto, |s| {
            Self::spend(slots, free, config, s, 1);
        });
        reserved.hold(held);
        true
    }

    /// Appends a slot holding `word`, keeping the free queue's links right.
    #[inline]
    fn push_fresh_slot(&mut self, word: I::Bits) {
        self.slots.push(word);
        if self.slots.len() > FreeQueue::<I>::IN_SLOTS {
            self.free.slots_grew(&mut self.slots);
        }
    }

    /// Issues a new id, like [`try_insert`](IdTable::try_insert).
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, da) = table.insert();
    /// let (b, db) = table.insert();
    /// assert_eq!((da, db), (0, 1)); // always appended to the dense order
    /// assert_ne!(a, b);
    /// ```
    ///
    /// # Panics
    ///
    /// When every index of the layout is live, reserved or retired; the
    /// message names the layout.
    ///
    /// ```should_panic
    /// use idtable::{IdTable, Id32};
    /// let mut table = IdTable::<Id32<1>>::new();
    /// table.insert();
    /// table.insert(); // panics: "id table full: ... Id1_31 layout ..."
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn insert(&mut self) -> (I, usize) {
        match self.try_insert() {
            Ok(issued) => issued,
            Err(full) => panic!("{full}"),
        }
    }

    /// The dense index of `id` if it is live, else `None` (stale, forged
    /// bits this table never issued, or the reserved index).
    ///
    /// ```
    /// use idtable::{Id, IdTable, Id24_8};
    ///
    /// let mut table = IdTable::<Id24_8>::new();
    /// let (a, _) = table.insert();
    /// let (b, _) = table.insert();
    /// assert_eq!(table.dense_index(b), Some(1));
    /// table.remove(a);
    /// assert_eq!(table.dense_index(b), Some(0)); // moved into the gap
    /// assert_eq!(table.dense_index(a), None); // stale
    /// let forged = Id24_8::from_bits(0x0700_0001).unwrap(); // slot 1, generation 7
    /// assert_eq!(table.dense_index(forged), None);
    /// ```
    #[inline(always)]
    pub fn dense_index(&self, id: I) -> Option<usize> {
        self.dense_or_vacant(id)
            .filter(|&dense| dense < self.ids.len())
    }

    /// `true` if `id` is live in this table.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// assert!(table.contains(a));
    /// table.remove(a);
    /// assert!(!table.contains(a));
    /// ```
    #[inline]
    pub fn contains(&self, id: I) -> bool {
        self.dense_index(id).is_some()
    }

    /// The dense field of `id`'s slot if the generations match: its dense
    /// index when live, or, when the slot is vacant, a value at least
    /// [`len`](IdTable::len) (see [`IdTable`]'s invariants). Callers that
    /// bounds-check the result against `len` anyway get the vacancy check
    /// for free.
    #[inline(always)]
    pub(crate) fn dense_or_vacant(&self, id: I) -> Option<usize> {
        let slot = self.slots.get(id.index())?.to_u64();
        if (slot ^ id.to_bits().to_u64()) >> I::INDEX_BITS != 0 {
            return None;
        }
        Some((slot & Self::MASK) as usize)
    }

    /// Removes `id` if it is live. Returns how the dense order changed: the
    /// caller moves its last column element into [`SwapRemove::index`]
    /// (`Vec::swap_remove` does exactly that).
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    ///
    /// let mut table = IdTable::<Id32_32>::new();
    /// let mut hp: Vec<u32> = Vec::new(); // a column of our own
    /// let (a, _) = table.insert();
    /// hp.push(10);
    /// let (b, _) = table.insert();
    /// hp.push(20);
    ///
    /// let moved = table.remove(a).unwrap();
    /// assert_eq!(hp.swap_remove(moved.index), 10);
    /// assert_eq!(hp[table.dense_index(b).unwrap()], 20);
    /// assert_eq!(table.remove(a), None); // already gone
    /// ```
    #[inline(always)]
    pub fn remove(&mut self, id: I) -> Option<SwapRemove> {
        let dense = self.dense_index(id)?;
        let generation = id.generation().to_u64();
        // The inline path: no reservation to settle, a generation left, and
        // the queue's links in the slots (the slice's length, read once,
        // tells the queue so).
        if self.reserved.pending()
            || generation >= Self::MAX_GENERATION
            || self.slots.len() > FreeQueue::<I>::IN_SLOTS
        {
            return Some(self.remove_cold(id, dense));
        }
        let IdTable {
            slots, ids, free, ..
        } = self;
        let slots = slots.as_mut_slice();
        let moved = Self::swap_out(slots, ids, dense);
        Self::vacate(slots, free, id.index(), generation);
        Some(moved)
    }

    /// [`remove`](Self::remove) of a table with reservations pending, past
    /// the line where the queue's links leave the slots, or of an id with
    /// its slot's last generation.
    #[cold]
    #[inline(never)]
    fn remove_cold(&mut self, id: I, dense: usize) -> SwapRemove {
        self.settle_reservations();
        let moved = Self::swap_out(&mut self.slots, &mut self.ids, dense);
        self.release(id);
        moved
    }

    /// Takes the id at `dense` out of the dense order, the last moving into
    /// its place.
    #[inline(always)]
    fn swap_out(slots: &mut [I::Bits], ids: &mut Vec<I>, dense: usize) -> SwapRemove {
        let last = ids.len() - 1;
        if let Some(moved) = ids.pop() {
            if let Some(gap) = ids.get_mut(dense) {
                *gap = moved;
                slots[moved.index()] = Self::pack(moved.generation().to_u64(), dense as u64);
            }
        }
        SwapRemove { index: dense, last }
    }

    /// Marks the slot of `id`, live or reserved, vacant and queues it, or
    /// retires it when its generations are used up under
    /// [`OnExhausted::Retire`]. No reservation may be pending.
    #[inline]
    fn release(&mut self, id: I) {
        let index = id.index();
        let generation = id.generation().to_u64();
        if generation >= Self::MAX_GENERATION {
            return self.release_last_generation(index);
        }
        Self::vacate(&mut self.slots, &mut self.free, index, generation);
    }

    /// Slot `index`, whose last id had `generation` (not the last one),
    /// becomes vacant and joins the back of the free queue.
    #[inline(always)]
    fn vacate(slots: &mut [I::Bits], free: &mut FreeQueue<I>, index: usize, generation: u64) {
        slots[index] = Self::pack(generation, Self::MASK);
        free.push(slots, index);
    }

    /// [`release`](Self::release) of a slot whose last generation was
    /// issued: the exhaustion policy decides.
    #[cold]
    #[inline(never)]
    fn release_last_generation(&mut self, index: usize) {
        Self::spend(
            &mut self.slots,
            &mut self.free,
            self.config,
            index,
            Self::MAX_GENERATION,
        );
    }

    /// Slot `index`, whose last id had `generation`, becomes vacant: queued,
    /// or retired when that was its last generation under
    /// [`OnExhausted::Retire`].
    fn spend(
        slots: &mut [I::Bits],
        free: &mut FreeQueue<I>,
        config: TableConfig,
        index: usize,
        generation: u64,
    ) {
        if generation < Self::MAX_GENERATION {
            return Self::vacate(slots, free, index, generation);
        }
        match config.on_exhausted {
            OnExhausted::Retire => slots[index] = Self::pack(Self::MAX_GENERATION, Self::MASK),
            OnExhausted::Wrap => Self::vacate(slots, free, index, 0),
        }
    }

    /// Whether every slot index has its top bit clear (at most half the
    /// layout's indices are slots), so that a batch removal can mark a
    /// live id in place in [`ids`](Self::ids) ([`detach`](Self::detach)).
    #[inline(always)]
    pub(crate) fn taggable(&self) -> bool {
        self.slots.len() as u64 <= marks::tag_limit::<I>()
    }

    /// The live ids, mutably: for a batch removal to tag and untag them in
    /// place ([`detach`](Self::detach)), and for nothing else.
    #[inline(always)]
    pub(crate) fn ids_mut(&mut self) -> &mut [I] {
        &mut self.ids
    }

    /// Detaches `id`, live at dense index `dense`, as the mark of a batch
    /// removal: one write, no allocation, nothing queued yet. If `tagged`
    /// (the table is [`taggable`](Self::taggable)), `ids()[dense]` becomes
    /// the tagged id and the slot is left alone; else the slot's dense
    /// field becomes `MASK` (the generation stays), so `id` resolves to
    /// nothing while it stays at `ids()[dense]`.
    /// [`remove_detached_block`](Self::remove_detached_block) frees the
    /// slot for good, [`reattach`](Self::reattach) undoes the mark.
    #[inline(always)]
    pub(crate) fn detach(&mut self, id: I, dense: usize, tagged: bool) {
        debug_assert_eq!((self.dense_index(id), self.ids[dense]), (Some(dense), id));
        if tagged {
            self.ids[dense] = marks::tagged(id);
        } else {
            let slot = &mut self.slots[id.index()];
            *slot = I::Bits::from_u64_truncating(slot.to_u64() | Self::MASK);
        }
    }

    /// Whether the id at dense index `dense` (below the length) was
    /// detached: tagged, or its slot no longer names `dense`.
    #[inline(always)]
    pub(crate) fn is_detached(&self, dense: usize, tagged: bool) -> bool {
        let id = self.ids[dense];
        if tagged {
            marks::is_tagged(id)
        } else {
            Self::dense_of(self.slots[id.index()]) != dense as u64
        }
    }

    /// Undoes [`detach`](Self::detach) of the id at `dense`.
    pub(crate) fn reattach(&mut self, dense: usize, tagged: bool) {
        if tagged {
            self.ids[dense] = marks::untagged(self.ids[dense]);
        } else {
            let id = self.ids[dense];
            self.slots[id.index()] = Self::pack(id.generation().to_u64(), dense as u64);
        }
    }

    /// A block of a batch removal's second pass, dense indices
    /// `base..base + n` (`n <= 64`; none moved yet, none past
    /// `base + asked` detached): frees and queues (or retires) the slots
    /// of the detached ids, in dense order, so that freed slots are queued
    /// in dense order, and moves the other ids down to `*write..`,
    /// advancing it (each keeps resolving, to its new dense index).
    /// Returns the detached indices, bit `i` for `base + i`. The answers
    /// are read first, all at once (from the ids if `tagged`, else from the
    /// slots), then the releases and the moves walk the bits: no branch on
    /// each id's answer. No reservation may be pending.
    #[inline(always)]
    pub(crate) fn remove_detached_block(
        &mut self,
        base: usize,
        n: usize,
        asked: usize,
        write: &mut usize,
        tagged: bool,
    ) -> u64 {
        if tagged {
            self.remove_block::<true>(base, n, asked, write)
        } else {
            self.remove_block::<false>(base, n, asked, write)
        }
    }

    /// [`remove_detached_block`](Self::remove_detached_block), its marks'
    /// place known at compile time.
    #[inline(always)]
    fn remove_block<const TAGGED: bool>(
        &mut self,
        base: usize,
        n: usize,
        asked: usize,
        write: &mut usize,
    ) -> u64 {
        let gone = if TAGGED {
            marks::tags(&self.ids[base..base + asked])
        } else {
            (0..asked).fold(0, |gone, i| {
                gone | u64::from(self.is_detached(base + i, false)) << i
            })
        };
        self.release_and_move::<TAGGED>(base, n, gone, write);
        gone
    }

    /// A block of a batch removal's second pass whose marks the caller
    /// kept itself (a small container's bitset on the stack): the ids
    /// `gone` names (bit `i` for `base + i`), neither tagged nor detached,
    /// have their slots freed and queued in dense order; the others move
    /// down to `*write..`. No reservation may be pending.
    #[inline(always)]
    pub(crate) fn remove_marked_block(
        &mut self,
        base: usize,
        n: usize,
        gone: u64,
        write: &mut usize,
    ) {
        self.release_and_move::<false>(base, n, gone, write);
    }

    /// The ids `gone` names of the block at `base` (`n` ids) released (a
    /// tag taken off first if `TAGGED`), a bit at a time, and the others
    /// moved down to `*write..`.
    #[inline(always)]
    fn release_and_move<const TAGGED: bool>(
        &mut self,
        base: usize,
        n: usize,
        gone: u64,
        write: &mut usize,
    ) {
        let mut bits = gone;
        while bits != 0 {
            let d = base + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let id = self.ids[d];
            self.release(if TAGGED { marks::untagged(id) } else { id });
        }
        // The write position in a local: through `write`, each step would
        // wait for the last one's store.
        let (mut kept, mut to) = (!gone & (u64::MAX >> (64 - n)), *write);
        while kept != 0 {
            let from = base + kept.trailing_zeros() as usize;
            kept &= kept - 1;
            let id = self.ids[from];
            self.ids[to] = id;
            self.slots[id.index()] = Self::pack(id.generation().to_u64(), to as u64);
            to += 1;
        }
        *write = to;
    }

    /// Cuts the dense ids to the first `len`, those past having been
    /// released or moved away. The caller cuts its columns the same way.
    pub(crate) fn truncate_dense(&mut self, len: usize) {
        self.ids.truncate(len);
    }

    /// Removes every id, and releases every reservation. No id issued
    /// before becomes live again: each slot is queued for reuse with its
    /// next generation, or retired.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let old: Vec<_> = (0..3).map(|_| table.insert().0).collect();
    /// table.clear();
    /// assert!(table.is_empty());
    /// let new: Vec<_> = (0..3).map(|_| table.insert().0).collect();
    /// assert!(old.iter().all(|id| !table.contains(*id) && !new.contains(id)));
    /// ```
    pub fn clear(&mut self) {
        self.settle_reservations();
        // Reservations first, then the live ids in dense order. The reserved
        // tail's indices get slot words if that memory can be had (else
        // they stay in the tail, spent); every reservation held in a slot
        // word is then released, in slot order.
        let end = self.tail_end();
        if !self.make_tail(end, false) {
            let start = self.slots.len();
            self.reserved.tail_mut().spend_all(start);
        }
        if self.reserved.held() > 0 {
            self.release_held();
        }
        let ids = core::mem::take(&mut self.ids);
        for &id in &ids {
            self.release(id);
        }
        self.ids = ids;
        self.ids.clear();
    }

    /// Releases every reservation held in a slot word, in slot order.
    #[cold]
    fn release_held(&mut self) {
        for s in 0..self.slots.len() {
            if self.holds_reserved_word(s) {
                let generation = Self::generation_of(self.slots[s]);
                self.reserved.unhold();
                self.release(Self::make_id(s, generation));
            }
        }
    }

    /// Swaps the elements at dense indices `a` and `b`, keeping both ids
    /// valid. The caller swaps its columns the same way.
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let mut names = vec!["a", "b"];
    /// let (a, _) = table.insert();
    /// let (b, _) = table.insert();
    /// table.swap_dense(0, 1);
    /// names.swap(0, 1);
    /// assert_eq!(names[table.dense_index(a).unwrap()], "a");
    /// assert_eq!(table.ids(), &[b, a]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `a` or `b` is not below [`len`](IdTable::len).
    pub fn swap_dense(&mut self, a: usize, b: usize) {
        self.ids.swap(a, b);
        for d in [a, b] {
            let id = self.ids[d];
            self.slots[id.index()] = Self::pack(id.generation().to_u64(), d as u64);
        }
    }
}

/// Reservations: ids issued from a shared borrow (`table/reserve.rs`), and
/// their rows filled later.
impl<I: Id> IdTable<I> {
    /// Settles the reservations claimed since the last exclusive access
    /// (see `table/reserve.rs`), if any: the test is inline, the work out of
    /// line. Every exclusive path that reads or changes the free queue or
    /// the slot count calls it first. Allocates nothing, cannot fail.
    #[inline(always)]
    pub(crate) fn settle_reservations(&mut self) {
        if self.reserved.pending() {
            self.settle();
        }
    }

    /// [`settle_reservations`](Self::settle_reservations)' work: the claimed
    /// queued slots hold their reserved ids' generations, marked
    /// `RESERVED`; the claimed fresh indices join the reserved tail.
    #[cold]
    #[inline(never)]
    fn settle(&mut self) {
        let plan = self.plan();
        let (queued, fresh) = plan.split(self.reserved.take_claims());
        // The claimed queued slots are the queue's first `queued`.
        for _ in 0..queued {
            let s = self.free.pop(&self.slots);
            let generation = Self::generation_of(self.slots[s]) + 1;
            self.slots[s] = Self::pack(generation, Self::RESERVED);
        }
        self.reserved.hold(queued);
        // The claimed fresh indices are the first past the tail.
        self.reserved.tail_mut().extend(fresh);
    }

    /// Whether slot word `s` holds a settled reservation (the live length
    /// is checked: a table whose every index is live has a live row whose
    /// dense index equals `RESERVED`, and no reservation).
    #[inline]
    fn holds_reserved_word(&self, s: usize) -> bool {
        Self::dense_of(self.slots[s]) == Self::RESERVED && (self.ids.len() as u64) <= Self::RESERVED
    }

    /// Whether `id` is a settled reservation of this table held in a slot
    /// word: the word holds its generation, marked `RESERVED`.
    fn holds_reservation(&self, id: I) -> bool {
        let want = Self::pack(id.generation().to_u64(), Self::RESERVED).to_u64();
        self.slots.get(id.index()).map(|w| w.to_u64()) == Some(want)
            && (self.ids.len() as u64) <= Self::RESERVED
    }

    /// Whether `id` is a reservation of the reserved tail, still waiting.
    fn in_tail(&self, id: I) -> bool {
        id.generation().to_u64() == 1
            && self
                .reserved
                .tail()
                .is_reserved(self.slots.len(), id.index())
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
        let (queued, fresh) = self.plan().split(self.reserved.claims());
        self.reserved.count() + queued + fresh
    }

    /// How `id` waits for its row, if it is a reservation of this table
    /// still waiting: settled ([`Waiting::Settled`]), or the one claim
    /// pending, a fresh index ([`Waiting::SoleFresh`], which filling makes
    /// live without settling first). Other pending claims are settled here;
    /// a reservation of the reserved tail gets its slot word here (with the
    /// rest of the tail, or those before it, whatever memory allows).
    /// `None` also when that slot word cannot be allocated.
    #[inline(always)]
    pub(crate) fn waiting(&mut self, id: I) -> Option<Waiting> {
        if self.reserved.pending() {
            if self.is_sole_fresh_claim(id) {
                return Some(Waiting::SoleFresh);
            }
            self.settle();
        }
        if self.holds_reservation(id) {
            return Some(Waiting::Settled);
        }
        self.waiting_in_tail(id)
    }

    /// [`waiting`](Self::waiting) of an id past the slot words.
    #[cold]
    #[inline(never)]
    fn waiting_in_tail(&mut self, id: I) -> Option<Waiting> {
        if !self.in_tail(id) {
            return None;
        }
        self.make_tail(id.index() + 1, true)
            .then_some(Waiting::Settled)
    }

    /// Whether the pending claims are one, of a fresh index, and `id` is
    /// its id: the slot past the table's end, generation 1.
    #[inline]
    fn is_sole_fresh_claim(&mut self, id: I) -> bool {
        let slot_count = self.slots.len();
        self.reserved.claims_mut() == 1
            && self.plan().position(0) == Some(Position::Fresh(slot_count))
            && id.index() == slot_count
            && id.generation().to_u64() == 1
    }

    /// Makes the waiting reservation `id` live ([`waiting`] said how it
    /// waits, and nothing ran since), appended to the dense order.
    ///
    /// [`waiting`]: Self::waiting
    #[inline(always)]
    pub(crate) fn fill_waiting(&mut self, id: I, how: Waiting) -> usize {
        let dense = self.ids.len();
        let word = Self::pack(id.generation().to_u64(), dense as u64);
        match how {
            Waiting::Settled => {
                debug_assert!(self.holds_reservation(id));
                self.slots[id.index()] = word;
                self.reserved.unhold();
            }
            Waiting::SoleFresh => {
                // What settling then filling would leave: no claim pending,
                // the queue as it is, one more slot, live.
                debug_assert!(self.is_sole_fresh_claim(id));
                self.reserved.end_sole_claim();
                self.push_fresh_slot(word);
            }
        }
        self.ids.push(id);
        dense
    }

    /// Makes the reserved `id` live, appended to the dense order, and
    /// returns its dense index; `None` (and nothing changes) if `id` is not
    /// a reservation of this table still waiting for its row (never
    /// reserved, reserved by another table, filled or released already),
    /// or if it is one of a batch too large for memory whose slot word
    /// cannot be allocated (reservations are kept as a count past the
    /// slots until filled; see [`IssueErrorKind::OutOfMemory`]).
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
        if self.holds_reservation(id) {
            self.reserved.unhold();
            self.release(id);
            return true;
        }
        if self.in_tail(id) {
            // Its slot word made, it is released like the others; if that
            // memory cannot be had, it is spent where it is, in the tail.
            if self.make_tail(id.index() + 1, true) {
                self.reserved.unhold();
                self.release(id);
            } else {
                let start = self.slots.len();
                self.reserved.tail_mut().spend(start, id.index());
            }
            return true;
        }
        false
    }

    /// The id the next insert issues, its reservations settled and, when it
    /// takes a fresh index, the reserved tail's slot words made: after an
    /// `Ok`, the next insert succeeds with this id if nothing else runs
    /// first. What `insert_with_id` asks before calling its closure.
    pub(crate) fn prepare_insert(&mut self) -> Result<I, IssueError> {
        self.settle_reservations();
        if let Some(Position::Fresh(_)) = self.plan().position(0) {
            let end = self.tail_end();
            if !self.make_tail(end, false) {
                return Err(self.tail_out_of_memory());
            }
        }
        self.next_id()
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<I: Id> IdTable<I> {
    /// Takes `count` claimed slots off the queue's front as claims left it,
    /// returning the first.
    fn take_queued(&self, count: usize) -> usize {
        let front = self.free.front().unwrap_or(0);
        self.reserved
            .take_queued(count, front, |s| self.free.after(&self.slots, s))
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
    #[inline]
    #[track_caller]
    pub fn reserve_id(&self) -> I {
        match self.try_reserve_id() {
            Ok(id) => id,
            Err(full) => panic!("{full}"),
        }
    }

    /// [`reserve_id`](IdTable::reserve_id), or [`IssueError`] when no id can
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
    #[inline]
    pub fn try_reserve_id(&self) -> Result<I, IssueError> {
        let plan = self.plan();
        let k = self
            .reserved
            .claim(1, plan.total())
            .map_err(|_| self.full())?;
        match plan.position(k) {
            Some(Position::Fresh(index)) => Ok(Self::make_id(index, 1)),
            _ => Ok(self.claimed_queued_id()),
        }
    }

    /// The id of the queued slot a claim just took: off the queue's front
    /// as claims left it. Out of line: the inline path of a reservation is
    /// a fresh index.
    #[inline(never)]
    fn claimed_queued_id(&self) -> I {
        self.queued_id(self.take_queued(1))
    }

    /// Why a batch of `n` ids was refused, `available` ids being left.
    #[cold]
    fn batch_refused(&self, n: usize, available: usize) -> IssueError {
        if available == 0 {
            self.full()
        } else {
            IssueError::new::<I>(
                IssueErrorKind::BatchTooLarge,
                Self::SLOT_LIMIT,
                n,
                available,
            )
        }
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

    /// [`reserve_ids`](IdTable::reserve_ids), or [`IssueError`] (with
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
    pub fn try_reserve_ids(&self, n: usize) -> Result<ReservedIds<'_, I>, IssueError> {
        let plan = self.plan();
        let first = self
            .reserved
            .claim(n, plan.total())
            .map_err(|seen| self.batch_refused(n, plan.total().saturating_sub(seen)))?;
        let end = first + n;
        let queued = plan.split(end).0 - plan.split(first).0;
        let head = if queued > 0 {
            self.take_queued(queued)
        } else {
            0
        };
        Ok(ReservedIds::new(
            self,
            queued,
            head,
            plan.fresh_between(first, end),
        ))
    }
}

impl<I: Id> IdTable<I> {
    /// Checks every invariant listed on [`IdTable`], the free queue's and
    /// the reservations'. Meant for tests of code that drives a table; it
    /// walks every slot.
    ///
    /// ```
    /// use idtable::{IdTable, Id24_8};
    /// let mut table = IdTable::<Id24_8>::new();
    /// for round in 0..100 {
    ///     let (id, _) = table.insert();
    ///     if round % 3 == 0 {
    ///         table.remove(id);
    ///     }
    ///     table.check_invariants();
    /// }
    /// assert_eq!(table.len(), 66);
    /// ```
    ///
    /// # Panics
    ///
    /// With a message naming the first invariant that does not hold.
    pub fn check_invariants(&self) {
        let slots = self.slots.len();
        let len = self.ids.len();
        assert!(
            self.tail_end() <= Self::SLOT_LIMIT,
            "more slots than the layout has indices"
        );
        assert!(len <= slots, "more live ids than slots");
        let queued = self.free.check(&self.slots, len);
        let wrap = self.config.on_exhausted == OnExhausted::Wrap;
        let mut occupied = 0usize;
        let mut reserved = 0usize;
        for (s, &word) in self.slots.iter().enumerate() {
            let generation = Self::generation_of(word);
            let dense = Self::dense_of(word);
            let marked = dense == Self::RESERVED;
            if dense < len as u64 {
                occupied += 1;
                assert!(generation >= 1, "live slot {s} has generation 0");
                assert!(!queued[s], "live slot {s} is queued");
                let d = dense as usize;
                let id = self.ids[d];
                assert_eq!(id.index(), s, "slot {s} and ids[{d}] disagree on the index");
                assert_eq!(
                    id.generation().to_u64(),
                    generation,
                    "slot {s} and ids[{d}] disagree on the generation"
                );
            } else if queued[s] {
                assert!(!marked, "queued slot {s} is reserved");
                assert!(
                    generation < Self::MAX_GENERATION,
                    "queued slot {s} has no next generation"
                );
                assert!(
                    generation >= 1 || wrap,
                    "queued slot {s} has generation 0 but the policy does not wrap"
                );
            } else if marked {
                assert!(generation >= 1, "reserved slot {s} has generation 0");
                reserved += 1;
            } else {
                assert_eq!(
                    dense,
                    Self::MASK,
                    "slot {s} links into the free queue but is not queued"
                );
                assert!(
                    !wrap && generation == Self::MAX_GENERATION,
                    "vacant slot {s} is neither queued, reserved nor retired"
                );
            }
        }
        assert_eq!(occupied, len, "occupied slots != live ids");
        assert_eq!(reserved, self.reserved.held(), "reserved slots miscounted");
        self.reserved.tail().check(slots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id16_16, Id24_8, Id32, Id32_32};

    #[test]
    fn insert_issues_generation_one_then_counts_up() {
        let mut t = IdTable::<Id32_32>::new();
        let (a, d) = t.insert();
        assert_eq!((a.index(), a.generation(), d), (0, 1, 0));
        t.remove(a).unwrap();
        let (b, _) = t.insert();
        assert_eq!((b.index(), b.generation()), (0, 2));
        assert!(!t.contains(a));
        assert!(t.contains(b));
        t.check_invariants();
    }

    #[test]
    fn remove_reports_the_swap() {
        let mut t = IdTable::<Id24_8>::new();
        let ids: Vec<_> = (0..4).map(|_| t.insert().0).collect();
        assert_eq!(t.remove(ids[1]), Some(SwapRemove { index: 1, last: 3 }));
        assert_eq!(t.ids(), &[ids[0], ids[3], ids[2]]);
        assert_eq!(t.dense_index(ids[3]), Some(1));
        assert_eq!(t.remove(ids[2]), Some(SwapRemove { index: 2, last: 2 }));
        assert_eq!(t.remove(ids[2]), None);
        t.check_invariants();
    }

    #[test]
    fn free_slots_are_reused_in_fifo_order() {
        let mut t = IdTable::<Id32_32>::new();
        let ids: Vec<_> = (0..5).map(|_| t.insert().0).collect();
        for &i in &[ids[3], ids[1], ids[4]] {
            t.remove(i);
        }
        let order: Vec<_> = (0..3).map(|_| t.insert().0.index()).collect();
        assert_eq!(order, vec![3, 1, 4]);
        t.check_invariants();
    }

    #[test]
    fn free_list_links_leave_the_slots_past_half_the_indices() {
        // Id32<4>: indices 0..=14; links live in the slots up to 7 slots.
        let config = TableConfig {
            min_free: 100,
            ..TableConfig::default()
        };
        let mut t = IdTable::<Id32<4>>::with_config(config);
        let ids: Vec<_> = (0..7).map(|_| t.insert().0).collect();
        for &i in &[ids[3], ids[1], ids[5]] {
            t.remove(i);
        }
        assert!(!t.free.links_on_side(), "7 slots: links in the slots");
        // Queued links are never live dense indices: every stale id misses.
        for &i in &[ids[3], ids[1], ids[5]] {
            assert_eq!(t.dense_or_vacant(i).map(|d| d < t.len()), Some(false));
            assert_eq!(t.dense_index(i), None);
        }
        t.check_invariants();
        // The eighth slot moves the links out, in order.
        let (fresh, _) = t.insert();
        assert_eq!(fresh.index(), 7);
        assert!(t.free.links_on_side());
        t.check_invariants();
        assert_eq!(t.free_slots().collect::<Vec<_>>(), vec![3, 1, 5]);
        // Fresh indices run out at 15 slots; then the queue, oldest first.
        while t.slot_count() < 15 {
            t.insert();
            t.check_invariants();
        }
        let order: Vec<_> = (0..3).map(|_| t.insert().0.index()).collect();
        assert_eq!(order, vec![3, 1, 5]);
        t.check_invariants();
        // And a side-linked table round-trips through its parts.
        let first = t.ids()[0];
        t.remove(first);
        let loaded = IdTable::<Id32<4>>::from_parts(&t.to_parts(), config).unwrap();
        loaded.check_invariants();
        assert_eq!(loaded.to_parts(), t.to_parts());
        assert!(loaded.free.links_on_side());
    }

    #[test]
    fn stale_ids_of_linked_slots_resolve_to_nothing() {
        // Every slot but one freed, so each queued slot holds a link; every
        // generation of every slot is tried.
        let mut t = IdTable::<Id32<28>>::new();
        let ids: Vec<_> = (0..64).map(|_| t.insert().0).collect();
        for &i in ids.iter().skip(1).rev() {
            t.remove(i);
        }
        t.check_invariants();
        for index in 0..70 {
            for generation in 1..=15u32 {
                let id = Id32::<28>::new(index, generation).unwrap();
                let expected = (id == ids[0]).then_some(0);
                assert_eq!(t.dense_index(id), expected, "{id:?}");
                if let Some(d) = t.dense_or_vacant(id) {
                    assert!(d == 0 || d >= t.len(), "{id:?} reached dense {d}");
                }
            }
        }
    }

    #[test]
    fn min_free_holds_slots_back_until_enough_wait() {
        let config = TableConfig {
            min_free: 3,
            ..TableConfig::default()
        };
        let mut t = IdTable::<Id32_32>::with_config(config);
        let ids: Vec<_> = (0..4).map(|_| t.insert().0).collect();
        t.remove(ids[0]);
        t.remove(ids[1]);
        assert_eq!(t.insert().0.index(), 4, "2 waiting < min_free: fresh slot");
        t.remove(ids[2]);
        assert_eq!(t.insert().0.index(), 0, "3 waiting: oldest reused");
        t.check_invariants();
    }

    #[test]
    fn min_free_yields_when_fresh_indices_run_out() {
        let config = TableConfig {
            min_free: 100,
            ..TableConfig::default()
        };
        let mut t = IdTable::<Id32<2>>::with_config(config);
        let ids: Vec<_> = (0..3).map(|_| t.insert().0).collect();
        t.remove(ids[1]);
        let (id, _) = t.insert();
        assert_eq!((id.index(), id.generation()), (1, 2));
        t.check_invariants();
    }

    #[test]
    fn retire_never_reissues_an_exhausted_slot() {
        let mut t = IdTable::<Id32<30>>::new(); // 2 generation bits: 1..=3
        let mut seen = std::collections::HashSet::new();
        for _ in 0..3 {
            let (id, _) = t.insert();
            assert!(seen.insert(id));
            t.remove(id);
            t.check_invariants();
        }
        let (id, _) = t.insert();
        assert_eq!(id.index(), 1, "slot 0 retired after generation 3");
        assert_eq!(t.free_count(), 0);
        t.check_invariants();
    }

    #[test]
    fn wrap_restarts_generations_at_one() {
        let config = TableConfig {
            on_exhausted: OnExhausted::Wrap,
            ..TableConfig::default()
        };
        let mut t = IdTable::<Id32<30>>::with_config(config);
        let gens: Vec<_> = (0..5)
            .map(|_| {
                let (id, _) = t.insert();
                t.remove(id);
                (id.index(), id.generation())
            })
            .collect();
        assert_eq!(gens, vec![(0, 1), (0, 2), (0, 3), (0, 1), (0, 2)]);
        t.check_invariants();
    }

    #[test]
    fn full_table_is_an_error_naming_the_layout() {
        let mut t = IdTable::<Id32<2>>::new();
        for _ in 0..3 {
            t.insert();
        }
        let err = t.try_insert().unwrap_err();
        assert_eq!(
            err.to_string(),
            "id table full: all 3 slots of the Id2_30 layout are live, reserved or retired"
        );
        assert!(t.next_id().is_err());
        t.check_invariants();
    }

    #[test]
    fn clear_never_resurrects() {
        let mut t = IdTable::<Id16_16>::new();
        let old: Vec<_> = (0..10).map(|_| t.insert().0).collect();
        t.clear();
        t.check_invariants();
        let new: Vec<_> = (0..10).map(|_| t.insert().0).collect();
        for id in &old {
            assert!(!t.contains(*id));
            assert!(!new.contains(id));
        }
    }

    #[test]
    fn reserved_and_foreign_ids_resolve_to_nothing() {
        let mut t = IdTable::<Id24_8>::new();
        t.insert();
        let all_ones = Id24_8::from_bits(u32::MAX).unwrap();
        assert_eq!(t.dense_index(all_ones), None);
        assert_eq!(t.dense_index(Id24_8::new(0, 2).unwrap()), None);
        assert_eq!(t.dense_index(Id24_8::new(7, 1).unwrap()), None);
        t.remove(t.ids()[0]);
        assert_eq!(t.dense_index(Id24_8::new(0, 1).unwrap()), None);
        assert_eq!(t.dense_index(Id24_8::new(0, 2).unwrap()), None);
    }

    #[test]
    fn swap_dense_keeps_ids_valid() {
        let mut t = IdTable::<Id32_32>::new();
        let a = t.insert().0;
        let b = t.insert().0;
        t.swap_dense(0, 1);
        assert_eq!(t.dense_index(a), Some(1));
        assert_eq!(t.dense_index(b), Some(0));
        t.check_invariants();
    }
}
