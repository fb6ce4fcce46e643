//! [`SoaMap<K, T>`]: the rows of a [`Record`] `T` stored as components of
//! the objects of another table, keyed by that table's ids.
//!
//! A unit may be burning, poisoned or selected; a `SoaMap<UnitId, Burning>`
//! holds the `Burning` rows of the units that burn, and nothing for the
//! others. The rows are dense columns, swap-remove packed like an
//! allocator's, parallel to [`keys`](crate::SoaMap::keys); a paged sparse index
//! leads from a key's slot index to its row.
//!
//! ```
//! use idtable::{SoaAllocator, SoaMap};
//!
//! #[derive(SoaAllocator)]
//! pub struct Unit { pub hp: i32 }
//! #[derive(SoaAllocator, Debug, PartialEq)]
//! pub struct Burning { pub dps: f32, pub left: f32 }
//!
//! let mut units = UnitAllocator::new();
//! let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
//! let a = units.insert(Unit { hp: 10 });
//! let b = units.insert(Unit { hp: 8 });
//! burning.insert(b, Burning { dps: 2.0, left: 1.0 });
//!
//! // A joined loop: every burning unit takes its damage.
//! for (unit, fire) in burning.iter() {
//!     *units.get_mut(unit).unwrap().hp -= *fire.dps as i32;
//! }
//! assert_eq!((*units.get(a).unwrap().hp, *units.get(b).unwrap().hp), (10, 6));
//! ```
//!
//! # Generations
//!
//! An entry is found only by the exact key it was inserted with, so when
//! the keying table reuses a slot, the new object never sees the old
//! object's component. A stale entry (its object is gone but the entry was
//! not removed) stays until it is removed, replaced, or dropped with the
//! map:
//!
//! * inserting with a key **newer** than the stored one (same slot index,
//!   higher generation) replaces the stale entry: its value is dropped and
//!   [`insert`](SoaMap::insert) returns `None`;
//! * inserting with a key **older** than the stored one inserts nothing:
//!   `insert` drops the value and returns `None`, and
//!   [`try_insert`](SoaMap::try_insert) gives it back in `Err`.
//!
//! Generations compare as numbers. A keying table configured with
//! [`OnExhausted::Wrap`](crate::OnExhausted::Wrap) starts a slot again at
//! generation 1: an entry left from before the wrap then counts as newer
//! and refuses the new key until it is removed.
//!
//! # Memory
//!
//! Besides the columns and one key per entry, the sparse index costs 4
//! bytes per slot index of the keying table, in pages of 64 indices
//! allocated when a key of that page is first inserted: a map holding a few
//! keys with high indices holds a few pages. [`index_bytes`](SoaMap::index_bytes)
//! reports it.

mod entry;
mod sparse;

#[cfg(feature = "serde")]
mod serde;

use crate::columns::ColumnBuffer;
use crate::id::Id;
use crate::record::{into_values, Record};
use crate::rows::{sealed, Rows};

pub use entry::{Entry, OccupiedEntry, VacantEntry};
pub use sparse::SparseSet;
use sparse::Standing;

/// Draining iterator of a [`SoaMap`], from `drain()`: yields each
/// `(key, record)`, last dense row first; the map is empty afterwards, even if the
/// iterator is dropped early (the engine's [`Drain`](crate::rows::Drain),
/// shown in [`Rows`]' example).
pub type Drain<'a, K, T> = crate::rows::Drain<'a, SparseSet<K>, T>;
/// Owning iterator of a [`SoaMap`], from `into_iter()`: yields each
/// `(key, record)`, last dense row first (the engine's
/// [`IntoIter`](crate::rows::IntoIter), shown in [`Rows`]' example).
pub type IntoIter<K, T> = crate::rows::IntoIter<SparseSet<K>, T>;

/// The rows of `T` keyed by ids `K` of another table: slotmap's
/// `SecondaryMap` semantics in structure-of-arrays form. Lookups, views,
/// iteration, `retain` and sorting are the [`Rows`] engine's, each
/// forwarded by a method of its own (a map names its rows by `keys`); the
/// [module docs](self) give the generation rules and the memory it takes.
///
/// Invariant: the sparse set holds one key per row of the columns, the row
/// at dense index `d` belonging to `keys()[d]`; its own invariants are
/// checked by [`check_invariants`](Rows::check_invariants).
///
/// ```
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// pub struct Burning { pub dps: f32, pub left: f32 }
///
/// let mut units = UnitAllocator::new();
/// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
/// let u = units.insert(Unit { hp: 10 });
/// assert_eq!(burning.insert(u, Burning { dps: 1.0, left: 3.0 }), None);
/// assert_eq!(*burning.get(u).unwrap().dps, 1.0);
/// for left in burning.columns_mut().left.iter_mut() {
///     *left -= 0.5;
/// }
/// assert_eq!(burning.keys(), &[u]);
/// assert!(burning.contains_key(u));
/// units.remove(u);
/// let u2 = units.insert(Unit { hp: 5 }); // u's slot, a newer generation
/// assert!(!burning.contains_key(u2));
/// assert_eq!(burning.remove(u).map(|b| b.left), Some(2.5));
/// let roomy: SoaMap<UnitId, Burning> = SoaMap::with_capacity(64);
/// assert!(roomy.capacity() >= 64);
/// ```
pub type SoaMap<K, T> = Rows<SparseSet<K>, T>;

