//! The column machinery of saving and loading (feature `serde`): how a
//! struct of columns is written as one sequence per field and read back
//! into [`ColumnBuffer`]s, shared by every column-shaped save (a
//! [`SoaStorage`](crate::SoaStorage) and its allocators, a
//! [`SoaMap`](crate::SoaMap)). Its public traits are reached through
//! [`crate::saving`].

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde::ser::{self, Serialize, SerializeStruct, Serializer};

use super::{Aligned, Col, ColumnBuffer, ColumnTree, RowCount, Split};
use crate::record::{Nested, PlainValue, Record};

/// A struct whose fields may be saved and loaded: what `#[soa(serde)]`
/// declares. The derive implements it only under that attribute; saving or
/// loading a container of any other struct is a compile error naming it.
///
/// Implement it by hand only for a hand-written [`Record`] whose every field
/// may be read and written by serde.
///
/// ```
/// use idtable::saving::SavedRecord;
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// #[soa(serde)]
/// pub struct Point { pub x: f32, y: f32 }
///
/// assert_eq!(<Point as SavedRecord>::FIELDS, ["x", "y"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not saved or loaded: its struct has no `#[soa(serde)]`",
    label = "saving or loading this needs `{Self}` to opt in",
    note = "add `#[soa(serde)]` below `#[derive(SoaAllocator)]` on `{Self}` (and turn on idtable's `serde` feature)"
)]
pub trait SavedRecord: Record {
    /// The field names, in declaration order: the keys of the saved
    /// columns.
    const FIELDS: &'static [&'static str];
    /// The names a table of these rows is saved under (a derived struct's
    /// `FooAllocator` and `FooColumns`); [`SavedNames::STORAGE`] unless set.
    ///
    /// ```
    /// use idtable::saving::{SavedNames, SavedRecord};
    /// use idtable::SoaAllocator;
    ///
    /// #[derive(SoaAllocator)]
    /// #[soa(serde)]
    /// pub struct Ship { pub hp: u32 }
    ///
    /// assert_eq!(
    ///     Ship::NAMES,
    ///     SavedNames { storage: "ShipAllocator", columns: "ShipColumns" }
    /// );
    /// ```
    const NAMES: SavedNames = SavedNames::STORAGE;
}

/// A [`ColumnTree`] description whose every column can be saved and loaded:
/// the columns of a struct whose every field is `Serialize + DeserializeOwned`.
/// Implemented for [`Col<T>`], pairs and `()`; its methods are the
/// runtime's, for [`SoaStorage::serialize_named`](crate::SoaStorage::serialize_named) and
/// [`SoaStorage::deserialize_named`](crate::SoaStorage::deserialize_named).
///
/// ```
/// use idtable::columns::Col;
/// use idtable::saving::SavedColumns;
///
/// assert_eq!(<(Col<u8>, (Col<f32>, Col<String>)) as SavedColumns>::COUNT, 3);
/// ```
pub trait SavedColumns: ColumnTree {
    /// Number of columns.
    const COUNT: usize;
    /// The columns as loaded so far: `Option<Vec<T>>` per column, nested
    /// like the description; `None` until the column is read.
    #[doc(hidden)]
    type Loaded: Default;

