//! [`Record`]: how a struct is stored as columns, implemented by
//! `#[derive(SoaAllocator)]`, and the [`RecordToken`] that lets only this
//! crate's containers call it.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use crate::columns::{CloneColumns, Col, ColumnTree, EqColumns, TotalEqColumns};
use crate::id::{Id32, Id64};
use crate::ranges::RowSlices;
use crate::table::TableConfig;

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
///     fn shared_columns<'b, 'a: 'b>(c: &'b Self::ColumnsMut<'a>) -> Self::Columns<'b> { (&*c.0, &*c.1) }
///     fn reborrow_columns<'b, 'a: 'b>(c: &'b mut Self::ColumnsMut<'a>) -> Self::ColumnsMut<'b> { (&mut *c.0, &mut *c.1) }
/// }
///
/// let mut pairs = SoaStorage::<Id32_32, Pair>::default();
/// let id = pairs.insert(Pair { n: 1, s: "one".into() }); // Pair::into_values
/// *pairs.get_mut(id).unwrap().0 = 2;                      // Pair::make_mut
/// assert_eq!(pairs.get(id), Some((&2, &"one".to_string()))); // Pair::make_ref
/// assert_eq!(pairs.columns().0, &[2]);                     // Pair::make_columns
/// pairs.columns_mut().1[0].push('!');                      // Pair::make_columns_mut
/// assert_eq!(pairs.remove(id), Some(Pair { n: 2, s: "one!".into() })); // Pair::from_values
/// ```
///
/// What the derived impl does, seen through a [`SoaStorage`](crate::SoaStorage) (the containers
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
/// let mut s = SoaStorage::<ParticleId, Particle>::default();
/// let id = s.insert(Particle { pos: [1.0, 2.0], vel: [0.5, 0.0], mass: 3.0 }); // into_values
/// let row: ParticleRef<'_> = s.get(id).unwrap();                              // make_ref
/// assert_eq!(*row.mass, 3.0);
/// let cols: ParticleColumnsMut<'_> = s.columns_mut();                         // make_columns_mut
/// cols.pos[0][0] = 9.0;
/// let mut cols: ParticleColumnsMut<'_> = s.columns_mut();
/// let _: ParticleColumns<'_> = Particle::shared_columns(&cols);     // cols.as_columns()
/// let again: ParticleColumnsMut<'_> = Particle::reborrow_columns(&mut cols); // cols.reborrow()
/// assert_eq!(again.mass, &[3.0]);
/// let back = s.remove(id).unwrap();                                            // from_values
/// assert_eq!(back, Particle { pos: [9.0, 2.0], vel: [0.5, 0.0], mass: 3.0 });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component: it has no `#[derive(SoaAllocator)]` and no `PlainValue` impl",
    label = "not a derived struct nor a plain value",
    note = "a struct with named fields: add `#[derive(SoaAllocator)]` to it (and `#[soa(parts_only)]` if it needs no allocator of its own)",
    note = "any other type (an enum, a unit struct used as a marker, a newtype), stored whole in one column: add `impl idtable::PlainValue for {Self} {{}}`"
)]
pub trait Record: Sized {
    /// The column tree: [`Col<T>`](crate::columns::Col) per field, nested in pairs
    /// (the raw description the [`ColumnBuffer`](crate::columns::ColumnBuffer) stores; users see
    /// [`Columns`](Record::Columns) instead).
    type Tree: ColumnTree<Values = Self::Values>;
    /// The fields by value, nested like [`Tree`](Record::Tree).
    type Values;
    /// One shared reference per field (`FooRef`).
    type Ref<'a>: Copy
    where
        Self: 'a;
    /// One mutable reference per field (`FooMut`).
    type Mut<'a>
    where
        Self: 'a;
    /// One shared slice per field (`FooColumns`), cut into row ranges as
    /// a [`RowSlices`] whose row is [`Ref`](Record::Ref).
    type Columns<'a>: RowSlices<Row = Self::Ref<'a>> + Copy
    where
        Self: 'a;
    /// One mutable slice per field (`FooColumnsMut`), cut into row ranges
    /// as a [`RowSlices`] whose row is [`Mut`](Record::Mut).
    type ColumnsMut<'a>: RowSlices<Row = Self::Mut<'a>>
    where
        Self: 'a;

