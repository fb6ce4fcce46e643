//! Pieces shared by the data tests: owned values for models, and the
//! single-byte corruptions of a saved buffer.

#![allow(dead_code)] // each test file uses its own part

use idtable_runtime::data::Value;
use proptest::prelude::*;

/// An owned `Value`; floats compare by bits so NaN behaves.
#[derive(Clone, Debug)]
pub enum OwnedValue {
    Bool(bool),
    Float(f32),
    Int(i32),
    Str(String),
    Floats(Vec<f32>),
}

impl OwnedValue {
    pub fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::Bool(b) => Value::Bool(*b),
            OwnedValue::Float(x) => Value::Float(*x),
            OwnedValue::Int(x) => Value::Int(*x),
            OwnedValue::Str(s) => Value::Str(s),
            OwnedValue::Floats(xs) => Value::Floats(xs),
        }
    }

    pub fn matches(&self, value: Value<'_>) -> bool {
        match (self, value) {
            (OwnedValue::Bool(a), Value::Bool(b)) => *a == b,
            (OwnedValue::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (OwnedValue::Int(a), Value::Int(b)) => *a == b,
            (OwnedValue::Str(a), Value::Str(b)) => a == b,
            (OwnedValue::Floats(a), Value::Floats(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            _ => false,
        }
    }
}

/// Any value, with strings and arrays of up to `max_len` elements.
pub fn value(max_len: usize) -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        any::<bool>().prop_map(OwnedValue::Bool),
        any::<f32>().prop_map(OwnedValue::Float),
        any::<i32>().prop_map(OwnedValue::Int),
        prop::collection::vec(any::<char>(), 0..max_len)
            .prop_map(|cs| OwnedValue::Str(cs.into_iter().collect())),
        prop::collection::vec(any::<f32>(), 0..max_len).prop_map(OwnedValue::Floats),
    ]
}

/// Calls `load` on every copy of `saved` with one byte changed (to 0, 0xFF,
/// and with bits 0, 4 and 7 flipped), at every `step`-th position; returns
/// how many loaded (`Ok`) and how many were refused.
pub fn single_byte_corruptions<E>(
    saved: &[u8],
    step: usize,
    mut load: impl FnMut(&[u8]) -> Result<(), E>,
) -> (usize, usize) {
    let (mut loaded, mut rejected) = (0, 0);
    for at in (0..saved.len()).step_by(step) {
        let original = saved[at];
        for byte in [
            0x00,
            0xFF,
            original ^ 0x01,
            original ^ 0x80,
            original ^ 0x10,
        ] {
            if byte == original {
                continue;
            }
            let mut corrupt = saved.to_vec();
            corrupt[at] = byte;
            match load(&corrupt) {
                Ok(()) => loaded += 1,
                Err(_) => rejected += 1,
            }
        }
    }
    (loaded, rejected)
}
