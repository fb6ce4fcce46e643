//! Loading a `DataMap` holds memory in proportion to its input, whatever
//! the ids: the heap a load leaves behind is at most 128 times the input's
//! size plus 256 KiB (GUARANTEES.md), for `from_bytes`, and with the
//! `serde` feature for JSON and postcard. The inputs are hostile to a paged
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
}
