//! Loading a `DataMap` holds memory in proportion to its input, whatever
//! the ids: the heap a load leaves behind is at most 128 times the input's
//! size plus 256 KiB (GUARANTEES.md), for `from_bytes`, and with the
//! `serde` feature for JSON (keys by hash and by name) and postcard. The inputs are hostile to a paged
//! index: one entity at the highest slot index, one entity per page for
//! several page sizes, one per 2^20 and 2^22 slot indices, some spread over the
//! whole range. Measured with a global allocator that counts the bytes
//! live on the current thread.

#[path = "support/live_heap.rs"]
mod live_heap;

use idtable_runtime::data::DataMap;
use idtable_runtime::{Id, Id24_8, Id32_32};
use live_heap::{hostile_indices, within_bound};

/// Entities per hostile map (fewer under Miri).
const N: usize = if cfg!(miri) { 12 } else { 4096 };

/// A map with one small value for each of `indices` (generation 1).
fn map_of<K: Id>(indices: &[usize], id: impl Fn(usize, u8) -> Option<K>) -> DataMap<K> {
    let mut map = DataMap::new();
    for &i in indices {
        map.set(id(i, 1).unwrap(), "a", 1).unwrap();
    }
    map
}

fn id32_32(index: usize, generation: u8) -> Option<Id32_32> {
    Id32_32::new(index, generation.into())
}

#[test]
fn from_bytes_holds_memory_in_proportion_to_its_input() {
    for (name, indices) in hostile_indices(Id32_32::MAX_INDEX, N) {
        let map = map_of(&indices, id32_32);
        let bytes = map.as_bytes().to_vec();
        let loaded = within_bound(&name, bytes.len(), || {
            DataMap::<Id32_32>::from_bytes(&bytes).unwrap()
        });
        assert_eq!(loaded.len(), indices.len());
        assert_eq!(
            loaded.get_i32(Id32_32::new(indices[0], 1).unwrap(), "a"),
            Some(1)
        );
    }
    // A narrower layout: the same holds for its highest indices.
    let max = Id24_8::MAX_INDEX;
    let indices: Vec<usize> = (0..N).map(|k| max - k * 64).collect();
    let bytes = map_of(&indices, |i, g| Id24_8::new(i, g.into()))
        .as_bytes()
        .to_vec();
    within_bound("Id24_8", bytes.len(), || {
        DataMap::<Id24_8>::from_bytes(&bytes).unwrap()
    });
}

#[cfg(feature = "serde")]
mod serde_formats {
    use super::*;
    use idtable_runtime::data::KeyNames;

    #[test]
    fn postcard_holds_memory_in_proportion_to_its_input() {
        for (name, indices) in hostile_indices(Id32_32::MAX_INDEX, N) {
            let bytes = postcard::to_allocvec(&map_of(&indices, id32_32)).unwrap();
            let loaded = within_bound(&name, bytes.len(), || {
                postcard::from_bytes::<DataMap<Id32_32>>(&bytes).unwrap()
            });
            assert_eq!(loaded.len(), indices.len());
        }
    }

    #[test]
    fn json_holds_memory_in_proportion_to_its_input() {
        for (name, indices) in hostile_indices(Id32_32::MAX_INDEX, N) {
            let text = serde_json::to_string(&map_of(&indices, id32_32)).unwrap();
            let loaded = within_bound(&name, text.len(), || {
                serde_json::from_str::<DataMap<Id32_32>>(&text).unwrap()
            });
            assert_eq!(loaded.len(), indices.len());
            // The shortest JSON of an entity: no data at all.
            let empty: String = indices
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    let bits = Id32_32::new(i, 1).unwrap().to_bits();
                    format!("{}\"{bits}\":{{}}", if k == 0 { "" } else { "," })
                })
                .collect();
            let empty = format!("{{{empty}}}");
            within_bound(&name, empty.len(), || {
                serde_json::from_str::<DataMap<Id32_32>>(&empty).unwrap()
            });
        }
    }

    #[test]
    fn json_with_key_names_holds_memory_in_proportion_to_its_input() {
        // Keys by name are the shortest key texts: one letter instead of
        // ten characters of hash, each read from its text without a copy.
        let names = KeyNames::new().with(&["a"]);
        for (name, indices) in hostile_indices(Id32_32::MAX_INDEX, N) {
            let text = serde_json::to_string(&map_of(&indices, id32_32).named(&names)).unwrap();
            assert!(text.contains(r#"{"a":1}"#), "{}", &text[..40]);
            let loaded = within_bound(&name, text.len(), || {
                serde_json::from_str::<DataMap<Id32_32>>(&text).unwrap()
            });
            assert_eq!(loaded.len(), indices.len());
        }
        // Many short names per entity: two-letter paths of one segment and
        // one-letter paths of two.
        // (Miri: fewer letters and one entity, as it is slow.)
        let last = if cfg!(miri) { 'c' } else { 'z' };
        let letters: Vec<String> = ('a'..=last).map(String::from).collect();
        let mut names = KeyNames::new();
        let mut map = DataMap::<Id24_8>::new();
        for entity in 0..if cfg!(miri) { 1 } else { 64 } {
            let id = Id24_8::new(entity * 64, 1).unwrap();
            for x in &letters {
                for y in &letters[..letters.len().min(10)] {
                    let key = names.add(&[x.as_str(), y.as_str()]);
                    map.set(id, key, true).unwrap();
                    let key = names.add(&[format!("{x}{y}").as_str()]);
                    map.set(id, key, 1).unwrap();
                }
            }
        }
        let text = serde_json::to_string(&map.named(&names)).unwrap();
        assert!(text.contains(r#""c.b":true"#));
        let loaded = within_bound("named keys", text.len(), || {
            serde_json::from_str::<DataMap<Id24_8>>(&text).unwrap()
        });
        assert_eq!(loaded, map);
    }
}
