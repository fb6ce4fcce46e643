//! `DataMap`: many entities' data in one buffer. Behaviour of each
//! operation, ids (stale ones from a real table that reuses slots), the
//! saved form under truncation and corruption, and a model test against the
//! test kit's model of entities (`idtable_test_kit::data_map`).

use std::collections::HashMap;

use idtable_runtime::data::{DataComponent, DataError, DataMap, Key, KeyNames, Value};
use idtable_runtime::{Id, Id24_8, Id32_32, IdTable};
use proptest::prelude::*;

mod support;
use idtable_test_kit::data_map::strategy::op;
use idtable_test_kit::data_map::{stale_rule, CheckedMap, MapOp};
use support::single_byte_corruptions;

fn id(index: usize, generation: u32) -> Id24_8 {
    Id24_8::new(index, generation).unwrap()
}

/// Reloads the map's bytes: they must load, save back identically and hold
/// the same contents.
fn assert_valid<K: Id>(map: &DataMap<K>) {
    let loaded = DataMap::<K>::from_bytes(map.as_bytes()).expect("own bytes load");
    assert_eq!(loaded.as_bytes(), map.as_bytes());
    assert_eq!(&loaded, map);
}

const HEALTH: Key = Key::path(&["stats", "health"]);

#[test]
fn the_design_example_reads_back() {
    let mut units = IdTable::<Id32_32>::new();
    let (u, _) = units.insert();
    let mut sheets: DataMap<Id32_32> = DataMap::new();
    sheets.set(u, HEALTH, 100.0_f32).unwrap();
    sheets.set(u, "name", "The One").unwrap();
    assert_eq!(sheets.get_f32(u, HEALTH), Some(100.0));
    let sheet = sheets.entity(u).unwrap();
    assert_eq!(sheet.len(), 2);
    assert!(sheets.remove_key(u, "name"));
    assert!(sheets.remove(u));
    let saved = sheets.as_bytes().to_vec();
    let loaded = DataMap::<Id32_32>::from_bytes(&saved).unwrap();
    assert!(loaded.is_empty());
}

#[test]
fn every_value_type_reads_back_through_every_getter() {
    let a = id(0, 1);
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(a, "b", true).unwrap();
    m.set(a, "f", 1.5_f32).unwrap();
    m.set(a, "i", -9).unwrap();
    m.set(a, "s", "héllo").unwrap();
    m.set(a, "xs", &[1.0_f32, 2.0]).unwrap();
    m.set(a, "empty", "").unwrap();
    assert_eq!(m.get_bool(a, "b"), Some(true));
    assert_eq!(m.get_f32(a, "f"), Some(1.5));
    assert_eq!(m.get_i32(a, "i"), Some(-9));
    assert_eq!(m.get_str(a, "s"), Some("héllo"));
    assert_eq!(m.get_f32s(a, "xs"), Some(&[1.0, 2.0][..]));
    assert_eq!(m.get(a, "empty"), Some(Value::Str("")));
    // Wrong type or absent key: nothing.
    assert_eq!(m.get_f32(a, "i"), None);
    assert_eq!(m.get_i32(a, "f"), None);
    assert_eq!(m.get_str(a, "xs"), None);
    assert_eq!(m.get(a, "nope"), None);
    let view = m.entity(a).unwrap();
    assert_eq!(view.len(), 6);
    assert_eq!(view.iter().count(), 6);
    assert_valid(&m);
}

#[test]
fn reads_borrow_from_the_one_buffer() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    for i in 0..20 {
        m.set(id(i, 1), "name", format!("unit {i}").as_str())
            .unwrap();
        m.set(id(i, 1), "xs", &[i as f32; 3]).unwrap();
    }
    let bytes = m.as_bytes().as_ptr_range();
    for i in 0..20 {
        let s = m.get_str(id(i, 1), "name").unwrap();
        let xs = m.get_f32s(id(i, 1), "xs").unwrap();
        assert!(
            bytes.contains(&s.as_ptr()),
            "string {i} is not in the buffer"
        );
        assert!(
            bytes.contains(&xs.as_ptr().cast()),
            "array {i} is not in the buffer"
        );
        assert_eq!(xs.as_ptr() as usize % 4, 0);
    }
}

