//! Saving and loading a [`SoaStorage`] (feature `serde`): what a
//! `#[soa(serde)]` allocator's `Serialize` and `Deserialize` do, written once.
//!
//! The saved form is `{ table: { slots, dense, free }, columns: { field: [..],
//! .. } }`: the [`IdTableParts`] and one sequence per field, in dense order.
//! In binary formats each list of the table is one byte string of
//! fixed-width numbers (see the crate docs' *Saving and loading*).
//! Loading reads each column into a `Vec` of its own type, checks the table
//! with [`IdTable::from_parts`] and the column lengths, and only then moves the
//! values into the column buffer, without building a struct per row.
//!
//! Both directions read or build fields one by one, private fields included,
//! so they exist only for structs that opted in: the derive implements
//! [`SavedRecord`] only under `#[soa(serde)]`, and saving or loading any
//! other struct's container does not compile, with an error that names the
//! attribute.
//!
//! ```
//! use idtable::{SoaAllocator, SoaStorage};
//!
//! #[derive(SoaAllocator)]
//! #[soa(serde)]
//! pub struct Point { pub x: f32, pub y: f32 }
//!
//! let mut points = SoaStorage::<PointId, Point>::default();
//! points.insert(Point { x: 1.0, y: 2.0 });
//! let text = serde_json::to_string(&points).unwrap();
//! assert_eq!(text, r#"{"table":{"slots":[1],"dense":[0],"free":[]},"columns":{"x":[1.0],"y":[2.0]}}"#);
//! ```
//!
//! A struct without `#[soa(serde)]` keeps its fields unread:
//!
//! ```compile_fail,E0277
//! use idtable::{SoaAllocator, SoaStorage};
//!
//! #[derive(SoaAllocator)]
//! pub struct Secret { key: u64 } // no #[soa(serde)]
//!
//! let secrets = SoaStorage::<SecretId, Secret>::default();
//! // error: `Secret` is not saved or loaded: its struct has no `#[soa(serde)]`
//! let _ = serde_json::to_string(&secrets);
//! ```

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde::ser::{self, Serialize, SerializeStruct, Serializer};

use core::ptr::NonNull;

use crate::columns::{Aligned, Col, ColumnBuffer, ColumnTree, RowCount, Split};
use crate::id::Id;
use crate::record::{Nested, PlainValue};
use crate::storage::{Record, SoaStorage};

/// A struct whose fields may be saved and loaded: what `#[soa(serde)]`
/// declares. The derive implements it only under that attribute; saving or
/// loading a container of any other struct is a compile error naming it.
///
/// Implement it by hand only for a hand-written [`Record`] whose every field
/// may be read and written by serde.
///
/// ```
/// use idtable::storage_serde::SavedRecord;
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
}
use crate::table::{IdTable, IdTableParts, PartsError, TableConfig};

/// A [`ColumnTree`] description whose every column can be saved and loaded:
/// the columns of a struct whose every field is `Serialize + DeserializeOwned`.
/// Implemented for [`Col<T>`], pairs and `()`; its methods are the
/// runtime's, for [`SoaStorage::serialize_named`] and
/// [`SoaStorage::deserialize_named`].
///
/// ```
/// use idtable::columns::Col;
/// use idtable::storage_serde::SerdeColumns;
///
/// assert_eq!(<(Col<u8>, (Col<f32>, Col<String>)) as SerdeColumns>::COUNT, 3);
/// ```
pub trait SerdeColumns: ColumnTree {
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

impl<T: Serialize + DeserializeOwned> SerdeColumns for Col<T> {
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
        if loaded.is_some() {
            return Ok(false);
        }
        *loaded = Some(map.next_value()?);
        Ok(true)
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Option<Vec<T>>,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        match seq.next_element()? {
            Some(column) => {
                *loaded = Some(column);
                *read += 1;
                Ok(())
            }
            None => Err(de::Error::invalid_length(*read, &"one sequence per field")),
        }
    }

    fn lengths(loaded: &Option<Vec<T>>, out: &mut Vec<Option<usize>>) {
        out.push(loaded.as_ref().map(Vec::len));
    }

    fn into_vecs(loaded: Option<Vec<T>>) -> Vec<T> {
        loaded.unwrap_or_default()
    }
}

impl<L: SerdeColumns, R: SerdeColumns> SerdeColumns for (L, R) {
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

impl SerdeColumns for () {
    const COUNT: usize = 0;
    type Loaded = ();

    unsafe fn save<S: SerializeStruct>(
        (): (),
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

    fn into_vecs((): ()) {}
}

/// An array field split into columns (`#[soa(split)]`) is saved as the
/// field would be unsplit: one `[T; N]` per row, so splitting a field keeps
/// the saved form. Loading checks every row's length.
impl<T: Serialize + DeserializeOwned, const N: usize> SerdeColumns for Split<Col<T>, N> {
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
        if loaded.is_some() {
            return Ok(false);
        }
        *loaded = Some(map.next_value_seed(SplitSeed::<T, N>(PhantomData))?);
        Ok(true)
    }

