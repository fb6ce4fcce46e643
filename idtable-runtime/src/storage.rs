//! [`SoaStorage`]: an [`IdTable`] and a [`ColumnBuffer`] kept in step — the
//! generic allocator behind every `#[derive(SoaAllocator)]`.
//!
//! The derive implements [`Record`] for the user's struct (how it splits into
//! columns and how rows look as `FooRef` / `FooMut`) and wraps a
//! `SoaStorage<Foo, FooId>` in `FooAllocator`, whose methods forward here.
//! All logic lives in this module, once, generic and tested.
//!
//! A derived allocator and a `SoaStorage` of the same struct behave alike;
//! the allocator only names the types:
//!
//! ```
//! use idtable::{SoaAllocator, SoaStorage};
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Point { pub x: f32, pub y: f32 }
//!
//! let mut allocator = PointAllocator::new();
//! let mut storage = SoaStorage::<Point, PointId>::default();
//! let a = allocator.insert(Point { x: 1.0, y: 2.0 });
//! let b = storage.insert(Point { x: 1.0, y: 2.0 });
//! assert_eq!(a, b); // same table logic, same ids
//! assert_eq!(allocator.columns().y, storage.columns().y);
//! ```

use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;
use core::iter::FusedIterator;
use core::marker::PhantomData;
use core::slice;

use crate::columns::{self, CloneColumns, ColumnBuffer, ColumnTree};
use crate::id::Id;
use crate::marks::Marks;
use crate::table::{IdTable, PartsError, TableConfig, TableFull};

/// A struct stored as columns. Implemented by `#[derive(SoaAllocator)]`.
///
/// It names the [`ColumnTree`] description of the struct, the views of a row
/// and of the columns (`FooRef`, `FooMut`, `FooColumns`, `FooColumnsMut`),
/// and converts between the struct and its nested column tuples.
///
/// Every method takes a [`RecordToken<Self>`], which only this crate can
/// create: the conversions build and take apart the struct field by field,
/// private fields included, so only idtable's own containers may call them,
/// and only on values that came from a real `Self`. Code in another crate or
/// module cannot forge a struct, take one apart, read its private fields or
/// build a view of values it made up (`GUARANTEES.md`, "Encapsulation").
///
/// Written by hand, for a struct whose views are plain tuples (the derive
/// writes the same with named view types); the runtime calls each method
/// with a fresh token:
///
/// ```
/// use idtable::columns::{Col, ColumnTree};
/// use idtable::{Id32_32, Record, RecordToken, SoaStorage};
///
/// #[derive(Debug, PartialEq)]
/// struct Pair { n: u32, s: String }
///
/// impl Record for Pair {
///     type Tree = (Col<u32>, Col<String>);
///     type Values = (u32, String);
///     type Ref<'a> = (&'a u32, &'a String);
///     type Mut<'a> = (&'a mut u32, &'a mut String);
///     type Columns<'a> = (&'a [u32], &'a [String]);
///     type ColumnsMut<'a> = (&'a mut [u32], &'a mut [String]);
///
///     fn into_values(self, _: RecordToken<Self>) -> (u32, String) { (self.n, self.s) }
///     fn from_values((n, s): (u32, String), _: RecordToken<Self>) -> Self { Pair { n, s } }
///     fn make_ref<'a>(r: <Self::Tree as ColumnTree>::Refs<'a>, _: RecordToken<Self>) -> Self::Ref<'a> { r }
///     fn make_mut<'a>(m: <Self::Tree as ColumnTree>::Muts<'a>, _: RecordToken<Self>) -> Self::Mut<'a> { m }
///     fn make_columns<'a>(s: <Self::Tree as ColumnTree>::Slices<'a>, _: RecordToken<Self>) -> Self::Columns<'a> { s }
///     fn make_columns_mut<'a>(s: <Self::Tree as ColumnTree>::SlicesMut<'a>, _: RecordToken<Self>) -> Self::ColumnsMut<'a> { s }
/// }
///
/// let mut pairs = SoaStorage::<Pair, Id32_32>::default();
/// let id = pairs.insert(Pair { n: 1, s: "one".into() }); // Pair::into_values
/// *pairs.get_mut(id).unwrap().0 = 2;                      // Pair::make_mut
/// assert_eq!(pairs.get(id), Some((&2, &"one".to_string()))); // Pair::make_ref
/// assert_eq!(pairs.columns().0, &[2]);                     // Pair::make_columns
/// pairs.columns_mut().1[0].push('!');                      // Pair::make_columns_mut
/// assert_eq!(pairs.remove(id), Some(Pair { n: 2, s: "one!".into() })); // Pair::from_values
/// assert_eq!(Pair::SAVED_FIELDS, None); // not saved or loaded by serde
/// ```
///
/// What the derived impl does, seen through a [`SoaStorage`] (the containers
/// are the only callers):
///
/// ```
/// use idtable::{Record, SoaAllocator, SoaStorage};
///
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// struct Particle { pos: [f32; 2], vel: [f32; 2], mass: f32 }
///
/// // Fields nest as a balanced tree of pairs: (pos, (vel, mass)).
/// let _: fn(<Particle as Record>::Values) = |(_pos, (_vel, _mass))| {};
///
/// let mut s = SoaStorage::<Particle, ParticleId>::default();
/// let id = s.insert(Particle { pos: [1.0, 2.0], vel: [0.5, 0.0], mass: 3.0 }); // into_values
/// let row: ParticleRef<'_> = s.get(id).unwrap();                              // make_ref
/// assert_eq!(*row.mass, 3.0);
/// let cols: ParticleColumnsMut<'_> = s.columns_mut();                         // make_columns_mut
/// cols.pos[0][0] = 9.0;
/// let back = s.remove(id).unwrap();                                            // from_values
/// assert_eq!(back, Particle { pos: [9.0, 2.0], vel: [0.5, 0.0], mass: 3.0 });
/// ```
pub trait Record: Sized {
    /// The column tree: [`Col<T>`](columns::Col) per field, nested in pairs
    /// (the raw description the [`ColumnBuffer`] stores; users see
    /// [`Columns`](Record::Columns) instead).
    type Tree: ColumnTree<Values = Self::Values>;
    /// The fields by value, nested like [`Tree`](Record::Tree).
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
    type Columns<'a>
    where
        Self: 'a;
    /// One mutable slice per field (`FooColumnsMut`).
    type ColumnsMut<'a>
    where
        Self: 'a;

