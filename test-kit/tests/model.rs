//! Model test: random operation sequences run against a derived allocator and
//! against a plain model (a `HashMap` from id bits to value, the dense order
//! as a `Vec`, and a reference FIFO slot allocator that predicts every id).
//! The model, the operations and the runner are the test kit's
//! (`idtable_test_kit::allocator`), shared with the fuzz target
//! `allocator_ops`.
//!
//! After every operation the allocator must pass `check_invariants()` and
//! hold exactly the model's content, in the model's dense order; every id
//! ever issued or forged must resolve exactly as the model says.
//!
//! Configurations: the default layout (`Id32_32`), `Id24_8` with `min_free`,
//! `Id16_16` with `wrap` (the three of the contract), plus layouts with tiny
//! generation or index spaces so that retirement, wrapping and a full table
//! happen within a few hundred operations, and one (`Id32<5>`) whose tables
//! cross the size where the free list's links leave the vacant slots.

use idtable_test_kit::allocator::strategy::ops;
use idtable_test_kit::allocator::{
    every_operation, model_of, run, val, DefaultRecAllocator, HalfRecAllocator,
    LinkLineRecAllocator, OneGenRecAllocator, ShortRecAllocator, ThreeIndexRecAllocator,
    TinyGenRetireRecAllocator, TinyGenWrapRecAllocator, TinyIndexRecAllocator,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const CASES: u32 = if cfg!(miri) { 4 } else { 64 };
const MAX_OPS: usize = if cfg!(miri) { 24 } else { 200 };

fn config() -> Config {
    Config {
        cases: CASES,
        failure_persistence: None,
        rng_seed: if cfg!(miri) {
            RngSeed::Fixed(0x1d7ab1e)
        } else {
            RngSeed::Random
        },
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn model_default_layout(ops in ops(MAX_OPS)) {
        run::<DefaultRecAllocator>(&ops);
    }

    #[test]
    fn model_id24_8_with_min_free(ops in ops(MAX_OPS)) {
        run::<ShortRecAllocator>(&ops);
    }

    #[test]
    fn model_id16_16_wrap(ops in ops(MAX_OPS)) {
        run::<HalfRecAllocator>(&ops);
    }

    #[test]
    fn model_two_generation_bits_wrap(ops in ops(MAX_OPS)) {
        run::<TinyGenWrapRecAllocator>(&ops);
    }

    #[test]
    fn model_three_generation_bits_retire(ops in ops(MAX_OPS)) {
        run::<TinyGenRetireRecAllocator>(&ops);
    }

    #[test]
    fn model_seven_indices_fill_up(ops in ops(MAX_OPS)) {
        run::<TinyIndexRecAllocator>(&ops);
    }

    #[test]
    fn model_free_list_links_move_out_of_the_slots(ops in ops(MAX_OPS)) {
        run::<LinkLineRecAllocator>(&ops);
    }

    #[test]
    fn model_three_indices_reused_only_when_full(ops in ops(MAX_OPS)) {
        run::<ThreeIndexRecAllocator>(&ops);
    }

    #[test]
    fn model_one_generation_retires_at_once(ops in ops(MAX_OPS)) {
        run::<OneGenRecAllocator>(&ops);
    }
}

/// The model itself must be able to fail: a wrong prediction is caught.
#[test]
#[should_panic(expected = "predicts")]
fn the_model_rejects_a_wrong_id() {
    let mut m = model_of::<DefaultRecAllocator>();
    m.insert(1 << 32, val(0));
    m.insert(1 << 32, val(1)); // the second fresh id has index 1
}

/// A fixed sequence touching every operation, so a plain `cargo test` run
/// covers them all even when proptest draws few of some.
#[test]
fn model_every_operation_once_per_configuration() {
    let ops = every_operation();
    run::<DefaultRecAllocator>(&ops);
    run::<ShortRecAllocator>(&ops);
    run::<HalfRecAllocator>(&ops);
    run::<TinyGenWrapRecAllocator>(&ops);
    run::<TinyGenRetireRecAllocator>(&ops);
    run::<TinyIndexRecAllocator>(&ops);
    run::<LinkLineRecAllocator>(&ops);
    run::<ThreeIndexRecAllocator>(&ops);
    run::<OneGenRecAllocator>(&ops);
}
