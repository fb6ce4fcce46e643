//! [`Rows<X, T>`]: the one container type. [`SoaStorage`](crate::SoaStorage)
//! (and so every derived `FooAllocator`) and [`SoaMap`](crate::SoaMap) are
//! its two forms, names for `Rows` over their index.
//!
//! A [`ColumnBuffer`] of `T`'s columns, and an index `X` that holds one key
//! per row (the key of the row at dense position `d`) and finds a key's
//! row. The two forms differ only in their index:
//!
//! | container | index `X` | how a key comes to be | its list of keys |
//! | --- | --- | --- | --- |
//! | [`SoaStorage<I, T>`](crate::SoaStorage) (every derived allocator) | [`IdTable<I>`](crate::IdTable) | issued by `insert` | `ids()` |
//! | [`SoaMap<K, T>`](crate::SoaMap) | [`SparseSet<K>`](crate::map::SparseSet) | another table's id, given to `insert` | `keys()` |
//!
//! Everything else (lookups, views, columns, iterators, `drain`, `retain`,
//! sorting, `get_disjoint_mut`, rayon and serde) is written once, here, for
//! both. What differs (inserting, the list of keys named in each form's own
//! word) is an `impl` block of `Rows` over that index, in `storage.rs` and
//! `map.rs`. No method of one form answers to the other's word, and no
//! `&mut` to the index is handed out.
//!
//! ```
//! use idtable::{SoaAllocator, SoaMap, SoaStorage};
//!
//! #[derive(SoaAllocator, Debug, PartialEq)]
//! pub struct Point { pub x: f32, pub y: f32 }
//!
//! let mut table = SoaStorage::<PointId, Point>::default();
//! let a = table.insert(Point { x: 1.0, y: 2.0 });
//! let b = table.insert(Point { x: 3.0, y: 4.0 });
//! let mut marks: SoaMap<PointId, Point> = SoaMap::new();
//! marks.insert(b, Point { x: 0.0, y: 0.0 });
//!
//! // The same engine methods on both, a table's list of ids named so.
//! assert_eq!(table.ids(), &[a, b]);
//! assert_eq!(*table.get(b).unwrap().y, 4.0);
//! assert_eq!(marks.keys(), &[b]);
//! assert_eq!(table.columns().x, &[1.0, 3.0]);
//! table.retain(|_, p| *p.x > 2.0);
//! marks.retain(|_, p| *p.x > 2.0);
//! assert_eq!((table.len(), marks.len()), (1, 0));
//! table.sort_by_key(|p| -(*p.y as i32));
//! let all: Vec<(PointId, Point)> = table.drain().collect();
//! assert_eq!(all, [(b, Point { x: 3.0, y: 4.0 })]);
//! ```
//!
//! # Closures over rows
//!
//! [`retain`](Rows::retain), [`extract_if`](Rows::extract_if) and the
//! sorts hand their closure `T`'s own views (`FooMut`, `FooRef`), so
//! `|_, p| *p.x > 2.0` reads a field and `|_, p| { *p.hp -= 1; *p.hp > 0 }`
//! writes one. For a struct that borrows (`Label<'t>`) the compiler refuses
//! such a closure (it takes a closure over the view of every borrow to need
//! `'t: 'static`): select its rows with [`iter`](Rows::iter) and remove
//! them with [`remove_many`](Rows::remove_many).

use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use crate::columns::{self, CloneColumns, ColumnBuffer};
use crate::marks::{self, Detached};

use crate::record::{
    from_values, make_columns, make_columns_mut, make_mut, make_ref, DebugRow, Record,
};

/// The index of a [`Rows`]: one key per row, and the way from a key to its
/// row. Implemented by [`IdTable`](crate::IdTable) and by [`SparseSet`](crate::map::SparseSet)
/// only (the trait is sealed: its methods are the engine's own). Code
/// generic over tables and maps alike names it, with [`KeyOf`]:
///
/// ```
/// use idtable::rows::{KeyOf, RowIndex, Rows};
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Hp { pub hp: i32 }
///
/// /// The key of the row with the least hp, in a table or a map.
/// fn weakest<X: RowIndex>(rows: &Rows<X, Hp>) -> Option<KeyOf<X>> {
///     rows.iter().min_by_key(|(_, u)| *u.hp).map(|(key, _)| key)
/// }
///
/// let mut units = HpAllocator::new();
/// let (a, b) = (units.insert(Hp { hp: 5 }), units.insert(Hp { hp: 2 }));
/// let mut shields: SoaMap<HpId, Hp> = SoaMap::new();
/// shields.insert(a, Hp { hp: 1 });
/// assert_eq!((weakest(&units), weakest(&shields)), (Some(b), Some(a)));
/// ```
pub trait RowIndex: sealed::Index {}

impl<X: sealed::Index> RowIndex for X {}

pub(crate) mod sealed {
    use crate::id::Id;