    /// The field names, in declaration order, for structs that opted into
    /// saving and loading with `#[soa(serde)]`; `None` for the others, whose
    /// fields the runtime then never saves or loads (feature `serde`,
    /// `idtable::storage_serde`).
    const SAVED_FIELDS: Option<&'static [&'static str]> = None;

    /// Splits the struct into its fields.
    fn into_values(self, token: RecordToken<Self>) -> Self::Values;
    /// Builds the struct from its fields.
    fn from_values(values: Self::Values, token: RecordToken<Self>) -> Self;
    /// Names the references of one row.
    fn make_ref<'a>(
        refs: <Self::Tree as ColumnTree>::Refs<'a>,
        token: RecordToken<Self>,
    ) -> Self::Ref<'a>
    where
        Self: 'a;
    /// Names the mutable references of one row.
    fn make_mut<'a>(
        muts: <Self::Tree as ColumnTree>::Muts<'a>,
        token: RecordToken<Self>,
    ) -> Self::Mut<'a>
    where
        Self: 'a;
    /// Names the column slices.
    fn make_columns<'a>(
        slices: <Self::Tree as ColumnTree>::Slices<'a>,
        token: RecordToken<Self>,
    ) -> Self::Columns<'a>
    where
        Self: 'a;
    /// Names the mutable column slices.
    fn make_columns_mut<'a>(
        slices: <Self::Tree as ColumnTree>::SlicesMut<'a>,
        token: RecordToken<Self>,
    ) -> Self::ColumnsMut<'a>
    where
        Self: 'a;
}

/// The permission to call [`Record`]'s methods for `T`, which only idtable's
/// runtime can create.
///
/// It has no public constructor and is neither `Clone` nor `Default`; the
/// runtime makes one for each call it makes on a `T` it stores, and a
/// `Record` impl receives only tokens of its own type, so it cannot pass one
/// on to convert another type. Users never make one; see [`Record`] for why
/// it exists and how an impl receives it.
///
/// ```
/// use idtable::{Id32_32, Record, RecordToken, SoaStorage};
/// use idtable::columns::{Col, ColumnTree};
///
/// /// A record of one column, its views the bare references.
/// struct Hp(u32);
///
/// impl Record for Hp {
///     type Tree = Col<u32>;
///     type Values = u32;
///     type Ref<'a> = &'a u32;
///     type Mut<'a> = &'a mut u32;
///     type Columns<'a> = &'a [u32];
///     type ColumnsMut<'a> = &'a mut [u32];
///     // Every method receives a token for `Hp`; it cannot be turned into one
///     // for another type, nor made here.
///     fn into_values(self, _: RecordToken<Self>) -> u32 { self.0 }
///     fn from_values(hp: u32, _: RecordToken<Self>) -> Self { Hp(hp) }
///     fn make_ref<'a>(r: <Self::Tree as ColumnTree>::Refs<'a>, _: RecordToken<Self>) -> Self::Ref<'a> { r }
///     fn make_mut<'a>(m: <Self::Tree as ColumnTree>::Muts<'a>, _: RecordToken<Self>) -> Self::Mut<'a> { m }
///     fn make_columns<'a>(s: <Self::Tree as ColumnTree>::Slices<'a>, _: RecordToken<Self>) -> Self::Columns<'a> { s }
///     fn make_columns_mut<'a>(s: <Self::Tree as ColumnTree>::SlicesMut<'a>, _: RecordToken<Self>) -> Self::ColumnsMut<'a> { s }
/// }
///
/// let mut hp = SoaStorage::<Hp, Id32_32>::default();
/// let id = hp.insert(Hp(10));
/// assert_eq!(hp.get(id), Some(&10));
/// ```
pub struct RecordToken<T> {
    // Invariant in `T`: a token for one type is never one for another.
    _for: PhantomData<fn(T) -> T>,
}

