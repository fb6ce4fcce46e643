//! `DataComponent::from_bytes` on hostile input: raw bytes, or a valid saved
//! component with some bytes overwritten and its length cut or padded. It must
//! return an error or a component that reads back everything without panicking,
//! saves to the same bytes, and can then be edited and saved again (checked
//! against a model).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use idtable::data::{DataComponent, Key};
use idtable_test_kit::data::{read_everything, Checked, DataOp, KeySel, ValueIn};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Corrupted {
    /// Edits that build the valid component.
    build: Vec<DataOp>,
    /// Save it at its full capacity instead of after `shrink_to_fit`.
    keep_free_space: bool,
    /// (byte position, new value), positions taken modulo the length.
    pokes: Vec<(u16, u8)>,
    /// Cut (negative) or zero-pad (positive) the length by this many bytes.
    resize: i8,
    /// Edits applied after a successful load.
    after: Vec<DataOp>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        // Raw bytes.
        if let Ok(dc) = DataComponent::from_bytes(rest) {
            accept(dc, rest, &default_edits(rest));
        }
        return;
    }
    let Ok(input) = Corrupted::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let mut built = Checked::default();
    for op in &input.build {
        built.apply(op);
    }
    if !input.keep_free_space {
        built.dc.shrink_to_fit();
    }
    let mut bytes = built.dc.as_bytes().to_vec();
    if !bytes.is_empty() {
        for &(pos, value) in &input.pokes {
            let at = usize::from(pos) % bytes.len();
            bytes[at] = value;
        }
    }
    let new_len = bytes.len() as isize + input.resize as isize;
    bytes.resize(new_len.max(0) as usize, 0);
    if let Ok(dc) = DataComponent::from_bytes(&bytes) {
        accept(dc, &bytes, &input.after);
    }
});

/// What must hold for any component `from_bytes` accepts.
fn accept(dc: DataComponent, bytes: &[u8], edits: &[DataOp]) {
    // Version 1 loads as version 2: byte 0 is the only byte that changes.
    let mut expected = bytes.to_vec();
    if expected[0] == 1 {
        expected[0] = 2;
    }
    assert_eq!(
        dc.as_bytes(),
        &expected[..],
        "a loaded component saves to the same bytes"
    );
    read_everything(&dc);
    // Everything in it can be read back and edited; the model starts from
    // what it reads.
    let mut c = Checked::from_loaded(dc);
    let keys: Vec<u32> = c.model.keys().copied().collect();
    for hash in keys.iter().step_by(3) {
        assert!(c.dc.contains(Key::from_hash(*hash)));
        c.apply(&DataOp::Remove(KeySel::Hash(*hash)));
    }
    for op in edits {
        c.apply(op);
    }
    for hash in keys.iter().skip(1).step_by(3) {
        c.apply(&DataOp::Set(
            KeySel::Hash(*hash),
            ValueIn::Str("edited".into()),
        ));
    }
    c.apply(&DataOp::Set(
        KeySel::Pool(0),
        ValueIn::Floats(vec![1, 2, 3]),
    ));
    c.apply(&DataOp::ShrinkToFit);
    c.apply(&DataOp::Reload);
}

/// A fixed edit script for raw inputs, varied by the input's length.
fn default_edits(bytes: &[u8]) -> Vec<DataOp> {
    let n = bytes.len() as u8;
    vec![
        DataOp::Set(KeySel::Pool(n), ValueIn::Bool(true)),
        DataOp::Set(
            KeySel::Pool(n.wrapping_add(1)),
            ValueIn::Str("x".repeat(usize::from(n % 9))),
        ),
        DataOp::Set(
            KeySel::Pool(n),
            ValueIn::Floats(vec![0x3f80_0000; usize::from(n % 5)]),
        ),
        DataOp::Remove(KeySel::Pool(n.wrapping_add(1))),
        DataOp::Reload,
    ]
}