    /// What the engine asks of an index. Invariant of every implementation:
    /// `keys()[d]` is the key of the row at dense position `d`, and
    /// `find(keys()[d]) == Some(d)`; no other key is found.
    pub trait Index {
        /// The key type (an id of this table or of another).
        type Key: Id;
        /// One key per row, in dense order.
        fn keys(&self) -> &[Self::Key];
        /// The dense position of `key`'s row, if `key` has one.
        fn find(&self, key: Self::Key) -> Option<usize>;
        /// Like `find`, but may answer a position at or past the row count
        /// for a key with no row (the columns' bounds check refuses it):
        /// one branch fewer on the lookup path.
        #[inline(always)]
        fn locate(&self, key: Self::Key) -> Option<usize> {
            self.find(key)
        }
        /// Whether every key is found without a call (no cold path, such
        /// as a `SoaMap`'s pages past its page table): a join asks once,
        /// and while it holds the index probes with `find_near`.
        #[inline(always)]
        fn near_only(&self) -> bool {
            true
        }
        /// `find` for an index whose `near_only()` holds.
        #[inline(always)]
        fn find_near(&self, key: Self::Key) -> Option<usize> {
            self.find(key)
        }
        /// Swaps the keys of dense positions `a` and `b` (both in bounds).
        fn swap_dense(&mut self, a: usize, b: usize);
        /// Removes the last row's key.
        fn pop(&mut self) -> Option<Self::Key>;
        /// Removes the key at dense position `dense` (in bounds), moving
        /// the last key into its place, and returns it.
        fn swap_remove(&mut self, dense: usize) -> Self::Key;
        /// Removes `key`, moving the last key into its place, and returns
        /// the dense position it had; `None` if it holds no row.
        fn take_position(&mut self, key: Self::Key) -> Option<usize>;
        /// Removes every key.
        fn clear(&mut self);
        /// Readies the index to release keys (a table settles its
        /// reservations): called by the second pass of a batch removal
        /// before it releases any (if it panics, the marks are taken back
        /// and nothing is removed).
        #[inline(always)]
        fn prepare_release(&mut self) {}
        /// Whether a batch removal marks the keys in place, their index's
        /// top bit set (`marks::tagged`), rather than the index: no key's
        /// index has that bit set, and, if the removal finds its keys
        /// through the index (`found`, as `remove_many` does), a tag costs
        /// no more than a mark in the index. A map's `find` reads the key
        /// at its position, which the tag then overwrites; a table's reads
        /// only the key's slot, which then takes the mark for nothing.
        fn taggable(&self, found: bool) -> bool;
        /// The keys, mutably: for a batch removal of a
        /// [`taggable`](Self::taggable) index to tag and untag them in
        /// place, and for nothing else.
        fn keys_mut(&mut self) -> &mut [Self::Key];
        /// Detaches `key`, whose dense position is `dense`: the mark of a
        /// batch removal, which allocates nothing. If `tagged` (the index
        /// is [`taggable`](Self::taggable)), `keys()[dense]` becomes the
        /// tagged key; else the index stops naming `dense` for `key`,
        /// which `keys()[dense]` keeps. Where `taggable(true)` holds or the
        /// mark is in the index, `find(key)` answers `None` from now on (a
        /// repeat in `remove_many` is skipped).
        fn detach(&mut self, key: Self::Key, dense: usize, tagged: bool);
        /// Whether the key at `dense` (in bounds) is detached.
        fn is_detached(&self, dense: usize, tagged: bool) -> bool;
        /// Undoes [`detach`](Self::detach) of the key at `dense`.
        fn reattach(&mut self, dense: usize, tagged: bool);
        /// How many blocks of 64 rows the second pass of a batch removal
        /// does in the index before it moves their rows in the columns (at
        /// most 64). Measured (benches/NOTES.md, "Batch removals without
        /// an allocation"): a map's `retain` of a tenth of its 1M rows took
        /// 1.16-1.22x the time of the pass with a bitset block by block,
        /// 1.00-1.10x with 64 blocks at a time; a table's `remove_many` of
        /// half its 10k rows took 1.07x block by block, 1.17x with 64.
        const CHUNK_BLOCKS: usize = 1;
        /// A block of the second pass of a batch removal, rows
        /// `base..base + n` (`n <= 64`; none moved yet, and none past
        /// `base + asked` detached): releases the detached keys for good,
        /// in dense order (a table frees and queues their slots), and
        /// moves the others down to `*write..`, advancing it, where they
        /// are found. Returns the detached rows, bit `i` for `base + i`.
        fn remove_detached_block(
            &mut self,
            base: usize,
            n: usize,
            asked: usize,
            write: &mut usize,
            tagged: bool,
        ) -> u64;
        /// A block of the second pass of a batch removal that kept its
        /// marks itself (`Rows::remove_many` of a small container, on the
        /// stack): rows `base..base + n` (`n <= 64`, none moved yet, none
        /// tagged or detached); those `gone` names (bit `i` for `base + i`)
        /// have their keys released for good, in dense order, the others
        /// move down to `*write..`, advancing it.
        fn remove_marked_block(&mut self, base: usize, n: usize, gone: u64, write: &mut usize);
        /// Cuts the keys to the first `len` (those past were released or
        /// moved away).
        fn truncate(&mut self, len: usize);
        /// Room for `additional` more keys.
        fn reserve(&mut self, additional: usize);
        /// Frees unused room.
        fn shrink_to_fit(&mut self);
        /// How many keys fit without growing.
        fn capacity(&self) -> usize;
        /// Panics if an invariant of the index is broken.
        fn check_invariants(&self);
    }
}

