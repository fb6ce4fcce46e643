//! [`SoaMap<K, T>`]: the rows of a [`Record`] `T` stored as components of
//! the objects of another table, keyed by that table's ids.
//!
//! A unit may be burning, poisoned or selected; a `SoaMap<UnitId, Burning>`
//! holds the `Burning` rows of the units that burn, and nothing for the
//! others. The rows are dense columns, swap-remove packed like an
//! allocator's, parallel to [`keys`](SoaMap::keys); a paged sparse index
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

mod sparse;

#[cfg(feature = "rayon")]
mod par;
#[cfg(feature = "serde")]
mod saved;

use core::cmp::Ordering;
use core::fmt;
use core::iter::FusedIterator;

use crate::columns::{CloneColumns, ColumnBuffer};
use crate::id::Id;
use crate::marks::Marks;
use crate::storage::{self, from_values, into_values, make_mut, make_ref, Record, RecordToken};

use sparse::{Slot, SparseSet};

/// The rows of `T` keyed by ids `K` of another table: slotmap's
/// `SecondaryMap` semantics in structure-of-arrays form. See the
/// [module docs](self) for the generation rules and the memory it takes.
///
/// Invariant: the sparse set holds one key per row of the columns, the row
/// at dense index `d` belonging to `keys()[d]`; its own invariants are
/// checked by [`check_invariants`](SoaMap::check_invariants).
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
/// units.remove(u);
/// let u2 = units.insert(Unit { hp: 5 }); // u's slot, a newer generation
/// assert!(!burning.contains_key(u2));
/// assert_eq!(burning.remove(u).map(|b| b.left), Some(2.5));
/// ```
pub struct SoaMap<K: Id, T: Record> {
    sparse: SparseSet<K>,
    columns: ColumnBuffer<T::Tree>,
}

impl<K: Id, T: Record> Default for SoaMap<K, T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Clones every column, field by field, as `#[derive(Clone)]` on `T` would.
/// Requires `T: Clone`, like a derived allocator.
impl<K: Id, T: Record + Clone> Clone for SoaMap<K, T>
where
    T::Tree: CloneColumns,
{
    fn clone(&self) -> Self {
        SoaMap {
            sparse: self.sparse.clone(),
            columns: self.columns.clone(),
        }
    }
}

