//! Random edit sequences on a `DataComponent`, checked against a `BTreeMap`
//! model after every step: contents, typed getters, iteration, the exact
//! `TooLarge` boundary (a set fails exactly when the documented minimum size
//! of the result exceeds `MAX_BYTES`, and then changes nothing), exact
//! `shrink_to_fit` size, and that `as_bytes()` always reloads to the same
//! bytes.

#![no_main]

use arbitrary::Arbitrary;
use idtable::data::DataComponent;
use idtable_test_kit::data::{Checked, DataOp};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Start from `with_capacity(n)` instead of `new()`.
    capacity: Option<u16>,
    ops: Vec<DataOp>,
}

fuzz_target!(|input: Input| {
    let mut c = Checked {
        dc: match input.capacity {
            Some(n) => DataComponent::with_capacity(usize::from(n)),
            None => DataComponent::new(),
        },
        ..Checked::default()
    };
    c.check();
    for op in &input.ops {
        c.apply(op);
    }
});