/// The key type of a [`Rows`] with index `X`: a table's id type, a map's
/// key type.
///
/// ```
/// use idtable::map::SparseSet;
/// use idtable::rows::KeyOf;
/// use idtable::{Id, Id24_8, IdTable};
///
/// let id: KeyOf<IdTable<Id24_8>> = Id24_8::new(3, 1).unwrap();
/// let key: KeyOf<SparseSet<Id24_8>> = id;
/// assert_eq!(key.index(), 3);
/// ```
pub type KeyOf<X> = <X as sealed::Index>::Key;

/// Dense rows of `T` (one column per field, packed by swap-remove) and the
/// index `X` that holds their keys: the engine of [`SoaStorage`](crate::SoaStorage)
/// and [`SoaMap`](crate::SoaMap). Every method here is a method of both (a
/// table says `ids` where the engine says `keys`); the [module docs](self)
/// say why. A container's rows are reached, shared, through
/// [`Container::rows`](crate::join::Container::rows).
///
/// Invariant: the index holds exactly one key per row, the row at dense
/// position `d` belonging to `keys()[d]`.
///
/// Every method, on a map (a table's read the same, its `keys` named
/// `ids`):
///
/// ```
/// use std::cmp::Reverse;
/// use idtable::map::SparseSet;
/// use idtable::rows::{Drain, IntoIter, Iter, IterMut, Rows};
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// pub struct Point { pub x: i32, pub y: i32 }
///
/// let mut ids = PointAllocator::new();
/// let [a, b, c] = [1, 2, 3].map(|n| ids.insert(Point { x: n, y: n }));
/// let mut map: SoaMap<PointId, Point> = SoaMap::new();
/// map.reserve(8);
/// assert!(map.capacity() >= 8);
/// for (key, x) in [(a, 3), (b, 1), (c, 2)] {
///     map.insert(key, Point { x, y: 0 });
/// }
/// // A map is a `Rows` whose index is a `SparseSet` of the ids.
/// let rows: &Rows<SparseSet<PointId>, Point> = &map;
/// assert_eq!((rows.len(), rows.is_empty()), (3, false));
///
/// // Lookups by key, and by dense position.
/// assert_eq!(map.dense_index(b), Some(1));
/// assert_eq!(*map.get(b).unwrap().x, 1);
/// *map.get_mut(b).unwrap().y = 5;
/// let [pa, pc] = map.get_disjoint_mut([a, c]).unwrap();
/// std::mem::swap(pa.y, pc.y);
/// assert_eq!(*map.row(1).y, 5);
/// *map.row_mut(0).y += 1;
///
/// // Keys and columns, in dense order.
/// assert_eq!(map.keys(), &[a, b, c]);
/// assert_eq!(map.columns().x, &[3, 1, 2]);
/// map.columns_mut().y[2] = 7;
/// let (keys, columns) = map.keys_and_columns_mut();
/// assert_eq!((keys[2], columns.y[2]), (c, 7));
///
/// // Iteration, retain, sorting: the closures take the views themselves.
/// let it: Iter<'_, PointId, Point> = map.iter();
/// assert_eq!(it.map(|(_, p)| *p.y).collect::<Vec<_>>(), [1, 5, 7]);
/// let it: IterMut<'_, PointId, Point> = map.iter_mut();
/// it.for_each(|(_, p)| *p.x *= 10);
/// map.retain(|key, p: PointMut<'_>| key != b || *p.y > 5);
/// map.retain(|_, p| {
///     *p.x += 0; // written through the view
///     *p.x > 0
/// });
/// map.sort_by_key(|p: PointRef<'_>| Reverse(*p.x));
/// map.sort_by(|p, q| p.y.cmp(q.y));
/// assert_eq!(map.keys(), &[a, c]);
/// assert_eq!(map.remove_many([a, a, b]), 1);
/// map.check_invariants();
///
/// // Draining, clearing, owning.
/// let mut copy = map.clone();
/// let drained: Drain<'_, SparseSet<PointId>, Point> = copy.drain();
/// assert_eq!(drained.collect::<Vec<_>>(), [(c, Point { x: 20, y: 7 })]);
/// let owned: IntoIter<SparseSet<PointId>, Point> = map.clone().into_iter();
/// assert_eq!(owned.len(), 1);
/// map.shrink_to_fit();
/// map.clear();
/// assert!(map.is_empty() && copy.is_empty());
/// ```
///
/// The closures of `retain`, `extract_if` and the sorts take `T`'s views
/// (`FooMut<'_>`, `FooRef<'_>`). For a struct that borrows (`Label<'t>`)
/// the compiler refuses such a closure (a closure over the view of every
/// borrow is taken to need `'t: 'static`); select the rows with
/// [`iter`](Rows::iter) and remove them with
/// [`remove_many`](Rows::remove_many).
pub struct Rows<X, T: Record> {
    pub(crate) index: X,
    pub(crate) columns: ColumnBuffer<T::Tree>,
}