impl<T> RecordToken<T> {
    #[inline(always)]
    pub(crate) const fn new() -> Self {
        RecordToken { _for: PhantomData }
    }
}

impl<T> fmt::Debug for RecordToken<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RecordToken")
    }
}

/// Calls through [`Record`] with a fresh token: the runtime's only way in.
#[inline(always)]
pub(crate) fn into_values<T: Record>(value: T) -> T::Values {
    value.into_values(RecordToken::new())
}

#[inline(always)]
pub(crate) fn from_values<T: Record>(values: T::Values) -> T {
    T::from_values(values, RecordToken::new())
}

#[inline(always)]
pub(crate) fn make_ref<'a, T: Record + 'a>(refs: <T::Tree as ColumnTree>::Refs<'a>) -> T::Ref<'a> {
    T::make_ref(refs, RecordToken::new())
}

#[inline(always)]
pub(crate) fn make_mut<'a, T: Record + 'a>(muts: <T::Tree as ColumnTree>::Muts<'a>) -> T::Mut<'a> {
    T::make_mut(muts, RecordToken::new())
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
    pub fn new(value: T, reason: TableFull) -> Self {
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
///
/// Every derived `FooAllocator` wraps a `SoaStorage<Foo, FooId>`; it can also
/// be used directly, with any [`Id`] type:
///
/// ```
/// use idtable::{Id24_8, SoaAllocator, SoaStorage};
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// struct Point { x: f32, y: f32 }
///
/// let mut points = SoaStorage::<Point, Id24_8>::default();
/// let a = points.insert(Point { x: 1.0, y: 2.0 });
/// let b = points.insert(Point { x: 3.0, y: 4.0 });
/// assert_eq!(points.columns().x, &[1.0, 3.0]);
/// assert_eq!(points.remove(a), Some(Point { x: 1.0, y: 2.0 }));
/// assert_eq!(*points.get(b).unwrap().y, 4.0);
/// assert!(points.get(a).is_none());
/// ```
pub struct SoaStorage<T: Record, I: Id> {
    table: IdTable<I>,
    columns: ColumnBuffer<T::Tree>,
}

impl<T: Record, I: Id> Default for SoaStorage<T, I> {
    fn default() -> Self {
        Self::with_config(TableConfig::default())
    }
}

/// Clones every column, field by field, as `#[derive(Clone)]` on `T` would.
/// Requires `T: Clone`, so a type its own crate made uncloneable stays so.
impl<T: Record + Clone, I: Id> Clone for SoaStorage<T, I>
where
    T::Tree: CloneColumns,
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
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage, TableConfig};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::with_config(TableConfig {
    ///     min_free: 8,
    ///     ..TableConfig::default()
    /// });
    /// let a = s.insert(Point { x: 0.0, y: 0.0 });
    /// s.remove(a);
    /// // Fewer than 8 freed slots wait: the next insert takes a fresh slot.
    /// assert_ne!(s.insert(Point { x: 1.0, y: 1.0 }).index(), a.index());
    /// ```
    pub const fn with_config(config: TableConfig) -> Self {
        SoaStorage {
            table: IdTable::with_config(config),
            columns: ColumnBuffer::new(),
        }
    }

    /// An empty storage with room for `capacity` objects.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage, TableConfig};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let s = SoaStorage::<Point, PointId>::with_capacity_and_config(100, TableConfig::default());
    /// assert!(s.capacity() >= 100);
    /// assert!(s.is_empty());
    /// ```
    pub fn with_capacity_and_config(capacity: usize, config: TableConfig) -> Self {
        let mut s = Self::with_config(config);
        s.reserve(capacity);
        s
    }

    /// The id table (ids, slots, free queue).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 0.0, y: 0.0 });
    /// s.remove(a);
    /// assert_eq!(s.table().slot_count(), 1);
    /// assert_eq!(s.table().free_count(), 1);
    /// ```
    pub fn table(&self) -> &IdTable<I> {
        &self.table
    }

    /// Number of live objects.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.insert(Point { x: 0.0, y: 0.0 });
    /// s.insert(Point { x: 1.0, y: 1.0 });
    /// assert_eq!(s.len(), 2);
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// `true` when there is no live object.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// assert!(s.is_empty());
    /// let id = s.insert(Point { x: 0.0, y: 0.0 });
    /// assert!(!s.is_empty());
    /// s.remove(id);
    /// assert!(s.is_empty());
    /// ```
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Objects that fit before the columns reallocate.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// assert_eq!(s.capacity(), 0);
    /// s.insert(Point { x: 0.0, y: 0.0 });
    /// assert!(s.capacity() >= 1);
    /// ```
    pub fn capacity(&self) -> usize {
        self.columns.capacity().min(self.table.capacity())
    }

    /// Reserves room for `additional` more objects.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.reserve(50);
    /// let cap = s.capacity();
    /// assert!(cap >= 50);
    /// for i in 0..50 {
    ///     s.insert(Point { x: i as f32, y: 0.0 });
    /// }
    /// assert_eq!(s.capacity(), cap);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.columns.reserve(additional);
        self.table.reserve(additional);
    }

    /// Frees unused capacity.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.reserve(1000);
    /// s.insert(Point { x: 0.0, y: 0.0 });
    /// s.shrink_to_fit();
    /// assert!(s.capacity() < 1000);
    /// assert_eq!(s.len(), 1);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.columns.shrink_to_fit();
        self.table.shrink_to_fit();
    }

    /// Inserts `value`, or gives it back when no id can be issued.
    ///
    /// ```
    /// use idtable::{Id32, SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let s1 = s.try_insert(Point { x: 1.0, y: 0.0 }).unwrap();
    /// assert_eq!(*s.get(s1).unwrap().x, 1.0);
    ///
    /// // With an id layout of one usable index, the second insert fails:
    /// let mut tiny = SoaStorage::<Point, Id32<1>>::default();
    /// tiny.insert(Point { x: 0.0, y: 0.0 });
    /// let err = tiny.try_insert(Point { x: 2.0, y: 0.0 }).unwrap_err();
    /// assert_eq!(err.into_inner().x, 2.0);
    /// assert_eq!(tiny.len(), 1);
    /// ```
    // Always inlined, like `remove`: the hot path is a few stores, and a
    // call per insert (with its register saves) costs as much again.
    #[inline(always)]
    pub fn try_insert(&mut self, value: T) -> Result<I, InsertError<T>> {
        self.push_then_issue(value)
            .map_err(|(value, full)| InsertError::new(value, full))
    }

    /// The insert path: the row is appended to the columns first, then the
    /// id is issued; when no id can be issued the row is taken back off and
    /// returned with the reason. The table is unchanged on that path, and if
    /// growing the columns panics no id has been issued.
    ///
    /// Columns before the table, not the other way round: in a caller's
    /// loop of inserts into reserved room this order measured 15% faster
    /// (`insert_reserved` at 10k, BENCHMARKS.md), at the hand-written floor.
    #[inline(always)]
    fn push_then_issue(&mut self, value: T) -> Result<I, (T, TableFull)> {
        self.columns.push(into_values(value));
        match self.table.try_insert() {
            Ok((id, _)) => Ok(id),
            Err(full) => Err((self.take_back_last(), full)),
        }
    }

    /// Pops the row [`push_then_issue`](Self::push_then_issue) appended.
    #[cold]
    #[inline(never)]
    fn take_back_last(&mut self) -> T {
        match self.columns.pop() {
            Some(values) => from_values(values),
            None => unreachable!("the row was just pushed"),
        }
    }

    /// Inserts `value`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 2.0 });
    /// assert_eq!(s.dense_index(a), Some(0));
    /// assert_eq!(s.columns().y, &[2.0]);
    /// ```
    ///
    /// # Panics
    ///
    /// When no id can be issued; the message names the layout.
    // Always inlined: see `try_insert`.
    #[inline(always)]
    #[track_caller]
    pub fn insert(&mut self, value: T) -> I {
        match self.push_then_issue(value) {
            Ok(id) => id,
            Err((value, full)) => {
                // The value is dropped before the panic, not during it.
                drop(value);
                panic!("{full}")
            }
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
    /// let mut s = SoaStorage::<Node, NodeId>::default();
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
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 2.0 });
    /// let b = s.insert(Point { x: 3.0, y: 4.0 });
    /// assert_eq!(s.remove(a), Some(Point { x: 1.0, y: 2.0 }));
    /// assert_eq!(s.remove(a), None); // stale
    /// assert_eq!(s.dense_index(b), Some(0)); // the last row moved into the gap
    /// ```
    // Always inlined: a caller that drops the returned value then skips
    // loading the removed row from every column.
    #[inline(always)]
    pub fn remove(&mut self, id: I) -> Option<T> {
        let moved = self.table.remove(id)?;
        Some(from_values(self.columns.swap_remove(moved.index)))
    }

    /// `true` if `id` is live.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 0.0, y: 0.0 });
    /// assert!(s.contains(a));
    /// s.remove(a);
    /// assert!(!s.contains(a));
    /// ```
    #[inline(always)]
    pub fn contains(&self, id: I) -> bool {
        self.table.contains(id)
    }

    /// The dense index of `id` (its row in the columns), if live.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// let b = s.insert(Point { x: 2.0, y: 0.0 });
    /// let row = s.dense_index(b).unwrap();
    /// assert_eq!(s.columns().x[row], 2.0);
    /// s.remove(a);
    /// assert_eq!(s.dense_index(b), Some(0));
    /// assert_eq!(s.dense_index(a), None);
    /// ```
    #[inline(always)]
    pub fn dense_index(&self, id: I) -> Option<usize> {
        self.table.dense_index(id)
    }

    /// The fields of `id`'s object, if live.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 2.0 });
    /// let p = s.get(a).unwrap(); // a `PointRef`: one reference per field
    /// assert_eq!((*p.x, *p.y), (1.0, 2.0));
    /// s.remove(a);
    /// assert!(s.get(a).is_none());
    /// ```
    #[inline(always)]
    pub fn get(&self, id: I) -> Option<T::Ref<'_>> {
        // A vacant slot's dense field is past the end: `columns.get` rejects it.
        let dense = self.table.dense_or_vacant(id)?;
        self.columns.get(dense).map(make_ref::<T>)
    }

    /// The fields of `id`'s object, mutably, if live.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 2.0 });
    /// *s.get_mut(a).unwrap().x += 10.0; // a `PointMut`: one `&mut` per field
    /// assert_eq!(s.columns().x, &[11.0]);
    /// ```
    #[inline(always)]
    pub fn get_mut(&mut self, id: I) -> Option<T::Mut<'_>> {
        // A vacant slot's dense field is past the end: `columns.get_mut`
        // rejects it.
        let dense = self.table.dense_or_vacant(id)?;
        self.columns.get_mut(dense).map(make_mut::<T>)
    }

    /// The fields of `N` objects at once, mutably; `None` if any id is not
    /// live or two ids are the same.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// let b = s.insert(Point { x: 2.0, y: 0.0 });
    /// let [pa, pb] = s.get_disjoint_mut([a, b]).unwrap();
    /// core::mem::swap(pa.x, pb.x);
    /// assert_eq!(s.columns().x, &[2.0, 1.0]);
    /// assert!(s.get_disjoint_mut([a, a]).is_none()); // the same id twice
    /// ```
    pub fn get_disjoint_mut<const N: usize>(&mut self, ids: [I; N]) -> Option<[T::Mut<'_>; N]> {
        let mut dense = [0usize; N];
        for (d, id) in dense.iter_mut().zip(ids) {
            *d = self.table.dense_index(id)?;
        }
        let muts = self.columns.get_disjoint_mut(dense)?;
        Some(muts.map(make_mut::<T>))
    }

    /// The live ids in dense order, parallel to [`columns`](SoaStorage::columns).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// let b = s.insert(Point { x: 2.0, y: 0.0 });
    /// assert_eq!(s.ids(), &[a, b]);
    /// // Row `i` of every column belongs to `ids()[i]`:
    /// let rightmost = s.columns().x.iter().enumerate()
    ///     .max_by(|l, r| l.1.total_cmp(r.1)).map(|(i, _)| s.ids()[i]);
    /// assert_eq!(rightmost, Some(b));
    /// ```
    #[inline(always)]
    pub fn ids(&self) -> &[I] {
        self.table.ids()
    }

    /// Every column as a slice, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.insert(Point { x: 1.0, y: 10.0 });
    /// s.insert(Point { x: 2.0, y: 20.0 });
    /// let cols = s.columns(); // a `PointColumns`: one slice per field
    /// assert_eq!(cols.x, &[1.0, 2.0]);
    /// assert_eq!(cols.y.iter().sum::<f32>(), 30.0);
    /// ```
    #[inline(always)]
    pub fn columns(&self) -> T::Columns<'_> {
        T::make_columns(self.columns.slices(), RecordToken::new())
    }

    /// Every column as a mutable slice, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.insert(Point { x: 1.0, y: 10.0 });
    /// s.insert(Point { x: 2.0, y: 20.0 });
    /// let cols = s.columns_mut(); // a `PointColumnsMut`
    /// for (x, y) in cols.x.iter_mut().zip(cols.y.iter()) {
    ///     *x += y;
    /// }
    /// assert_eq!(s.columns().x, &[11.0, 22.0]);
    /// ```
    #[inline(always)]
    pub fn columns_mut(&mut self) -> T::ColumnsMut<'_> {
        T::make_columns_mut(self.columns.slices_mut(), RecordToken::new())
    }

    /// The ids and every column mutably, at once: row `i` of each column
    /// belongs to `ids[i]`. For loops that update rows and note the ids of
    /// some of them (the ones to remove afterwards, say).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Unit { hp: i32, poison: i32 }
    ///
    /// let mut s = SoaStorage::<Unit, UnitId>::default();
    /// let a = s.insert(Unit { hp: 5, poison: 1 });
    /// let b = s.insert(Unit { hp: 2, poison: 3 });
    /// let (ids, cols) = s.ids_and_columns_mut();
    /// let mut dead = Vec::new();
    /// for ((id, hp), poison) in ids.iter().zip(cols.hp.iter_mut()).zip(cols.poison.iter()) {
    ///     *hp -= poison;
    ///     if *hp <= 0 {
    ///         dead.push(*id);
    ///     }
    /// }
    /// assert_eq!(dead, [b]);
    /// assert_eq!(*s.get(a).unwrap().hp, 4);
    /// ```
    #[inline(always)]
    pub fn ids_and_columns_mut(&mut self) -> (&[I], T::ColumnsMut<'_>) {
        let columns = T::make_columns_mut(self.columns.slices_mut(), RecordToken::new());
        (self.table.ids(), columns)
    }

    /// Removes every object. No old id becomes live again.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 0.0, y: 0.0 });
    /// s.clear();
    /// assert!(s.is_empty());
    /// let b = s.insert(Point { x: 0.0, y: 0.0 }); // same slot, next generation
    /// assert!(!s.contains(a));
    /// assert_ne!(a, b);
    /// ```
    pub fn clear(&mut self) {
        self.table.clear();
        self.columns.clear();
    }

    /// `(id, fields)` of every object, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// let b = s.insert(Point { x: 2.0, y: 0.0 });
    /// let seen: Vec<_> = s.iter().map(|(id, p)| (id, *p.x)).collect();
    /// assert_eq!(seen, [(a, 1.0), (b, 2.0)]);
    /// ```
    pub fn iter(&self) -> Iter<'_, T, I> {
        Iter {
            ids: self.table.ids().iter(),
            rows: self.columns.iter(),
        }
    }

    /// `(id, mutable fields)` of every object, in dense order.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// for (id, p) in s.iter_mut() {
    ///     *p.y = id.index() as f32 + 0.5;
    /// }
    /// assert_eq!(*s.get(a).unwrap().y, 0.5);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, T, I> {
        IterMut {
            ids: self.table.ids().iter(),
            rows: self.columns.iter_mut(),
        }
    }

    /// Removes every object, yielding `(id, value)` from the last dense
    /// index to the first. Dropping the iterator removes the rest.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 0.0 });
    /// let b = s.insert(Point { x: 2.0, y: 0.0 });
    /// let drained: Vec<_> = s.drain().map(|(id, p)| (id, p.x)).collect();
    /// assert_eq!(drained, [(b, 2.0), (a, 1.0)]);
    /// assert!(s.is_empty() && !s.contains(a));
    /// ```
    pub fn drain(&mut self) -> Drain<'_, T, I> {
        Drain { storage: self }
    }

    /// Removes and returns the object at the last dense index.
    fn pop(&mut self) -> Option<(I, T)> {
        let id = *self.table.ids().last()?;
        self.table.remove(id);
        let values = self.columns.pop()?;
        Some((id, from_values(values)))
    }

    /// The fields of the object at dense index `dense`.
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// s.insert(Point { x: 1.0, y: 2.0 });
    /// assert_eq!(*s.row(0).y, 2.0);
    /// ```
    #[inline]
    #[track_caller]
    pub fn row(&self, dense: usize) -> T::Ref<'_> {
        match self.columns.get(dense) {
            Some(refs) => make_ref::<T>(refs),
            None => out_of_bounds(dense, self.len()),
        }
    }

    /// The fields of the object at dense index `dense`, mutably.
    ///
    /// # Panics
    ///
    /// If `dense >= len()`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 1.0, y: 2.0 });
    /// *s.row_mut(0).y = 5.0;
    /// assert_eq!(*s.get(a).unwrap().y, 5.0);
    /// ```
    #[inline]
    #[track_caller]
    pub fn row_mut(&mut self, dense: usize) -> T::Mut<'_> {
        let len = self.len();
        match self.columns.get_mut(dense) {
            Some(muts) => make_mut::<T>(muts),
            None => out_of_bounds(dense, len),
        }
    }

    /// Keeps the objects for which `keep(self, dense)` is `true` and removes
    /// the others. `keep` sees every row once, in dense order, and reads or
    /// writes it through [`row`](Self::row) / [`row_mut`](Self::row_mut); it
    /// must not insert or remove.
    ///
    /// Each row from the first removed one on moves at most once: the kept
    /// rows move down and keep their order, as with `Vec::retain`
    /// (unlike [`remove`](Self::remove), which moves the last row into the
    /// gap). Freed slots are queued in dense order.
    ///
    /// (The callback takes the storage rather than `T::Mut<'_>` because a
    /// closure bound over a generic associated type would demand
    /// `T: 'static`; generated allocators wrap it as `retain(|id, row| ..)`.)
    ///
    /// If `keep` panics, nothing is removed (writes it made stay). If a
    /// destructor panics, every object `keep` rejected is still removed
    /// (and dropped; a second panic aborts) and the rest stay live.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let ids: Vec<_> = (0..6).map(|i| s.insert(Point { x: i as f32, y: 0.0 })).collect();
    /// s.retain_dense(|s, dense| *s.row(dense).x % 2.0 == 1.0);
    /// assert_eq!(s.columns().x, &[1.0, 3.0, 5.0]); // in their order
    /// assert!(!s.contains(ids[0]) && s.contains(ids[5]));
    /// assert_eq!(s.dense_index(ids[5]), Some(2));
    /// ```
    pub fn retain_dense(&mut self, mut keep: impl FnMut(&mut Self, usize) -> bool) {
        let mut marks = Marks::with_len(self.len());
        let mut d = 0;
        // `keep` may break its contract and shrink the storage: the loop
        // re-reads the length, and marks past it are ignored below.
        while d < self.len() {
            if !keep(self, d) {
                marks.insert(d);
            }
            d += 1;
        }
        self.remove_marked(&marks);
    }

    /// Removes the objects of every live id in `ids` (stale, forged and
    /// repeated ids are skipped) and returns how many were removed.
    ///
    /// Unlike a loop of [`remove`](Self::remove)s, it moves each row at most
    /// once: from the first removed row on, the kept rows move down and keep
    /// their order (the marks are read a word at a time, not tested row by
    /// row). Freed slots are queued in
    /// dense order, not in the order of `ids`. Every other id stays valid.
    /// It allocates one bit per object for the pass.
    ///
    /// If a destructor panics, every listed object is still removed (and
    /// dropped; a second panic aborts).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let ids: Vec<_> = (0..5).map(|i| s.insert(Point { x: i as f32, y: 0.0 })).collect();
    /// let stale = ids[4];
    /// s.remove(stale);
    /// assert_eq!(s.remove_many([ids[0], ids[2], ids[2], stale]), 2);
    /// assert_eq!(s.columns().x, &[1.0, 3.0]);
    /// assert_eq!(s.dense_index(ids[3]), Some(1));
    /// ```
    pub fn remove_many(&mut self, ids: impl IntoIterator<Item = I>) -> usize {
        let mut marks = Marks::with_len(self.len());
        let mut removed = 0;
        for id in ids {
            if let Some(d) = self.table.dense_index(id) {
                removed += usize::from(marks.insert(d));
            }
        }
        if removed > 0 {
            self.remove_marked(&marks);
        }
        removed
    }

    /// Removes the rows at the marked dense indices from the table, then
    /// from the columns (where destructors run, last, so a panicking one
    /// finds the table already consistent).
    fn remove_marked(&mut self, marks: &Marks) {
        let Some(first) = marks.first() else {
            return;
        };
        self.table.remove_marked(first, marks);
        self.columns.remove_marked(first, marks);
    }

    /// Sorts the dense order (stable) by `compare(self, a, b)`, which
    /// compares the rows at dense indices `a` and `b`. Every id stays valid.
    ///
    /// If `compare` panics, nothing has moved.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// let a = s.insert(Point { x: 3.0, y: 0.0 });
    /// let b = s.insert(Point { x: 1.0, y: 0.0 });
    /// s.sort_dense_by(|s, i, j| s.row(i).x.total_cmp(s.row(j).x));
    /// assert_eq!(s.columns().x, &[1.0, 3.0]);
    /// assert_eq!(s.ids(), &[b, a]); // the ids moved with their rows
    /// assert_eq!(*s.get(a).unwrap().x, 3.0);
    /// ```
    pub fn sort_dense_by(&mut self, mut compare: impl FnMut(&Self, usize, usize) -> Ordering) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&a, &b| compare(self, a, b));
        crate::order::apply_order(&order, |a, b| {
            self.table.swap_dense(a, b);
            self.columns.swap(a, b);
        });
    }

    /// Checks the table's invariants and that the columns have one row per
    /// live id.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    ///
    /// #[derive(SoaAllocator)]
    /// struct Point { x: f32, y: f32 }
    ///
    /// let mut s = SoaStorage::<Point, PointId>::default();
    /// for i in 0..10 {
    ///     let id = s.insert(Point { x: i as f32, y: 0.0 });
    ///     if i % 2 == 0 {
    ///         s.remove(id);
    ///     }
    ///     s.check_invariants();
    /// }
    /// assert_eq!(s.len(), 5);
    /// ```
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

