//! [`SoaStorage`]: the table, [`Rows`] whose index is an [`IdTable`] that
//! issues the ids. Every `#[derive(SoaAllocator)]` names one:
//! `FooAllocator` is `SoaStorage<FooId, Foo>`.
//!
//! The row methods (lookups, views, iteration, `retain`, sorting) are
//! [`Rows`]'; this module holds what only a table has, in a table's words:
//! how ids are issued and retired (insert, remove, reservations,
//! `contains`), `ids()`, `id_table()` and the table's configuration (the
//! record's [`Record::TABLE_CONFIG`] for `new`, `with_capacity` and
//! `default`).
//!
//! See [`SoaStorage`] for an example.

use core::fmt;

use crate::columns::ColumnBuffer;

#[cfg(feature = "serde")]
pub(crate) mod serde;
use crate::id::Id;
use crate::record::{from_values, into_values};
use crate::rows::{sealed, Rows};
use crate::table::{IdTable, IssueError, PartsError, TableConfig};

pub use crate::record::{DebugRow, Record, RecordToken};
pub use crate::rows::{Iter, IterMut};

/// Draining iterator of a [`SoaStorage`] (and of a derived allocator),
/// from `drain()`: yields each `(id, record)`, last dense row first; the
/// storage is empty afterwards, even if the iterator is dropped early
/// (the engine's [`Drain`](crate::rows::Drain), shown in [`Rows`]' example).
pub type Drain<'a, I, T> = crate::rows::Drain<'a, IdTable<I>, T>;
/// Owning iterator of a [`SoaStorage`] (and of a derived allocator), from
/// `into_iter()`: yields each `(id, record)`, last dense row first (the
/// engine's [`IntoIter`](crate::rows::IntoIter), shown in [`Rows`]' example).
pub type IntoIter<I, T> = crate::rows::IntoIter<IdTable<I>, T>;

/// Why an insert failed, with the value given back.
///
/// ```
/// use idtable::{Id32, IdTable, InsertError};
///
/// let mut table = IdTable::<Id32<1>>::new(); // one slot
/// table.insert();
/// let err = InsertError::new("spare", table.try_insert().unwrap_err());
/// assert_eq!(err.to_string(), "cannot insert: id table full: all 1 slots of the Id1_31 layout are live, reserved or retired");
/// assert_eq!(err.into_inner(), "spare");
/// ```
pub struct InsertError<T> {
    value: T,
    reason: IssueError,
}

impl<T> InsertError<T> {
    /// Wraps the value that could not be inserted.
    ///
    /// Derived allocators build it in `try_insert`; code driving an
    /// [`IdTable`] by hand can do the same:
    ///
    /// ```
    /// use idtable::{IdTable, Id32, InsertError};
    ///
    /// fn push<T>(table: &mut IdTable<Id32<1>>, col: &mut Vec<T>, value: T) -> Result<(), InsertError<T>> {
    ///     match table.try_insert() {
    ///         Ok(_) => Ok(col.push(value)),
    ///         Err(full) => Err(InsertError::new(value, full)),
    ///     }
    /// }
    /// let (mut table, mut col) = (IdTable::new(), Vec::new());
    /// assert!(push(&mut table, &mut col, 'a').is_ok());
    /// assert_eq!(push(&mut table, &mut col, 'b').unwrap_err().into_inner(), 'b');
    /// ```
    pub fn new(value: T, reason: IssueError) -> Self {
        InsertError { value, reason }
    }

    /// The value that was not inserted.
    ///
    /// ```
    /// use idtable::{Id32, SoaAllocator};
    ///
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// #[soa(id = Id32<1>)] // a single usable index
    /// struct Name { text: String }
    ///
    /// let mut names = NameAllocator::new();
    /// names.insert(Name { text: "first".into() });
    /// let err = names.try_insert(Name { text: "second".into() }).unwrap_err();
    /// assert_eq!(err.into_inner(), Name { text: "second".into() }); // not dropped
    /// ```
    pub fn into_inner(self) -> T {
        self.value
    }