/// Two sets of rows are equal when their indexes are (the same keys in the
/// same dense order; for a table, the same slots and free queue too) and
/// every column holds equal values. `T: PartialEq` is asked as well, so a
/// struct its crate chose not to compare is not compared field by field.
/// Derived allocators, [`SoaStorage`](crate::SoaStorage) and
/// [`SoaMap`](crate::SoaMap) compare this way.
///
/// ```
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator, PartialEq)]
/// pub struct Hp { pub hp: i32 }
///
/// let mut units = HpAllocator::new();
/// let (a, b) = (units.insert(Hp { hp: 1 }), units.insert(Hp { hp: 2 }));
/// let mut marks: SoaMap<HpId, Hp> = SoaMap::new();
/// marks.insert(a, Hp { hp: 10 });
/// let mut other = SoaMap::new();
/// other.insert(a, Hp { hp: 10 });
/// assert!(marks == other);
/// other.insert(b, Hp { hp: 20 });
/// assert!(marks != other);
/// ```
impl<X: PartialEq, T: Record + PartialEq> PartialEq for Rows<X, T>
where
    T::Tree: columns::EqColumns,
{
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && self.columns == other.columns
    }
}

impl<X: Eq, T: Record + Eq> Eq for Rows<X, T> where T::Tree: columns::TotalEqColumns {}

/// Clones every column, field by field, as `#[derive(Clone)]` on `T` would.
/// Requires `T: Clone`, so a type its own crate made uncloneable stays so.
impl<X: Clone, T: Record + Clone> Clone for Rows<X, T>
where
    T::Tree: CloneColumns,
{
    fn clone(&self) -> Self {
        Rows {
            index: self.index.clone(),
            columns: self.columns.clone(),
        }
    }
}

/// Prints `{key: row, …}` in dense order, each row through [`DebugRow`].
/// Needs `T: Debug` as well (what the struct's crate chose to show), not
/// only its fields'.
impl<X: RowIndex, T: DebugRow + fmt::Debug> fmt::Debug for Rows<X, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Shown<'a, T: DebugRow + 'a>(T::Ref<'a>);
        impl<'a, T: DebugRow + 'a> fmt::Debug for Shown<'a, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                T::fmt_row(&self.0, f)
            }
        }
        f.debug_map()
            .entries(self.iter().map(|(key, row)| (key, Shown::<T>(row))))
            .finish()
    }
}

impl<X: RowIndex, T: Record> Rows<X, T> {
    pub(crate) const fn from_parts(index: X, columns: ColumnBuffer<T::Tree>) -> Self {
        Rows { index, columns }
    }

    /// The keys in dense order, inside the crate (a table's `ids()`, a
    /// map's `keys()`).
    #[inline(always)]
    pub(crate) fn all_keys(&self) -> &[KeyOf<X>] {
        self.index.keys()
    }

    /// Number of rows.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// `true` if there are no rows.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// How many rows fit before the columns or the index grow.
    pub fn capacity(&self) -> usize {
        self.columns.capacity().min(self.index.capacity())
    }

    /// Makes room for at least `additional` more rows.
    pub fn reserve(&mut self, additional: usize) {
        self.columns.reserve(additional);
        self.index.reserve(additional);
    }

    /// Frees the room the columns and the index do not use.
    pub fn shrink_to_fit(&mut self) {
        self.columns.shrink_to_fit();
        self.index.shrink_to_fit();
    }

    /// The dense position of `key`'s row: where its values sit in every
    /// column. `None` for a key with no row (stale, forged or never stored).
    #[inline(always)]
    pub fn dense_index(&self, key: KeyOf<X>) -> Option<usize> {
        self.index.find(key)
    }