    /// Writes rows `0..len` of each saved field (a column, a split array's
    /// columns, a nested struct's columns) as a field named by the next of
    /// `names`.
    ///
    /// # Safety
    ///
    /// Rows `0..len` at `ptrs` are initialised and not mutably borrowed
    /// during the call.
    #[doc(hidden)]
    unsafe fn save<S: SerializeStruct>(
        ptrs: Self::Ptrs,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error>;

    /// Reads column `index` (declaration order) from the map's next value.
    /// `Ok(false)` if that column was read before.
    #[doc(hidden)]
    fn load_from_map<'de, A: MapAccess<'de>>(
        loaded: &mut Self::Loaded,
        index: usize,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// Reads every column, in declaration order, from the sequence; `read`
    /// counts them, for the error when the sequence ends early.
    #[doc(hidden)]
    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Self::Loaded,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error>;

    /// Appends each column's length (`None` if it was not read), in order.
    #[doc(hidden)]
    fn lengths(loaded: &Self::Loaded, out: &mut Vec<Option<usize>>);

    /// The loaded columns, whole (a column never read is empty).
    #[doc(hidden)]
    fn into_vecs(loaded: Self::Loaded) -> Self::Vecs;
}

impl<T: Serialize + DeserializeOwned> SavedColumns for Col<T> {
    const COUNT: usize = 1;
    type Loaded = Option<Vec<T>>;

    unsafe fn save<S: SerializeStruct>(
        ptrs: NonNull<T>,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        // SAFETY: rows `0..len` are initialised and shared (caller).
        let column = unsafe { Self::slices(ptrs, len) };
        state.serialize_field(next_name(names)?, column)
    }

    fn load_from_map<'de, A: MapAccess<'de>>(
        loaded: &mut Option<Vec<T>>,
        _: usize,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        load_once(loaded, map, PhantomData)
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Option<Vec<T>>,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        load_next(loaded, seq, read, PhantomData)
    }

    fn lengths(loaded: &Option<Vec<T>>, out: &mut Vec<Option<usize>>) {
        out.push(loaded.as_ref().map(Vec::len));
    }

    fn into_vecs(loaded: Option<Vec<T>>) -> Vec<T> {
        loaded.unwrap_or_default()
    }
}

impl<L: SavedColumns, R: SavedColumns> SavedColumns for (L, R) {
    const COUNT: usize = L::COUNT + R::COUNT;
    type Loaded = (L::Loaded, R::Loaded);

    unsafe fn save<S: SerializeStruct>(
        (left, right): Self::Ptrs,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        // SAFETY: forwarded caller contract, per half.
        unsafe {
            L::save(left, len, names, state)?;
            R::save(right, len, names, state)
        }
    }

    fn load_from_map<'de, A: MapAccess<'de>>(
        (left, right): &mut Self::Loaded,
        index: usize,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        if index < L::COUNT {
            L::load_from_map(left, index, map)
        } else {
            R::load_from_map(right, index - L::COUNT, map)
        }
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        (left, right): &mut Self::Loaded,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        L::load_from_seq(left, seq, read)?;
        R::load_from_seq(right, seq, read)
    }

    fn lengths((left, right): &Self::Loaded, out: &mut Vec<Option<usize>>) {
        L::lengths(left, out);
        R::lengths(right, out);
    }

    fn into_vecs((left, right): Self::Loaded) -> Self::Vecs {
        (L::into_vecs(left), R::into_vecs(right))
    }
}

/// Reads a saved field from the map's next value with `seed`; `Ok(false)`
/// if it was read before.
fn load_once<'de, A: MapAccess<'de>, D: DeserializeSeed<'de>>(
    loaded: &mut Option<D::Value>,
    map: &mut A,
    seed: D,
) -> Result<bool, A::Error> {
    if loaded.is_some() {
        return Ok(false);
    }
    *loaded = Some(map.next_value_seed(seed)?);
    Ok(true)
}

/// Reads the sequence's next saved field with `seed`, counting it in
/// `read`; an error if the sequence has ended.
fn load_next<'de, A: SeqAccess<'de>, D: DeserializeSeed<'de>>(
    loaded: &mut Option<D::Value>,
    seq: &mut A,
    read: &mut usize,
    seed: D,
) -> Result<(), A::Error> {
    match seq.next_element_seed(seed)? {
        Some(value) => {
            *loaded = Some(value);
            *read += 1;
            Ok(())
        }
        None => Err(de::Error::invalid_length(*read, &"one sequence per field")),
    }
}

