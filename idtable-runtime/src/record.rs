//! [`Record`]: how a struct is stored as columns, implemented by
//! `#[derive(SoaAllocator)]`, and the [`RecordToken`] that lets only this
//! crate's containers call it.

use core::fmt;
use core::marker::PhantomData;

use crate::columns::ColumnTree;

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
    /// The column tree: [`Col<T>`](crate::columns::Col) per field, nested in pairs
    /// (the raw description the [`ColumnBuffer`](crate::columns::ColumnBuffer) stores; users see
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
/// let mut labels = SoaStorage::<Label<'_>, LabelId<'_>>::default();
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