    /// The row of `key`, as `T`'s shared view (`FooRef`).
    #[inline(always)]
    pub fn get(&self, key: KeyOf<X>) -> Option<T::Ref<'_>> {
        let dense = self.index.locate(key)?;
        self.columns.get(dense).map(make_ref::<T>)
    }

    /// The row of `key`, as `T`'s mutable view (`FooMut`).
    #[inline(always)]
    pub fn get_mut(&mut self, key: KeyOf<X>) -> Option<T::Mut<'_>> {
        let dense = self.index.locate(key)?;
        self.columns.get_mut(dense).map(make_mut::<T>)
    }

    /// The rows of `N` keys mutably at once; `None` if any key has no row
    /// or two keys are the same.
    pub fn get_disjoint_mut<const N: usize>(
        &mut self,
        keys: [KeyOf<X>; N],
    ) -> Option<[T::Mut<'_>; N]> {
        let mut dense = [0usize; N];
        for (d, key) in dense.iter_mut().zip(keys) {
            *d = self.index.find(key)?;
        }
        let muts = self.columns.get_disjoint_mut(dense)?;
        Some(muts.map(make_mut::<T>))
    }

    /// Every column as a shared slice (`FooColumns`), parallel to the ids
    /// (a table's `ids()`) or keys (a map's `keys()`).
    #[inline(always)]
    pub fn columns(&self) -> T::Columns<'_> {
        make_columns::<T>(self.columns.slices())
    }

    /// Every column as a mutable slice (`FooColumnsMut`).
    #[inline(always)]
    pub fn columns_mut(&mut self) -> T::ColumnsMut<'_> {
        make_columns_mut::<T>(self.columns.slices_mut())
    }

    /// The row at dense position `dense` (the one of `keys()[dense]`).
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    #[inline]
    #[track_caller]
    pub fn row(&self, dense: usize) -> T::Ref<'_> {
        match self.columns.get(dense) {
            Some(refs) => make_ref::<T>(refs),
            None => out_of_bounds(dense, self.len()),
        }
    }

    /// The row at dense position `dense`, mutably.
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    #[inline]
    #[track_caller]
    pub fn row_mut(&mut self, dense: usize) -> T::Mut<'_> {
        let len = self.len();
        match self.columns.get_mut(dense) {
            Some(muts) => make_mut::<T>(muts),
            None => out_of_bounds(dense, len),
        }
    }

    /// Removes every row (their values are dropped). Keys never come back
    /// to life: a table's ids stay stale.
    pub fn clear(&mut self) {
        // Keys first: if a destructor panics, the container is already empty.
        self.index.clear();
        self.columns.clear();
    }

    /// `(key, FooRef)` for every row, in dense order.
    pub fn iter(&self) -> Iter<'_, KeyOf<X>, T> {
        Iter {
            ids: self.index.keys().iter(),
            rows: self.columns.iter(),
        }
    }

    /// `(key, FooMut)` for every row, in dense order.
    pub fn iter_mut(&mut self) -> IterMut<'_, KeyOf<X>, T> {
        IterMut {
            ids: self.index.keys().iter(),
            rows: self.columns.iter_mut(),
        }
    }

    /// Removes every row, yielding `(key, T)` from the last dense position
    /// to the first. Rows the iterator did not yield are dropped with it.
    pub fn drain(&mut self) -> Drain<'_, X, T> {
        Drain { rows: self }
    }

    /// Removes `key`'s row, the last row moving into the gap.
    #[inline(always)]
    pub(crate) fn remove_row(&mut self, key: KeyOf<X>) -> Option<T> {
        let dense = self.index.take_position(key)?;
        Some(from_values(self.columns.swap_remove(dense)))
    }

    /// Removes the row at dense position `dense` (below the length), the
    /// last row moving into the gap; the key first, the value last (a
    /// panicking destructor of the caller's finds the rows whole).
    #[inline]
    pub(crate) fn swap_remove_dense(&mut self, dense: usize) -> (KeyOf<X>, T) {
        let key = self.index.swap_remove(dense);
        (key, from_values(self.columns.swap_remove(dense)))
    }

    fn pop(&mut self) -> Option<(KeyOf<X>, T)> {
        let key = self.index.pop()?;
        let values = self.columns.pop()?;
        Some((key, from_values(values)))
    }

    /// Keeps the rows for which `keep` returns `true`, in their order, and
    /// removes the others in one pass: each kept row moves at most once.
    /// `keep` sees each row once, in dense order, before any row is
    /// removed: if it panics, no row is. Allocates nothing.
    pub fn retain(&mut self, mut keep: impl FnMut(KeyOf<X>, T::Mut<'_>) -> bool) {
        let mut marking = Marking::new(self);
        let Marking { rows, span } = &mut marking;
        let Rows { index, columns } = &mut **rows;
        if index.taggable(false) {
            // The rejected keys are tagged where they stand, as the rows
            // are walked; if `keep` panics, every key is looked at again
            // and untagged (none was tagged before).
            let len = index.keys().len();
            *span = Detached::new(0, len, true);
            let (mut first, mut end) = (len, 0);
            let keys = index.keys_mut();
            for (d, row) in columns.iter_mut().enumerate() {
                let key = keys[d];
                if !keep(key, make_mut::<T>(row)) {
                    keys[d] = marks::tagged(key);
                    first = first.min(d);
                    end = d + 1;
                }
            }
            *span = Detached::new(first, end, true);
        } else {
            for (d, row) in columns.iter_mut().enumerate() {
                let key = index.keys()[d];
                if !keep(key, make_mut::<T>(row)) {
                    detach(index, span, key, d);
                }
            }
        }
        marking.finish();
    }

    /// Removes the rows for which `pred` returns `true` and yields them,
    /// `(key, value)`: each removal swaps the last row into the gap, so a
    /// removal costs one row's move whatever the length, and the rows keep
    /// no order (use [`retain`](Rows::retain) to keep it, at the cost of
    /// moving every row after the first removed). `pred` sees each row at
    /// most once; rows the iterator has not reached when it is dropped
    /// stay, unseen.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// pub struct Unit { pub hp: i32 }
    ///
    /// let mut units = SoaStorage::<UnitId, Unit>::default();
    /// let ids: Vec<UnitId> = [5, 0, 7, 0, 3].map(|hp| units.insert(Unit { hp })).to_vec();
    /// let dead: idtable::rows::ExtractIf<'_, _, Unit, _> = units.extract_if(|_, unit| *unit.hp <= 0);
    /// let dead: Vec<(UnitId, Unit)> = dead.collect();
    /// assert_eq!(dead, [(ids[1], Unit { hp: 0 }), (ids[3], Unit { hp: 0 })]);
    /// assert_eq!(units.columns().hp, &[5, 3, 7]); // the last rows moved into the gaps
    /// assert!(units.get(ids[1]).is_none() && *units.get(ids[4]).unwrap().hp == 3);
    /// ```
    pub fn extract_if<F>(&mut self, pred: F) -> ExtractIf<'_, X, T, F>
    where
        F: FnMut(KeyOf<X>, T::Mut<'_>) -> bool,
    {
        ExtractIf {
            rows: self,
            next: 0,
            pred,
        }
    }

    /// Removes the rows of `keys` (keys with no row are skipped, repeats
    /// count once) in one pass that keeps the other rows in order; returns
    /// how many were removed. If `keys` panics, no row is removed.
    /// Allocates nothing.
    pub fn remove_many(&mut self, keys: impl IntoIterator<Item = KeyOf<X>>) -> usize {
        if self.len() <= SMALL {
            return self.remove_many_small(keys);
        }
        let mut marking = Marking::new(self);
        let Marking { rows, span } = &mut marking;
        let index = &mut rows.index;
        // If `keys` panics, every row is looked at again and its mark, if
        // any, taken back.
        let (len, tagged) = (index.keys().len(), index.taggable(true));
        *span = Detached::new(0, len, tagged);
        let (mut first, mut end, mut removed) = (len, 0, 0);
        for key in keys {
            // A detached key is found no more: a repeat is skipped.
            if let Some(d) = index.find(key) {
                index.detach(key, d, tagged);
                (first, end) = (first.min(d), end.max(d + 1));
                removed += 1;
            }
        }
        *span = Detached::new(first, end, tagged);
        marking.finish();
        removed
    }

    /// [`remove_many`](Self::remove_many) of at most [`SMALL`] rows, its
    /// marks in a bitset on the stack (2 KiB), with no allocation. A key found marks its row; the second pass frees the
    /// marked keys in dense order and moves the other rows down, 64 at a
    /// time. Marking in the index or the keys costs a table more here
    /// (benches/NOTES.md, "Batch removals without an allocation"): each
    /// row's slot read again in the second pass, or each id's place read
    /// after its slot.
    #[inline(never)]
    fn remove_many_small(&mut self, keys: impl IntoIterator<Item = KeyOf<X>>) -> usize {
        let len = self.len();
        debug_assert!(len <= SMALL);
        let mut words = [0u64; SMALL / 64];
        let (mut first, mut end, mut removed) = (len, 0, 0);
        for key in keys {
            if let Some(d) = self.index.find(key) {
                let (word, bit) = (&mut words[d / 64], 1u64 << (d % 64));
                if *word & bit == 0 {
                    *word |= bit;
                    (first, end) = (first.min(d), end.max(d + 1));
                    removed += 1;
                }
            }
        }
        if removed == 0 {
            return 0;
        }
        // If this panics, nothing has changed.
        self.index.prepare_release();
        let Rows { index, columns } = self;
        let mut keys = KeysCut {
            index,
            write: first,
        };
        columns.remove_where(first, |base, n| {
            // The 64 marks from `base`, across two words if need be.
            let (w, shift) = (base / 64, base % 64);
            let mut gone = words[w] >> shift;
            if shift > 0 && w + 1 < words.len() {
                gone |= words[w + 1] << (64 - shift);
            }
            let gone = if base >= end {
                0
            } else {
                gone & (u64::MAX >> (64 - n))
            };
            (keys.index).remove_marked_block(base, n, gone, &mut keys.write);
            gone
        });
        removed
    }

    /// The second pass of a batch removal: removes the rows whose keys are
    /// detached (all in `span`), releasing their keys in dense order and
    /// dropping their values, and moves the other rows down over them,
    /// keeping their order (each moves once). Keys first, values last, a
    /// chunk of blocks of 64 rows at a time (`Index::CHUNK_BLOCKS`): the
    /// index releases and moves the keys of each block and answers which
    /// rows it detached, as one word kept on the stack, from which the
    /// columns then move theirs. If a destructor panics, the pass still
    /// completes (see [`ColumnBuffer::remove_where`]).
    ///
    /// The index readies its releases first: if that panics, nothing has
    /// changed and `span` is left for the caller to reattach; else it is
    /// taken, and the pass completes.
    pub(crate) fn remove_detached(&mut self, span: &mut Detached) {
        if span.is_empty() {
            return;
        }
        self.index.prepare_release();
        let span = core::mem::take(span);
        /// The keys' side of the pass: their write position (cut there
        /// when dropped), and the answers for the blocks of the chunk it
        /// has done, which the columns ask for one by one.
        struct Keys<'a, X: RowIndex> {
            cut: KeysCut<'a, X>,
            span: Detached,
            /// The first row of the chunk done, and the row past it.
            chunk: (usize, usize),
            answers: [u64; CHUNK],
        }
        /// Blocks of 64 rows per chunk, at most (`Index::CHUNK_BLOCKS`).
        const CHUNK: usize = 64;
        impl<X: RowIndex> Keys<'_, X> {
            /// The answer for the block at `base` (of the chunk done, or
            /// the first of the next, which is done first).
            #[inline(always)]
            fn answer(&mut self, base: usize) -> u64 {
                if base >= self.chunk.1 {
                    self.next_chunk(base);
                }
                self.answers[(base - self.chunk.0) / 64]
            }

            /// Releases and moves the keys of up to `CHUNK` blocks from
            /// `base`, keeping their answers.
            #[inline(always)]
            fn next_chunk(&mut self, base: usize) {
                let len = self.cut.index.keys().len();
                let mut next = base;
                for answer in self.answers.iter_mut().take(X::CHUNK_BLOCKS) {
                    if next >= len {
                        break;
                    }
                    let n = (len - next).min(64);
                    // Rows past the span hold no detached key: not asked
                    // about.
                    let asked = n.min(self.span.end.saturating_sub(next));
                    *answer = (self.cut.index).remove_detached_block(
                        next,
                        n,
                        asked,
                        &mut self.cut.write,
                        self.span.tagged,
                    );
                    next += n;
                }
                self.chunk = (base, next);
            }
        }
        let Rows { index, columns } = self;
        let mut keys = Keys {
            cut: KeysCut {
                index,
                write: span.first,
            },
            span,
            chunk: (span.first, span.first),
            answers: [0; CHUNK],
        };
        columns.remove_where(span.first, |base, _| keys.answer(base));
    }

    /// Reorders the rows (every column and the keys alike) by `compare`,
    /// stably; every key still finds its row. For locality: sort by what a
    /// hot loop reads together.
    pub fn sort_by(&mut self, mut compare: impl for<'r> FnMut(T::Ref<'r>, T::Ref<'r>) -> Ordering) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        let columns = &self.columns;
        order.sort_by(|&a, &b| match (columns.get(a), columns.get(b)) {
            (Some(x), Some(y)) => compare(make_ref::<T>(x), make_ref::<T>(y)),
            _ => unreachable!("positions below the length"),
        });
        crate::order::apply_order(&order, |a, b| {
            self.index.swap_dense(a, b);
            self.columns.swap(a, b);
        });
    }

    /// Reorders the rows by the key `key` computes from each, stably.
    pub fn sort_by_key<S: Ord>(&mut self, mut key: impl FnMut(T::Ref<'_>) -> S) {
        self.sort_by(|a, b| key(a).cmp(&key(b)));
    }

    /// Panics if an invariant is broken (for tests).
    pub fn check_invariants(&self) {
        self.index.check_invariants();
        assert_eq!(
            self.index.keys().len(),
            self.columns.len(),
            "keys and columns differ in length"
        );
    }
}

