//! [`SoaStorage`]: an [`IdTable`] and a [`ColumnBuffer`] kept in step — the
//! generic allocator behind every `#[derive(SoaAllocator)]`.
//!
//! The derive implements [`Record`] for the user's struct (how it splits into
//! columns and how rows look as `FooRef` / `FooMut`) and wraps a
//! `SoaStorage<Foo, FooId>` in `FooAllocator`, whose methods forward here.
//! All logic lives in this module, once, generic and tested.

use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use crate::columns::{self, CloneColumns, ColumnBuffer, Columns};
use crate::id::Id;
use crate::table::{IdTable, TableConfig, TableFull};

/// A struct stored as columns. Implemented by `#[derive(SoaAllocator)]`.
///
/// It names the [`Columns`] description of the struct and converts between
/// the struct and its nested column tuples.
pub trait Record: Sized {
    /// The columns: [`Col<T>`](columns::Col) per field, nested in pairs.
    type Columns: Columns<Values = Self::Values>;
    /// The fields by value, nested like [`Columns`](Record::Columns).
    type Values;
    /// One shared reference per field (`FooRef`).
    type Ref<'a>
    where
        Self: 'a;
    /// One mutable reference per field (`FooMut`).
    type Mut<'a>
    where
        Self: 'a;
    /// One shared slice per field (`FooColumns`).
    type Slices<'a>
    where
        Self: 'a;
    /// One mutable slice per field (`FooColumnsMut`).
    type SlicesMut<'a>
    where
        Self: 'a;

    /// Splits the struct into its fields.
    fn into_values(self) -> Self::Values;
    /// Builds the struct from its fields.
    fn from_values(values: Self::Values) -> Self;
    /// Names the references of one row.
    fn make_ref<'a>(refs: <Self::Columns as Columns>::Refs<'a>) -> Self::Ref<'a>
    where
        Self: 'a;
    /// Names the mutable references of one row.
    fn make_mut<'a>(muts: <Self::Columns as Columns>::Muts<'a>) -> Self::Mut<'a>
    where
        Self: 'a;
    /// Names the column slices.
    fn make_slices<'a>(slices: <Self::Columns as Columns>::Slices<'a>) -> Self::Slices<'a>
    where
        Self: 'a;
    /// Names the mutable column slices.
    fn make_slices_mut<'a>(
        slices: <Self::Columns as Columns>::SlicesMut<'a>,
    ) -> Self::SlicesMut<'a>
    where
        Self: 'a;
}

/// Why an insert failed, with the value given back.
///
/// ```
/// use idtable::{Id32, IdTable, InsertError};
///
/// let mut table = IdTable::<Id32<1>>::new(); // one slot
/// table.insert();
/// let err = InsertError::new("spare", table.try_insert().unwrap_err());
/// assert_eq!(err.to_string(), "cannot insert: id table full: all 1 slots of the Id1_31 layout are live or retired");
/// assert_eq!(err.into_inner(), "spare");
/// ```
pub struct InsertError<T> {
    value: T,
    reason: TableFull,
}

impl<T> InsertError<T> {
    /// Wraps the value that could not be inserted.
    pub fn new(value: T, reason: TableFull) -> Self {
        InsertError { value, reason }
    }

    /// The value that was not inserted.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// Why: the table is full.
    pub fn reason(&self) -> TableFull {
        self.reason
    }
}

impl<T> fmt::Debug for InsertError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InsertError")
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Display for InsertError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot insert: {}", self.reason)
    }
}

impl<T> core::error::Error for InsertError<T> {}

/// An [`IdTable`] and the [`ColumnBuffer`] of a [`Record`], kept in step.
///
/// Invariant: `table.len() == columns.len()`, and the row at dense index `d`
/// belongs to `table.ids()[d]`.
pub struct SoaStorage<T: Record, I: Id> {
    table: IdTable<I>,
    columns: ColumnBuffer<T::Columns>,
}

