//! `Serialize`/`Deserialize` for [`SoaMap`] (feature `serde`), on the
//! column machinery every column-shaped save shares.
//!
//! The saved form is `{ keys: [..], columns: { field: [..], .. } }`: the
//! keys in dense order and one sequence per field. Like an allocator's, it
//! exists only for structs that opted in with `#[soa(serde)]`
//! ([`SavedRecord`]); for any other `T` neither direction compiles.
//! Loading checks that no two keys share a slot index and that each column
//! holds one value per key, and builds the map without a struct per row.

use alloc::format;
use alloc::vec::Vec;

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::sparse::{SparseSet, Standing, MAX_LEN};
use super::SoaMap;
use crate::columns::serde::{
    load_column_shaped, save_column_shaped, SavedColumns, SavedIndex, SavedNames, SavedRecord,
};
use crate::id::Id;
use crate::rows::Rows;

/// The names a map's saved form gives it and its columns.
const NAMES: SavedNames = SavedNames {
    storage: "SoaMap",
    columns: SavedNames::STORAGE.columns,
};

/// Saves `{ keys, columns }`.
impl<K: Id + Serialize, T: SavedRecord> Serialize for SoaMap<K, T>
where
    T::Tree: SavedColumns,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let keys = self.keys();
        save_column_shaped::<T, S>(serializer, NAMES, "keys", &keys, self.column_store())
    }
}

/// Loads what [`Serialize`] saved, checking it: one value per key in every
/// column, no two keys of one slot index, no unknown, missing or repeated
/// field. Nothing panics, whatever the input. The sparse index takes at
/// most one 256-byte page (and its share of the page table, or an ordered
/// map's entry) per key loaded.
impl<'de, K: Id + Deserialize<'de>, T: SavedRecord> Deserialize<'de> for SoaMap<K, T>
where
    T::Tree: SavedColumns,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (sparse, buffer) = load_column_shaped::<SparseSet<K>, T, D>(deserializer, (), NAMES)?;
        Ok(Rows::from_parts(sparse, buffer))
    }
}

/// A map's rows are named by its keys, saved in dense order; no two may
/// share a slot index.
impl<'de, K: Id + Deserialize<'de>> SavedIndex<'de> for SparseSet<K> {
    const FIELDS: &'static [&'static str; 2] = &["keys", "columns"];
    type Saved = Vec<K>;
    type Config = ();

    fn build<E: de::Error>(keys: Vec<K>, (): ()) -> Result<Self, E> {
        if keys.len() > MAX_LEN {
            return Err(E::custom(format!(
                "{} keys, but a SoaMap holds at most {MAX_LEN}",
                keys.len()
            )));
        }
        let mut sparse = SparseSet::new();
        sparse.reserve(keys.len());
        for key in keys {
            match sparse.standing(key) {
                Standing::Vacant => {
                    sparse.push(key);
                }
                Standing::Same(_) => return Err(E::custom(format!("key {key:?} appears twice"))),
                Standing::Stale(d) | Standing::Newer(d) => {
                    return Err(E::custom(format!(
                        "keys {:?} and {key:?} share slot index {}",
                        sparse.keys()[d],
                        key.index()
                    )))
                }
            }
        }
        Ok(sparse)
    }

    fn rows(&self) -> usize {
        self.keys().len()
    }

    fn column_length<E: de::Error>(&self, column: &'static str, len: usize) -> E {
        E::custom(format!(
            "column `{column}` has {len} values, but the map has {} keys",
            self.keys().len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{Col, ColumnTree};
    use crate::id::Id24_8;
    use crate::storage::{Record, RecordToken};

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