    fn load_from_seq<'de, A: SeqAccess<'de>>(
        loaded: &mut Self::Loaded,
        seq: &mut A,
        read: &mut usize,
    ) -> Result<(), A::Error> {
        match seq.next_element_seed(SplitSeed::<T, N>(PhantomData))? {
            Some(columns) => {
                *loaded = Some(columns);
                *read += 1;
                Ok(())
            }
            None => Err(de::Error::invalid_length(*read, &"one sequence per field")),
        }
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

/// Not saved: the rows are counted by the other columns, or by the table.
impl SerdeColumns for RowCount {
    const COUNT: usize = 0;
    type Loaded = ();

    unsafe fn save<S: SerializeStruct>(
        _: NonNull<()>,
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

    fn into_vecs((): ()) {}
}

/// Saved as `C` is: alignment is not part of the saved form.
impl<C: SerdeColumns, const A: usize> SerdeColumns for Aligned<C, A> {
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
impl<V: SavedRecord> SerdeColumns for Nested<V>
where
    V::Tree: SerdeColumns,
{
    const COUNT: usize = 1;
    /// `V`'s columns and their common length, once read and checked.
    type Loaded = Option<(<V::Tree as SerdeColumns>::Loaded, usize)>;

    unsafe fn save<S: SerializeStruct>(
        ptrs: Self::Ptrs,
        len: usize,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        let columns = SavedColumns::<V> {
            ptrs,
            len,
            fields: V::FIELDS,
            name: SavedNames::STORAGE.columns,
            _borrow: PhantomData,
        };
        // The invariant of `SavedColumns` holds for this call: the rows are
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
        <V::Tree as SerdeColumns>::into_vecs(columns)
    }
}

/// Reads the columns of a nested `V`.
fn nested_seed<V: SavedRecord>() -> ColumnsSeed<V> {
    ColumnsSeed::new(V::FIELDS, SavedNames::STORAGE.columns)
}

/// The number of rows of a nested `V`'s columns just read: every column
/// must be there, each as long as the others.
fn nested_rows<V: SavedRecord, E: de::Error>(
    columns: &<V::Tree as SerdeColumns>::Loaded,
) -> Result<usize, E>
where
    V::Tree: SerdeColumns,
{
    if V::FIELDS.len() != <V::Tree as SerdeColumns>::COUNT {
        return Err(E::custom(
            "the number of field names differs from the number of columns",
        ));
    }
    let mut lengths = Vec::with_capacity(V::FIELDS.len());
    <V::Tree as SerdeColumns>::lengths(columns, &mut lengths);
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
/// use idtable::storage_serde::SavedNames;
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
    /// The names [`SoaStorage`]'s own `Serialize` uses.
    ///
    /// ```
    /// use idtable::storage_serde::SavedNames;
    /// assert_eq!(SavedNames::STORAGE.storage, "SoaStorage");
    /// ```
    pub const STORAGE: SavedNames = SavedNames {
        storage: "SoaStorage",
        columns: "Columns",
    };
}

/// What a derived allocator's `Serialize` and `Deserialize` call: the
/// storage saved and loaded under the allocator's names. Implemented for
/// every [`SavedRecord`] whose columns are [`SerdeColumns`]; the derive
/// bounds its impls by it, so they exist for every struct and apply only
/// to those that opted in. Not public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not saved or loaded: its struct has no `#[soa(serde)]`",
    label = "saving or loading this needs `{Self}` to opt in",
    note = "add `#[soa(serde)]` below `#[derive(SoaAllocator)]` on `{Self}` (and turn on idtable's `serde` feature)"
)]
pub trait SaveStorage<I: Id>: Record {
    /// [`SoaStorage::serialize_named`].
    fn save<S: Serializer>(
        storage: &SoaStorage<I, Self>,
        serializer: S,
        names: SavedNames,
    ) -> Result<S::Ok, S::Error>;
    /// [`SoaStorage::deserialize_named`].
    fn load<'de, D: Deserializer<'de>>(
        deserializer: D,
        config: TableConfig,
        names: SavedNames,
    ) -> Result<SoaStorage<I, Self>, D::Error>;
}

impl<T: SavedRecord, I: Id> SaveStorage<I> for T
where
    T::Tree: SerdeColumns,
{
    fn save<S: Serializer>(
        storage: &SoaStorage<I, T>,
        serializer: S,
        names: SavedNames,
    ) -> Result<S::Ok, S::Error> {
        storage.serialize_named(serializer, names)
    }
    fn load<'de, D: Deserializer<'de>>(
        deserializer: D,
        config: TableConfig,
        names: SavedNames,
    ) -> Result<SoaStorage<I, T>, D::Error> {
        SoaStorage::deserialize_named(deserializer, config, names)
    }
}

const OUTER_FIELDS: &[&str] = &["table", "columns"];

impl<T: SavedRecord, I: Id> SoaStorage<I, T>
where
    T::Tree: SerdeColumns,
{
    /// Saves the storage as `{ table, columns }` under the given struct
    /// names. What a `#[soa(serde)]` allocator's `Serialize` calls.
    ///
    /// # Errors
    ///
    /// The serializer's.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    /// use idtable::storage_serde::SavedNames;
    ///
    /// #[derive(SoaAllocator)]
    /// #[soa(serde)]
    /// pub struct Point { pub x: f32, pub y: f32 }
    ///
    /// let mut s = SoaStorage::<PointId, Point>::default();
    /// s.insert(Point { x: 1.0, y: 2.0 });
    /// let names = SavedNames { storage: "Points", columns: "PointColumns" };
    /// let json = s.serialize_named(serde_json::value::Serializer, names).unwrap();
    /// assert_eq!(json["columns"]["y"], serde_json::json!([2.0]));
    /// ```
    pub fn serialize_named<S: Serializer>(
        &self,
        serializer: S,
        names: SavedNames,
    ) -> Result<S::Ok, S::Error> {
        let columns = SavedColumns::<T>::of(self.rows.column_store(), T::FIELDS, names.columns);
        let mut state = serializer.serialize_struct(names.storage, 2)?;
        state.serialize_field("table", self.table())?;
        state.serialize_field("columns", &columns)?;
        state.end()
    }

    /// Loads a storage saved by [`serialize_named`](Self::serialize_named),
    /// with `config` for its table (the configuration is not saved). What a
    /// `#[soa(serde)]` allocator's `Deserialize` calls.
    ///
    /// Every check of [`IdTable::from_parts`] runs, then each column must
    /// hold one value per live id; unknown, missing and repeated fields are
    /// errors. Nothing panics, whatever the input.
    ///
    /// # Errors
    ///
    /// The deserializer's, a [`PartsError`] as its custom error, or an error
    /// if `T`'s [`FIELDS`](SavedRecord::FIELDS) do not match its columns.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage, TableConfig};
    /// use idtable::storage_serde::SavedNames;
    ///
    /// #[derive(SoaAllocator)]
    /// #[soa(serde)]
    /// pub struct Point { pub x: f32, pub y: f32 }
    ///
    /// let json = serde_json::json!({
    ///     "table": { "slots": [1], "dense": [0], "free": [] },
    ///     "columns": { "x": [1.0], "y": [2.0] },
    /// });
    /// let s = SoaStorage::<PointId, Point>::deserialize_named(
    ///     json.clone(),
    ///     TableConfig::default(),
    ///     SavedNames::STORAGE,
    /// )
    /// .unwrap();
    /// assert_eq!(s.columns().y, &[2.0]);
    ///
    /// let mut short = json;
    /// short["columns"]["y"] = serde_json::json!([]);
    /// let err = SoaStorage::<PointId, Point>::deserialize_named(
    ///     short,
    ///     TableConfig::default(),
    ///     SavedNames::STORAGE,
    /// )
    /// .err()
    /// .unwrap();
    /// assert!(err.to_string().contains("column `y` has 0 values"));
    /// ```
    pub fn deserialize_named<'de, D: Deserializer<'de>>(
        deserializer: D,
        config: TableConfig,
        names: SavedNames,
    ) -> Result<Self, D::Error> {
        let fields = T::FIELDS;
        if fields.len() != <T::Tree as SerdeColumns>::COUNT {
            return Err(de::Error::custom(
                "the number of field names differs from the number of columns",
            ));
        }
        let visitor = StorageVisitor::<T, I> {
            config,
            fields,
            names,
            _types: PhantomData,
        };
        deserializer.deserialize_struct(names.storage, OUTER_FIELDS, visitor)
    }
}

/// Saves with [`SavedNames::STORAGE`].
impl<T: SavedRecord, I: Id> Serialize for SoaStorage<I, T>
where
    T::Tree: SerdeColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_named(serializer, SavedNames::STORAGE)
    }
}

/// Loads with the default [`TableConfig`] and [`SavedNames::STORAGE`].
impl<'de, T: SavedRecord, I: Id> de::Deserialize<'de> for SoaStorage<I, T>
where
    T::Tree: SerdeColumns,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::deserialize_named(deserializer, TableConfig::default(), SavedNames::STORAGE)
    }
}

