//! Random edit sequences on a `DataMap` keyed by the ids of a real
//! `IdTable` (slots are reused, so stale ids come up), checked against a
//! model after every step: every id's data through every getter, stale ids
//! finding nothing, the exact `TooLarge` boundary of an entity, `StaleId`
//! for writes with an older id, and that `as_bytes()` always reloads to the
//! same bytes.

#![no_main]

use idtable_test_kit::data_map::{CheckedMap, MapOp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|ops: Vec<MapOp>| {
    let mut c = CheckedMap::default();
    c.check();
    for op in &ops {
        c.apply(op);
    }
});