/// `{key: row, ..}` in dense order, each row as `T::Ref` shows it (the
/// derived `FooRef` shows the `pub` fields). Requires `T: Debug`, like a
/// derived allocator.
impl<K: Id, T: Record + fmt::Debug> fmt::Debug for SoaMap<K, T>
where
    for<'a> T::Ref<'a>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Id, T: Record> SoaMap<K, T> {
    /// An empty map; allocates nothing until the first insert.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let burning = SoaMap::<UnitId, Burning>::new();
    /// assert!(burning.is_empty());
    /// assert_eq!((burning.capacity(), burning.index_bytes()), (0, 0));
    /// ```
    pub const fn new() -> Self {
        SoaMap {
            sparse: SparseSet::new(),
            columns: ColumnBuffer::new(),
        }
    }

    /// An empty map with room for `capacity` entries (the sparse index
    /// grows as keys arrive).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let burning = SoaMap::<UnitId, Burning>::with_capacity(100);
    /// assert!(burning.capacity() >= 100);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        let mut map = Self::new();
        map.reserve(capacity);
        map
    }

    /// Number of entries.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// burning.insert(units.insert(Unit { hp: 1 }), Burning { dps: 1.0, left: 1.0 });
    /// assert_eq!(burning.len(), 1);
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// `true` when the map holds no entry.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// assert!(burning.is_empty());
    /// let u = units.insert(Unit { hp: 1 });
    /// burning.insert(u, Burning { dps: 1.0, left: 1.0 });
    /// assert!(!burning.is_empty());
    /// ```
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Entries that fit before the columns or the keys reallocate.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// assert_eq!(burning.capacity(), 0);
    /// burning.insert(units.insert(Unit { hp: 1 }), Burning { dps: 1.0, left: 1.0 });
    /// assert!(burning.capacity() >= 1);
    /// ```
    pub fn capacity(&self) -> usize {
        self.columns.capacity().min(self.sparse.capacity())
    }

    /// Reserves room for `additional` more entries in the columns and the
    /// keys.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// burning.reserve(50);
    /// assert!(burning.capacity() >= 50);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.columns.reserve(additional);
        self.sparse.reserve(additional);
    }

    /// Frees unused capacity of the columns and the keys (the pages of the
    /// sparse index stay).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut burning = SoaMap::<UnitId, Burning>::with_capacity(1000);
    /// burning.shrink_to_fit();
    /// assert_eq!(burning.capacity(), 0);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.columns.shrink_to_fit();
        self.sparse.shrink_to_fit();
    }

    /// Bytes held by the sparse index: 4 per slot index of every page
    /// touched, plus the directories that lead to the pages.
    ///
    /// ```
    /// use idtable::{Id, SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let ids: Vec<UnitId> = (0..5000).map(|hp| units.insert(Unit { hp })).collect();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// // Only the last unit burns: one page of the index, not 5000 entries.
    /// burning.insert(ids[4999], Burning { dps: 1.0, left: 1.0 });
    /// assert!(burning.index_bytes() < 4 * 1024 + 512);
    /// for &id in &ids {
    ///     burning.insert(id, Burning { dps: 1.0, left: 1.0 });
    /// }
    /// assert!(burning.index_bytes() <= 4 * 5000 + 4 * 1024 + 512);
    /// ```
    pub fn index_bytes(&self) -> usize {
        self.sparse.index_bytes()
    }

    /// Inserts `value` for `key` and returns the value it replaced (if the
    /// same key held one). Inserting with a key newer than the stored one
    /// drops the stale entry's value and returns `None`; with a key older
    /// than the stored one nothing is inserted, the value is dropped and
    /// `None` is returned (see [`try_insert`](Self::try_insert) to keep it).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator, Debug, PartialEq)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let old = units.insert(Unit { hp: 1 });
    /// assert_eq!(burning.insert(old, Burning { dps: 1.0, left: 1.0 }), None);
    /// let prev = burning.insert(old, Burning { dps: 2.0, left: 1.0 });
    /// assert_eq!(prev, Some(Burning { dps: 1.0, left: 1.0 }));
    ///
    /// units.remove(old); // the entry of `old` is stale now
    /// let new = units.insert(Unit { hp: 2 }); // the same slot, reused
    /// assert_eq!(burning.insert(new, Burning { dps: 3.0, left: 1.0 }), None); // replaces it
    /// assert_eq!(burning.insert(old, Burning { dps: 4.0, left: 1.0 }), None); // refused
    /// assert_eq!(burning.keys(), &[new]);
    /// assert_eq!(*burning.get(new).unwrap().dps, 3.0);
    /// ```
    ///
    /// # Panics
    ///
    /// When the map already holds `u32::MAX - 1` entries (before anything
    /// changes).
    #[inline]
    pub fn insert(&mut self, key: K, value: T) -> Option<T> {
        self.try_insert(key, value).unwrap_or_default()
    }

    /// Like [`insert`](Self::insert), but a key older than the stored one
    /// gives the value back in `Err` instead of dropping it.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator, Debug, PartialEq)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let old = units.insert(Unit { hp: 1 });
    /// units.remove(old);
    /// let new = units.insert(Unit { hp: 2 });
    /// assert_eq!(burning.try_insert(new, Burning { dps: 1.0, left: 1.0 }), Ok(None));
    /// let refused = burning.try_insert(old, Burning { dps: 9.0, left: 9.0 });
    /// assert_eq!(refused, Err(Burning { dps: 9.0, left: 9.0 }));
    /// assert_eq!(
    ///     burning.try_insert(new, Burning { dps: 2.0, left: 1.0 }),
    ///     Ok(Some(Burning { dps: 1.0, left: 1.0 }))
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// The value, when the map holds a newer key of the same slot index.
    ///
    /// # Panics
    ///
    /// When the map already holds `u32::MAX - 1` entries (before anything
    /// changes).
    #[inline]
    pub fn try_insert(&mut self, key: K, value: T) -> Result<Option<T>, T> {
        match self.sparse.slot(key) {
            Slot::Vacant => {
                // Room for the key first, then the row (which may grow the
                // columns): if either panics, nothing has changed. Only
                // then the key, which cannot fail. Row before key, as in
                // `SoaStorage::insert` (the faster order there).
                self.sparse.reserve_one();
                self.columns.push(into_values(value));
                self.sparse.push_reserved(key);
                Ok(None)
            }
            Slot::Same(d) => Ok(Some(self.replace_row(d, value))),
            Slot::Stale(d) => {
                let stale = self.replace_row(d, value);
                self.sparse.replace(d, key);
                // Dropped last: a panicking destructor finds the map whole.
                drop(stale);
                Ok(None)
            }
            Slot::Newer(_) => Err(value),
        }
    }

    /// Puts `value` in row `d` and returns the row's old value.
    fn replace_row(&mut self, d: usize, value: T) -> T {
        self.columns.push(into_values(value));
        let last = self.columns.len() - 1;
        self.columns.swap(d, last);
        match self.columns.pop() {
            Some(old) => from_values(old),
            None => unreachable!("a row was just pushed"),
        }
    }

    /// Removes the entry of `key` and returns its value; `None` unless the
    /// map holds exactly `key`. The last row moves into the gap.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator, Debug, PartialEq)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 2 });
    /// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
    /// burning.insert(b, Burning { dps: 2.0, left: 1.0 });
    /// assert_eq!(burning.remove(a), Some(Burning { dps: 1.0, left: 1.0 }));
    /// assert_eq!(burning.remove(a), None);
    /// assert_eq!(burning.keys(), &[b]);
    /// ```
    #[inline(always)]
    pub fn remove(&mut self, key: K) -> Option<T> {
        let d = self.sparse.remove(key)?;
        Some(from_values(self.columns.swap_remove(d)))
    }

    /// `true` if the map holds exactly `key`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
    /// assert!(burning.contains_key(a));
    /// units.remove(a);
    /// let b = units.insert(Unit { hp: 1 }); // a's slot
    /// assert!(!burning.contains_key(b));
    /// ```
    #[inline(always)]
    pub fn contains_key(&self, key: K) -> bool {
        self.sparse.find(key).is_some()
    }

    /// The dense index of `key`'s row, if the map holds exactly `key`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(b, Burning { dps: 1.0, left: 4.0 });
    /// let row = burning.dense_index(b).unwrap();
    /// assert_eq!(burning.columns().left[row], 4.0);
    /// assert_eq!(burning.dense_index(a), None);
    /// ```
    #[inline(always)]
    pub fn dense_index(&self, key: K) -> Option<usize> {
        self.sparse.find(key)
    }

    /// The fields of `key`'s entry (the derived `FooRef`).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.5, left: 4.0 });
    /// let fire: BurningRef<'_> = burning.get(a).unwrap();
    /// assert_eq!((*fire.dps, *fire.left), (1.5, 4.0));
    /// ```
    #[inline(always)]
    pub fn get(&self, key: K) -> Option<T::Ref<'_>> {
        let d = self.sparse.find(key)?;
        self.columns.get(d).map(make_ref::<T>)
    }

    /// The fields of `key`'s entry, mutably (the derived `FooMut`).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.5, left: 4.0 });
    /// let fire: BurningMut<'_> = burning.get_mut(a).unwrap();
    /// *fire.left -= 1.0;
    /// assert_eq!(burning.columns().left, &[3.0]);
    /// ```
    #[inline(always)]
    pub fn get_mut(&mut self, key: K) -> Option<T::Mut<'_>> {
        let d = self.sparse.find(key)?;
        self.columns.get_mut(d).map(make_mut::<T>)
    }

    /// The fields of `N` entries at once, mutably; `None` if the map does
    /// not hold one of the keys or a key is repeated.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
    /// burning.insert(b, Burning { dps: 2.0, left: 1.0 });
    /// let [fa, fb] = burning.get_disjoint_mut([a, b]).unwrap();
    /// core::mem::swap(fa.dps, fb.dps);
    /// assert_eq!(burning.columns().dps, &[2.0, 1.0]);
    /// assert!(burning.get_disjoint_mut([a, a]).is_none());
    /// ```
    pub fn get_disjoint_mut<const N: usize>(&mut self, keys: [K; N]) -> Option<[T::Mut<'_>; N]> {
        let mut dense = [0usize; N];
        for (d, key) in dense.iter_mut().zip(keys) {
            *d = self.sparse.find(key)?;
        }
        let muts = self.columns.get_disjoint_mut(dense)?;
        Some(muts.map(make_mut::<T>))
    }

    /// The keys in dense order, parallel to [`columns`](Self::columns):
    /// row `i` of every column belongs to `keys()[i]`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(b, Burning { dps: 1.0, left: 1.0 });
    /// burning.insert(a, Burning { dps: 2.0, left: 1.0 });
    /// assert_eq!(burning.keys(), &[b, a]);
    /// assert_eq!(burning.columns().dps, &[1.0, 2.0]);
    /// ```
    #[inline(always)]
    pub fn keys(&self) -> &[K] {
        self.sparse.keys()
    }

    /// Every column as a slice, in dense order (the derived `FooColumns`).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// for dps in [1.0, 2.0, 3.0] {
    ///     burning.insert(units.insert(Unit { hp: 1 }), Burning { dps, left: 1.0 });
    /// }
    /// let cols: BurningColumns<'_> = burning.columns();
    /// assert_eq!(cols.dps.iter().sum::<f32>(), 6.0);
    /// ```
    #[inline(always)]
    pub fn columns(&self) -> T::Columns<'_> {
        T::make_columns(self.columns.slices(), RecordToken::new())
    }

    /// Every column as a mutable slice, in dense order (the derived
    /// `FooColumnsMut`).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// burning.insert(units.insert(Unit { hp: 1 }), Burning { dps: 2.0, left: 3.0 });
    /// let cols: BurningColumnsMut<'_> = burning.columns_mut();
    /// for (left, dps) in cols.left.iter_mut().zip(cols.dps.iter()) {
    ///     *left -= dps;
    /// }
    /// assert_eq!(burning.columns().left, &[1.0]);
    /// ```
    #[inline(always)]
    pub fn columns_mut(&mut self) -> T::ColumnsMut<'_> {
        T::make_columns_mut(self.columns.slices_mut(), RecordToken::new())
    }

    /// The keys and every column mutably, at once: row `i` of each column
    /// belongs to `keys[i]`. For loops that update rows and note the keys
    /// of some of them.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 0.5 });
    /// burning.insert(b, Burning { dps: 1.0, left: 3.0 });
    /// let (keys, cols) = burning.keys_and_columns_mut();
    /// let mut out = Vec::new();
    /// for (key, left) in keys.iter().zip(cols.left.iter_mut()) {
    ///     *left -= 1.0;
    ///     if *left <= 0.0 {
    ///         out.push(*key);
    ///     }
    /// }
    /// assert_eq!(out, [a]);
    /// ```
    #[inline(always)]
    pub fn keys_and_columns_mut(&mut self) -> (&[K], T::ColumnsMut<'_>) {
        let columns = T::make_columns_mut(self.columns.slices_mut(), RecordToken::new());
        (self.sparse.keys(), columns)
    }

    /// Removes every entry; keeps the allocations.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
    /// burning.clear();
    /// assert!(burning.is_empty() && !burning.contains_key(a));
    /// ```
    pub fn clear(&mut self) {
        // Keys first: if a destructor panics, the map is already empty.
        self.sparse.clear();
        self.columns.clear();
    }

    /// `(key, fields)` of every entry, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 2.0 });
    /// let seen: Vec<_> = burning.iter().map(|(key, b)| (key, *b.left)).collect();
    /// assert_eq!(seen, [(a, 2.0)]);
    /// ```
    pub fn iter(&self) -> storage::Iter<'_, T, K> {
        storage::Iter {
            ids: self.sparse.keys().iter(),
            rows: self.columns.iter(),
        }
    }

    /// `(key, mutable fields)` of every entry, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 2.0 });
    /// for (_key, b) in burning.iter_mut() {
    ///     *b.left -= *b.dps;
    /// }
    /// assert_eq!(*burning.get(a).unwrap().left, 1.0);
    /// ```
    pub fn iter_mut(&mut self) -> storage::IterMut<'_, T, K> {
        storage::IterMut {
            ids: self.sparse.keys().iter(),
            rows: self.columns.iter_mut(),
        }
    }

    /// Removes every entry, yielding `(key, value)` from the last dense
    /// index to the first. Dropping the iterator removes the rest.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
    /// burning.insert(b, Burning { dps: 2.0, left: 1.0 });
    /// let drained: Vec<_> = burning.drain().map(|(key, b)| (key, b.dps)).collect();
    /// assert_eq!(drained, [(b, 2.0), (a, 1.0)]);
    /// assert!(burning.is_empty());
    /// ```
    pub fn drain(&mut self) -> Drain<'_, K, T> {
        Drain { map: self }
    }

    /// Removes and returns the entry at the last dense index.
    fn pop(&mut self) -> Option<(K, T)> {
        let key = self.sparse.pop()?;
        let values = self.columns.pop()?;
        Some((key, from_values(values)))
    }

    /// Keeps the entries for which `keep(key, fields)` is `true` and removes
    /// the others. `keep` sees every entry once, in dense order; the kept
    /// rows keep their order (one pass, as with `Vec::retain`).
    ///
    /// If `keep` panics, nothing is removed (writes it made stay). If a
    /// destructor panics, every rejected entry is still removed (and
    /// dropped; a second panic aborts).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// for left in [0.5, 2.0, 0.25, 3.0] {
    ///     burning.insert(units.insert(Unit { hp: 1 }), Burning { dps: 1.0, left });
    /// }
    /// burning.retain(|_key, b| {
    ///     *b.left -= 1.0;
    ///     *b.left > 0.0
    /// });
    /// assert_eq!(burning.columns().left, &[1.0, 2.0]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(K, T::Mut<'_>) -> bool) {
        let mut marks = Marks::with_len(self.len());
        for (d, (key, row)) in self.iter_mut().enumerate() {
            if !keep(key, row) {
                marks.insert(d);
            }
        }
        let Some(first) = marks.first() else {
            return;
        };
        // Keys first, columns (where destructors run) last.
        self.sparse.remove_marked(first, &marks);
        self.columns.remove_marked(first, &marks);
    }

    /// Sorts the entries (stable) by `compare` on their fields; every key
    /// keeps its entry. If `compare` panics, nothing has moved.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// let b = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 3.0, left: 1.0 });
    /// burning.insert(b, Burning { dps: 1.0, left: 1.0 });
    /// burning.sort_by(|x, y| x.dps.total_cmp(y.dps));
    /// assert_eq!(burning.keys(), &[b, a]);
    /// assert_eq!(*burning.get(a).unwrap().dps, 3.0);
    /// ```
    pub fn sort_by(&mut self, mut compare: impl FnMut(T::Ref<'_>, T::Ref<'_>) -> Ordering) {
        let mut order: alloc::vec::Vec<usize> = (0..self.len()).collect();
        let columns = &self.columns;
        order.sort_by(|&a, &b| match (columns.get(a), columns.get(b)) {
            (Some(x), Some(y)) => compare(make_ref::<T>(x), make_ref::<T>(y)),
            _ => unreachable!("positions below the length"),
        });
        crate::order::apply_order(&order, |a, b| {
            self.sparse.swap(a, b);
            self.columns.swap(a, b);
        });
    }

    /// Sorts the entries (stable) by the key `key` extracts from their
    /// fields (the sort key, not the map's key).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// for left in [3.0, 1.0, 2.0] {
    ///     burning.insert(units.insert(Unit { hp: 1 }), Burning { dps: 1.0, left });
    /// }
    /// burning.sort_by_key(|b| *b.left as u32);
    /// assert_eq!(burning.columns().left, &[1.0, 2.0, 3.0]);
    /// ```
    pub fn sort_by_key<S: Ord>(&mut self, mut key: impl FnMut(T::Ref<'_>) -> S) {
        self.sort_by(|a, b| key(a).cmp(&key(b)));
    }

    /// Checks that the sparse index and the keys agree (every key indexed
    /// at its dense position, nothing else indexed) and that there is one
    /// row per key. Meant for tests; it walks every page.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// for i in 0..10 {
    ///     let u = units.insert(Unit { hp: i });
    ///     burning.insert(u, Burning { dps: 1.0, left: 1.0 });
    ///     if i % 3 == 0 {
    ///         burning.remove(u);
    ///     }
    ///     burning.check_invariants();
    /// }
    /// assert_eq!(burning.len(), 6);
    /// ```
    ///
    /// # Panics
    ///
    /// If an invariant does not hold.
    pub fn check_invariants(&self) {
        self.sparse.check_invariants();
        assert_eq!(
            self.sparse.len(),
            self.columns.len(),
            "keys and columns differ in length"
        );
    }
}

