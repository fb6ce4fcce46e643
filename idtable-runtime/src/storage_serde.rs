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
//! let mut points = SoaStorage::<Point, PointId>::default();
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
//! let secrets = SoaStorage::<Secret, SecretId>::default();
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

use crate::columns::{Col, ColumnBuffer, ColumnTree};
use crate::id::Id;
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

    /// Writes each column as a field named by the next of `names`.
    #[doc(hidden)]
    fn save<S: SerializeStruct>(
        slices: &Self::Slices<'_>,
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

    fn save<S: SerializeStruct>(
        slice: &&[T],
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        let name = names.next().copied().ok_or_else(|| {
            ser::Error::custom("fewer field names than columns (a SavedRecord impl's FIELDS)")
        })?;
        state.serialize_field(name, slice)
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

    fn save<S: SerializeStruct>(
        (left, right): &Self::Slices<'_>,
        names: &mut core::slice::Iter<'_, &'static str>,
        state: &mut S,
    ) -> Result<(), S::Error> {
        L::save(left, names, state)?;
        R::save(right, names, state)
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

    fn save<S: SerializeStruct>(
        (): &(),
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
        storage: &SoaStorage<Self, I>,
        serializer: S,
        names: SavedNames,
    ) -> Result<S::Ok, S::Error>;
    /// [`SoaStorage::deserialize_named`].
    fn load<'de, D: Deserializer<'de>>(
        deserializer: D,
        config: TableConfig,
        names: SavedNames,
    ) -> Result<SoaStorage<Self, I>, D::Error>;
}

impl<T: SavedRecord, I: Id> SaveStorage<I> for T
where
    T::Tree: SerdeColumns,
{
    fn save<S: Serializer>(
        storage: &SoaStorage<T, I>,
        serializer: S,
        names: SavedNames,
    ) -> Result<S::Ok, S::Error> {
        storage.serialize_named(serializer, names)
    }
    fn load<'de, D: Deserializer<'de>>(
        deserializer: D,
        config: TableConfig,
        names: SavedNames,
    ) -> Result<SoaStorage<T, I>, D::Error> {
        SoaStorage::deserialize_named(deserializer, config, names)
    }
}

const OUTER_FIELDS: &[&str] = &["table", "columns"];

impl<T: SavedRecord, I: Id> SoaStorage<T, I>
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
    /// let mut s = SoaStorage::<Point, PointId>::default();
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
        let fields = T::FIELDS;
        let columns = SavedColumns::<T> {
            slices: self.rows.column_slices(),
            fields,
            name: names.columns,
        };
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
    /// let s = SoaStorage::<Point, PointId>::deserialize_named(
    ///     json.clone(),
    ///     TableConfig::default(),
    ///     SavedNames::STORAGE,
    /// )
    /// .unwrap();
    /// assert_eq!(s.columns().y, &[2.0]);
    ///
    /// let mut short = json;
    /// short["columns"]["y"] = serde_json::json!([]);
    /// let err = SoaStorage::<Point, PointId>::deserialize_named(
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
impl<T: SavedRecord, I: Id> Serialize for SoaStorage<T, I>
where
    T::Tree: SerdeColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_named(serializer, SavedNames::STORAGE)
    }
}

/// Loads with the default [`TableConfig`] and [`SavedNames::STORAGE`].
impl<'de, T: SavedRecord, I: Id> de::Deserialize<'de> for SoaStorage<T, I>
where
    T::Tree: SerdeColumns,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::deserialize_named(deserializer, TableConfig::default(), SavedNames::STORAGE)
    }
}

/// The columns as a struct of one sequence per field.
pub(crate) struct SavedColumns<'a, T: Record + 'a> {
    pub(crate) slices: <T::Tree as ColumnTree>::Slices<'a>,
    pub(crate) fields: &'static [&'static str],
    pub(crate) name: &'static str,
}

impl<'a, T: Record + 'a> Serialize for SavedColumns<'a, T>
where
    T::Tree: SerdeColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(self.name, self.fields.len())?;
        <T::Tree as SerdeColumns>::save(&self.slices, &mut self.fields.iter(), &mut state)?;
        state.end()
    }
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
    ) -> Result<SoaStorage<T, I>, E> {
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
    type Value = SoaStorage<T, I>;

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