/// Column trees that save nothing and load nothing: `()` (no columns) and
/// [`RowCount`] (the rows are counted by the other columns, or by the
/// table).
macro_rules! saves_nothing {
    ($($tree:ty),*) => {$(
        impl SavedColumns for $tree {
            const COUNT: usize = 0;
            type Loaded = ();

            unsafe fn save<S: SerializeStruct>(
                _: <$tree as ColumnTree>::Ptrs,
                _: usize,
                _: &mut core::slice::Iter<'_, &'static str>,
                _: &mut S,
            ) -> Result<(), S::Error> {
                Ok(())
            }

            fn load_from_map<'de, A: MapAccess<'de>>(
                (): &mut (),
                _: usize,
                _: &mut A,
            ) -> Result<bool, A::Error> {
                Ok(true)
            }

            fn load_from_seq<'de, A: SeqAccess<'de>>(
                (): &mut (),
                _: &mut A,
                _: &mut usize,
            ) -> Result<(), A::Error> {
                Ok(())
            }

            fn lengths((): &(), _: &mut Vec<Option<usize>>) {}

            fn into_vecs(_: ()) -> <$tree as ColumnTree>::Vecs {}
        }
    )*};
}

saves_nothing!((), RowCount);

/// An array field split into columns (`#[soa(split)]`) is saved as the
/// field would be unsplit: one `[T; N]` per row, so splitting a field keeps
/// the saved form. Loading checks every row's length.
impl<T: Serialize + DeserializeOwned, const N: usize> SavedColumns for Split<Col<T>, N> {
    const COUNT: usize = 1;
    /// The columns and the number of rows read (the columns alone cannot
    /// tell it when `N` is 0).
    type Loaded = Option<([Vec<T>; N], usize)>;

    unsafe fn save<S: SerializeStruct>(
        ptrs: [NonNull<T>; N],
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        // SAFETY: rows `0..len` of every column are initialised and shared
        // (caller).
        let columns = ptrs.map(|p| unsafe { Col::<T>::slices(p, len) });
        state.serialize_field(next_name(names)?, &SplitRows::new(columns, len))
    }

    fn load_from_map<'de, A: MapAccess<'de>>(
        loaded: &mut Self::Loaded,
        _: usize,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        load_once(loaded, map, SplitSeed::<T, N>(PhantomData))
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Self::Loaded,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        load_next(loaded, seq, read, SplitSeed::<T, N>(PhantomData))
    }

    fn lengths(loaded: &Self::Loaded, out: &mut Vec<Option<usize>>) {
        out.push(loaded.as_ref().map(|(_, rows)| *rows));
    }

    fn into_vecs(loaded: Self::Loaded) -> [Vec<T>; N] {
        match loaded {
            Some((columns, _)) => columns,
            None => core::array::from_fn(|_| Vec::new()),
        }
    }
}

/// Saved as `C` is: alignment is not part of the saved form.
impl<C: SavedColumns, const A: usize> SavedColumns for Aligned<C, A> {
    const COUNT: usize = C::COUNT;
    type Loaded = C::Loaded;

    unsafe fn save<S: SerializeStruct>(
        ptrs: Self::Ptrs,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        // SAFETY: forwarded caller contract.
        unsafe { C::save(ptrs, len, names, state) }
    }

    fn load_from_map<'de, M: MapAccess<'de>>(
        loaded: &mut Self::Loaded,
        index: usize,
        map: &mut M,
    ) -> Result<bool, M::Error> {
        C::load_from_map(loaded, index, map)
    }

    fn load_from_seq<'de, Q: SeqAccess<'de>>(
        loaded: &mut Self::Loaded,
        seq: &mut Q,
        read: &mut usize,
    ) -> Result<(), Q::Error> {
        C::load_from_seq(loaded, seq, read)
    }

    fn lengths(loaded: &Self::Loaded, out: &mut Vec<Option<usize>>) {
        C::lengths(loaded, out);
    }

    fn into_vecs(loaded: Self::Loaded) -> Self::Vecs {
        C::into_vecs(loaded)
    }
}

