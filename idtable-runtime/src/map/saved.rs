//! Saving and loading a [`SoaMap`] (feature `serde`), on the column
//! machinery of [`storage_serde`](crate::storage_serde).
//!
//! The saved form is `{ keys: [..], columns: { field: [..], .. } }`: the
//! keys in dense order and one sequence per field. Like an allocator's, it
//! exists only for structs that opted in with `#[soa(serde)]`
//! ([`SavedRecord`]); for any other `T` neither direction compiles.
//! Loading checks that each column holds one value per key and that no two
//! keys share a slot index, and builds the map without a struct per row.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::sparse::{Slot, SparseSet, MAX_LEN};
use super::SoaMap;
use crate::columns::ColumnBuffer;
use crate::id::Id;
use crate::rows::Rows;
use crate::storage::Record;
use crate::storage_serde::{
    ColumnsSeed, FieldName, SavedColumns, SavedNames, SavedRecord, SerdeColumns,
};

const NAME: &str = "SoaMap";
const FIELDS: &[&str] = &["keys", "columns"];

/// Saves `{ keys, columns }`.
impl<K: Id + Serialize, T: SavedRecord> Serialize for SoaMap<K, T>
where
    T::Tree: SerdeColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = T::FIELDS;
        let columns = SavedColumns::<T>::of(
            self.rows.column_store(),
            fields,
            SavedNames::STORAGE.columns,
        );
        let mut state = serializer.serialize_struct(NAME, 2)?;
        state.serialize_field("keys", self.rows.keys())?;
        state.serialize_field("columns", &columns)?;
        state.end()
    }
}

/// Loads what [`Serialize`] saved, checking it: one value per key in every
/// column, no two keys of one slot index, no unknown, missing or repeated
/// field. Nothing panics, whatever
/// the input. The sparse index takes at most one 256-byte page (and its
/// share of the page table, or an ordered map's entry) per key loaded.
impl<'de, K: Id + Deserialize<'de>, T: SavedRecord> Deserialize<'de> for SoaMap<K, T>
where
    T::Tree: SerdeColumns,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = T::FIELDS;
        if fields.len() != <T::Tree as SerdeColumns>::COUNT {
            return Err(de::Error::custom(
                "the number of field names differs from the number of columns",
            ));
        }
        let visitor = MapVisitor::<K, T> {
            fields,
            _types: PhantomData,
        };
        deserializer.deserialize_struct(NAME, FIELDS, visitor)
    }
}

struct MapVisitor<K, T> {
    fields: &'static [&'static str],
    _types: PhantomData<fn() -> (K, T)>,
}

impl<K: Id, T: Record> MapVisitor<K, T>
where
    T::Tree: SerdeColumns,
{
    fn seed(&self) -> ColumnsSeed<T> {
        ColumnsSeed::new(self.fields, SavedNames::STORAGE.columns)
    }

    /// The checks and the build, once both parts are read.
    fn finish<E: de::Error>(
        &self,
        keys: Vec<K>,
        columns: <T::Tree as SerdeColumns>::Loaded,
    ) -> Result<SoaMap<K, T>, E> {
        let mut lengths = Vec::with_capacity(self.fields.len());
        <T::Tree as SerdeColumns>::lengths(&columns, &mut lengths);
        for (&name, len) in self.fields.iter().zip(lengths) {
            let len = len.ok_or_else(|| E::missing_field(name))?;
            if len != keys.len() {
                return Err(E::custom(format!(
                    "column `{name}` has {len} values, but the map has {} keys",
                    keys.len()
                )));
            }
        }
        if keys.len() > MAX_LEN {
            return Err(E::custom(format!(
                "{} keys, but a SoaMap holds at most {MAX_LEN}",
                keys.len()
            )));
        }
        let mut sparse = SparseSet::new();
        sparse.reserve(keys.len());
        for key in keys {
            match sparse.slot(key) {
                Slot::Vacant => {
                    sparse.push(key);
                }
                Slot::Same(_) => return Err(E::custom(format!("key {key:?} appears twice"))),
                Slot::Stale(d) | Slot::Newer(d) => {
                    return Err(E::custom(format!(
                        "keys {:?} and {key:?} share slot index {}",
                        sparse.keys()[d],
                        key.index()
                    )))
                }
            }
        }
        // Every column holds one value per key (checked above), and every
        // key is in the index now.
        let vecs = <T::Tree as SerdeColumns>::into_vecs(columns);
        let buffer = ColumnBuffer::<T::Tree>::from_vecs(vecs, sparse.keys().len());
        Ok(SoaMap {
            rows: Rows::from_parts(sparse, buffer),
        })
    }
}