impl<T: Record, I: Id> SoaStorage<T, I> {
    /// The raw column slices (runtime only: they show private fields).
    #[cfg(feature = "serde")]
    pub(crate) fn column_slices(&self) -> <T::Tree as ColumnTree>::Slices<'_> {
        self.columns.slices()
    }

    /// A storage of a table and a buffer of as many rows as it has live ids.
    #[cfg(feature = "serde")]
    pub(crate) fn from_table_and_buffer(table: IdTable<I>, columns: ColumnBuffer<T::Tree>) -> Self {
        debug_assert_eq!(table.len(), columns.len());
        SoaStorage { table, columns }
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
    /// let err = SoaStorage::<Name, NameId>::from_table_and_rows(table, []).err().expect("0 rows");
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
        Ok(SoaStorage { table, columns })
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
///
/// Returned by [`SoaStorage::iter`] and by a derived allocator's `iter()`
/// (and `for .. in &allocator`); exact-size and double-ended.
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// struct Point { x: f32, y: f32 }
///
/// let mut points = PointAllocator::new();
/// let a = points.insert(Point { x: 1.0, y: 2.0 });
/// let b = points.insert(Point { x: 3.0, y: 4.0 });
/// let mut iter = points.iter();
/// assert_eq!(iter.len(), 2);
/// let (last, p) = iter.next_back().unwrap();
/// assert_eq!((last, *p.x), (b, 3.0));
/// assert_eq!(iter.next().map(|(id, p)| (id, *p.y)), Some((a, 2.0)));
/// ```
pub struct Iter<'a, T: Record + 'a, I: Id> {
    // Crate-visible for the parallel iterators, which split both alike.
    pub(crate) ids: slice::Iter<'a, I>,
    pub(crate) rows: columns::Iter<'a, T::Tree>,
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
        Some((id, make_ref::<T>(self.rows.next()?)))
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
        Some((id, make_ref::<T>(self.rows.next_back()?)))
    }
}