impl<K: Id> sealed::Index for SparseSet<K> {
    type Key = K;

    #[inline(always)]
    fn keys(&self) -> &[K] {
        SparseSet::keys(self)
    }

    #[inline(always)]
    fn find(&self, key: K) -> Option<usize> {
        SparseSet::find(self, key)
    }

    #[inline(always)]
    fn near_only(&self) -> bool {
        SparseSet::near_only(self)
    }

    #[inline(always)]
    fn find_near(&self, key: K) -> Option<usize> {
        SparseSet::find_near(self, key)
    }

    #[inline]
    fn swap_dense(&mut self, a: usize, b: usize) {
        self.swap(a, b);
    }

    fn pop(&mut self) -> Option<K> {
        SparseSet::pop(self)
    }

    #[inline(always)]
    fn take_position(&mut self, key: K) -> Option<usize> {
        self.remove(key)
    }

    fn swap_remove(&mut self, dense: usize) -> K {
        let key = self.keys()[dense];
        self.remove(key);
        key
    }

    fn clear(&mut self) {
        SparseSet::clear(self);
    }

    const CHUNK_BLOCKS: usize = 64;

    #[inline(always)]
    fn taggable(&self, _found: bool) -> bool {
        SparseSet::taggable(self)
    }

    #[inline(always)]
    fn keys_mut(&mut self) -> &mut [K] {
        SparseSet::keys_mut(self)
    }

    #[inline(always)]
    fn detach(&mut self, key: K, dense: usize, tagged: bool) {
        SparseSet::detach(self, key, dense, tagged);
    }

    #[inline(always)]
    fn is_detached(&self, dense: usize, tagged: bool) -> bool {
        SparseSet::is_detached(self, dense, tagged)
    }

    fn reattach(&mut self, dense: usize, tagged: bool) {
        SparseSet::reattach(self, dense, tagged);
    }

    #[inline(always)]
    fn remove_detached_block(
        &mut self,
        base: usize,
        n: usize,
        _asked: usize,
        write: &mut usize,
        tagged: bool,
    ) -> u64 {
        SparseSet::remove_detached_block(self, base, n, write, tagged)
    }

    #[inline(always)]
    fn remove_marked_block(&mut self, base: usize, n: usize, gone: u64, write: &mut usize) {
        SparseSet::remove_marked_block(self, base, n, gone, write);
    }

    fn truncate(&mut self, len: usize) {
        SparseSet::truncate(self, len);
    }

    fn reserve(&mut self, additional: usize) {
        SparseSet::reserve(self, additional);
    }

    fn shrink_to_fit(&mut self) {
        SparseSet::shrink_to_fit(self);
    }

    fn capacity(&self) -> usize {
        SparseSet::capacity(self)
    }

    fn check_invariants(&self) {
        SparseSet::check_invariants(self);
    }
}

impl<K: Id, T: Record> Default for Rows<SparseSet<K>, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Id, T: Record> Rows<SparseSet<K>, T> {
    /// An empty map; allocates nothing until the first insert.
    pub const fn new() -> Self {
        Rows::from_parts(SparseSet::new(), ColumnBuffer::new())
    }