/// The columns as a struct of one sequence per field.
///
/// Invariant: rows `0..len` at `ptrs` are initialised and not mutably
/// borrowed for `'a`.
pub(crate) struct SavedColumns<'a, T: Record> {
    ptrs: <T::Tree as ColumnTree>::Ptrs,
    len: usize,
    fields: &'static [&'static str],
    name: &'static str,
    _borrow: PhantomData<&'a ColumnBuffer<T::Tree>>,
}

impl<'a, T: Record> SavedColumns<'a, T> {
    /// The columns of `buffer`.
    pub(crate) fn of(
        buffer: &'a ColumnBuffer<T::Tree>,
        fields: &'static [&'static str],
        name: &'static str,
    ) -> Self {
        let (ptrs, len) = buffer.raw_parts();
        SavedColumns {
            ptrs,
            len,
            fields,
            name,
            _borrow: PhantomData,
        }
    }
}

impl<T: Record> Serialize for SavedColumns<'_, T>
where
    T::Tree: SerdeColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(self.name, self.fields.len())?;
        let names = &mut self.fields.iter();
        // SAFETY: the rows are initialised and shared for `'a` (invariant).
        unsafe { <T::Tree as SerdeColumns>::save(self.ptrs, self.len, names, &mut state)? };
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

struct StorageVisitor<T, I> {
    config: TableConfig,
    fields: &'static [&'static str],
    names: SavedNames,
    _types: PhantomData<fn() -> (T, I)>,
}