/// A nested struct (`#[soa(nested)]`) is saved as its own columns, `{ x:
/// [..], y: [..] }`, under the field's name; it must have opted in with
/// `#[soa(serde)]` itself. Loading checks that every column of it is there,
/// each with the same number of rows.
impl<V: SavedRecord> SavedColumns for Nested<V>
where
    V::Tree: SavedColumns,
{
    const COUNT: usize = 1;
    /// `V`'s columns and their common length, once read and checked.
    type Loaded = Option<(<V::Tree as SavedColumns>::Loaded, usize)>;

    unsafe fn save<S: SerializeStruct>(
        ptrs: Self::Ptrs,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        let columns = ColumnsOut::<V> {
            ptrs,
            len,
            fields: V::FIELDS,
            name: SavedNames::STORAGE.columns,
            _borrow: PhantomData,
        };
        // The invariant of `ColumnsOut` holds for this call: the rows are
        // initialised and shared while it lasts (this function's contract).
        state.serialize_field(next_name(names)?, &columns)
    }

    fn load_from_map<'de, A: MapAccess<'de>>(
        loaded: &mut Self::Loaded,
        _: usize,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        if loaded.is_some() {
            return Ok(false);
        }
        let columns = map.next_value_seed(nested_seed::<V>())?;
        let rows = nested_rows::<V, A::Error>(&columns)?;
        *loaded = Some((columns, rows));
        Ok(true)
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Self::Loaded,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        match seq.next_element_seed(nested_seed::<V>())? {
            Some(columns) => {
                let rows = nested_rows::<V, A::Error>(&columns)?;
                *loaded = Some((columns, rows));
                *read += 1;
                Ok(())
            }
            None => Err(de::Error::invalid_length(*read, &"one sequence per field")),
        }
    }

    fn lengths(loaded: &Self::Loaded, out: &mut Vec<Option<usize>>) {
        out.push(loaded.as_ref().map(|(_, rows)| *rows));
    }

    fn into_vecs(loaded: Self::Loaded) -> Self::Vecs {
        let columns = loaded.map(|(columns, _)| columns).unwrap_or_default();
        <V::Tree as SavedColumns>::into_vecs(columns)
    }
}

/// Reads the columns of a nested `V`.
fn nested_seed<V: SavedRecord>() -> ColumnsSeed<V> {
    ColumnsSeed::new(V::FIELDS, SavedNames::STORAGE.columns)
}

/// The number of rows of a nested `V`'s columns just read: every column
/// must be there, each as long as the others.
fn nested_rows<V: SavedRecord, E: de::Error>(
    columns: &<V::Tree as SavedColumns>::Loaded,
) -> Result<usize, E>
where
    V::Tree: SavedColumns,
{
    if V::FIELDS.len() != <V::Tree as SavedColumns>::COUNT {
        return Err(E::custom(
            "the number of field names differs from the number of columns",
        ));
    }
    let mut lengths = Vec::with_capacity(V::FIELDS.len());
    <V::Tree as SavedColumns>::lengths(columns, &mut lengths);
    let mut rows = None;
    for (&name, len) in V::FIELDS.iter().zip(lengths) {
        let len = len.ok_or_else(|| E::missing_field(name))?;
        match rows {
            Some(rows) if rows != len => {
                return Err(E::custom(alloc::format!(
                    "column `{name}` of a nested struct has {len} values, but the one before it has {rows}"
                )));
            }
            _ => rows = Some(len),
        }
    }
    Ok(rows.unwrap_or(0))
}

/// The columns of a split array saved as the array would be, one `[T; N]`
/// per row (a tuple of `N`, as serde saves arrays). What a split field's
/// column and the `Serialize` of a derived `FooColumns` write. Not public
/// API.
#[doc(hidden)]
pub struct SplitRows<'a, T, const N: usize> {
    columns: [&'a [T]; N],
    rows: usize,
}

impl<'a, T, const N: usize> SplitRows<'a, T, N> {
    /// The first `rows` rows of `columns`.
    pub fn new(columns: [&'a [T]; N], rows: usize) -> Self {
        SplitRows { columns, rows }
    }
}

impl<T: Serialize, const N: usize> Serialize for SplitRows<'_, T, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeTuple};

        struct Row<'r, 'a, T, const N: usize>(&'r [&'a [T]; N], usize);
        impl<T: Serialize, const N: usize> Serialize for Row<'_, '_, T, N> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut tuple = serializer.serialize_tuple(N)?;
                for column in self.0 {
                    let value = column.get(self.1).ok_or_else(|| {
                        ser::Error::custom("the columns of a split array differ in length")
                    })?;
                    tuple.serialize_element(value)?;
                }
                tuple.end()
            }
        }

        let mut seq = serializer.serialize_seq(Some(self.rows))?;
        for i in 0..self.rows {
            seq.serialize_element(&Row(&self.columns, i))?;
        }
        seq.end()
    }
}