#[test]
fn an_entry_answers_only_to_the_exact_id_it_was_set_with() {
    let mut units = IdTable::<Id24_8>::new();
    let (old, _) = units.insert();
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(old, "hp", 10).unwrap();
    units.remove(old);
    let (new, _) = units.insert();
    assert_eq!(new.index(), old.index(), "the table reuses the slot");
    assert_ne!(new, old);
    // The new id sees nothing of the old one's data.
    assert!(!m.contains(new));
    assert_eq!(m.get_i32(new, "hp"), None);
    assert!(m.entity(new).is_none());
    assert!(!m.remove_key(new, "hp"));
    assert!(!m.remove(new));
    assert_eq!(m.get_i32(old, "hp"), Some(10), "still there for the old id");
    // Setting for the new id replaces the stale data.
    m.set(new, "mana", 5).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.ids(), &[new]);
    assert_eq!(m.get_i32(old, "hp"), None);
    assert_eq!(m.get_i32(new, "hp"), None);
    assert_eq!(m.get_i32(new, "mana"), Some(5));
    // The old id can no longer write.
    assert_eq!(
        m.set(old, "hp", 1),
        Err(DataError::StaleId { index: old.index() })
    );
    assert_eq!(
        m.insert(old, &DataComponent::new()),
        Err(DataError::StaleId { index: old.index() })
    );
    assert_eq!(m.get_i32(new, "mana"), Some(5));
    // A forged id with the same bits in another layout is another type;
    // one with another generation finds nothing.
    assert!(!m.contains(Id24_8::from_bits(new.to_bits() + (1 << 24)).unwrap()));
    assert_valid(&m);
}

#[test]
fn growing_one_entity_moves_only_that_entity() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    for i in 0..10 {
        m.set(id(i, 1), "hp", i as i32).unwrap();
    }
    let grower = id(3, 1);
    let mut text = String::new();
    for step in 0..200 {
        text.push(char::from(b'a' + (step % 26) as u8));
        m.set(grower, "log", text.as_str()).unwrap();
        m.set(grower, Key::new("k").join(&step.to_string()), step)
            .unwrap();
    }
    assert_eq!(m.get_str(grower, "log"), Some(text.as_str()));
    assert_eq!(m.entity(grower).unwrap().len(), 202);
    for i in 0..10 {
        assert_eq!(m.get_i32(id(i, 1), "hp"), Some(i as i32));
    }
    // Holes stay under a quarter of the buffer.
    let live: usize = m
        .iter()
        .map(|(_, sheet)| sheet.as_bytes().len() + 4)
        .sum::<usize>()
        + 8;
    assert!(
        m.as_bytes().len() * 3 <= live * 4,
        "{} bytes for {live} live",
        m.as_bytes().len()
    );
    assert_valid(&m);
}

#[test]
fn shrinking_an_entity_gives_its_room_back() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    let a = id(0, 1);
    let b = id(1, 1);
    m.set(a, "x", 1).unwrap();
    for k in 0..40 {
        m.set(b, Key::new("k").join(&k.to_string()), "some text")
            .unwrap();
    }
    let full = m.entity(b).unwrap().as_bytes().len();
    for k in 0..38 {
        assert!(m.remove_key(b, Key::new("k").join(&k.to_string())));
    }
    let small = m.entity(b).unwrap().as_bytes().len();
    assert!(
        small * 4 < full,
        "block {small} bytes after removals, {full} before"
    );
    m.shrink_to_fit();
    assert!(m.as_bytes().len() < full / 2);
    assert_eq!(m.get_str(b, Key::new("k").join("39")), Some("some text"));
    assert_valid(&m);
}