    /// Why: the table is full.
    ///
    /// ```
    /// use idtable::{Id32, SoaAllocator};
    ///
    /// #[derive(SoaAllocator)]
    /// #[soa(id = Id32<1>)]
    /// struct Unit { hp: u32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// units.insert(Unit { hp: 1 });
    /// let err = units.try_insert(Unit { hp: 2 }).unwrap_err();
    /// assert!(err.reason().to_string().contains("Id1_31"));
    /// ```
    pub fn reason(&self) -> IssueError {
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

/// [`Rows`] of `T` whose keys are ids `I` issued by an [`IdTable`]: the
/// table every derived `FooAllocator` names, usable directly with any
/// [`Id`] type. Lookups, views, iteration, `retain` and sorting are
/// [`Rows`]' methods; a table names its rows by `ids`.
///
/// Invariant: the table holds one live id per row, the row at dense index
/// `d` belonging to `table().ids()[d]`.
///
/// A derived allocator and a `SoaStorage` of the same struct behave alike;
/// the allocator only names the types:
///
/// ```
/// use idtable::{SoaAllocator, SoaStorage, TableConfig};
///
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// pub struct Point { pub x: f32, pub y: f32 }
///
/// let mut allocator = PointAllocator::new();
/// let mut storage = SoaStorage::<PointId, Point>::default();
/// let a = allocator.insert(Point { x: 1.0, y: 2.0 });
/// let b = storage.insert(Point { x: 1.0, y: 2.0 });
/// assert_eq!(a, b); // same table logic, same ids
/// assert_eq!(allocator.columns().y, storage.columns().y);
/// assert!(storage.contains(b));
/// assert_eq!(storage.ids(), &[b]);
/// let (ids, columns) = storage.ids_and_columns_mut();
/// columns.x[0] = 5.0;
/// assert_eq!(ids, &[b]);
/// assert_eq!(storage.remove(b), Some(Point { x: 5.0, y: 2.0 }));
/// assert_eq!(storage.remove(b), None); // stale
/// assert!(!storage.contains(b));
/// assert_eq!(storage.id_table().free_count(), 1);
///
/// // `min_free = 8`: fewer than 8 freed slots wait, so the next insert
/// // takes a fresh slot.
/// let config = TableConfig { min_free: 8, ..TableConfig::default() };
/// let mut s = SoaStorage::<PointId, Point>::with_capacity_and_config(100, config);
/// assert!(s.capacity() >= 100);
/// let c = s.insert(Point { x: 0.0, y: 0.0 });
/// s.remove(c);
/// assert_ne!(s.insert(Point { x: 1.0, y: 1.0 }).index(), c.index());
/// let empty = SoaStorage::<PointId, Point>::with_config(config);
/// assert!(empty.is_empty());
///
/// // Every method of the rows engine, in a table's words.
/// let mut t = SoaStorage::<PointId, Point>::default();
/// let [p, q, r] = [1.0, 2.0, 3.0].map(|x| t.insert(Point { x, y: x }));
/// t.reserve(8);
/// t.shrink_to_fit();
/// assert_eq!((t.len(), t.is_empty(), t.dense_index(q)), (3, false, Some(1)));
/// *t.get_mut(q).unwrap().y = 9.0;
/// let [pp, pr] = t.get_disjoint_mut([p, r]).unwrap();
/// std::mem::swap(pp.x, pr.x);
/// assert_eq!((*t.get(q).unwrap().y, *t.row(0).x), (9.0, 3.0));
/// *t.row_mut(2).x += 1.0;
/// t.columns_mut().y[0] = 0.5;
/// assert_eq!(t.columns().x, &[3.0, 2.0, 2.0]);
/// assert_eq!(t.iter().map(|(id, _)| id).collect::<Vec<_>>(), t.ids());
/// t.iter_mut().for_each(|(_, pt)| *pt.x *= 2.0);
/// t.retain(|id, _| id != q);
/// t.sort_by(|a, b| a.y.total_cmp(b.y));
/// t.sort_by_key(|pt| (*pt.x) as i32);
/// let taken: Vec<_> = t.extract_if(|_, pt| *pt.y > 2.0).collect();
/// assert_eq!(taken, [(r, Point { x: 4.0, y: 3.0 })]);
/// assert_eq!(t.remove_many([p, p]), 1);
/// t.check_invariants();
/// t.insert(Point { x: 0.0, y: 0.0 });
/// assert_eq!(t.drain().count(), 1);
/// t.insert(Point { x: 0.0, y: 0.0 });
/// t.clear();
/// assert!(t.is_empty());
/// ```
pub type SoaStorage<I, T> = Rows<IdTable<I>, T>;

impl<I: Id> sealed::Index for IdTable<I> {
    type Key = I;

    #[inline(always)]
    fn keys(&self) -> &[I] {
        self.ids()
    }

    #[inline(always)]
    fn find(&self, key: I) -> Option<usize> {
        self.dense_index(key)
    }

    #[inline(always)]
    fn locate(&self, key: I) -> Option<usize> {
        // A vacant slot's dense field is past the end: the columns reject it.
        self.dense_or_vacant(key)
    }

    #[inline]
    fn swap_dense(&mut self, a: usize, b: usize) {
        IdTable::swap_dense(self, a, b);
    }

    fn pop(&mut self) -> Option<I> {
        let id = *self.ids().last()?;
        self.remove(id);
        Some(id)
    }

    #[inline(always)]
    fn take_position(&mut self, id: I) -> Option<usize> {
        Some(self.remove(id)?.index)
    }

    fn swap_remove(&mut self, dense: usize) -> I {
        let id = self.ids()[dense];
        self.remove(id);
        id
    }

    fn clear(&mut self) {
        IdTable::clear(self);
    }

    #[inline(always)]
    fn prepare_release(&mut self) {
        self.settle_reservations();
    }

    #[inline(always)]
    fn taggable(&self, found: bool) -> bool {
        !found && IdTable::taggable(self)
    }

    #[inline(always)]
    fn keys_mut(&mut self) -> &mut [I] {
        self.ids_mut()
    }

    #[inline(always)]
    fn detach(&mut self, id: I, dense: usize, tagged: bool) {
        IdTable::detach(self, id, dense, tagged);
    }

    #[inline(always)]
    fn is_detached(&self, dense: usize, tagged: bool) -> bool {
        IdTable::is_detached(self, dense, tagged)
    }

    fn reattach(&mut self, dense: usize, tagged: bool) {
        IdTable::reattach(self, dense, tagged);
    }

    #[inline(always)]
    fn remove_detached_block(
        &mut self,
        base: usize,
        n: usize,
        asked: usize,
        write: &mut usize,
        tagged: bool,
    ) -> u64 {
        IdTable::remove_detached_block(self, base, n, asked, write, tagged)
    }

    #[inline(always)]
    fn remove_marked_block(&mut self, base: usize, n: usize, gone: u64, write: &mut usize) {
        IdTable::remove_marked_block(self, base, n, gone, write);
    }

    fn truncate(&mut self, len: usize) {
        self.truncate_dense(len);
    }

    fn reserve(&mut self, additional: usize) {
        IdTable::reserve(self, additional);
    }

    fn shrink_to_fit(&mut self) {
        IdTable::shrink_to_fit(self);
    }

    fn capacity(&self) -> usize {
        IdTable::capacity(self)
    }

    fn check_invariants(&self) {
        IdTable::check_invariants(self);
    }
}

/// An empty table whose id table uses `T`'s configuration
/// ([`Record::TABLE_CONFIG`]: the derive's `min_free` and `on_exhausted`).
impl<T: Record, I: Id> Default for Rows<IdTable<I>, T> {
    fn default() -> Self {
        Self::new()
    }
}

/// [`SoaStorage::insert`]'s panic, out of line so the insert's hot path
/// stays small. The value is dropped before the panic, not during it.
#[cold]
#[inline(never)]
#[track_caller]
fn table_full_panic<T>(value: T, full: IssueError) -> ! {
    drop(value);
    panic!("{full}")
}

impl<T: Record, I: Id> Rows<IdTable<I>, T> {
    crate::sync::const_fn! {
        /// An empty table; allocates nothing until the first insert. Its id
        /// table uses `T`'s configuration ([`Record::TABLE_CONFIG`]: the
        /// derive's `min_free` and `on_exhausted`).
        pub const fn new() -> Self {
            Self::with_config(T::TABLE_CONFIG)
        }
    }

    crate::sync::const_fn! {
        /// An empty table whose id table uses `config`.
        pub const fn with_config(config: TableConfig) -> Self {
            Rows::from_parts(IdTable::with_config(config), ColumnBuffer::new())
        }
    }

    /// An empty table with room for `capacity` rows, in `T`'s
    /// configuration.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_and_config(capacity, T::TABLE_CONFIG)
    }

    /// An empty storage with room for `capacity` objects.
    pub fn with_capacity_and_config(capacity: usize, config: TableConfig) -> Self {
        let mut s = Self::with_config(config);
        s.reserve(capacity);
        s
    }

    /// The id table (ids, slots, free queue): shared only, so that the
    /// storage's table and columns stay in step and its configuration
    /// stays its own.
    pub fn id_table(&self) -> &IdTable<I> {
        &self.index
    }

    /// The ids, in dense order: `ids()[d]` owns the row at position `d` of
    /// every column.
    #[inline(always)]
    pub fn ids(&self) -> &[I] {
        self.index.ids()
    }

    /// The ids and every column mutably, at once.
    #[inline(always)]
    pub fn ids_and_columns_mut(&mut self) -> (&[I], T::ColumnsMut<'_>) {
        let columns = crate::record::make_columns_mut::<T>(self.columns.slices_mut());
        (self.index.ids(), columns)
    }

    /// Inserts `value`, or gives it back when no id can be issued.
    ///
    /// ```
    /// use idtable::{Id32, SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// // With an id layout of one usable index, the second insert fails:
    /// let mut tiny = SoaStorage::<Id32<1>, Point>::default();
    /// tiny.insert(Point { x: 0.0, y: 0.0 });
    /// let err = tiny.try_insert(Point { x: 2.0, y: 0.0 }).unwrap_err();
    /// assert_eq!(err.into_inner().x, 2.0);
    /// assert_eq!(tiny.len(), 1);
    /// ```
    // Always inlined, like `remove`: the hot path is a few stores, and a
    // call per insert (with its register saves) costs as much again.
    #[inline(always)]
    pub fn try_insert(&mut self, value: T) -> Result<I, InsertError<T>> {
        self.columns.push_from(value, into_values);
        if self.index.insert_is_plain() {
            Ok(self.index.insert_plain())
        } else {
            self.try_insert_cold()
        }
    }

    /// The table's cold insert for the row [`try_insert`](Self::try_insert)
    /// appended, which is taken back off if the table refuses.
    #[cold]
    #[inline(never)]
    fn try_insert_cold(&mut self) -> Result<I, InsertError<T>> {
        match self.index.insert_cold() {
            Some(id) => Ok(id),
            None => Err(self.refused()),
        }
    }

    /// The same for [`insert`](Self::insert): panics if the table refuses.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn insert_cold(&mut self) -> I {
        match self.index.insert_cold() {
            Some(id) => id,
            None => self.refused_panic(),
        }
    }