/// Reads a split array's rows into one `Vec` per element.
struct SplitSeed<T, const N: usize>(PhantomData<fn() -> T>);

impl<'de, T: DeserializeOwned, const N: usize> DeserializeSeed<'de> for SplitSeed<T, N> {
    type Value = ([Vec<T>; N], usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: DeserializeOwned, const N: usize> Visitor<'de> for SplitSeed<T, N> {
    type Value = ([Vec<T>; N], usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of arrays of {N}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut columns: [Vec<T>; N] = core::array::from_fn(|_| Vec::new());
        let mut rows = 0usize;
        while seq
            .next_element_seed(RowSeed::<T, N>(&mut columns))?
            .is_some()
        {
            rows += 1;
        }
        Ok((columns, rows))
    }
}

/// One row of a split array, each element pushed on its column.
struct RowSeed<'c, T, const N: usize>(&'c mut [Vec<T>; N]);

impl<'de, T: DeserializeOwned, const N: usize> DeserializeSeed<'de> for RowSeed<'_, T, N> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(N, self)
    }
}

impl<'de, T: DeserializeOwned, const N: usize> Visitor<'de> for RowSeed<'_, T, N> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of {N}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for k in 0..N {
            let value = seq
                .next_element::<T>()?
                .ok_or_else(|| de::Error::invalid_length(k, &self))?;
            self.0[k].push(value);
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &self));
        }
        Ok(())
    }
}

/// A plain value is saved whole, as the one column `value`.
// Errors about a derived struct that did not opt in keep the trait's own
// message (naming `#[soa(serde)]`), not this impl's bound.
#[diagnostic::do_not_recommend]
impl<T: PlainValue> SavedRecord for T {
    const FIELDS: &'static [&'static str] = &["value"];
}

/// The names the saved form gives the storage and its columns (serde's
/// struct names; self-describing formats such as RON show them).
///
/// ```
/// use idtable::saving::SavedNames;
///
/// let names = SavedNames { storage: "Flock", columns: "BirdColumns" };
/// assert_ne!(names, SavedNames::STORAGE);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedNames {
    /// The outer struct, e.g. `"ParticleAllocator"`.
    pub storage: &'static str,
    /// The struct of columns, e.g. `"ParticleColumns"`.
    pub columns: &'static str,
}

impl SavedNames {
    /// The names [`SoaStorage`](crate::SoaStorage)'s own `Serialize` uses.
    ///
    /// ```
    /// use idtable::saving::SavedNames;
    /// assert_eq!(SavedNames::STORAGE.storage, "SoaStorage");
    /// ```
    pub const STORAGE: SavedNames = SavedNames {
        storage: "SoaStorage",
        columns: "Columns",
    };
}

/// The columns as a struct of one sequence per field.
///
/// Invariant: rows `0..len` at `ptrs` are initialised and not mutably
/// borrowed for `'a`.
pub(crate) struct ColumnsOut<'a, T: Record> {
    ptrs: <T::Tree as ColumnTree>::Ptrs,
    len: usize,
    fields: &'static [&'static str],
    name: &'static str,
    _borrow: PhantomData<&'a ColumnBuffer<T::Tree>>,
}

impl<'a, T: Record> ColumnsOut<'a, T> {
    /// The columns of `buffer`.
    pub(crate) fn of(
        buffer: &'a ColumnBuffer<T::Tree>,
        fields: &'static [&'static str],
        name: &'static str,
    ) -> Self {
        let (ptrs, len) = buffer.raw_parts();
        ColumnsOut {
            ptrs,
            len,
            fields,
            name,
            _borrow: PhantomData,
        }
    }
}

impl<T: Record> Serialize for ColumnsOut<'_, T>
where
    T::Tree: SavedColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(self.name, self.fields.len())?;
        let names = &mut self.fields.iter();
        // SAFETY: the rows are initialised and shared for `'a` (invariant).
        unsafe { <T::Tree as SavedColumns>::save(self.ptrs, self.len, names, &mut state)? };
        state.end()
    }
}

