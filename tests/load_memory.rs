//! Loading a `SoaMap` or a derived allocator holds memory in proportion to
//! its input, whatever the ids: the heap a load leaves behind is at most
//! 128 times the input's size plus 256 KiB (GUARANTEES.md), with JSON and
//! postcard. The `SoaMap` inputs are hostile to a paged index (one key per
//! page for several page sizes, one per 2^20 and 2^22 slot indices, keys
//! spread over the whole range, the highest index alone), with a component
//! of no fields, so a key is all its entry's input; the allocator inputs
//! are long free lists and full tables. Measured with a global allocator
//! that counts the bytes live on the current thread (the load of the
//! `DataMap` is checked the same way in `idtable-runtime/tests`).
#![cfg(feature = "serde")]

#[path = "../idtable-runtime/tests/support/live_heap.rs"]
mod live_heap;

use idtable::{Id, Id24_8, Id32_32, SoaAllocator, SoaMap};
use live_heap::{hostile_indices, within_bound};

/// No fields: a key is all the input of its entry.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Marker {}

/// One byte per row.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id24_8)]
pub struct Small {
    pub v: u8,
}

/// A field of 128 bytes in memory and one byte of postcard as `None`:
/// the largest ratio of memory to input the bound allows.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Wide {
    pub v: Option<[u32; 31]>,
}

const _: () = assert!(std::mem::size_of::<Option<[u32; 31]>>() == 128);

/// Keys per hostile map (fewer under Miri).
const N: usize = if cfg!(miri) { 12 } else { 32_768 };

fn soa_map_loads_hold_the_bound<K>(id: impl Fn(usize) -> K)
where
    K: Id + serde::Serialize + serde::de::DeserializeOwned,
{
    for (name, mut indices) in hostile_indices(K::MAX_INDEX, N) {
        indices.dedup();
        let mut map = SoaMap::<K, Marker>::new();
        for &i in &indices {
            map.insert(id(i), Marker {});
        }
        let bytes = postcard::to_allocvec(&map).unwrap();
        let loaded = within_bound(&format!("postcard, {name}"), bytes.len(), || {
            postcard::from_bytes::<SoaMap<K, Marker>>(&bytes).unwrap()
        });
        assert_eq!(loaded.len(), indices.len());
        assert!(loaded.contains_key(id(indices[0])));
        let text = serde_json::to_string(&map).unwrap();
        let loaded = within_bound(&format!("JSON, {name}"), text.len(), || {
            serde_json::from_str::<SoaMap<K, Marker>>(&text).unwrap()
        });
        assert_eq!(loaded.len(), indices.len());
    }
}

#[test]
fn soa_map_loads_hold_memory_in_proportion_to_their_input() {
    soa_map_loads_hold_the_bound(|i| Id32_32::new(i, 1).unwrap());
    soa_map_loads_hold_the_bound(|i| Id24_8::new(i, 1).unwrap());
}

#[test]
fn allocator_loads_hold_memory_in_proportion_to_their_input() {
    // Full tables, and tables of one live row and a long free list.
    for live in [N, 1] {
        let mut markers = MarkerAllocator::new();
        let mut small = SmallAllocator::new();
        let ids: Vec<_> = (0..N).map(|_| markers.insert(Marker {})).collect();
        let small_ids: Vec<_> = (0..N).map(|k| small.insert(Small { v: k as u8 })).collect();
        for (&a, &b) in ids.iter().zip(&small_ids).skip(live) {
            markers.remove(a);
            small.remove(b);
        }
        let bytes = postcard::to_allocvec(&markers).unwrap();
        within_bound("postcard, Marker", bytes.len(), || {
            postcard::from_bytes::<MarkerAllocator>(&bytes).unwrap()
        });
        let text = serde_json::to_string(&markers).unwrap();
        within_bound("JSON, Marker", text.len(), || {
            serde_json::from_str::<MarkerAllocator>(&text).unwrap()
        });
        let bytes = postcard::to_allocvec(&small).unwrap();
        let loaded = within_bound("postcard, Small", bytes.len(), || {
            postcard::from_bytes::<SmallAllocator>(&bytes).unwrap()
        });
        assert_eq!(loaded.len(), live);
        let text = serde_json::to_string(&small).unwrap();
        within_bound("JSON, Small", text.len(), || {
            serde_json::from_str::<SmallAllocator>(&text).unwrap()
        });
    }
}

#[test]
fn a_field_at_the_bounds_limit_loads_within_it() {
    let mut wide = WideAllocator::new();
    for _ in 0..N {
        wide.insert(Wide { v: None });
    }
    let bytes = postcard::to_allocvec(&wide).unwrap();
    let loaded = within_bound("postcard, 128-byte Nones", bytes.len(), || {
        postcard::from_bytes::<WideAllocator>(&bytes).unwrap()
    });
    assert_eq!(loaded.len(), N);
}