#[test]
fn insert_and_to_component_copy_whole_entities() {
    let mut sheet = DataComponent::with_capacity(512);
    sheet.set("name", "The One").unwrap();
    sheet.set(HEALTH, 100.0_f32).unwrap();
    sheet.set("level", 3).unwrap();
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.insert(id(0, 1), &sheet).unwrap();
    m.insert(id(1, 1), &DataComponent::new()).unwrap();
    assert_eq!(m.len(), 2);
    assert!(m.entity(id(1, 1)).unwrap().is_empty());
    let copy = m.to_component(id(0, 1)).unwrap();
    assert_eq!(copy, sheet);
    // Packed: the block is exactly what the entries need.
    let mut packed = sheet.clone();
    packed.shrink_to_fit();
    assert_eq!(copy.as_bytes(), packed.as_bytes());
    // Insert replaces everything the entity had.
    let mut other = DataComponent::new();
    other.set("only", true).unwrap();
    m.insert(id(0, 1), &other).unwrap();
    assert_eq!(m.to_component(id(0, 1)), Some(other));
    assert_eq!(m.to_component(id(0, 2)), None);
    assert_valid(&m);
}

#[test]
fn too_large_entities_are_errors_that_change_nothing() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(id(0, 1), "a", 1).unwrap();
    let before = m.as_bytes().to_vec();
    let huge = "x".repeat(70_000);
    assert!(matches!(
        m.set(id(0, 1), "big", huge.as_str()),
        Err(DataError::TooLarge { .. })
    ));
    assert!(matches!(
        m.set(id(5, 1), "big", huge.as_str()),
        Err(DataError::TooLarge { .. })
    ));
    assert!(!m.contains(id(5, 1)), "a failed set creates no entity");
    assert_eq!(m.len(), 1);
    assert_eq!(m.get_i32(id(0, 1), "a"), Some(1));
    // The failed new entity may leave a hole, never other changes.
    let reloaded = DataMap::<Id24_8>::from_bytes(m.as_bytes()).unwrap();
    assert_eq!(reloaded, DataMap::<Id24_8>::from_bytes(&before).unwrap());
}

#[test]
fn a_too_large_set_for_a_newer_id_keeps_the_stale_data() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(id(0, 1), "hp", 3).unwrap();
    let before = m.as_bytes().to_vec();
    let huge = vec![0.5_f32; 20_000];
    assert!(matches!(
        m.set(id(0, 2), "big", &huge),
        Err(DataError::TooLarge { .. })
    ));
    assert_eq!(m.as_bytes(), &before[..], "a failed set changes nothing");
    assert_eq!(m.get_i32(id(0, 1), "hp"), Some(3));
}

#[test]
fn clear_and_ids_and_iter() {
    let mut m: DataMap<Id32_32> = DataMap::new();
    let ids: Vec<Id32_32> = (0..5).map(|i| Id32_32::new(i * 7, 2).unwrap()).collect();
    for (n, &i) in ids.iter().enumerate() {
        m.set(i, "n", n as i32).unwrap();
    }
    let mut seen: Vec<Id32_32> = m.iter().map(|(i, _)| i).collect();
    seen.sort();
    assert_eq!(seen, ids);
    assert_eq!(m.ids().len(), 5);
    for (i, sheet) in &m {
        assert_eq!(sheet.get_i32("n"), m.get_i32(i, "n"));
    }
    let capacity = m.capacity();
    m.clear();
    assert!(m.is_empty());
    assert_eq!(m.capacity(), capacity);
    assert!(ids.iter().all(|&i| !m.contains(i)));
    assert_eq!(m.as_bytes(), DataMap::<Id32_32>::new().as_bytes());
    m.set(ids[2], "again", true).unwrap();
    assert_valid(&m);
}