impl<'de, K: Id + Deserialize<'de>, T: Record> Visitor<'de> for MapVisitor<K, T>
where
    T::Tree: SerdeColumns,
{
    type Value = SoaMap<K, T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {NAME}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let keys: Vec<K> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let columns = seq
            .next_element_seed(self.seed())?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        self.finish(keys, columns)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys: Option<Vec<K>> = None;
        let mut columns = None;
        while let Some(name) = map.next_key::<FieldName>()? {
            match name.0.as_str() {
                "keys" if keys.is_none() => keys = Some(map.next_value()?),
                "columns" if columns.is_none() => {
                    columns = Some(map.next_value_seed(self.seed())?);
                }
                "keys" => return Err(de::Error::duplicate_field("keys")),
                "columns" => return Err(de::Error::duplicate_field("columns")),
                other => return Err(de::Error::unknown_field(other, FIELDS)),
            }
        }
        let keys = keys.ok_or_else(|| de::Error::missing_field("keys"))?;
        let columns = columns.ok_or_else(|| de::Error::missing_field("columns"))?;
        self.finish(keys, columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{Col, ColumnTree};
    use crate::id::Id24_8;
    use crate::storage::RecordToken;

    /// A hand-written record that opted in (`SavedRecord`).
    struct Hp(u32);

    impl Record for Hp {
        type Tree = Col<u32>;
        type Values = u32;
        type Ref<'a> = &'a u32;
        type Mut<'a> = &'a mut u32;
        type Columns<'a> = &'a [u32];
        type ColumnsMut<'a> = &'a mut [u32];

        fn into_values(self, _: RecordToken<Self>) -> u32 {
            self.0
        }
        fn from_values(hp: u32, _: RecordToken<Self>) -> Self {
            Hp(hp)
        }
        fn make_ref<'a>(r: <Self::Tree as ColumnTree>::Refs<'a>, _: RecordToken<Self>) -> &'a u32 {
            r
        }
        fn make_mut<'a>(
            m: <Self::Tree as ColumnTree>::Muts<'a>,
            _: RecordToken<Self>,
        ) -> &'a mut u32 {
            m
        }
        fn make_columns<'a>(
            s: <Self::Tree as ColumnTree>::Slices<'a>,
            _: RecordToken<Self>,
        ) -> &'a [u32] {
            s
        }
        fn make_columns_mut<'a>(
            s: <Self::Tree as ColumnTree>::SlicesMut<'a>,
            _: RecordToken<Self>,
        ) -> &'a mut [u32] {
            s
        }
        fn shared_columns<'b, 'a: 'b>(c: &'b &'a mut [u32]) -> &'b [u32] {
            c
        }
        fn reborrow_columns<'b, 'a: 'b>(c: &'b mut &'a mut [u32]) -> &'b mut [u32] {
            c
        }
    }

    impl SavedRecord for Hp {
        const FIELDS: &'static [&'static str] = &["hp"];
    }

    type Map = SoaMap<Id24_8, Hp>;

    fn key(index: usize, generation: u32) -> Id24_8 {
        Id24_8::new(index, generation).unwrap()
    }

    fn load(text: &str) -> Result<Map, alloc::string::String> {
        serde_json::from_str(text).map_err(|e| alloc::string::ToString::to_string(&e))
    }

    #[test]
    fn saves_keys_and_columns_and_loads_them_back() {
        let mut map = Map::new();
        map.insert(key(3, 2), Hp(30));
        map.insert(key(9000, 1), Hp(90));
        let text = serde_json::to_string(&map).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"keys":[{},{}],"columns":{{"hp":[30,90]}}}}"#,
                key(3, 2).to_bits(),
                key(9000, 1).to_bits()
            )
        );
        let back = load(&text).unwrap();
        back.check_invariants();
        assert_eq!(back.keys(), map.keys());
        assert_eq!(back.get(key(9000, 1)), Some(&90));
        assert_eq!(back.get(key(3, 1)), None);
        let postcard = postcard::to_allocvec(&map).unwrap();
        let back: Map = postcard::from_bytes(&postcard).unwrap();
        assert_eq!(back.columns(), &[30, 90]);
    }

    #[test]
    fn loading_rejects_what_a_map_cannot_hold() {
        let k = |i, g| key(i, g).to_bits();
        let cases = [
            (
                format!(r#"{{"keys":[{}],"columns":{{"hp":[1,2]}}}}"#, k(1, 1)),
                "column `hp` has 2 values, but the map has 1 keys",
            ),
            (
                format!(
                    r#"{{"keys":[{},{}],"columns":{{"hp":[1,2]}}}}"#,
                    k(1, 1),
                    k(1, 1)
                ),
                "appears twice",
            ),
            (
                format!(
                    r#"{{"keys":[{},{}],"columns":{{"hp":[1,2]}}}}"#,
                    k(1, 1),
                    k(1, 4)
                ),
                "share slot index 1",
            ),
            (r#"{"keys":[0],"columns":{"hp":[1]}}"#.into(), "generation"),
            (r#"{"keys":[],"columns":{}}"#.into(), "missing field `hp`"),
            (r#"{"keys":[]}"#.into(), "missing field `columns`"),
            (
                r#"{"keys":[],"keys":[],"columns":{"hp":[]}}"#.into(),
                "duplicate field `keys`",
            ),
            (
                r#"{"keys":[],"columns":{"hp":[],"hp":[]}}"#.into(),
                "duplicate field `hp`",
            ),
            (
                r#"{"keys":[],"columns":{"mp":[]}}"#.into(),
                "unknown field `mp`",
            ),
            (r#"{"keys":[],"rows":1}"#.into(), "unknown field `rows`"),
        ];
        for (text, want) in cases {
            let err = load(&text).err().unwrap_or_else(|| panic!("{text} loaded"));
            assert!(err.contains(want), "{text}: {err}");
        }
        // A key of the highest index costs a page and the flat page
        // directory (128 KiB at most), not an index-long array (64 MiB).
        let far = k(Id24_8::MAX_INDEX, 1);
        let map = load(&format!(r#"{{"keys":[{far}],"columns":{{"hp":[5]}}}}"#)).unwrap();
        assert!(map.index_bytes() <= 128 * 1024 + 4096 + 256);
        map.check_invariants();
    }
}
