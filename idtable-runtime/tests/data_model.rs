//! Model test: random edits to a `DataComponent` against a `HashMap`.

use std::collections::HashMap;

use idtable_runtime::data::{DataComponent, Key};
use proptest::prelude::*;

mod support;
use support::{value, OwnedValue};

/// A small pool so that sets often overwrite and removes often hit.
const POOL: [Key; 8] = [
    Key::new("name"),
    Key::path(&["stats", "health"]),
    Key::path(&["stats", "mana"]),
    Key::new("stats.health"),
    Key::path(&["status_effects", "drunk"]),
    Key::new("color"),
    Key::new(""),
    Key::path(&[]),
];

#[derive(Clone, Debug)]
enum Op {
    Set(usize, OwnedValue),
    Remove(usize),
    Clear,
    ShrinkToFit,
    SaveLoad,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0..POOL.len(), value(24)).prop_map(|(k, v)| Op::Set(k, v)),
        4 => (0..POOL.len()).prop_map(Op::Remove),
        1 => Just(Op::Clear),
        1 => Just(Op::ShrinkToFit),
        1 => Just(Op::SaveLoad),
    ]
}

fn check(sheet: &DataComponent, model: &HashMap<Key, OwnedValue>) -> Result<(), TestCaseError> {
    prop_assert_eq!(sheet.len(), model.len());
    prop_assert_eq!(sheet.is_empty(), model.is_empty());
    for key in POOL {
        match (model.get(&key), sheet.get(key)) {
            (Some(expected), Some(found)) => {
                prop_assert!(
                    expected.matches(found),
                    "{:?}: {:?} vs {:?}",
                    key,
                    expected,
                    found
                )
            }
            (None, None) => {}
            (expected, found) => {
                prop_assert!(false, "{:?}: {:?} vs {:?}", key, expected, found)
            }
        }
        prop_assert_eq!(sheet.contains(key), model.contains_key(&key));
    }
    let mut seen = 0;
    for (key, value) in sheet {
        seen += 1;
        let expected = model.get(&key);
        prop_assert!(expected.is_some_and(|e| e.matches(value)), "{:?}", key);
    }
    prop_assert_eq!(seen, model.len());
    // The saved bytes pass validation and load to the same contents.
    match DataComponent::from_bytes(sheet.as_bytes()) {
        Ok(loaded) => prop_assert_eq!(loaded.as_bytes(), sheet.as_bytes()),
        Err(err) => prop_assert!(false, "saved bytes do not load: {}", err),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 2 } else { 256 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_edits_match_a_hashmap_model(ops in prop::collection::vec(op(), 0..60)) {
        let mut sheet = DataComponent::new();
        let mut model: HashMap<Key, OwnedValue> = HashMap::new();
        for op in ops {
            match op {
                Op::Set(k, v) => {
                    sheet.set(POOL[k], v.as_value()).unwrap();
                    model.insert(POOL[k], v);
                }
                Op::Remove(k) => {
                    prop_assert_eq!(sheet.remove(POOL[k]), model.remove(&POOL[k]).is_some());
                }
                Op::Clear => {
                    sheet.clear();
                    model.clear();
                }
                Op::ShrinkToFit => sheet.shrink_to_fit(),
                Op::SaveLoad => {
                    let saved = sheet.as_bytes().to_vec();
                    sheet = DataComponent::from_bytes(&saved).unwrap();
                }
            }
            check(&sheet, &model)?;
        }
        // And once more after a final round trip.
        let loaded = DataComponent::from_bytes(sheet.as_bytes()).unwrap();
        check(&loaded, &model)?;
    }
}
