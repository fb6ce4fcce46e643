//! Random edit sequences on a `SoaMap` keyed by the ids of a real allocator
//! (slots are reused, so stale keys come up), checked against the test
//! kit's model after every step, with `check_invariants()` after every step:
//! insert, try_insert, remove, get, get_mut, get_disjoint_mut, retain,
//! sorts, drain, clear, extend, columns, clone, into_iter and a serde
//! round trip, with live, stale (older and newer generation) and forged
//! keys.
//!
//! The first input byte picks the keys' layout: `Id32_32`, `Id24_8`, or
//! `Id32<4>` (15 slots, reused all the time).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use idtable_test_kit::soa_map::{run, Op, ShortAllocator, TinyAllocator, WideAllocator};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    match which % 3 {
        0 => run::<WideAllocator>(&ops, 1),
        1 => run::<ShortAllocator>(&ops, 1),
        _ => run::<TinyAllocator>(&ops, 1),
    }
});