impl<'a, T: Record + 'a, I: Id> ExactSizeIterator for Iter<'a, T, I> {}
impl<'a, T: Record + 'a, I: Id> FusedIterator for Iter<'a, T, I> {}

/// `(id, mutable fields)` of every object of a [`SoaStorage`], in dense order.
///
/// Returned by [`SoaStorage::iter_mut`] and by a derived allocator's
/// `iter_mut()` (and `for .. in &mut allocator`).
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// struct Point { x: f32, y: f32 }
///
/// let mut points = PointAllocator::new();
/// let a = points.insert(Point { x: 1.0, y: 2.0 });
/// for (_id, p) in &mut points {
///     *p.x *= 10.0;
/// }
/// assert_eq!(*points.get(a).unwrap().x, 10.0);
/// ```
pub struct IterMut<'a, T: Record + 'a, I: Id> {
    // Crate-visible for the parallel iterators, which split both alike.
    pub(crate) ids: slice::Iter<'a, I>,
    pub(crate) rows: columns::IterMut<'a, T::Tree>,
}

impl<'a, T: Record + 'a, I: Id> Iterator for IterMut<'a, T, I> {
    type Item = (I, T::Mut<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next()?;
        Some((id, make_mut::<T>(self.rows.next()?)))
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
        Some((id, make_mut::<T>(self.rows.next_back()?)))
    }
}