#[test]
fn key_names_show_paths_instead_of_hashes() {
    let names: KeyNames = [&["stats", "health"][..], &["name"]].into_iter().collect();
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(id(0, 1), HEALTH, 50.0_f32).unwrap();
    m.set(id(0, 1), "unnamed", 1).unwrap();
    let shown = format!("{:?}", names.debug(m.entity(id(0, 1)).unwrap()));
    assert!(shown.contains("stats.health: Float(50.0)"), "{shown}");
    assert!(
        shown.contains(&format!("{:?}: Int(1)", Key::new("unnamed"))),
        "{shown}"
    );
    assert_eq!(names.key_of("stats.health"), Some(HEALTH));
}

// ----- the saved form -----

/// A map with every part of the format: both kinds of payload, integers,
/// several entities, holes left by a moved and a removed entity, and a
/// block that is not packed (free space inside).
fn sample<K: Id>(make: impl Fn(usize, u32) -> K) -> DataMap<K> {
    let mut m: DataMap<K> = DataMap::new();
    for i in 0..6 {
        m.set(make(i * 3, 1), "hp", i as i32).unwrap();
    }
    m.set(make(3, 1), "name", "The One").unwrap(); // moves: a hole
    m.set(make(6, 1), "xs", &[0.5_f32, 1.5]).unwrap();
    m.set(make(6, 1), "drunk", true).unwrap();
    m.remove(make(9, 1)); // another hole
    m.set(make(12, 1), "name", "Trinity").unwrap();
    m.set(make(12, 1), "name", "T").unwrap(); // a hole inside the block
    m.set(make(15, 1), "f", 2.5_f32).unwrap(); // ends with a region
    m
}

/// Loads `bytes`; if they load, the map saves back identically, every entity
/// reads cleanly, and it can be edited and saved again.
fn load_or_error<K: Id>(bytes: &[u8], make: impl Fn(usize, u32) -> K) -> Result<(), DataError> {
    let map = DataMap::<K>::from_bytes(bytes)?;
    assert_eq!(map.as_bytes(), bytes, "load then save changed the bytes");
    assert_eq!(map.iter().count(), map.len());
    for (i, sheet) in &map {
        assert!(map.contains(i));
        for (key, value) in sheet {
            match value {
                Value::Str(s) => assert_eq!(map.get_str(i, key), Some(s)),
                Value::Int(x) => assert_eq!(map.get_i32(i, key), Some(x)),
                _ => assert!(map.get(i, key).is_some()),
            }
        }
        let _ = format!("{sheet:?}");
    }
    let mut edited = map.clone();
    let ids: Vec<K> = edited.ids().to_vec();
    for (n, &i) in ids.iter().enumerate() {
        match n % 3 {
            0 => edited
                .set(i, "edited", "a longer string than before")
                .unwrap(),
            1 => assert!(edited.remove(i)),
            _ => edited.set(i, "xs", &[1.0_f32; 9]).unwrap(),
        }
    }
    edited.set(make(40, 1), "fresh", 1).unwrap();
    let again = DataMap::<K>::from_bytes(edited.as_bytes()).unwrap();
    assert_eq!(again.as_bytes(), edited.as_bytes());
    Ok(())
}

fn id24(i: usize, g: u32) -> Id24_8 {
    Id24_8::new(i, g).unwrap()
}

fn id64(i: usize, g: u32) -> Id32_32 {
    Id32_32::new(i, g.into()).unwrap()
}

#[test]
fn saved_maps_round_trip_for_both_id_widths() {
    let narrow = sample(id24);
    let wide = sample(id64);
    assert!(load_or_error(narrow.as_bytes(), id24).is_ok());
    assert!(load_or_error(wide.as_bytes(), id64).is_ok());
    // And from an odd address.
    let mut shifted = vec![0u8; wide.as_bytes().len() + 1];
    shifted[1..].copy_from_slice(wide.as_bytes());
    assert_eq!(
        DataMap::<Id32_32>::from_bytes(&shifted[1..])
            .unwrap()
            .as_bytes(),
        wide.as_bytes()
    );
}