impl<X: RowIndex, T: Record> Rows<X, T> {
    #[cfg(feature = "serde")]
    pub(crate) fn column_store(&self) -> &ColumnBuffer<T::Tree> {
        &self.columns
    }
}

/// The keys' write position in the second pass of a batch removal:
/// dropping it cuts the keys there, once the columns' pass (which asks for
/// every block) is over, or when a destructor's panic ends it early.
struct KeysCut<'a, X: RowIndex> {
    index: &'a mut X,
    write: usize,
}

impl<X: RowIndex> Drop for KeysCut<'_, X> {
    fn drop(&mut self) {
        self.index.truncate(self.write);
    }
}

/// The most rows a [`Rows::remove_many`] marks in a bitset on the stack
/// (2 KiB) rather than in its index or keys.
const SMALL: usize = 1 << 14;

/// Detaches `key`, at `dense`, found by walking the keys in order, for a
/// batch removal, and notes it in `span`; before the first, the index says
/// where the marks go.
#[inline(always)]
pub(crate) fn detach<X: RowIndex>(index: &mut X, span: &mut Detached, key: KeyOf<X>, dense: usize) {
    if span.is_empty() {
        span.tagged = index.taggable(false);
    }
    span.note(dense);
    index.detach(key, dense, span.tagged);
}