/// The next field name for a saved field, or an error if a `SavedRecord`
/// impl's `FIELDS` are too few.
fn next_name<E: ser::Error>(
    names: &mut core::slice::Iter<'_, &'static str>,
) -> Result<&'static str, E> {
    names.next().copied().ok_or_else(|| {
        E::custom("fewer field names than saved fields (a SavedRecord impl's FIELDS)")
    })
}

/// What names the rows of a column-shaped save: an allocator's id table
/// (saved as `table`) or a map's keys (saved as `keys`). The other half of
/// the save is the struct of columns, one sequence per field, in the order
/// of the rows this part names.
pub(crate) trait SavedIndex<'de>: Sized {
    /// The outer struct's two fields: this part's name, then `"columns"`.
    const FIELDS: &'static [&'static str; 2];
    /// What is read for this part.
    type Saved: Deserialize<'de>;
    /// What building it needs beyond the saved form (a [`TableConfig`](crate::TableConfig)).
    type Config;

    /// The index, checked, from what was read.
    fn build<E: de::Error>(saved: Self::Saved, config: Self::Config) -> Result<Self, E>;

    /// The number of rows the index names: every column must hold as many
    /// values.
    fn rows(&self) -> usize;

    /// The error for column `column` holding `len` values instead of
    /// [`rows`](Self::rows).
    fn column_length<E: de::Error>(&self, column: &'static str, len: usize) -> E;
}

/// Saves `index` and the rows of `buffer` as the struct `names.storage` of
/// two fields, `{ <index field>: .., columns: { field: [..], .. } }`.
pub(crate) fn save_column_shaped<T, S>(
    serializer: S,
    names: SavedNames,
    index_field: &'static str,
    index: &impl Serialize,
    buffer: &ColumnBuffer<T::Tree>,
) -> Result<S::Ok, S::Error>
where
    T: SavedRecord,
    T::Tree: SavedColumns,
    S: Serializer,
{
    let columns = ColumnsOut::<T>::of(buffer, T::FIELDS, names.columns);
    let mut state = serializer.serialize_struct(names.storage, 2)?;
    state.serialize_field(index_field, index)?;
    state.serialize_field("columns", &columns)?;
    state.end()
}

/// Loads what [`save_column_shaped`] saved: the index, checked by
/// [`SavedIndex::build`], then the columns, each checked to hold one value
/// per row before any value moves into the buffer. Unknown, missing and
/// repeated fields are errors; nothing panics, whatever the input.
pub(crate) fn load_column_shaped<'de, X, T, D>(
    deserializer: D,
    config: X::Config,
    names: SavedNames,
) -> Result<(X, ColumnBuffer<T::Tree>), D::Error>
where
    X: SavedIndex<'de>,
    T: SavedRecord,
    T::Tree: SavedColumns,
    D: Deserializer<'de>,
{
    let fields = T::FIELDS;
    if fields.len() != <T::Tree as SavedColumns>::COUNT {
        return Err(de::Error::custom(
            "the number of field names differs from the number of columns",
        ));
    }
    let visitor = ColumnShapedVisitor::<'de, X, T> {
        config,
        fields,
        names,
        _types: PhantomData,
    };
    deserializer.deserialize_struct(names.storage, X::FIELDS, visitor)
}

/// What a [`ColumnShapedVisitor`] builds, for its `PhantomData`: neither
/// owned nor borrowed by it.
type Types<'de, X, T> = fn(&'de ()) -> (X, T);

/// The visitor of [`load_column_shaped`].
struct ColumnShapedVisitor<'de, X: SavedIndex<'de>, T> {
    config: X::Config,
    fields: &'static [&'static str],
    names: SavedNames,
    _types: PhantomData<Types<'de, X, T>>,
}