#[test]
fn the_header_matches_the_documented_table() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(id(2, 1), "n", 7).unwrap();
    let mut block = DataComponent::new();
    block.set("n", 7).unwrap();
    block.shrink_to_fit();
    let mut expected = vec![1, 1, 24, 0, 1, 0, 0, 0]; // version, id words, index bits; 1 entity
    expected.extend(block.as_bytes());
    expected.extend(id(2, 1).to_bits().to_le_bytes());
    assert_eq!(m.as_bytes(), &expected[..]);
}

#[test]
fn every_truncation_is_an_error() {
    let saved = sample(id24).as_bytes().to_vec();
    for len in 0..saved.len() {
        assert!(load_or_error(&saved[..len], id24).is_err(), "length {len}");
    }
    let wide = sample(id64).as_bytes().to_vec();
    for len in 0..wide.len() {
        assert!(load_or_error(&wide[..len], id64).is_err(), "length {len}");
    }
}

#[test]
fn every_single_byte_corruption_loads_cleanly_or_errors() {
    let mut packed = sample(id24);
    packed.shrink_to_fit();
    let (mut loaded, mut rejected) = (0, 0);
    for saved in [sample(id24).as_bytes().to_vec(), packed.as_bytes().to_vec()] {
        // Under Miri, a sample of positions.
        let step = if cfg!(miri) { 37 } else { 1 };
        let (ok, refused) = single_byte_corruptions(&saved, step, |b| load_or_error(b, id24));
        loaded += ok;
        rejected += refused;
    }
    assert!(
        loaded > 0 && rejected > loaded,
        "{loaded} loaded, {rejected} rejected"
    );
}

#[test]
fn blocks_that_share_keys_and_types_are_each_checked_whole() {
    // Entities with the same keys and value types: each block's check
    // starts from what the previous block's taught (no duplicate key, the
    // same tags), so the corruptions that matter are in the later blocks'
    // values and payloads. Every one is still found (and in debug builds
    // each accepted block is checked again by the complete check).
    let mut m: DataMap<Id24_8> = DataMap::new();
    for i in 0..3 {
        m.set(id(i, 1), "name", ["Aria", "Brann", "naïve"][i])
            .unwrap();
        m.set(id(i, 1), "xs", &[1.0_f32, 2.0]).unwrap();
        m.set(id(i, 1), "drunk", i % 2 == 0).unwrap();
        m.set(id(i, 1), "hp", i as i32).unwrap();
    }
    m.shrink_to_fit();
    let saved = m.as_bytes().to_vec();
    let step = if cfg!(miri) { 7 } else { 1 };
    let (ok, refused) = single_byte_corruptions(&saved, step, |b| load_or_error(b, id24));
    assert!(ok > 0 && refused > 0, "{ok} loaded, {refused} refused");
    // The last block's bool set to 2: refused, though the block before has
    // the same keys and tags.
    let last = m.entity(id(2, 1)).unwrap().as_bytes().len();
    let region = saved.len() - last - 4;
    let bool_word = DataMap::<Id24_8>::from_bytes(&saved)
        .unwrap()
        .entity(id(2, 1))
        .unwrap()
        .iter()
        .position(|(_, value)| value == Value::Bool(true))
        .unwrap();
    let mut bad = saved.clone();
    bad[region + 8 + 4 * 4 + 4 * bool_word] = 2;
    assert!(matches!(
        DataMap::<Id24_8>::from_bytes(&bad),
        Err(DataError::BadEntity { .. })
    ));
}

