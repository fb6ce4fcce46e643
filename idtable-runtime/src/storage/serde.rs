//! `Serialize`/`Deserialize` for [`SoaStorage`] (feature `serde`): what a
//! `#[soa(serde)]` allocator's `Serialize` and `Deserialize` do, written
//! once, on the column machinery every column-shaped save shares. The saved
//! form and its checks are described in [`crate::saving`].

use serde::de::{self, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::SoaStorage;
use crate::columns::serde::{
    load_column_shaped, save_column_shaped, SavedColumns, SavedIndex, SavedNames, SavedRecord,
};
use crate::id::Id;
use crate::table::{IdTable, IdTableParts, PartsError, TableConfig};

impl<T: SavedRecord, I: Id> SoaStorage<I, T>
where
    T::Tree: SavedColumns,
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
    /// use idtable::saving::SavedNames;
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
        let table = self.id_table();
        save_column_shaped::<T, S>(serializer, names, "table", table, self.column_store())
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
    /// use idtable::saving::SavedNames;
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
        let (table, buffer) = load_column_shaped::<IdTable<I>, T, D>(deserializer, config, names)?;
        Ok(SoaStorage::from_table_and_buffer(table, buffer))
    }
}

/// Saves under `T`'s names ([`SavedRecord::NAMES`]: a derived struct's
/// `FooAllocator` and `FooColumns`). Exists for a struct that opted in
/// with `#[soa(serde)]` and whose every column can be saved.
impl<T: SavedRecord, I: Id> Serialize for SoaStorage<I, T>
where
    T::Tree: SavedColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_named(serializer, T::NAMES)
    }
}

/// Loads under `T`'s names, the table in `T`'s configuration
/// ([`Record::TABLE_CONFIG`](crate::Record::TABLE_CONFIG); the configuration is not saved).
impl<'de, T: SavedRecord, I: Id> de::Deserialize<'de> for SoaStorage<I, T>
where
    T::Tree: SavedColumns,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::deserialize_named(deserializer, T::TABLE_CONFIG, T::NAMES)
    }
}

/// An allocator's rows are named by its id table, saved as its
/// [`IdTableParts`] and checked by [`IdTable::from_parts`].
impl<'de, I: Id> SavedIndex<'de> for IdTable<I> {
    const FIELDS: &'static [&'static str; 2] = &["table", "columns"];
    type Saved = IdTableParts;
    type Config = TableConfig;

    fn build<E: de::Error>(saved: IdTableParts, config: TableConfig) -> Result<Self, E> {
        IdTable::from_parts(&saved, config).map_err(E::custom)
    }

    fn rows(&self) -> usize {
        self.len()
    }

    fn column_length<E: de::Error>(&self, column: &'static str, len: usize) -> E {
        E::custom(PartsError::ColumnLength {
            column,
            len,
            expected: self.len(),
        })
    }
}
