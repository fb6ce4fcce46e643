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
use crate::marks::Marks;
use crate::sync::{const_fn, AtomicUsize, Ordering};

mod free;
mod parts;
mod reserve;
use free::{FreeList, PENDING};
pub use parts::{IdTableParts, PartsError};
#[cfg(target_has_atomic = "ptr")]
pub use reserve::ReservedIds;

/// Where the next insert's slot comes from.
enum NextSlot {
    /// The slot at the front of the free queue.
    Queued,
    /// A slot never issued before, appended to the slot table, which stays
    /// within [`IdTable::LINKS_IN_SLOTS`] slots.
    Fresh,
    /// The same, taking the table past (or further past) that line, where
    /// the free list keeps its links on the side.
    FreshPastLine,
    /// None: every index is live or retired.
    Full,
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

/// No id can be issued: every index of the layout is live or retired.
///
/// ```
/// use idtable::{IdTable, Id32};
///
/// let mut table = IdTable::<Id32<2>>::new(); // indices 0, 1, 2 (3 is reserved)
/// for _ in 0..3 {
///     table.try_insert().unwrap();
/// }
/// let err = table.try_insert().unwrap_err();
/// assert!(err.to_string().contains("Id2_30"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TableFull {
    layout_index_bits: u32,
    layout_generation_bits: u32,
    slots: usize,
}

impl TableFull {
    fn new<I: Id>() -> Self {
        TableFull {
            layout_index_bits: I::INDEX_BITS,
            layout_generation_bits: I::GENERATION_BITS,
            slots: I::MAX_INDEX + 1,
        }
    }
}

impl fmt::Display for TableFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "id table full: all {} slots of the Id{}_{} layout are live or retired",
            self.slots, self.layout_index_bits, self.layout_generation_bits
        )
    }
}

impl fmt::Debug for TableFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TableFull({self})")
    }
}

impl core::error::Error for TableFull {}

/// The id table engine shared by every derived allocator.
///
/// # Layout and invariants
///
/// * `slots[s]` (one integer of the id's width per slot ever issued) packs
///   `generation << INDEX_BITS | dense`: the generation of the last id issued
///   from slot `s`, and its dense index while that id is live. While the
///   slot is vacant its dense field is at least `len`: the reserved
///   all-ones index (`VACANT`), or the link to the next slot of the free
///   list (see below).
/// * `ids[d]` is the live id at dense index `d`, for `d` in `0..len`;
///   `slots[ids[d].index()] == ids[d].generation() << INDEX_BITS | d`.
///   Exactly `len` slots are occupied: those whose dense field is below
///   `len`.
/// * The free list holds, oldest first, each vacant slot that may be issued
///   again, once. It is a FIFO queue threaded through the vacant slots: while
///   the table has at most half the layout's indices as slots, each queued
///   slot but the last holds `VACANT - 1 - next` in its dense field (never
///   below the slot count, so never a live dense index); larger tables keep
///   the links in a side array of one word per slot. Freeing a slot never
///   allocates. A vacant slot missing from the list is retired: its
///   generation is `MAX_GENERATION` and the policy is
///   [`OnExhausted::Retire`].
/// * Every generation stored is at least 1; the next id of a slot gets the
///   next generation (`MAX_GENERATION` wraps to 1 under
///   [`OnExhausted::Wrap`]).
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
/// free list costs nothing more while the table has at most half its
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
    free: FreeList<I::Bits>,
    config: TableConfig,
    /// Ids reserved from a shared borrow (`reserve.rs`).
    reserved: Reserved,
}

/// What the table knows of its reservations: how many ids were claimed
/// from `&self` since the last exclusive access (`claims`), and, once
/// settled, which slots hold a reservation (`bits`, one per slot, empty
/// until the first one) and how many.
struct Reserved {
    claims: OwnLine<AtomicUsize>,
    /// The queue's front as reservations left it, or `UNSET` while they
    /// took no queued slot (then it is the queue's own head).
    cursor: AtomicUsize,
    /// The queue's length when the pending claims were made: frees may
    /// lengthen the queue before they are settled.
    plan_len: AtomicUsize,
    bits: Vec<u64>,
    count: usize,
}

/// A value alone in its cache line (assumed 64 bytes): `claims` is the one
/// word threads reserving at once all write, and the words every claim
/// only reads stay out of its line.
#[repr(align(64))]
struct OwnLine<T>(T);

