//! `DataMap::from_bytes` on hostile input: raw bytes (for 32-bit and 64-bit
//! ids), or a valid saved map with some bytes overwritten and its length cut
//! or padded. It must return an error or a map that reads back everything
//! without panicking, saves to the same bytes, and can then be edited and
//! saved again.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use idtable::data::{DataError, DataMap, Key, MAX_BYTES};
use idtable::{Id, Id24_8, Id32_32};
use idtable_test_kit::data_map::{assert_same_contents, read_map, CheckedMap, MapOp};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Corrupted {
    /// Edits that build the valid map.
    build: Vec<MapOp>,
    /// Squeeze the holes out before saving.
    shrink: bool,
    /// (byte position, new value), positions taken modulo the length.
    pokes: Vec<(u16, u8)>,
    /// Cut (negative) or zero-pad (positive) the length by this many bytes.
    resize: i8,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            if let Ok(map) = DataMap::<Id24_8>::from_bytes(rest) {
                accept(map, rest);
            }
        }
        1 => {
            if let Ok(map) = DataMap::<Id32_32>::from_bytes(rest) {
                accept(map, rest);
            }
        }
        _ => {
            let Ok(input) = Corrupted::arbitrary_take_rest(Unstructured::new(rest)) else {
                return;
            };
            let mut built = CheckedMap::default();
            for op in &input.build {
                built.apply(op);
            }
            if input.shrink {
                built.map.shrink_to_fit();
            }
            let mut bytes = built.map.as_bytes().to_vec();
            for &(pos, value) in &input.pokes {
                let at = usize::from(pos) % bytes.len();
                bytes[at] = value;
            }
            let new_len = bytes.len() as isize + input.resize as isize;
            bytes.resize(new_len.max(0) as usize, 0);
            if let Ok(map) = DataMap::<Id24_8>::from_bytes(&bytes) {
                accept(map, &bytes);
            }
        }
    }
});

/// What must hold for any map `from_bytes` accepts.
fn accept<K: Id>(map: DataMap<K>, bytes: &[u8]) {
    assert_eq!(
        map.as_bytes(),
        bytes,
        "a loaded map saves to the same bytes"
    );
    read_map(&map);
    // Every entity can be edited, removed, and the result saved again.
    let mut edited = map.clone();
    let ids: Vec<K> = edited.ids().to_vec();
    for (n, &id) in ids.iter().enumerate() {
        // Bytes the entity's data takes before the edit: a `set` may fail
        // only with `TooLarge`, and only for an entity near the size limit.
        let size = edited.entity(id).unwrap().as_bytes().len();
        let fits = |result: Result<(), DataError>| match result {
            Ok(()) => {}
            Err(DataError::TooLarge { .. }) => assert!(
                size + 64 > MAX_BYTES,
                "set refused as too large an entity of {size} bytes"
            ),
            Err(other) => panic!("set failed with {other:?}"),
        };
        match n % 4 {
            0 => fits(edited.set(id, "edited", "a longer value than most")),
            1 => assert!(edited.remove(id)),
            2 => {
                let first = edited.entity(id).unwrap().iter().next().map(|(k, _)| k);
                if let Some(key) = first {
                    assert!(edited.remove_key(id, key));
                }
            }
            _ => fits(edited.set(id, Key::new("xs"), &[1.0_f32; 5])),
        }
    }
    let again = DataMap::<K>::from_bytes(edited.as_bytes()).expect("edited map reloads");
    assert_eq!(again.as_bytes(), edited.as_bytes());
    read_map(&again);
    edited.shrink_to_fit();
    assert_same_contents(
        &DataMap::<K>::from_bytes(edited.as_bytes()).unwrap(),
        &again,
    );
}