impl<T: Record, I: Id> Default for SoaStorage<T, I> {
    fn default() -> Self {
        Self::with_config(TableConfig::default())
    }
}

impl<T: Record, I: Id> Clone for SoaStorage<T, I>
where
    T::Columns: CloneColumns,
{
    fn clone(&self) -> Self {
        SoaStorage {
            table: self.table.clone(),
            columns: self.columns.clone(),
        }
    }
}

impl<T: Record, I: Id> SoaStorage<T, I> {
    /// An empty storage whose table uses `config`.
    pub const fn with_config(config: TableConfig) -> Self {
        SoaStorage {
            table: IdTable::with_config(config),
            columns: ColumnBuffer::new(),
        }
    }

    /// An empty storage with room for `capacity` objects.
    pub fn with_capacity_and_config(capacity: usize, config: TableConfig) -> Self {
        let mut s = Self::with_config(config);
        s.reserve(capacity);
        s
    }

    /// The id table (ids, slots, free queue).
    pub fn table(&self) -> &IdTable<I> {
        &self.table
    }

    /// The column buffer.
    pub fn column_buffer(&self) -> &ColumnBuffer<T::Columns> {
        &self.columns
    }

    /// Number of live objects.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// `true` when there is no live object.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Objects that fit before the columns reallocate.
    pub fn capacity(&self) -> usize {
        self.columns.capacity().min(self.table.capacity())
    }

    /// Reserves room for `additional` more objects.
    pub fn reserve(&mut self, additional: usize) {
        self.columns.reserve(additional);
        self.table.reserve(additional);
    }

    /// Frees unused capacity.
    pub fn shrink_to_fit(&mut self) {
        self.columns.shrink_to_fit();
        self.table.shrink_to_fit();
    }

    /// Inserts `value`, or gives it back when no id can be issued.
    #[inline]
    pub fn try_insert(&mut self, value: T) -> Result<I, InsertError<T>> {
        // Grow first: if growing panics, no id has been issued.
        self.columns.reserve(1);
        match self.table.try_insert() {
            Ok((id, _)) => {
                self.columns.push(value.into_values());
                Ok(id)
            }
            Err(full) => Err(InsertError::new(value, full)),
        }
    }