    /// The configuration of a table of these rows made by `new()`,
    /// `with_capacity` or `default()` (a derived struct's `#[soa(min_free
    /// = …, on_exhausted = …)]`); [`TableConfig::DEFAULT`] unless set.
    ///
    /// ```
    /// use idtable::{OnExhausted, Record, SoaAllocator, TableConfig};
    ///
    /// #[derive(SoaAllocator)]
    /// #[soa(min_free = 64, on_exhausted = wrap)]
    /// pub struct Shot { pub t: f32 }
    ///
    /// let want = TableConfig { min_free: 64, on_exhausted: OnExhausted::Wrap };
    /// assert_eq!(Shot::TABLE_CONFIG, want);
    /// assert_eq!(ShotAllocator::new().id_table().config(), want);
    /// ```
    const TABLE_CONFIG: TableConfig = TableConfig::DEFAULT;

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

    /// The same columns as `columns`, shared, for as long as it is
    /// borrowed (`FooColumnsMut::as_columns`).
    fn shared_columns<'b, 'a: 'b>(columns: &'b Self::ColumnsMut<'a>) -> Self::Columns<'b>
    where
        Self: 'a;

    /// The same columns as `columns`, for as long as it is borrowed mutably
    /// (`FooColumnsMut::reborrow`).
    fn reborrow_columns<'b, 'a: 'b>(columns: &'b mut Self::ColumnsMut<'a>) -> Self::ColumnsMut<'b>
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
///     fn shared_columns<'b, 'a: 'b>(c: &'b &'a mut [u32]) -> &'b [u32] { c }
///     fn reborrow_columns<'b, 'a: 'b>(c: &'b mut &'a mut [u32]) -> &'b mut [u32] { c }
/// }
///
/// let mut hp = SoaStorage::<Id32_32, Hp>::default();
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

#[inline(always)]
pub(crate) fn make_columns<'a, T: Record + 'a>(
    slices: <T::Tree as ColumnTree>::Slices<'a>,
) -> T::Columns<'a> {
    T::make_columns(slices, RecordToken::new())
}

#[inline(always)]
pub(crate) fn make_columns_mut<'a, T: Record + 'a>(
    slices: <T::Tree as ColumnTree>::SlicesMut<'a>,
) -> T::ColumnsMut<'a> {
    T::make_columns_mut(slices, RecordToken::new())
}

/// How one row of a [`Record`] prints: as its shared view's `Debug` (which
/// shows the `pub` fields). Implemented by `#[derive(SoaAllocator)]` where
/// those fields are `Debug`; containers print through it, so printing a
/// `SoaMap` of a struct that borrows does not need the struct to be
/// `'static` (a bound on the view, `for<'a> T::Ref<'a>: Debug`, would).
///
/// ```
/// use idtable::{SoaAllocator, SoaMap, SoaStorage};
///
/// #[derive(SoaAllocator, Debug)]
/// pub struct Label<'t> { pub text: &'t str }
///
/// let text = String::from("hello");
/// let mut labels = SoaStorage::<LabelId<'_>, Label<'_>>::default();
/// let id = labels.insert(Label { text: &text });
/// let mut marks: SoaMap<LabelId<'_>, Label<'_>> = SoaMap::new();
/// marks.insert(id, Label { text: &text });
/// let shown = format!("{labels:?}");
/// // What the containers call for each row:
/// struct Show<'a, 't>(LabelRef<'a, 't>);
/// impl std::fmt::Display for Show<'_, '_> {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         <Label<'_> as idtable::storage::DebugRow>::fmt_row(&self.0, f)
///     }
/// }
/// assert_eq!(Show(labels.get(id).unwrap()).to_string(), "LabelRef { text: \"hello\" }");
/// assert!(shown.ends_with(": LabelRef { text: \"hello\" }}"), "{shown}");
/// assert_eq!(shown, format!("{marks:?}"));
/// ```
pub trait DebugRow: Record {
    /// Formats `row` as `Debug` formats `Self::Ref`.
    fn fmt_row<'a>(row: &Self::Ref<'a>, f: &mut fmt::Formatter<'_>) -> fmt::Result
    where
        Self: 'a;
}

/// A row's shared view that prints through [`DebugRow`]: how a derived
/// `FooRef` prints a `#[soa(nested)]` field (the bound `V: DebugRow` names
/// no lifetime, where one on `VRef<'a>` would). Not public API.
#[doc(hidden)]
pub struct DebugRef<'r, 'a, T: DebugRow + 'a>(pub &'r T::Ref<'a>);