/// Takes back every detachment of `span`: the batch removal stopped
/// before its second pass. A cold path (a panic's).
#[cold]
pub(crate) fn reattach<X: RowIndex>(index: &mut X, span: Detached) {
    for d in span.first..span.end.min(index.keys().len()) {
        if index.is_detached(d, span.tagged) {
            index.reattach(d, span.tagged);
        }
    }
}

/// A batch removal's first pass over `rows`: dropped before
/// [`finish`](Marking::finish) (a panicking predicate or iterator of
/// keys), it reattaches what it detached, and no row is removed.
struct Marking<'a, X: RowIndex, T: Record> {
    rows: &'a mut Rows<X, T>,
    span: Detached,
}

impl<'a, X: RowIndex, T: Record> Marking<'a, X, T> {
    fn new(rows: &'a mut Rows<X, T>) -> Self {
        Marking {
            rows,
            span: Detached::NONE,
        }
    }

    /// The second pass: removes the detached rows.
    fn finish(mut self) {
        self.rows.remove_detached(&mut self.span);
    }
}

impl<X: RowIndex, T: Record> Drop for Marking<'_, X, T> {
    fn drop(&mut self) {
        if !self.span.is_empty() {
            reattach(&mut self.rows.index, self.span);
        }
    }
}

#[cold]
#[track_caller]
fn out_of_bounds(dense: usize, len: usize) -> ! {
    panic!("dense index {dense} out of bounds (len {len})")
}

