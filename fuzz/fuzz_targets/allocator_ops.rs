//! Random operation sequences on derived allocators, compared with the test
//! kit's model (`idtable_test_kit::allocator`): a `HashMap` from id bits to
//! value, the dense order as a `Vec`, and a reference FIFO slot allocator
//! (with `min_free` and the exhaustion policy) that predicts every id
//! issued. Ids are picked live, stale, nudged, or forged from raw bits.
//! After every operation the allocator passes `check_invariants()` and holds
//! exactly the model; under `retire` no id is ever issued twice.
//!
//! The first input byte picks one of the kit's configurations, chosen so
//! that retirement, wrapping, a full table and a free list whose links move
//! out of the vacant slots happen within a few operations. The records have
//! an over-aligned column and a zero-sized one.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use idtable_test_kit::allocator::{
    run, DefaultRecAllocator, HalfRecAllocator, LinkLineRecAllocator, OneGenRecAllocator, Op,
    ShortRecAllocator, ThreeIndexRecAllocator, TinyGenRetireRecAllocator, TinyGenWrapRecAllocator,
    TinyIndexRecAllocator,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    match which % 9 {
        0 => run::<DefaultRecAllocator>(&ops),
        1 => run::<TinyGenWrapRecAllocator>(&ops),
        2 => run::<TinyGenRetireRecAllocator>(&ops),
        3 => run::<ThreeIndexRecAllocator>(&ops),
        4 => run::<TinyIndexRecAllocator>(&ops),
        5 => run::<ShortRecAllocator>(&ops),
        6 => run::<OneGenRecAllocator>(&ops),
        7 => run::<LinkLineRecAllocator>(&ops),
        _ => run::<HalfRecAllocator>(&ops),
    }
});