    /// The row [`try_insert`](Self::try_insert) appended, taken back off:
    /// its table issued no id, and changed nothing.
    ///
    /// # Panics
    ///
    /// When the table refused because reservations it had to settle first
    /// could not be allocated (not because it is full).
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn refused(&mut self) -> InsertError<T> {
        let value = match self.columns.pop() {
            Some(values) => from_values(values),
            None => unreachable!("the row was just pushed"),
        };
        // The row is off before `refusal` may panic.
        let full = self.index.refusal();
        InsertError::new(value, full)
    }

    /// [`refused`](Self::refused) for `insert`: panics.
    #[cold]
    #[track_caller]
    fn refused_panic(&mut self) -> ! {
        let err = self.refused();
        let full = err.reason();
        table_full_panic(err.into_inner(), full)
    }

    /// Inserts `value` and returns its new id.
    ///
    /// The row is appended to the columns first (the values are taken out
    /// of `value` once the columns have room, so growing keeps nothing
    /// live), then the table issues its id; when it issues none the row is
    /// taken back off. Columns before the table: in a caller's loop of
    /// inserts into reserved room this order measured faster
    /// (`insert_reserved`, BENCHMARKS.md), at the hand-written floor.
    ///
    /// # Panics
    ///
    /// When no id can be issued; the message names the layout.
    // Always inlined: see `try_insert`.
    #[inline(always)]
    #[track_caller]
    pub fn insert(&mut self, value: T) -> I {
        self.columns.push_from(value, into_values);
        if self.index.insert_is_plain() {
            self.index.insert_plain()
        } else {
            self.insert_cold()
        }
    }