impl<T: Record, I: Id> StorageVisitor<T, I>
where
    T::Tree: SerdeColumns,
{
    /// The checks and the build, once both parts are read.
    fn finish<E: de::Error>(
        &self,
        table: IdTableParts,
        columns: <T::Tree as SerdeColumns>::Loaded,
    ) -> Result<SoaStorage<I, T>, E> {
        let table = IdTable::<I>::from_parts(&table, self.config).map_err(E::custom)?;
        let mut lengths = Vec::with_capacity(self.fields.len());
        <T::Tree as SerdeColumns>::lengths(&columns, &mut lengths);
        let mut named = Vec::with_capacity(lengths.len());
        for (&name, len) in self.fields.iter().zip(lengths) {
            named.push((name, len.ok_or_else(|| E::missing_field(name))?));
        }
        PartsError::check_columns(&named, table.len()).map_err(E::custom)?;
        // Every column holds `table.len()` rows (checked just above).
        let vecs = <T::Tree as SerdeColumns>::into_vecs(columns);
        let buffer = ColumnBuffer::<T::Tree>::from_vecs(vecs, table.len());
        Ok(SoaStorage::from_table_and_buffer(table, buffer))
    }
}

impl<'de, T: Record, I: Id> Visitor<'de> for StorageVisitor<T, I>
where
    T::Tree: SerdeColumns,
{
    type Value = SoaStorage<I, T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.names.storage)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let table: IdTableParts = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let columns = seq
            .next_element_seed(ColumnsSeed::<T>::new(self.fields, self.names.columns))?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        self.finish(table, columns)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut table: Option<IdTableParts> = None;
        let mut columns = None;
        while let Some(key) = map.next_key::<FieldName>()? {
            match key.0.as_str() {
                "table" if table.is_none() => table = Some(map.next_value()?),
                "columns" if columns.is_none() => {
                    columns =
                        Some(map.next_value_seed(ColumnsSeed::<T>::new(
                            self.fields,
                            self.names.columns,
                        ))?);
                }
                "table" => return Err(de::Error::duplicate_field("table")),
                "columns" => return Err(de::Error::duplicate_field("columns")),
                other => return Err(de::Error::unknown_field(other, OUTER_FIELDS)),
            }
        }
        let table = table.ok_or_else(|| de::Error::missing_field("table"))?;
        let columns = columns.ok_or_else(|| de::Error::missing_field("columns"))?;
        self.finish(table, columns)
    }
}

/// Reads the struct of columns into [`SerdeColumns::Loaded`].
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
    T::Tree: SerdeColumns,
{
    type Value = <T::Tree as SerdeColumns>::Loaded;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_struct(self.name, self.fields, self)
    }
}

impl<'de, T: Record> Visitor<'de> for ColumnsSeed<T>
where
    T::Tree: SerdeColumns,
{
    type Value = <T::Tree as SerdeColumns>::Loaded;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {} with one sequence per field", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut loaded = Default::default();
        <T::Tree as SerdeColumns>::load_from_seq(&mut loaded, &mut seq, &mut 0)?;
        Ok(loaded)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut loaded = Default::default();
        while let Some(key) = map.next_key::<FieldName>()? {
            let Some(index) = self.fields.iter().position(|f| *f == key.0) else {
                return Err(de::Error::unknown_field(&key.0, self.fields));
            };
            if !<T::Tree as SerdeColumns>::load_from_map(&mut loaded, index, &mut map)? {
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