impl<K: Id, T: Record> Extend<(K, T)> for SoaMap<K, T> {
    /// Inserts every pair as [`insert`](SoaMap::insert) does (a later pair
    /// of the same key replaces an earlier one).
    fn extend<It: IntoIterator<Item = (K, T)>>(&mut self, iter: It) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for (key, value) in iter {
            self.insert(key, value);
        }
    }
}

impl<K: Id, T: Record> FromIterator<(K, T)> for SoaMap<K, T> {
    fn from_iter<It: IntoIterator<Item = (K, T)>>(iter: It) -> Self {
        let mut map = Self::new();
        map.extend(iter);
        map
    }
}

/// Removes every entry of a [`SoaMap`], yielding `(key, value)` from the
/// last dense index to the first; made by [`SoaMap::drain`].
///
/// Dropping it removes (and drops) what was not yielded; leaking it
/// (`mem::forget`) leaves those entries in the map.
///
/// ```
/// use idtable::{SoaAllocator, SoaMap};
/// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
/// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
///
/// let mut units = UnitAllocator::new();
/// let mut burning = SoaMap::<UnitId, Burning>::new();
/// let a = units.insert(Unit { hp: 1 });
/// let b = units.insert(Unit { hp: 1 });
/// burning.insert(a, Burning { dps: 1.0, left: 1.0 });
/// burning.insert(b, Burning { dps: 2.0, left: 1.0 });
/// let mut drain = burning.drain();
/// assert_eq!(drain.len(), 2);
/// assert_eq!(drain.next().map(|(key, _)| key), Some(b));
/// drop(drain); // removes `a` too
/// assert!(burning.is_empty());
/// ```
pub struct Drain<'a, K: Id, T: Record> {
    map: &'a mut SoaMap<K, T>,
}