    /// Inserts `value`.
    ///
    /// # Panics
    ///
    /// When no id can be issued; the message names the layout.
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, value: T) -> I {
        // Grow first: if growing panics, no id has been issued.
        self.columns.reserve(1);
        let (id, _) = self.table.insert();
        self.columns.push(value.into_values());
        id
    }

    /// Inserts the value `make(id)` builds from its own id.
    ///
    /// If `make` panics nothing is inserted and no id is used up.
    ///
    /// # Panics
    ///
    /// When no id can be issued (before `make` is called).
    #[track_caller]
    pub fn insert_with_id(&mut self, make: impl FnOnce(I) -> T) -> I {
        let id = match self.table.next_id() {
            Ok(id) => id,
            Err(full) => panic!("{full}"),
        };
        let value = make(id);
        let issued = self.insert(value);
        debug_assert_eq!(issued, id);
        issued
    }

    /// Removes the object of `id` and returns it, or `None` if `id` is not
    /// live.
    // Always inlined: a caller that drops the returned value then skips
    // loading the removed row from every column.
    #[inline(always)]
    pub fn remove(&mut self, id: I) -> Option<T> {
        let moved = self.table.remove(id)?;
        Some(T::from_values(self.columns.swap_remove(moved.index)))
    }

    /// `true` if `id` is live.
    #[inline(always)]
    pub fn contains(&self, id: I) -> bool {
        self.table.contains(id)
    }

    /// The dense index of `id` (its row in the columns), if live.
    #[inline(always)]
    pub fn dense_index(&self, id: I) -> Option<usize> {
        self.table.dense_index(id)
    }

    /// The fields of `id`'s object, if live.
    #[inline(always)]
    pub fn get(&self, id: I) -> Option<T::Ref<'_>> {
        // A vacant slot's dense field is past the end: `columns.get` rejects it.
        let dense = self.table.dense_or_vacant(id)?;
        self.columns.get(dense).map(T::make_ref)
    }

    /// The fields of `id`'s object, mutably, if live.
    #[inline(always)]
    pub fn get_mut(&mut self, id: I) -> Option<T::Mut<'_>> {
        // A vacant slot's dense field is past the end: `columns.get_mut`
        // rejects it.
        let dense = self.table.dense_or_vacant(id)?;
        self.columns.get_mut(dense).map(T::make_mut)
    }

    /// The fields of `N` objects at once, mutably; `None` if any id is not
    /// live or two ids are the same.
    pub fn get_disjoint_mut<const N: usize>(&mut self, ids: [I; N]) -> Option<[T::Mut<'_>; N]> {
        let mut dense = [0usize; N];
        for (d, id) in dense.iter_mut().zip(ids) {
            *d = self.table.dense_index(id)?;
        }
        let muts = self.columns.get_disjoint_mut(dense)?;
        Some(muts.map(T::make_mut))
    }

    /// The live ids in dense order, parallel to [`columns`](SoaStorage::columns).
    #[inline(always)]
    pub fn ids(&self) -> &[I] {
        self.table.ids()
    }

    /// Every column as a slice, in dense order.
    #[inline(always)]
    pub fn columns(&self) -> T::Slices<'_> {
        T::make_slices(self.columns.slices())
    }

    /// Every column as a mutable slice, in dense order.
    #[inline(always)]
    pub fn columns_mut(&mut self) -> T::SlicesMut<'_> {
        T::make_slices_mut(self.columns.slices_mut())
    }

    /// Removes every object. No old id becomes live again.
    pub fn clear(&mut self) {
        self.table.clear();
        self.columns.clear();
    }

    /// `(id, fields)` of every object, in dense order.
    pub fn iter(&self) -> Iter<'_, T, I> {
        Iter {
            ids: self.table.ids().iter(),
            rows: self.columns.iter(),
        }
    }

    /// `(id, mutable fields)` of every object, in dense order.
    pub fn iter_mut(&mut self) -> IterMut<'_, T, I> {
        IterMut {
            ids: self.table.ids().iter(),
            rows: self.columns.iter_mut(),
        }
    }

    /// Removes every object, yielding `(id, value)` from the last dense
    /// index to the first. Dropping the iterator removes the rest.
    pub fn drain(&mut self) -> Drain<'_, T, I> {
        Drain { storage: self }
    }

    /// Removes and returns the object at the last dense index.
    fn pop(&mut self) -> Option<(I, T)> {
        let id = *self.table.ids().last()?;
        self.table.remove(id);
        let values = self.columns.pop()?;
        Some((id, T::from_values(values)))
    }

    /// The fields of the object at dense index `dense`.
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    #[inline]
    #[track_caller]
    pub fn row(&self, dense: usize) -> T::Ref<'_> {
        match self.columns.get(dense) {
            Some(refs) => T::make_ref(refs),
            None => out_of_bounds(dense, self.len()),
        }
    }

    /// The fields of the object at dense index `dense`, mutably.
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    #[inline]
    #[track_caller]
    pub fn row_mut(&mut self, dense: usize) -> T::Mut<'_> {
        let len = self.len();
        match self.columns.get_mut(dense) {
            Some(muts) => T::make_mut(muts),
            None => out_of_bounds(dense, len),
        }
    }

    /// Keeps the objects for which `keep(self, dense)` is `true` and removes
    /// the others (swap-remove: the dense order changes). `keep` reads or
    /// writes the row through [`row`](Self::row) / [`row_mut`](Self::row_mut);
    /// it must not insert or remove.
    ///
    /// (The callback takes the storage rather than `T::Mut<'_>` because a
    /// closure bound over a generic associated type would demand
    /// `T: 'static`; generated allocators wrap it as `retain(|id, row| ..)`.)
    ///
    /// If `keep` or a destructor panics, the objects removed so far stay
    /// removed and the rest stay live.
    pub fn retain_dense(&mut self, mut keep: impl FnMut(&mut Self, usize) -> bool) {
        let mut d = 0;
        while d < self.len() {
            if keep(self, d) {
                d += 1;
            } else if let Some(&id) = self.table.ids().get(d) {
                // The last row moves into `d` and is visited next.
                let moved = self.table.remove(id);
                debug_assert_eq!(moved.map(|m| m.index), Some(d));
                drop(self.columns.swap_remove(d));
            }
        }
    }

    /// Sorts the dense order (stable) by `compare(self, a, b)`, which
    /// compares the rows at dense indices `a` and `b`. Every id stays valid.
    ///
    /// If `compare` panics, nothing has moved.
    pub fn sort_dense_by(&mut self, mut compare: impl FnMut(&Self, usize, usize) -> Ordering) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&a, &b| compare(self, a, b));
        self.apply_order(&order);
    }

    /// Moves the row at `order[k]` to dense index `k`, for every `k`.
    fn apply_order(&mut self, order: &[usize]) {
        let mut placed = alloc::vec![false; order.len()];
        for start in 0..order.len() {
            if placed[start] {
                continue;
            }
            placed[start] = true;
            let mut at = start;
            loop {
                let from = order[at];
                if from == start {
                    break;
                }
                self.table.swap_dense(at, from);
                self.columns.swap(at, from);
                placed[from] = true;
                at = from;
            }
        }
    }

    /// Checks the table's invariants and that the columns have one row per
    /// live id.
    ///
    /// # Panics
    ///
    /// If an invariant does not hold.
    pub fn check_invariants(&self) {
        self.table.check_invariants();
        assert_eq!(
            self.table.len(),
            self.columns.len(),
            "id table and columns differ in length"
        );
    }
}

