//! Behaviour of `idtable::data::DataComponent`: setting, reading, overwriting,
//! removing and the size limits.

use idtable_runtime::data::{DataComponent, DataError, Key, Value, MAX_BYTES};

const NAME: Key = Key::new("name");
const HEALTH: Key = Key::path(&["stats", "health"]);
const MANA: Key = Key::path(&["stats", "mana"]);
const DRUNK: Key = Key::path(&["status_effects", "drunk"]);
const DELIRIOUS: Key = Key::path(&["status_effects", "delirious"]);

/// Checks every invariant by reloading the saved bytes.
fn assert_valid(sheet: &DataComponent) {
    let loaded = DataComponent::from_bytes(sheet.as_bytes())
        .unwrap_or_else(|e| panic!("saved bytes do not load: {e}"));
    assert_eq!(&loaded, sheet);
    assert_eq!(loaded.as_bytes(), sheet.as_bytes());
    assert_eq!(sheet.iter().len(), sheet.len());
}

fn character_sheet() -> DataComponent {
    let mut sheet = DataComponent::new();
    sheet.set(NAME, "The One").unwrap();
    sheet.set(HEALTH, 100.0_f32).unwrap();
    sheet.set(MANA, 200.0_f32).unwrap();
    sheet.set(DRUNK, true).unwrap();
    sheet.set(DELIRIOUS, true).unwrap();
    sheet
}

#[test]
fn character_sheet_from_the_reference_reads_back() {
    let sheet = character_sheet();
    assert_eq!(sheet.len(), 5);
    assert_eq!(sheet.get("name"), Some(Value::Str("The One")));
    assert_eq!(sheet.get_str(NAME), Some("The One"));
    assert_eq!(sheet.get(HEALTH), Some(Value::Float(100.0)));
    assert_eq!(sheet.get_f32(HEALTH), Some(100.0));
    assert_eq!(sheet.get_f32(MANA), Some(200.0));
    assert_eq!(sheet.get_bool(DRUNK), Some(true));
    assert_eq!(sheet.get_bool(DELIRIOUS), Some(true));
    assert_eq!(
        sheet.get("stats"),
        None,
        "objects are flattened, not stored"
    );
    assert_eq!(sheet.get("stats.health"), None);
    assert_eq!(sheet.get_bool(HEALTH), None, "typed getters check the type");
    assert_eq!(sheet.get_str(HEALTH), None);
    assert_eq!(sheet.get_f32s(NAME), None);
    let keys: Vec<Key> = sheet.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, [NAME, HEALTH, MANA, DRUNK, DELIRIOUS]);
    assert_valid(&sheet);
}

#[test]
fn new_and_default_allocate_nothing() {
    let sheet = DataComponent::default();
    assert_eq!(sheet, DataComponent::new());
    assert_eq!(sheet.capacity(), 0);
    assert!(sheet.is_empty());
    assert_eq!(sheet.iter().next(), None);
    assert_eq!(sheet.as_bytes(), &[2, 0, 0, 0, 8, 0, 8, 0]);
    assert_valid(&sheet);
}

#[test]
fn all_four_value_types_and_empty_payloads_read_back() {
    let mut sheet = DataComponent::new();
    sheet.set("b", false).unwrap();
    sheet.set("f", -0.0_f32).unwrap();
    sheet.set("nan", f32::NAN).unwrap();
    sheet.set("s", "").unwrap();
    sheet.set("xs", &[] as &[f32]).unwrap();
    sheet.set("utf8", "héllo wörld 🦀").unwrap();
    sheet.set("color", &[0.0, 0.5, 0.5, 0.7]).unwrap();
    sheet.set("owned", &vec![1.0_f32; 3]).unwrap();
    sheet.set("string", &String::from("abc")).unwrap();
    assert_eq!(sheet.get_bool("b"), Some(false));
    assert_eq!(
        sheet.get_f32("f").map(f32::to_bits),
        Some((-0.0_f32).to_bits())
    );
    assert!(sheet.get_f32("nan").is_some_and(f32::is_nan));
    assert_eq!(sheet.get_str("s"), Some(""));
    assert_eq!(sheet.get_f32s("xs"), Some(&[][..]));
    assert_eq!(sheet.get_str("utf8"), Some("héllo wörld 🦀"));
    assert_eq!(sheet.get_f32s("color"), Some(&[0.0, 0.5, 0.5, 0.7][..]));
    assert_eq!(sheet.get_f32s("owned"), Some(&[1.0, 1.0, 1.0][..]));
    assert_eq!(sheet.get_str("string"), Some("abc"));
    DataComponent::from_bytes(sheet.as_bytes()).unwrap();
}