impl<K: Id, T: Record> Iterator for Drain<'_, K, T> {
    type Item = (K, T);

    #[inline]
    fn next(&mut self) -> Option<(K, T)> {
        self.map.pop()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.map.len(), Some(self.map.len()))
    }
}

impl<K: Id, T: Record> ExactSizeIterator for Drain<'_, K, T> {}
impl<K: Id, T: Record> FusedIterator for Drain<'_, K, T> {}

impl<K: Id, T: Record> Drop for Drain<'_, K, T> {
    fn drop(&mut self) {
        self.map.clear();
    }
}

/// Owning iterator of a [`SoaMap`], yielding `(key, value)` from the last
/// dense index to the first.
///
/// ```
/// use idtable::{SoaAllocator, SoaMap};
/// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
/// # #[derive(SoaAllocator, Debug, PartialEq)] pub struct Burning { pub dps: f32, pub left: f32 }
///
/// let mut units = UnitAllocator::new();
/// let a = units.insert(Unit { hp: 1 });
/// let burning: SoaMap<UnitId, Burning> = [(a, Burning { dps: 1.0, left: 2.0 })].into_iter().collect();
/// let owned: Vec<(UnitId, Burning)> = burning.into_iter().collect();
/// assert_eq!(owned, [(a, Burning { dps: 1.0, left: 2.0 })]);
/// ```
pub struct IntoIter<K: Id, T: Record> {
    map: SoaMap<K, T>,
}