/// The row iterators, shared and mutable: the keys and the rows advance
/// together, from both ends.
macro_rules! row_iter {
    ($(#[$doc:meta])* $name:ident, $rows:ident, $view:ident, $make:ident) => {
        $(#[$doc])*
        pub struct $name<'a, K, T: Record + 'a> {
            // Crate-visible for the parallel iterators, which split both alike.
            pub(crate) ids: slice::Iter<'a, K>,
            pub(crate) rows: columns::$rows<'a, T::Tree>,
        }

        impl<'a, T: Record + 'a, K: Copy> Iterator for $name<'a, K, T> {
            type Item = (K, T::$view<'a>);

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                let id = *self.ids.next()?;
                Some((id, $make::<T>(self.rows.next()?)))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.ids.size_hint()
            }
        }

        impl<'a, T: Record + 'a, K: Copy> DoubleEndedIterator for $name<'a, K, T> {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                let id = *self.ids.next_back()?;
                Some((id, $make::<T>(self.rows.next_back()?)))
            }
        }

        impl<'a, T: Record + 'a, K: Copy> ExactSizeIterator for $name<'a, K, T> {}
        impl<'a, T: Record + 'a, K: Copy> FusedIterator for $name<'a, K, T> {}
    };
}

row_iter!(
    /// Iterator over `(key, FooRef)` in dense order, from [`Rows::iter`]
    /// (named in [`Rows`]' example).
    Iter, Iter, Ref, make_ref
);
row_iter!(
    /// Iterator over `(key, FooMut)` in dense order, from
    /// [`Rows::iter_mut`] (named in [`Rows`]' example).
    IterMut, IterMut, Mut, make_mut
);

impl<T: Record, K> Clone for Iter<'_, K, T> {
    fn clone(&self) -> Self {
        Iter {
            ids: self.ids.clone(),
            rows: self.rows.clone(),
        }
    }
}

/// Draining iterator over `(key, T)`, from [`Rows::drain`]; the rows it did
/// not yield are dropped with it ([`Rows`] drains a map).
pub struct Drain<'a, X: RowIndex, T: Record> {
    rows: &'a mut Rows<X, T>,
}

/// The iterators that pop the rows, last first: `(key, value)` each.
macro_rules! popping_iter {
    ($name:ident $(<$lt:lifetime>)?) => {
        impl<X: RowIndex, T: Record> Iterator for $name<$($lt,)? X, T> {
            type Item = (KeyOf<X>, T);

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                self.rows.pop()
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                (self.rows.len(), Some(self.rows.len()))
            }
        }

        impl<X: RowIndex, T: Record> ExactSizeIterator for $name<$($lt,)? X, T> {}
        impl<X: RowIndex, T: Record> FusedIterator for $name<$($lt,)? X, T> {}
    };
}

popping_iter!(Drain<'_>);
popping_iter!(IntoIter);

impl<X: RowIndex, T: Record> Drop for Drain<'_, X, T> {
    fn drop(&mut self) {
        self.rows.clear();
    }
}

/// The rows [`Rows::extract_if`] removes, `(key, value)`, each swap-removed
/// when it is yielded.
pub struct ExtractIf<'a, X: RowIndex, T: Record, F> {
    rows: &'a mut Rows<X, T>,
    next: usize,
    pred: F,
}

impl<X: RowIndex, T: Record, F> Iterator for ExtractIf<'_, X, T, F>
where
    F: FnMut(KeyOf<X>, T::Mut<'_>) -> bool,
{
    type Item = (KeyOf<X>, T);

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.rows.len() {
            let d = self.next;
            let key = self.rows.index.keys()[d];
            let Some(row) = self.rows.columns.get_mut(d) else {
                unreachable!("a position below the length");
            };
            if (self.pred)(key, make_mut::<T>(row)) {
                // The last row moves to `d`, unseen yet: `next` stays.
                let (removed, value) = self.rows.swap_remove_dense(d);
                debug_assert_eq!(removed, key);
                return Some((key, value));
            }
            self.next += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.rows.len() - self.next))
    }
}

/// Owning iterator over `(key, T)`, from the containers' `into_iter`
/// ([`Rows`] makes one).
pub struct IntoIter<X: RowIndex, T: Record> {
    rows: Rows<X, T>,
}

impl<X: RowIndex, T: Record> IntoIterator for Rows<X, T> {
    type Item = (KeyOf<X>, T);
    type IntoIter = IntoIter<X, T>;

    fn into_iter(self) -> Self::IntoIter {
        IntoIter { rows: self }
    }
}

impl<'a, X: RowIndex, T: Record + 'a> IntoIterator for &'a Rows<X, T> {
    type Item = (KeyOf<X>, T::Ref<'a>);
    type IntoIter = Iter<'a, KeyOf<X>, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, X: RowIndex, T: Record + 'a> IntoIterator for &'a mut Rows<X, T> {
    type Item = (KeyOf<X>, T::Mut<'a>);
    type IntoIter = IterMut<'a, KeyOf<X>, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}