#[cold]
#[track_caller]
fn out_of_bounds(dense: usize, len: usize) -> ! {
    panic!("dense index {dense} out of bounds (len {len})")
}

impl<T: Record, I: Id> Extend<T> for SoaStorage<T, I> {
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for value in iter {
            self.insert(value);
        }
    }
}

impl<T: Record, I: Id> FromIterator<T> for SoaStorage<T, I> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        let mut s = Self::default();
        s.extend(iter);
        s
    }
}

/// `(id, fields)` of every object of a [`SoaStorage`], in dense order.
pub struct Iter<'a, T: Record + 'a, I: Id> {
    ids: slice::Iter<'a, I>,
    rows: columns::Iter<'a, T::Columns>,
}

impl<T: Record, I: Id> Clone for Iter<'_, T, I> {
    fn clone(&self) -> Self {
        Iter {
            ids: self.ids.clone(),
            rows: self.rows.clone(),
        }
    }
}

impl<'a, T: Record + 'a, I: Id> Iterator for Iter<'a, T, I> {
    type Item = (I, T::Ref<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next()?;
        Some((id, T::make_ref(self.rows.next()?)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl<'a, T: Record + 'a, I: Id> DoubleEndedIterator for Iter<'a, T, I> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next_back()?;
        Some((id, T::make_ref(self.rows.next_back()?)))
    }
}

impl<'a, T: Record + 'a, I: Id> ExactSizeIterator for Iter<'a, T, I> {}
impl<'a, T: Record + 'a, I: Id> FusedIterator for Iter<'a, T, I> {}

/// `(id, mutable fields)` of every object of a [`SoaStorage`], in dense order.
pub struct IterMut<'a, T: Record + 'a, I: Id> {
    ids: slice::Iter<'a, I>,
    rows: columns::IterMut<'a, T::Columns>,
}

impl<'a, T: Record + 'a, I: Id> Iterator for IterMut<'a, T, I> {
    type Item = (I, T::Mut<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next()?;
        Some((id, T::make_mut(self.rows.next()?)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl<'a, T: Record + 'a, I: Id> DoubleEndedIterator for IterMut<'a, T, I> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next_back()?;
        Some((id, T::make_mut(self.rows.next_back()?)))
    }
}

impl<'a, T: Record + 'a, I: Id> ExactSizeIterator for IterMut<'a, T, I> {}
impl<'a, T: Record + 'a, I: Id> FusedIterator for IterMut<'a, T, I> {}

/// `SplitAt` for `Iter` and `IterMut`: ids and rows split at the same index,
/// so each half still pairs every id with its row.
#[cfg(feature = "rayon")]
macro_rules! split_at {
    ($iter:ident) => {
        impl<T: Record, I: Id> crate::par::SplitAt for $iter<'_, T, I> {
            fn split_at(self, mid: usize) -> (Self, Self) {
                let (rows, rest_rows) = self.rows.split_at(mid);
                let (ids, rest) = self.ids.as_slice().split_at(mid);
                let left = $iter {
                    ids: ids.iter(),
                    rows,
                };
                let right = $iter {
                    ids: rest.iter(),
                    rows: rest_rows,
                };
                (left, right)
            }
        }
    };
}
#[cfg(feature = "rayon")]
split_at!(Iter);
#[cfg(feature = "rayon")]
split_at!(IterMut);

/// Removes every object of a [`SoaStorage`], yielding `(id, value)`.
///
/// Dropping it removes (and drops) what was not yielded; leaking it
/// (`mem::forget`) leaves those objects live.
pub struct Drain<'a, T: Record, I: Id> {
    storage: &'a mut SoaStorage<T, I>,
}