#[test]
fn reads_are_zero_copy_into_the_buffer() {
    let mut sheet = DataComponent::new();
    sheet.set("s", "The One").unwrap();
    sheet.set("xs", &[1.0, 2.0]).unwrap();
    let range = sheet.as_bytes().as_ptr_range();
    let s = sheet.get_str("s").unwrap();
    let xs = sheet.get_f32s("xs").unwrap();
    assert!(range.contains(&s.as_ptr()));
    assert!(range.contains(&xs.as_ptr().cast::<u8>()));
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri; the rest cover the same code")]
fn overwriting_with_growing_and_shrinking_strings_keeps_every_value() {
    let mut sheet = character_sheet();
    let lengths = [0, 1, 3, 4, 5, 17, 64, 200, 3, 0, 500, 7, 8, 9, 1000, 2];
    for (round, &len) in lengths.iter().cycle().take(200).enumerate() {
        let text: String = "abcdefghijklmnopqrstuvwxyz"
            .chars()
            .cycle()
            .skip(round)
            .take(len)
            .collect();
        sheet.set(NAME, text.as_str()).unwrap();
        assert_eq!(sheet.get_str(NAME), Some(text.as_str()));
        assert_eq!(sheet.get_f32(HEALTH), Some(100.0));
        assert_eq!(sheet.get_bool(DELIRIOUS), Some(true));
        assert_eq!(sheet.len(), 5);
        assert_valid(&sheet);
    }
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri; the rest cover the same code")]
fn overwriting_with_growing_and_shrinking_arrays_keeps_every_value() {
    let mut sheet = character_sheet();
    let a = Key::new("a");
    let b = Key::new("b");
    for round in 0..300_usize {
        let xs: Vec<f32> = (0..(round * 7) % 60).map(|i| (i + round) as f32).collect();
        let ys: Vec<f32> = (0..(round * 13) % 45).map(|i| i as f32 * -0.5).collect();
        sheet.set(a, &xs).unwrap();
        sheet.set(b, &ys).unwrap();
        assert_eq!(sheet.get_f32s(a), Some(&xs[..]));
        assert_eq!(sheet.get_f32s(b), Some(&ys[..]));
        assert_eq!(sheet.get_str(NAME), Some("The One"));
        assert_valid(&sheet);
    }
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri; the rest cover the same code")]
fn capacity_stays_bounded_under_repeated_overwrites() {
    // Without compaction, every overwrite that grows a value leaves a hole and
    // the buffer would double until it hits MAX_BYTES.
    let mut sheet = character_sheet();
    let mut peak = 0;
    for round in 0..5_000_usize {
        let len = 1 + (round * 37) % 120;
        let key = ["x", "y", "z"][round % 3];
        if round % 2 == 0 {
            sheet.set(key, "q".repeat(len).as_str()).unwrap();
        } else {
            sheet.set(key, &vec![1.0_f32; len / 4]).unwrap();
        }
        let mut packed = sheet.clone();
        packed.shrink_to_fit();
        peak = peak.max(packed.capacity());
    }
    assert_valid(&sheet);
    assert!(
        sheet.capacity() <= 4 * peak,
        "capacity {} for at most {peak} live bytes",
        sheet.capacity()
    );
}

#[test]
fn a_key_can_change_type() {
    let mut sheet = character_sheet();
    let values = [
        Value::Str("a string"),
        Value::Bool(true),
        Value::Floats(&[1.0, 2.0, 3.0]),
        Value::Float(2.5),
        Value::Str(""),
        Value::Floats(&[]),
        Value::Floats(&[4.0]),
        Value::Str("again a rather longer string than before"),
        Value::Bool(false),
    ];
    for value in values.iter().cycle().take(40) {
        sheet.set(HEALTH, *value).unwrap();
        assert_eq!(sheet.get(HEALTH), Some(*value));
        assert_eq!(sheet.get_str(NAME), Some("The One"));
        assert_eq!(sheet.len(), 5);
        assert_valid(&sheet);
    }
}

#[test]
fn remove_reports_presence_and_keeps_the_others() {
    let mut sheet = character_sheet();
    assert!(sheet.remove(HEALTH));
    assert!(!sheet.remove(HEALTH));
    assert!(!sheet.remove("never set"));
    assert_eq!(sheet.get(HEALTH), None);
    assert_eq!(sheet.len(), 4);
    assert_eq!(sheet.get_str(NAME), Some("The One"));
    assert_eq!(sheet.get_f32(MANA), Some(200.0));
    assert_valid(&sheet);
    // Removing the last entry, the first, and the one holding a payload.
    assert!(sheet.remove(DELIRIOUS));
    assert!(sheet.remove(NAME));
    assert_eq!(sheet.get_bool(DRUNK), Some(true));
    assert_valid(&sheet);
    assert!(sheet.remove(DRUNK));
    assert!(sheet.remove(MANA));
    assert!(sheet.is_empty());
    assert_valid(&sheet);
    // The freed space is reused.
    let capacity = sheet.capacity();
    sheet.set(NAME, "The One").unwrap();
    assert_eq!(sheet.capacity(), capacity);
    assert_valid(&sheet);
}

#[test]
fn removing_many_keys_in_any_order_keeps_the_rest() {
    let mut sheet = DataComponent::new();
    let keys: Vec<Key> = (0..40).map(|i| Key::new(&format!("k{i}"))).collect();
    for (i, &key) in keys.iter().enumerate() {
        match i % 3 {
            0 => sheet.set(key, i as f32).unwrap(),
            1 => sheet.set(key, format!("v{i}").as_str()).unwrap(),
            _ => sheet.set(key, &vec![i as f32; i % 5]).unwrap(),
        }
    }
    for (round, &key) in keys.iter().enumerate().filter(|(i, _)| i % 7 != 3) {
        assert!(sheet.remove(key), "round {round}");
        assert_valid(&sheet);
    }
    for (i, &key) in keys.iter().enumerate().filter(|(i, _)| i % 7 == 3) {
        match i % 3 {
            0 => assert_eq!(sheet.get_f32(key), Some(i as f32)),
            1 => assert_eq!(sheet.get_str(key), Some(format!("v{i}").as_str())),
            _ => assert_eq!(sheet.get_f32s(key), Some(&vec![i as f32; i % 5][..])),
        }
    }
}

#[test]
fn clear_empties_but_keeps_the_buffer() {
    let mut sheet = character_sheet();
    let capacity = sheet.capacity();
    sheet.clear();
    assert!(sheet.is_empty());
    assert_eq!(sheet.get(NAME), None);
    assert_eq!(sheet.capacity(), capacity);
    assert_valid(&sheet);
    sheet.set(HEALTH, 1.0_f32).unwrap();
    assert_eq!(sheet.get_f32(HEALTH), Some(1.0));
}

#[test]
fn shrink_to_fit_packs_the_buffer_exactly() {
    let mut sheet = character_sheet();
    sheet
        .set(NAME, "a much longer name than before, to leave a hole")
        .unwrap();
    sheet.shrink_to_fit();
    // 8 fixed + 5 keys + 5 value words + 5 tags (8 bytes) + 48-byte string.
    assert_eq!(sheet.capacity(), 8 + 20 + 20 + 8 + 48);
    assert_valid(&sheet);
    sheet.clear();
    sheet.shrink_to_fit();
    assert_eq!(sheet.capacity(), 0);
}

#[test]
fn equality_ignores_order_and_capacity_but_not_values() {
    let a = character_sheet();
    let mut b = DataComponent::with_capacity(1000);
    for (key, value) in a.iter().collect::<Vec<_>>().into_iter().rev() {
        b.set(key, value).unwrap();
    }
    assert_eq!(a, b);
    b.set(HEALTH, 99.0_f32).unwrap();
    assert_ne!(a, b);
    b.set(HEALTH, 100.0_f32).unwrap();
    b.set("extra", true).unwrap();
    assert_ne!(a, b);
    assert_ne!(b, a);
}

#[test]
fn clone_is_an_independent_copy() {
    let a = character_sheet();
    let mut b = a.clone();
    b.set(NAME, "Someone else").unwrap();
    assert_eq!(a.get_str(NAME), Some("The One"));
    assert_eq!(b.get_str(NAME), Some("Someone else"));
}

#[test]
fn debug_lists_keys_as_hashes() {
    let mut sheet = DataComponent::new();
    sheet.set(HEALTH, 100.0_f32).unwrap();
    assert_eq!(
        format!("{sheet:?}"),
        "DataComponent {Key(0xefa7583b): Float(100.0)}"
    );
}

#[test]
fn component_is_send_sync_and_small() {
    fn assert_traits<T: Send + Sync + Clone + Default + PartialEq + std::fmt::Debug>() {}
    assert_traits::<DataComponent>();
    assert_eq!(
        std::mem::size_of::<DataComponent>(),
        std::mem::size_of::<Vec<u32>>()
    );
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri; the rest cover the same code")]
fn values_up_to_the_limit_fit_and_one_more_float_does_not() {
    // One entry: 8 fixed + 4 key + 4 value + 4 tag word = 20 bytes of header.
    let fits = vec![0.25_f32; (MAX_BYTES - 20) / 4];
    let mut sheet = DataComponent::new();
    sheet.set("big", &fits).unwrap();
    assert_eq!(sheet.capacity(), MAX_BYTES);
    assert_eq!(sheet.get_f32s("big"), Some(&fits[..]));
    assert_valid(&sheet);

    let too_many = vec![0.25_f32; fits.len() + 1];
    let before = sheet.as_bytes().to_vec();
    let err = sheet.set("big", &too_many).unwrap_err();
    assert_eq!(
        err,
        DataError::TooLarge {
            key: Key::new("big"),
            needed: MAX_BYTES + 4
        }
    );
    assert!(err.to_string().contains("65536 bytes"), "{err}");
    assert_eq!(
        sheet.as_bytes(),
        &before[..],
        "a failed set changes nothing"
    );
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri; the rest cover the same code")]
fn too_large_strings_and_too_many_keys_are_errors_not_panics() {
    let mut sheet = character_sheet();
    let before = sheet.as_bytes().to_vec();
    for len in [MAX_BYTES, 65_535, 65_536, 1 << 20] {
        let text = "x".repeat(len);
        assert!(matches!(
            sheet.set("long", text.as_str()),
            Err(DataError::TooLarge { .. })
        ));
        assert!(matches!(
            sheet.set(NAME, text.as_str()),
            Err(DataError::TooLarge { .. })
        ));
    }
    assert_eq!(sheet.as_bytes(), &before[..]);

    let mut many = DataComponent::new();
    let mut count = 0_u32;
    let err = loop {
        match many.set(Key::from_hash(count), count as f32) {
            Ok(()) => count += 1,
            Err(err) => break err,
        }
    };
    assert!(matches!(err, DataError::TooLarge { key, .. } if key == Key::from_hash(count)));
    // 9 bytes per entry, rounded to words per four entries, after the 8 fixed.
    assert_eq!(count as usize, (MAX_BYTES - 8) / 36 * 4);
    assert_eq!(many.len(), count as usize);
    assert_eq!(
        many.get_f32(Key::from_hash(count / 2)),
        Some((count / 2) as f32)
    );
    assert_valid(&many);
}

#[test]
fn integers_are_stored_in_the_value_word_and_read_only_as_integers() {
    let mut sheet = DataComponent::new();
    for (key, x) in [
        ("level", 7),
        ("gold", i32::MAX),
        ("debt", i32::MIN),
        ("zero", 0),
    ] {
        sheet.set(key, x).unwrap();
    }
    sheet.set("ratio", 7.0_f32).unwrap();
    assert_eq!(sheet.get("level"), Some(Value::Int(7)));
    assert_eq!(sheet.get_i32("gold"), Some(i32::MAX));
    assert_eq!(sheet.get_i32("debt"), Some(i32::MIN));
    assert_eq!(sheet.get_i32("zero"), Some(0));
    // An integer is not a float and a float is not an integer.
    assert_eq!(sheet.get_f32("level"), None);
    assert_eq!(sheet.get_bool("zero"), None);
    assert_eq!(sheet.get_i32("ratio"), None);
    // No payload: five entries of value words only.
    sheet.shrink_to_fit();
    assert_eq!(sheet.capacity(), idtable_runtime::data::header_bytes(5));
    // Changing type to and from an integer keeps the others.
    sheet.set("level", "seven").unwrap();
    sheet.set("ratio", -1).unwrap();
    assert_eq!(sheet.get_str("level"), Some("seven"));
    assert_eq!(sheet.get_i32("ratio"), Some(-1));
    assert_eq!(sheet.get_i32("gold"), Some(i32::MAX));
    let loaded = DataComponent::from_bytes(sheet.as_bytes()).unwrap();
    assert_eq!(loaded, sheet);
    assert_eq!(loaded.get("debt"), Some(Value::Int(i32::MIN)));
}

#[test]
fn an_integer_saves_as_tag_5_and_its_twos_complement_word() {
    let mut sheet = DataComponent::new();
    sheet.set("n", -2).unwrap();
    sheet.shrink_to_fit();
    let bytes = sheet.as_bytes();
    assert_eq!(bytes[0], 2, "format version");
    assert_eq!(&bytes[12..16], &(-2_i32).to_le_bytes());
    assert_eq!(bytes[16], 5, "tag");
}