impl<'a, T: DebugRow + 'a> fmt::Debug for DebugRef<'_, 'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        T::fmt_row(self.0, f)
    }
}

/// A [`Record`] that can be copied out of its shared view: what
/// `FooRef::to_owned()` calls, and what a `#[soa(nested)]` field asks of
/// its type for it. The derive implements it where the struct is `Clone`
/// (and its fields can be cloned); every [`PlainValue`] that is `Clone` has
/// it.
///
/// ```
/// use idtable::{CloneRow, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator, Clone, Debug, PartialEq)]
/// pub struct Burning { pub dps: f32, pub left: f32 }
///
/// let mut units = BurningAllocator::new();
/// let id = units.insert(Burning { dps: 1.0, left: 3.0 });
/// let row = units.get(id).unwrap();
/// assert_eq!(<Burning as CloneRow>::clone_row(&row), Burning { dps: 1.0, left: 3.0 });
///
/// let mut heat: SoaMap<BurningId, f32> = SoaMap::new();
/// heat.insert(id, 2.5);
/// assert_eq!(<f32 as CloneRow>::clone_row(&heat.get(id).unwrap()), 2.5);
/// ```
pub trait CloneRow: Record {
    /// The value whose fields `row` shows, cloned field by field (as
    /// `#[derive(Clone)]` would).
    fn clone_row<'a>(row: &Self::Ref<'a>) -> Self
    where
        Self: 'a;
}

/// The columns of a [`Record`] `V` inside another record's: what the derive
/// builds for a `#[soa(nested)]` field of type `V`. Every column of `V`
/// becomes a column of the outer allocator; a row travels as a `V`, and its
/// references, mutable references and slices are `V`'s own views (`VRef`,
/// `VMut`, `VColumns`, `VColumnsMut`), so `V`'s private fields stay as
/// private inside them as in `V` itself.
///
/// ```
/// use idtable::columns::{Col, ColumnBuffer};
/// use idtable::{Nested, SoaAllocator};
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// #[soa(parts_only)]
/// pub struct V2 { pub x: f32, pub y: f32 }
///
/// let mut buf = ColumnBuffer::<(Col<u8>, Nested<V2>)>::new();
/// buf.push((1, V2 { x: 1.0, y: 2.0 }));
/// let (_, pos): (&[u8], V2Columns<'_>) = buf.slices();
/// assert_eq!((pos.x, pos.y), (&[1.0][..], &[2.0][..]));
/// assert_eq!(buf.pop(), Some((1, V2 { x: 1.0, y: 2.0 })));
/// ```
pub struct Nested<V>(PhantomData<fn() -> V>);

impl<V: Record> crate::columns::sealed::Sealed for Nested<V> {}

impl<V: Record> ColumnTree for Nested<V> {
    type Values = V;
    type Ptrs = <V::Tree as ColumnTree>::Ptrs;
    type Refs<'a>
        = V::Ref<'a>
    where
        Self: 'a;
    type Muts<'a>
        = V::Mut<'a>
    where
        Self: 'a;
    type Slices<'a>
        = V::Columns<'a>
    where
        Self: 'a;
    type SlicesMut<'a>
        = V::ColumnsMut<'a>
    where
        Self: 'a;

    const ROW_SIZE: usize = <V::Tree as ColumnTree>::ROW_SIZE;
    const ALIGN: usize = <V::Tree as ColumnTree>::ALIGN;
    const DANGLING: Self::Ptrs = <V::Tree as ColumnTree>::DANGLING;

    type Vecs = <V::Tree as ColumnTree>::Vecs;

    fn vecs_have_len(vecs: &Self::Vecs, n: usize) -> bool {
        V::Tree::vecs_have_len(vecs, n)
    }

    #[inline]
    unsafe fn move_from_vecs(ptrs: Self::Ptrs, vecs: Self::Vecs) {
        // SAFETY: forwarded caller contract (the values are the fields of
        // `V`s taken apart, or `V` may be loaded from its fields).
        unsafe { V::Tree::move_from_vecs(ptrs, vecs) }
    }

    #[inline]
    fn extent(cap: usize, end: usize, min_align: usize) -> Option<usize> {
        V::Tree::extent(cap, end, min_align)
    }