impl<T: Record, I: Id> Iterator for Drain<'_, T, I> {
    type Item = (I, T);

    #[inline]
    fn next(&mut self) -> Option<(I, T)> {
        self.storage.pop()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.storage.len(), Some(self.storage.len()))
    }
}

impl<T: Record, I: Id> ExactSizeIterator for Drain<'_, T, I> {}
impl<T: Record, I: Id> FusedIterator for Drain<'_, T, I> {}

impl<T: Record, I: Id> Drop for Drain<'_, T, I> {
    fn drop(&mut self) {
        self.storage.clear();
    }
}

/// Owning iterator of a [`SoaStorage`], yielding `(id, value)` from the last
/// dense index to the first.
pub struct IntoIter<T: Record, I: Id> {
    storage: SoaStorage<T, I>,
}

impl<T: Record, I: Id> Iterator for IntoIter<T, I> {
    type Item = (I, T);

    #[inline]
    fn next(&mut self) -> Option<(I, T)> {
        self.storage.pop()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.storage.len(), Some(self.storage.len()))
    }
}

impl<T: Record, I: Id> ExactSizeIterator for IntoIter<T, I> {}
impl<T: Record, I: Id> FusedIterator for IntoIter<T, I> {}

impl<T: Record, I: Id> IntoIterator for SoaStorage<T, I> {
    type Item = (I, T);
    type IntoIter = IntoIter<T, I>;

    fn into_iter(self) -> IntoIter<T, I> {
        IntoIter { storage: self }
    }
}

impl<'a, T: Record + 'a, I: Id> IntoIterator for &'a SoaStorage<T, I> {
    type Item = (I, T::Ref<'a>);
    type IntoIter = Iter<'a, T, I>;

    fn into_iter(self) -> Iter<'a, T, I> {
        self.iter()
    }
}

impl<'a, T: Record + 'a, I: Id> IntoIterator for &'a mut SoaStorage<T, I> {
    type Item = (I, T::Mut<'a>);
    type IntoIter = IterMut<'a, T, I>;

    fn into_iter(self) -> IterMut<'a, T, I> {
        self.iter_mut()
    }
}