impl<'a, T: Record + 'a, I: Id> ExactSizeIterator for IterMut<'a, T, I> {}
impl<'a, T: Record + 'a, I: Id> FusedIterator for IterMut<'a, T, I> {}

/// Removes every object of a [`SoaStorage`], yielding `(id, value)`.
///
/// Dropping it removes (and drops) what was not yielded; leaking it
/// (`mem::forget`) leaves those objects live.
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// struct Point { x: f32, y: f32 }
///
/// let mut points = PointAllocator::new();
/// let a = points.insert(Point { x: 1.0, y: 2.0 });
/// let b = points.insert(Point { x: 3.0, y: 4.0 });
/// let mut drain = points.drain();
/// assert_eq!(drain.next().map(|(id, p)| (id, p.x)), Some((b, 3.0)));
/// drop(drain); // removes `a` too
/// assert!(points.is_empty() && !points.contains(a));
/// ```
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
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// struct Point { x: f32, y: f32 }
///
/// let points: PointAllocator = [1.0, 2.0].map(|x| Point { x, y: 0.0 }).into_iter().collect();
/// let owned: Vec<Point> = points.into_iter().map(|(_id, p)| p).collect();
/// assert_eq!(owned, [Point { x: 2.0, y: 0.0 }, Point { x: 1.0, y: 0.0 }]);
/// ```
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