impl<K: Id, T: Record> Iterator for IntoIter<K, T> {
    type Item = (K, T);

    #[inline]
    fn next(&mut self) -> Option<(K, T)> {
        self.map.pop()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.map.len(), Some(self.map.len()))
    }
}

impl<K: Id, T: Record> ExactSizeIterator for IntoIter<K, T> {}
impl<K: Id, T: Record> FusedIterator for IntoIter<K, T> {}

impl<K: Id, T: Record> IntoIterator for SoaMap<K, T> {
    type Item = (K, T);
    type IntoIter = IntoIter<K, T>;

    fn into_iter(self) -> IntoIter<K, T> {
        IntoIter { map: self }
    }
}

impl<'a, K: Id, T: Record + 'a> IntoIterator for &'a SoaMap<K, T> {
    type Item = (K, T::Ref<'a>);
    type IntoIter = storage::Iter<'a, T, K>;

    fn into_iter(self) -> storage::Iter<'a, T, K> {
        self.iter()
    }
}

impl<'a, K: Id, T: Record + 'a> IntoIterator for &'a mut SoaMap<K, T> {
    type Item = (K, T::Mut<'a>);
    type IntoIter = storage::IterMut<'a, T, K>;

    fn into_iter(self) -> storage::IterMut<'a, T, K> {
        self.iter_mut()
    }
}