    #[inline]
    unsafe fn place(
        base: core::ptr::NonNull<u8>,
        cap: usize,
        end: &mut usize,
        min_align: usize,
    ) -> Self::Ptrs {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::place(base, cap, end, min_align) }
    }

    #[inline(always)]
    unsafe fn write(ptrs: Self::Ptrs, i: usize, value: V) {
        // SAFETY: forwarded caller contract; `value` is a real `V`, taken
        // apart by its own `Record` impl.
        unsafe { V::Tree::write(ptrs, i, into_values(value)) }
    }

    #[inline(always)]
    unsafe fn read(ptrs: Self::Ptrs, i: usize) -> V {
        // SAFETY: forwarded caller contract; the row holds the fields of a
        // `V` written by `write`, put back together by its own impl.
        from_values(unsafe { V::Tree::read(ptrs, i) })
    }

    #[inline(always)]
    unsafe fn copy_row(ptrs: Self::Ptrs, from: usize, to: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::copy_row(ptrs, from, to) }
    }

    #[inline]
    unsafe fn copy_prefix(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::copy_prefix(src, dst, n) }
    }

    #[inline]
    unsafe fn move_prefix_back(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::move_prefix_back(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn swap(ptrs: Self::Ptrs, a: usize, b: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::swap(ptrs, a, b) }
    }

    #[inline]
    unsafe fn drop_range(ptrs: Self::Ptrs, start: usize, end: usize) {
        // SAFETY: forwarded caller contract. A derived `V` has no `Drop` of
        // its own (the derive takes it apart by a pattern), so dropping its
        // fields is dropping it.
        unsafe { V::Tree::drop_range(ptrs, start, end) }
    }

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: Self::Ptrs, i: usize) -> V::Ref<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        make_ref::<V>(unsafe { V::Tree::refs(ptrs, i) })
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: Self::Ptrs, i: usize) -> V::Mut<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        make_mut::<V>(unsafe { V::Tree::muts(ptrs, i) })
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: Self::Ptrs, len: usize) -> V::Columns<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        make_columns::<V>(unsafe { V::Tree::slices(ptrs, len) })
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: Self::Ptrs, len: usize) -> V::ColumnsMut<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        make_columns_mut::<V>(unsafe { V::Tree::slices_mut(ptrs, len) })
    }
}

/// Clones a row through `V`'s own [`CloneRow`]: what `V: Clone` allows.
impl<V: CloneRow> CloneColumns for Nested<V> {
    #[inline]
    fn clone_row(refs: V::Ref<'_>) -> V {
        V::clone_row(&refs)
    }
}

/// Compares `V`'s columns, which `V: PartialEq` allows.
impl<V: Record + PartialEq> EqColumns for Nested<V>
where
    V::Tree: EqColumns,
{
    unsafe fn eq_rows(a: Self::Ptrs, b: Self::Ptrs, len: usize) -> bool {
        // SAFETY: forwarded caller contract.
        unsafe { V::Tree::eq_rows(a, b, len) }
    }
}

impl<V: Record + Eq> TotalEqColumns for Nested<V> where V::Tree: TotalEqColumns {}

/// A type stored whole, one column of it, as a component: `SoaMap<K, T>`
/// of a `T` that is not a derived struct. Its views are the plain
/// references (`get` gives `Option<&T>`, `get_mut` `Option<&mut T>`,
/// `columns()` a `&[T]`).
///
/// Implemented for the integers, the floats, `bool`, `char`, `()` (a
/// `SoaMap<K, ()>` is a set of keys), `String`, `Vec<T>`, `Option<T>`,
/// `Box<T>`, arrays and tuples (up to twelve), the id layouts and every
/// derived id type. **A type of your own becomes one with one line**,
/// `impl idtable::PlainValue for MyType {}`: an enum, a unit struct used as
/// a marker, a newtype around a foreign type. (A struct with named fields
/// is usually better derived, one column per field.)
///
/// ```
/// use idtable::{PlainValue, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub enum Team { Red, Blue }
/// impl PlainValue for Team {}
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct Frozen;
/// impl PlainValue for Frozen {}
///
/// let mut units = UnitAllocator::new();
/// let u = units.insert(Unit { hp: 10 });
/// let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
/// let mut team: SoaMap<UnitId, Team> = SoaMap::new();
/// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
/// let mut selected: SoaMap<UnitId, ()> = SoaMap::new(); // a set
/// heat.insert(u, 1.5);
/// team.insert(u, Team::Blue);
/// frozen.insert(u, Frozen);
/// selected.insert(u, ());
/// *heat.get_mut(u).unwrap() += 1.0;
/// assert_eq!(heat.get(u), Some(&2.5));
/// assert_eq!(team.columns(), &[Team::Blue]);
/// assert!(frozen.contains_key(u) && selected.contains_key(u));
/// ```
///
/// A type that is neither derived nor a `PlainValue` is refused, with an
/// error that names both ways:
///
/// ```compile_fail,E0277
/// use idtable::{Id32_32, SoaMap};
///
/// pub enum Mood { Calm, Angry }
/// // error: `Mood` is not a component: it has no `#[derive(SoaAllocator)]` and no `PlainValue` impl
/// let moods: SoaMap<Id32_32, Mood> = SoaMap::new();
/// ```
pub trait PlainValue: Sized {}

