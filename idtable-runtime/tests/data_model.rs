//! Model test: random edits to a `DataComponent` against the test kit's
//! model (`idtable_test_kit::data`, shared with the fuzz target
//! `data_edits`): contents through every getter and `iter()`, every pool key
//! present or absent as the model says, the exact `TooLarge` boundary, the
//! exact `shrink_to_fit` size, and that the saved bytes always load to the
//! same contents.

use idtable_runtime::data::DataComponent;
use idtable_test_kit::data::strategy::op;
use idtable_test_kit::data::{Checked, DataOp};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 2 } else { 256 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_edits_match_a_model(ops in prop::collection::vec(op(24, !cfg!(miri)), 0..60)) {
        let mut c = Checked::default();
        c.check();
        for op in &ops {
            c.apply(op);
        }
        // And once more after a final round trip.
        let loaded = DataComponent::from_bytes(c.dc.as_bytes()).unwrap();
        c.dc = loaded;
        c.check();
    }
}

/// The model itself must be able to fail: a component that lost an entry
/// is caught.
#[test]
#[should_panic(expected = "len")]
fn the_model_rejects_a_lost_entry() {
    let mut c = Checked::default();
    c.apply(&DataOp::Set(
        idtable_test_kit::data::KeySel::Pool(0),
        idtable_test_kit::data::ValueIn::Int(1),
    ));
    c.dc.clear(); // behind the model's back
    c.check();
}