impl<'de, X: SavedIndex<'de>, T: Record> ColumnShapedVisitor<'de, X, T>
where
    T::Tree: SavedColumns,
{
    fn seed(&self) -> ColumnsSeed<T> {
        ColumnsSeed::new(self.fields, self.names.columns)
    }

    /// The checks and the build, once both parts are read.
    fn finish<E: de::Error>(
        self,
        saved: X::Saved,
        columns: <T::Tree as SavedColumns>::Loaded,
    ) -> Result<(X, ColumnBuffer<T::Tree>), E> {
        let index = X::build(saved, self.config)?;
        let mut lengths = Vec::with_capacity(self.fields.len());
        <T::Tree as SavedColumns>::lengths(&columns, &mut lengths);
        for (&name, len) in self.fields.iter().zip(lengths) {
            let len = len.ok_or_else(|| E::missing_field(name))?;
            if len != index.rows() {
                return Err(index.column_length(name, len));
            }
        }
        // Every column holds `index.rows()` values (checked just above).
        let vecs = <T::Tree as SavedColumns>::into_vecs(columns);
        let buffer = ColumnBuffer::<T::Tree>::from_vecs(vecs, index.rows());
        Ok((index, buffer))
    }
}

impl<'de, X: SavedIndex<'de>, T: Record> Visitor<'de> for ColumnShapedVisitor<'de, X, T>
where
    T::Tree: SavedColumns,
{
    type Value = (X, ColumnBuffer<T::Tree>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.names.storage)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let saved: X::Saved = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let columns = seq
            .next_element_seed(self.seed())?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        self.finish(saved, columns)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let [index_field, columns_field] = *X::FIELDS;
        let mut saved: Option<X::Saved> = None;
        let mut columns = None;
        while let Some(key) = map.next_key::<FieldName>()? {
            let key = key.0.as_str();
            if key == index_field {
                if saved.is_some() {
                    return Err(de::Error::duplicate_field(index_field));
                }
                saved = Some(map.next_value()?);
            } else if key == columns_field {
                if columns.is_some() {
                    return Err(de::Error::duplicate_field(columns_field));
                }
                columns = Some(map.next_value_seed(self.seed())?);
            } else {
                return Err(de::Error::unknown_field(key, X::FIELDS));
            }
        }
        let saved = saved.ok_or_else(|| de::Error::missing_field(index_field))?;
        let columns = columns.ok_or_else(|| de::Error::missing_field(columns_field))?;
        self.finish(saved, columns)
    }
}

/// Reads the struct of columns into [`SavedColumns::Loaded`].
pub(crate) struct ColumnsSeed<T> {
    fields: &'static [&'static str],
    name: &'static str,
    _record: PhantomData<fn() -> T>,
}

impl<T> ColumnsSeed<T> {
    pub(crate) fn new(fields: &'static [&'static str], name: &'static str) -> Self {
        ColumnsSeed {
            fields,
            name,
            _record: PhantomData,
        }
    }
}

impl<'de, T: Record> DeserializeSeed<'de> for ColumnsSeed<T>
where
    T::Tree: SavedColumns,
{
    type Value = <T::Tree as SavedColumns>::Loaded;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_struct(self.name, self.fields, self)
    }
}

impl<'de, T: Record> Visitor<'de> for ColumnsSeed<T>
where
    T::Tree: SavedColumns,
{
    type Value = <T::Tree as SavedColumns>::Loaded;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {} with one sequence per field", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut loaded = Default::default();
        <T::Tree as SavedColumns>::load_from_seq(&mut loaded, &mut seq, &mut 0)?;
        Ok(loaded)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut loaded = Default::default();
        while let Some(key) = map.next_key::<FieldName>()? {
            let Some(index) = self.fields.iter().position(|f| *f == key.0) else {
                return Err(de::Error::unknown_field(&key.0, self.fields));
            };
            if !<T::Tree as SavedColumns>::load_from_map(&mut loaded, index, &mut map)? {
                return Err(de::Error::duplicate_field(self.fields[index]));
            }
        }
        Ok(loaded)
    }
}

/// A field name as the format gives it (borrowed or owned).
pub(crate) struct FieldName(pub(crate) alloc::string::String);

impl<'de> de::Deserialize<'de> for FieldName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = FieldName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<FieldName, E> {
                Ok(FieldName(name.into()))
            }
        }
        deserializer.deserialize_identifier(NameVisitor)
    }
}