    /// Inserts the value `make(id)` builds from its own id.
    ///
    /// If `make` panics nothing is inserted and no id is used up.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Node { parent: Option<NodeId>, depth: u32 }
    ///
    /// let mut s = SoaStorage::<NodeId, Node>::default();
    /// // A root is its own parent here, so it needs its id before it exists.
    /// let root = s.insert_with_id(|id| Node { parent: Some(id), depth: 0 });
    /// assert_eq!(*s.get(root).unwrap().parent, Some(root));
    /// ```
    ///
    /// # Panics
    ///
    /// When no id can be issued (before `make` is called).
    #[track_caller]
    pub fn insert_with_id(&mut self, make: impl FnOnce(I) -> T) -> I {
        // Prepared first (reservations settled, the slot words it needs
        // made), the table's next id is the one the insert issues: `make`
        // cannot reach the table in between.
        let id = match self.index.prepare_insert() {
            Ok(id) => id,
            Err(refused) => panic!("{refused}"),
        };
        let value = make(id);
        let issued = self.insert(value);
        assert_eq!(
            issued, id,
            "insert_with_id issued another id than it promised"
        );
        issued
    }

    /// [`IdTable::reserve_id`] on this storage's table: an id for a row to
    /// insert later with [`insert_reserved`](Self::insert_reserved), from a
    /// shared borrow.
    ///
    /// # Panics
    ///
    /// When every index of the layout is live, retired or reserved.
    #[cfg(target_has_atomic = "ptr")]
    #[inline]
    #[track_caller]
    pub fn reserve_id(&self) -> I {
        self.index.reserve_id()
    }