// Errors about a type that is neither derived nor a plain value name the
// trait's own message, not this impl's bound.
#[diagnostic::do_not_recommend]
impl<T: PlainValue> Record for T {
    type Tree = Col<T>;
    type Values = T;
    type Ref<'a>
        = &'a T
    where
        T: 'a;
    type Mut<'a>
        = &'a mut T
    where
        T: 'a;
    type Columns<'a>
        = &'a [T]
    where
        T: 'a;
    type ColumnsMut<'a>
        = &'a mut [T]
    where
        T: 'a;

    #[inline(always)]
    fn into_values(self, _: RecordToken<Self>) -> T {
        self
    }
    #[inline(always)]
    fn from_values(value: T, _: RecordToken<Self>) -> T {
        value
    }
    #[inline(always)]
    fn make_ref<'a>(r: &'a T, _: RecordToken<Self>) -> &'a T
    where
        T: 'a,
    {
        r
    }
    #[inline(always)]
    fn make_mut<'a>(m: &'a mut T, _: RecordToken<Self>) -> &'a mut T
    where
        T: 'a,
    {
        m
    }
    #[inline(always)]
    fn make_columns<'a>(s: &'a [T], _: RecordToken<Self>) -> &'a [T]
    where
        T: 'a,
    {
        s
    }
    #[inline(always)]
    fn make_columns_mut<'a>(s: &'a mut [T], _: RecordToken<Self>) -> &'a mut [T]
    where
        T: 'a,
    {
        s
    }
    #[inline(always)]
    fn shared_columns<'b, 'a: 'b>(columns: &'b &'a mut [T]) -> &'b [T]
    where
        T: 'a,
    {
        columns
    }
    #[inline(always)]
    fn reborrow_columns<'b, 'a: 'b>(columns: &'b mut &'a mut [T]) -> &'b mut [T]
    where
        T: 'a,
    {
        columns
    }
}

/// A plain value prints as itself.
// Errors about a type that is neither derived nor a plain value name the
// trait's own message, not this impl's bound.
#[diagnostic::do_not_recommend]
impl<T: PlainValue + fmt::Debug> DebugRow for T {
    fn fmt_row<'a>(row: &&'a T, f: &mut fmt::Formatter<'_>) -> fmt::Result
    where
        T: 'a,
    {
        fmt::Debug::fmt(*row, f)
    }
}

/// A plain value clones as itself.
// Errors about a type that is neither derived nor a plain value name the
// trait's own message, not this impl's bound.
#[diagnostic::do_not_recommend]
impl<T: PlainValue + Clone> CloneRow for T {
    #[inline]
    fn clone_row<'a>(row: &&'a T) -> T
    where
        T: 'a,
    {
        T::clone(row)
    }
}

macro_rules! plain_values {
    ($($ty:ty),* $(,)?) => {
        $(impl PlainValue for $ty {})*
    };
}

plain_values!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    bool,
    char,
    (),
    String,
);

impl<T> PlainValue for Vec<T> {}
impl<T> PlainValue for Option<T> {}
impl<T: ?Sized> PlainValue for Box<T> {}
impl<T, const N: usize> PlainValue for [T; N] {}
impl<const INDEX_BITS: u32> PlainValue for Id32<INDEX_BITS> {}
impl<const INDEX_BITS: u32> PlainValue for Id64<INDEX_BITS> {}

macro_rules! plain_tuples {
    ($(($($name:ident),+))*) => {
        $(impl<$($name),+> PlainValue for ($($name,)+) {})*
    };
}

plain_tuples! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
    (A, B, C, D, E, F, G, H, I)
    (A, B, C, D, E, F, G, H, I, J)
    (A, B, C, D, E, F, G, H, I, J, K)
    (A, B, C, D, E, F, G, H, I, J, K, L)
}