    /// An empty map with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut map = Self::new();
        map.reserve(capacity);
        map
    }

    /// The keys, in dense order: `keys()[d]` owns the row at position `d`
    /// of every column.
    #[inline(always)]
    pub fn keys(&self) -> &[K] {
        self.index.keys()
    }

    /// The keys and every column mutably, at once.
    #[inline(always)]
    pub fn keys_and_columns_mut(&mut self) -> (&[K], T::ColumnsMut<'_>) {
        let columns = crate::record::make_columns_mut::<T>(self.columns.slices_mut());
        (self.index.keys(), columns)
    }

    /// The bytes the sparse index holds (its pages and their directories):
    /// what the map costs beyond its columns and keys.
    ///
    /// ```
    /// use idtable::{Id32_32, SoaAllocator, SoaMap};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Tag { n: u8 }
    ///
    /// let mut tags: SoaMap<Id32_32, Tag> = SoaMap::new();
    /// assert_eq!(tags.index_bytes(), 0);
    /// tags.insert(Id32_32::new(5_000_000, 1).unwrap(), Tag { n: 1 });
    /// assert!(tags.index_bytes() < 1 << 20, "one page, not an index up to 5,000,000");
    /// ```
    pub fn index_bytes(&self) -> usize {
        self.index.index_bytes()
    }

    /// Inserts `value` for `key`; returns the value it replaced, if `key`
    /// itself held one. A stale entry of the same slot index (an older key)
    /// is replaced and dropped; if the stored key is **newer** than `key`,
    /// nothing is inserted and `value` is dropped (see
    /// [`try_insert`](SoaMap::try_insert) to get it back).
    // Always inlined: see `try_insert`.
    #[inline(always)]
    pub fn insert(&mut self, key: K, value: T) -> Option<T> {
        self.try_insert(key, value).unwrap_or_default()
    }

    /// Like [`insert`](SoaMap::insert), but gives `value` back in `Err`
    /// when the stored key of the slot index is newer than `key`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// pub struct Tag { pub n: u8 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let old = units.insert(Unit { hp: 1 });
    /// units.remove(old);
    /// let new = units.insert(Unit { hp: 2 }); // same slot, newer generation
    /// let mut tags: SoaMap<UnitId, Tag> = SoaMap::new();
    /// assert_eq!(tags.try_insert(new, Tag { n: 1 }), Ok(None));
    /// assert_eq!(tags.try_insert(old, Tag { n: 2 }), Err(Tag { n: 2 }));
    /// assert_eq!(tags.try_insert(new, Tag { n: 3 }), Ok(Some(Tag { n: 1 })));
    /// ```
    // Always inlined, as `SoaStorage::insert` is: out of line, the call
    // (its register saves, and the result returned through memory) cost
    // a sixth of an insert (benches/NOTES.md, "`SoaMap::insert` inlined").
    #[inline(always)]
    pub fn try_insert(&mut self, key: K, value: T) -> Result<Option<T>, T> {
        // One walk to the key's entry decides and, if vacant, holds it.
        match self.index.vacancy(key) {
            Ok(vacant) => {
                // Room for the key first (and its page), then the row (which
                // may grow the columns): if either panics, nothing has
                // changed but a page allocated. Only then the key, which
                // cannot fail. Row before key, as in `SoaStorage::insert`
                // (the faster order there).
                self.columns.push(into_values(value));
                vacant.fill();
                Ok(None)
            }
            Err(Standing::Same(d)) => Ok(Some(entry::replace_row(&mut self.columns, d, value))),
            Err(Standing::Stale(d)) => {
                // Another key at position `d`: `replace_row`'s swap and pop
                // moved the order stamp, as a group must see.
                let stale = entry::replace_row(&mut self.columns, d, value);
                self.index.replace(d, key);
                // Dropped last: a panicking destructor finds the map whole.
                drop(stale);
                Ok(None)
            }
            Err(Standing::Newer(_)) => Err(value),
            Err(Standing::Vacant) => unreachable!("a vacant slot index is `Ok`"),
        }
    }

    /// Removes the entry of `key` and returns its value; `None` if `key`
    /// holds none (a stale key never removes a newer entry). The last row
    /// moves into the gap.
    #[inline(always)]
    pub fn remove(&mut self, key: K) -> Option<T> {
        self.remove_row(key)
    }

    /// The entry of `key`: [`Occupied`](Entry::Occupied) if it holds a
    /// row, [`Vacant`](Entry::Vacant) if not, to read, update or fill with
    /// one lookup (slotmap's `SecondaryMap::entry`). `None` if the key
    /// stored at `key`'s slot index is newer: `key` is stale, and nothing
    /// can be inserted for it (see [`try_insert`](SoaMap::try_insert)).
    /// Like every lookup it allocates nothing: a vacant key's index page
    /// and room are made when its entry inserts, so an entry dropped, or
    /// left by a panicking `or_insert_with` closure, leaves the map as it
    /// was.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator, Debug, Default, PartialEq)]
    /// pub struct Damage { pub taken: f32, pub hits: u32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let u = units.insert(Unit { hp: 10 });
    /// let mut damage: SoaMap<UnitId, Damage> = SoaMap::new();
    /// for amount in [1.5, 2.0] {
    ///     let row = damage.entry(u).unwrap().or_default(); // a DamageMut<'_>
    ///     *row.taken += amount;
    ///     *row.hits += 1;
    /// }
    /// assert_eq!(damage.remove(u), Some(Damage { taken: 3.5, hits: 2 }));
    ///
    /// // A stale key has no entry: the newer key of its slot owns the place.
    /// units.remove(u);
    /// let v = units.insert(Unit { hp: 5 }); // u's slot, a newer generation
    /// damage.insert(v, Damage::default());
    /// assert!(damage.entry(u).is_none());
    /// ```
    #[inline(always)]
    pub fn entry(&mut self, key: K) -> Option<Entry<'_, K, T>> {
        Entry::of(self, key)
    }

    /// `true` if `key` itself holds an entry.
    #[inline(always)]
    pub fn contains_key(&self, key: K) -> bool {
        self.index.find(key).is_some()
    }
}

impl<K: Id, T: Record> Extend<(K, T)> for Rows<SparseSet<K>, T> {
    fn extend<It: IntoIterator<Item = (K, T)>>(&mut self, iter: It) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        // `for_each`, as in `SoaStorage::extend`: each pair goes straight to
        // `insert` instead of through `next()`'s `Option`.
        iter.for_each(|(key, value)| {
            self.insert(key, value);
        });
    }
}

impl<K: Id, T: Record> FromIterator<(K, T)> for Rows<SparseSet<K>, T> {
    fn from_iter<It: IntoIterator<Item = (K, T)>>(iter: It) -> Self {
        let mut map = Self::new();
        map.extend(iter);
        map
    }
}