    /// [`IdTable::reserve_ids`] on this storage's table: `n` ids at once.
    ///
    /// # Panics
    ///
    /// When fewer than `n` ids can be issued (nothing is reserved then).
    #[cfg(target_has_atomic = "ptr")]
    #[track_caller]
    pub fn reserve_ids(&self, n: usize) -> crate::table::ReservedIds<'_, I> {
        self.index.reserve_ids(n)
    }

    /// Reservations waiting for their rows ([`IdTable::reserved_len`]).
    pub fn reserved_len(&self) -> usize {
        self.index.reserved_len()
    }

    /// Inserts `value` as the object of `id`, an id reserved from `&self`
    /// with [`reserve_id`](Self::reserve_id), and appends it to the dense
    /// order. Gives the value back if `id` is not a
    /// reservation of this storage still waiting for its row.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// struct Shot { speed: f32 }
    ///
    /// let mut shots = SoaStorage::<ShotId, Shot>::default();
    /// let id = shots.reserve_id(); // from a shared borrow
    /// assert!(shots.get(id).is_none());
    /// shots.insert_reserved(id, Shot { speed: 3.0 }).unwrap();
    /// assert_eq!(*shots.get(id).unwrap().speed, 3.0);
    /// assert_eq!(shots.insert_reserved(id, Shot { speed: 1.0 }), Err(Shot { speed: 1.0 }));
    /// ```
    ///
    /// # Errors
    ///
    /// The value, when `id` is not a waiting reservation.
    // Always inlined, like `try_insert`: out of line, the record passed
    // through memory is stored by the caller and read back at once by a
    // load the store cannot forward to, which alone cost more than the rest.
    #[inline(always)]
    pub fn insert_reserved(&mut self, id: I, value: T) -> Result<(), T> {
        let Some(how) = self.index.waiting(id) else {
            return Err(value);
        };
        self.columns.push(into_values(value));
        self.index.fill_waiting(id, how);
        Ok(())
    }

    /// Gives back a reservation that will not be filled (see
    /// [`IdTable::release_reserved`]): its id is spent. `false` if `id` is
    /// not a reservation of this storage still waiting for its row.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Shot { speed: f32 }
    ///
    /// let mut shots = SoaStorage::<ShotId, Shot>::default();
    /// let id = shots.reserve_id();
    /// assert_eq!(shots.reserved_len(), 1);
    /// assert!(shots.release_reserved(id));
    /// assert_eq!(shots.reserved_len(), 0);
    /// assert!(shots.insert_reserved(id, Shot { speed: 1.0 }).is_err());
    /// ```
    pub fn release_reserved(&mut self, id: I) -> bool {
        self.index.release_reserved(id)
    }

    /// Removes the object of `id` and returns it, or `None` if `id` is not
    /// live. The last row moves into the gap.
    // Always inlined: a caller that drops the returned value then skips
    // loading the removed row from every column.
    #[inline(always)]
    pub fn remove(&mut self, id: I) -> Option<T> {
        self.remove_row(id)
    }

    /// `true` if `id` is live.
    #[inline(always)]
    pub fn contains(&self, id: I) -> bool {
        self.index.contains(id)
    }

    /// A storage of a table and a buffer of as many rows as it has live ids.
    #[cfg(feature = "serde")]
    pub(crate) fn from_table_and_buffer(table: IdTable<I>, columns: ColumnBuffer<T::Tree>) -> Self {
        debug_assert_eq!(table.len(), columns.len());
        Rows::from_parts(table, columns)
    }

    /// Rebuilds a storage from a table (usually from
    /// [`IdTable::from_parts`](crate::IdTable::from_parts)) and its rows in
    /// dense order: the row at position `d` belongs to `table.ids()[d]`.
    /// This is how a derived allocator's `Deserialize` ends.
    ///
    /// # Errors
    ///
    /// [`PartsError::RowCount`] when there is not exactly one row per live
    /// id; the rows taken so far are dropped.
    ///
    /// ```
    /// use idtable::{IdTable, Id24_8, SoaAllocator, SoaStorage, TableConfig};
    ///
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// #[soa(id = Id24_8)]
    /// struct Name { text: &'static str }
    ///
    /// let mut table = IdTable::<NameId>::new();
    /// let (a, _) = table.insert();
    /// let (b, _) = table.insert();
    /// let rows = [Name { text: "a" }, Name { text: "b" }];
    /// let storage = SoaStorage::from_table_and_rows(table.clone(), rows).ok().expect("2 rows");
    /// assert_eq!(*storage.get(b).unwrap().text, "b");
    ///
    /// let err = SoaStorage::<NameId, Name>::from_table_and_rows(table, []).err().expect("0 rows");
    /// assert_eq!(err.to_string(), "0 rows given, but the table has 2 live ids");
    /// # let _ = a;
    /// ```
    pub fn from_table_and_rows(
        table: IdTable<I>,
        rows: impl IntoIterator<Item = T>,
    ) -> Result<Self, PartsError> {
        let expected = table.len();
        let mut columns = ColumnBuffer::<T::Tree>::with_capacity(expected);
        let mut given = 0usize;
        for row in rows {
            given += 1;
            if given > expected {
                continue; // counted for the error, not stored
            }
            columns.push(into_values(row));
        }
        if given != expected {
            return Err(PartsError::RowCount {
                rows: given,
                expected,
            });
        }
        Ok(Rows::from_parts(table, columns))
    }
}

impl<T: Record, I: Id> Extend<T> for Rows<IdTable<I>, T> {
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        // `for_each`, not a `for` loop: the adapters' own `fold` hands each
        // value straight to `insert`, where `next()` returned it in an
        // `Option` that was moved through the stack several times
        // (`simple_insert` in BENCHMARKS.md).
        iter.for_each(|value| {
            self.insert(value);
        });
    }
}

impl<T: Record, I: Id> FromIterator<T> for Rows<IdTable<I>, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        let mut s = Self::default();
        s.extend(iter);
        s
    }
}