#[test]
fn each_kind_of_corruption_is_named_by_its_error() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    m.set(id(2, 1), "n", 7).unwrap();
    m.set(id(3, 1), "n", 8).unwrap();
    let ok = m.as_bytes().to_vec();
    // header 8 bytes; each region: block of 20 bytes, then a 4-byte id.
    assert_eq!(ok.len(), 8 + 2 * 24);
    let with = |at: usize, byte: u8| {
        let mut b = ok.clone();
        b[at] = byte;
        b
    };
    let err = |bytes: &[u8]| DataMap::<Id24_8>::from_bytes(bytes).unwrap_err();
    assert_eq!(err(&ok[..7]), DataError::Truncated { len: 7 });
    assert_eq!(err(&ok[..10]), DataError::BadLength { len: 10 });
    assert_eq!(
        err(&with(0, 2)),
        DataError::UnsupportedVersion { version: 2 }
    );
    assert_eq!(
        err(&with(1, 2)),
        DataError::IdLayoutMismatch {
            id_words: 2,
            index_bits: 24
        }
    );
    assert_eq!(
        err(&with(3, 1)),
        DataError::NonZeroUnused { offset: 3, byte: 1 }
    );
    assert_eq!(
        err(&with(4, 3)),
        DataError::EntityCountMismatch {
            declared: 3,
            found: 2
        }
    );
    // The second block's version byte, then a byte of its free space.
    assert!(matches!(
        err(&with(32, 1)),
        DataError::BadEntity { offset: 32, ref error } if **error == DataError::UnsupportedVersion { version: 1 }
    ));
    assert!(matches!(
        err(&with(32 + 17, 9)),
        DataError::BadEntity { offset: 32, .. }
    ));
    // The first id's generation byte: 0 is no id.
    assert_eq!(err(&with(31, 0)), DataError::BadId { offset: 28 });
    // The second id's index made equal to the first's.
    assert_eq!(
        err(&with(52, 2)),
        DataError::DuplicateId {
            offset: 52,
            index: 2
        }
    );
    // A hole must be zero words: a non-zero word there is read as a block.
    let mut holed = ok.clone();
    holed.extend([0, 0, 0, 0]);
    assert!(DataMap::<Id24_8>::from_bytes(&holed).is_ok());
    holed[57] = 1;
    assert!(matches!(
        err(&holed),
        DataError::BadEntity { offset: 56, .. }
    ));
}

// ----- the model test -----
//
// The test kit's model (`idtable_test_kit::data_map`, shared with the fuzz
// target `data_map_edits`): each edit's own answers are compared at once,
// every id ever issued (through every getter, for every pool key) and a
// reload every 8 edits, and once more at the end.

fn run(ops: &[MapOp]) -> usize {
    let mut c = CheckedMap::new(8);
    for op in ops {
        c.apply(op);
    }
    c.check();
    let loaded = DataMap::<Id24_8>::from_bytes(c.map.as_bytes()).unwrap();
    assert_eq!(loaded.as_bytes(), c.map.as_bytes());
    c.map = loaded;
    c.check();
    ops.len()
}

/// Cases × operations per case: 2 × 100 × 500 = 100,000 operations (a few
/// under Miri), as two tests of half the cases each, which the test harness
/// runs on two threads.
const CASES: u32 = if cfg!(miri) { 1 } else { 100 };
const OPS: usize = if cfg!(miri) { 40 } else { 500 };

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_edits_match_a_model_of_entities(ops in prop::collection::vec(op(), OPS)) {
        run(&ops);
    }

    #[test]
    fn more_random_edits_match_a_model_of_entities(ops in prop::collection::vec(op(), OPS)) {
        run(&ops);
    }
}

/// The model itself must be able to fail: a write with a stale id is
/// refused by the model's rule.
#[test]
fn the_stale_rule_refuses_an_older_id() {
    let mut model: HashMap<Id24_8, ()> = HashMap::new();
    let (old, new) = (id(3, 1), id(3, 2));
    model.insert(new, ());
    assert_eq!(
        stale_rule(&model, old),
        Err(DataError::StaleId { index: 3 })
    );
    assert_eq!(stale_rule(&model, id(3, 3)), Ok(vec![new]));
    assert_eq!(stale_rule(&model, new), Ok(vec![]));
}