impl<T> core::ops::Deref for OwnLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> core::ops::DerefMut for OwnLine<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl Clone for Reserved {
    fn clone(&self) -> Self {
        Reserved {
            claims: OwnLine(AtomicUsize::new(self.claims.load(Ordering::Relaxed))),
            cursor: AtomicUsize::new(self.cursor.load(Ordering::Relaxed)),
            plan_len: AtomicUsize::new(self.plan_len.load(Ordering::Relaxed)),
            bits: self.bits.clone(),
            count: self.count,
        }
    }
}

impl Reserved {
    const_fn! {
        const fn new() -> Self {
            Reserved {
                claims: OwnLine(AtomicUsize::new(0)),
                cursor: AtomicUsize::new(usize::MAX),
                plan_len: AtomicUsize::new(0),
                bits: Vec::new(),
                count: 0,
            }
        }
    }
}

impl<I: Id> Clone for IdTable<I> {
    fn clone(&self) -> Self {
        IdTable {
            slots: self.slots.clone(),
            ids: self.ids.clone(),
            free: self.free.clone(),
            config: self.config,
            reserved: self.reserved.clone(),
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
            .field("free", &self.free.settled_len())
            .field("config", &self.config)
            .finish()
    }
}

impl<I: Id> IdTable<I> {
    const MASK: u64 = index_mask(I::INDEX_BITS);

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
            Self::with_config(TableConfig {
                min_free: 0,
                on_exhausted: OnExhausted::Retire,
            })
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
                free: FreeList::new(),
                config,
                reserved: Reserved::new(),
            }
        }
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

    /// Number of slots ever issued (live, free and retired).
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
        self.slots.len()
    }

    /// Number of freed slots waiting in the FIFO queue.
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
        self.free.settled_len() - self.pending_queue_claims()
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
        self.ids.reserve(additional);
        let fresh_needed = additional.saturating_sub(self.reusable());
        self.slots.reserve(fresh_needed);
        if !self.free.links.is_empty() {
            self.free.links.reserve(fresh_needed);
        }
    }

    /// How many of the next inserts take a queued slot if nothing is removed
    /// in between: the queue, less the `min_free - 1` slots it holds back
    /// (an insert reuses only while at least `min_free` slots wait).
    fn reusable(&self) -> usize {
        Self::reusable_of(self.free.settled_len(), self.config)
    }

    /// [`reusable`](Self::reusable) for a queue of `len` slots.
    #[inline(always)]
    fn reusable_of(len: usize, config: TableConfig) -> usize {
        let held_back = config.min_free.saturating_sub(1);
        len.saturating_sub(held_back)
    }

    /// Shrinks the dense array (and the free list's side links, when the
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
        self.free.links.shrink_to_fit();
    }

    #[inline(always)]
    fn pack(generation: u64, dense: u64) -> I::Bits {
        I::Bits::from_u64_truncating(generation << I::INDEX_BITS | dense)
    }

    #[inline(always)]
    fn slot_generation(slot: I::Bits) -> u64 {
        slot.to_u64() >> I::INDEX_BITS
    }

    #[inline(always)]
    fn next_generation_after(last: u64) -> u64 {
        if last >= I::MAX_GENERATION.to_u64() {
            1
        } else {
            last + 1
        }
    }

    /// Which slot the next insert takes, given the queue's length field
    /// (a [`PENDING`] flag in it makes the answer `Queued`, whose path
    /// settles the reservations first).
    #[inline(always)]
    fn next_slot(&self, waiting: usize) -> NextSlot {
        let slots = self.slots.len();
        if waiting > 0 && (waiting >= self.config.min_free || slots > I::MAX_INDEX) {
            NextSlot::Queued
        } else if slots < Self::LINKS_IN_SLOTS {
            NextSlot::Fresh
        } else if slots <= I::MAX_INDEX {
            NextSlot::FreshPastLine
        } else {
            NextSlot::Full
        }
    }

    /// The id the next [`insert`](IdTable::insert) will issue, without
    /// changing the table, or [`TableFull`].
    ///
    /// ```
    /// use idtable::{IdTable, Id32_32};
    /// let mut table = IdTable::<Id32_32>::new();
    /// let next = table.next_id().unwrap();
    /// assert_eq!(table.insert().0, next);
    /// ```
    pub fn next_id(&self) -> Result<I, TableFull> {
        if self.free.len.load(Ordering::Relaxed) & PENDING != 0 {
            return self.next_id_after_claims();
        }
        let (index, generation) = match self.next_slot(self.free.settled_len()) {
            NextSlot::Queued => {
                let s = self.free.settled_head();
                let generation = Self::next_generation_after(Self::slot_generation(self.slots[s]));
                (s, generation)
            }
            NextSlot::Fresh | NextSlot::FreshPastLine => (self.slots.len(), 1),
            NextSlot::Full => return Err(TableFull::new::<I>()),
        };
        Ok(Self::make_id(index, generation))
    }

    #[inline(always)]
    fn make_id(index: usize, generation: u64) -> I {
        match I::from_bits(Self::pack(generation, index as u64)) {
            Some(id) => id,
            None => unreachable!("generation 0 is never issued"),
        }
    }

    /// Issues a new id. Returns it and its dense index (always the old
    /// [`len`](IdTable::len)), or [`TableFull`] when every index of the
    /// layout is live or retired.
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
    pub fn try_insert(&mut self) -> Result<(I, usize), TableFull> {
        let dense = self.ids.len();
        // Each arm writes its slot once, with the new id's generation and
        // dense index.
        let waiting = *self.free.len.get_mut();
        let (index, generation) = match self.next_slot(waiting) {
            NextSlot::Queued => {
                if waiting & PENDING != 0 {
                    return self.settle_then_insert();
                }
                let s = self.dequeue();
                let slot = &mut self.slots[s];
                let generation = Self::next_generation_after(Self::slot_generation(*slot));
                *slot = Self::pack(generation, dense as u64);
                (s, generation)
            }
            NextSlot::Fresh => {
                self.slots.push(Self::pack(1, dense as u64));
                (self.slots.len() - 1, 1)
            }
            NextSlot::FreshPastLine => {
                self.slots.push(Self::pack(1, dense as u64));
                self.grow_links();
                (self.slots.len() - 1, 1)
            }
            NextSlot::Full => return Err(TableFull::new::<I>()),
        };
        let id = Self::make_id(index, generation);
        self.ids.push(id);
        Ok((id, dense))
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
    /// When every index of the layout is live or retired; the message names
    /// the layout.
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
    /// index when live, or, when the slot is vacant, `VACANT` or a free-list
    /// link, both at least [`len`](IdTable::len) (see `table/free.rs`).
    /// Callers that bounds-check the result against `len` anyway get the
    /// vacancy check for free.
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
        let last = self.ids.len() - 1;
        self.ids.swap_remove(dense);
        if dense != last {
            let moved = self.ids[dense];
            self.slots[moved.index()] = Self::pack(moved.generation().to_u64(), dense as u64);
        }
        self.release(id);
        Some(SwapRemove { index: dense, last })
    }

    /// Marks the slot of live `id` vacant and queues it (or retires it).
    /// Always inlined: `remove`'s path, and small once the queue's cold
    /// branches are out of line.
    #[inline(always)]
    fn release(&mut self, id: I) {
        let generation = id.generation().to_u64();
        let index = id.index();
        self.slots[index] = Self::pack(generation, Self::MASK);
        let exhausted = generation >= I::MAX_GENERATION.to_u64();
        if !(exhausted && self.config.on_exhausted == OnExhausted::Retire) {
            self.enqueue(index);
        }
    }

    /// Removes the ids at the marked dense indices at or after `start`;
    /// the others move down over them, keeping their order (each keeps
    /// resolving, to its new dense index). Freed slots are queued in dense
    /// order. The caller removes the same rows of its columns.
    pub(crate) fn remove_marked(&mut self, start: usize, marks: &Marks) {
        let end = self.ids.len();
        // The marked ids' slots first, queued in dense order; then the
        // survivors move down over the gaps. Walking the marks a word at a
        // time spares a branch on each row's mark (half of them mispredicted
        // when half the rows go).
        marks.for_each(true, start, end, |d| {
            let id = self.ids[d];
            self.release(id);
        });
        let mut write = start;
        marks.for_each(false, start, end, |read| {
            let id = self.ids[read];
            self.ids[write] = id;
            self.slots[id.index()] = Self::pack(id.generation().to_u64(), write as u64);
            write += 1;
        });
        self.ids.truncate(write);
    }

    /// Removes every id. No id issued before becomes live again: each slot
    /// is queued for reuse with its next generation, or retired.
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
        self.release_all_reserved();
        let ids = core::mem::take(&mut self.ids);
        for &id in &ids {
            self.release(id);
        }
        self.ids = ids;
        self.ids.clear();
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

    /// Checks every invariant listed on [`IdTable`]. Meant for tests of
    /// code that drives a table; it walks every slot.
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
            slots <= I::MAX_INDEX + 1,
            "more slots than the layout has indices"
        );
        assert!(len <= slots, "more live ids than slots");
        let links_in_slots = self.free.links.is_empty();
        if links_in_slots {
            assert!(
                slots <= Self::LINKS_IN_SLOTS,
                "{slots} slots keep free-list links in the slots (at most {})",
                Self::LINKS_IN_SLOTS
            );
        } else {
            assert_eq!(self.free.links.len(), slots, "one side link per slot");
        }
        let mut occupied = 0usize;
        for (s, &slot) in self.slots.iter().enumerate() {
            let generation = Self::slot_generation(slot);
            assert!(generation >= 1, "slot {s} has generation 0");
            let dense = slot.to_u64() & Self::MASK;
            if dense < len as u64 {
                occupied += 1;
                let d = dense as usize;
                let id = self.ids[d];
                assert_eq!(id.index(), s, "slot {s} and ids[{d}] disagree on the index");
                assert_eq!(
                    id.generation().to_u64(),
                    generation,
                    "slot {s} and ids[{d}] disagree on the generation"
                );
            } else if dense != Self::MASK {
                assert!(
                    links_in_slots,
                    "slot {s} is vacant with a link in its dense field, but the links are on the side"
                );
            }
        }
        assert_eq!(occupied, len, "occupied slots != live ids");
        let mut queued = alloc::vec![false; slots];
        let mut count = 0;
        let mut s = self.free.head;
        for i in 0..self.free.settled_len() {
            if i > 0 {
                s = self.next_queued(s);
            }
            assert!(s < slots, "the free list names slot {s}, past the slots");
            assert!(!queued[s], "slot {s} is queued twice");
            queued[s] = true;
            count += 1;
            let dense = self.slots[s].to_u64() & Self::MASK;
            assert!(dense >= len as u64, "queued slot {s} is occupied");
            let last = i + 1 == self.free.settled_len();
            if links_in_slots {
                assert_eq!(
                    dense == Self::MASK,
                    last,
                    "queued slot {s}: only the last one has no link"
                );
            } else {
                assert_eq!(dense, Self::MASK, "queued slot {s} has a link in its slot");
            }
            if last {
                assert_eq!(
                    s, self.free.tail,
                    "the free list's tail is not its last slot"
                );
            }
        }
        assert_eq!(count, self.free.settled_len());
        let mut reserved = 0usize;
        for (s, &slot) in self.slots.iter().enumerate() {
            let dense = slot.to_u64() & Self::MASK;
            let vacant = dense >= len as u64;
            if vacant && !queued[s] && self.slot_is_reserved(s) {
                assert_eq!(dense, Self::MASK, "reserved slot {s} holds a link");
                reserved += 1;
            } else if vacant && !queued[s] {
                assert_eq!(
                    dense,
                    Self::MASK,
                    "slot {s} links into the free list but is not queued"
                );
                assert!(
                    self.config.on_exhausted == OnExhausted::Retire
                        && Self::slot_generation(slot) == I::MAX_GENERATION.to_u64(),
                    "vacant slot {s} is neither queued nor retired"
                );
            }
        }
        assert_eq!(reserved, self.reserved_count(), "reserved slots miscounted");
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
        assert!(t.free.links.is_empty(), "7 slots: links in the slots");
        // Queued links are never live dense indices: every stale id misses.
        for &i in &[ids[3], ids[1], ids[5]] {
            assert_eq!(t.dense_or_vacant(i).map(|d| d < t.len()), Some(false));
            assert_eq!(t.dense_index(i), None);
        }
        t.check_invariants();
        // The eighth slot moves the links out, in order.
        let (fresh, _) = t.insert();
        assert_eq!(fresh.index(), 7);
        assert_eq!(t.free.links.len(), 8);
        t.check_invariants();
        assert_eq!(t.queued().collect::<Vec<_>>(), vec![3, 1, 5]);
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
        assert_eq!(loaded.free.links.len(), 15);
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
            "id table full: all 3 slots of the Id2_30 layout are live or retired"
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
