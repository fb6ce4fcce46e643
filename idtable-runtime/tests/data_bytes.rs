//! The saved form: round trips, and hostile bytes that must error or load
//! cleanly, never panic.

use idtable_runtime::data::{DataComponent, DataError, Key, Value};
use proptest::prelude::*;

mod support;
use support::single_byte_corruptions;

/// A sheet that exercises every part of the format: all four types, empty
/// payloads, string padding, a hole left by an overwrite, and free space.
fn sample() -> DataComponent {
    let mut sheet = DataComponent::new();
    sheet.set("name", "The One").unwrap();
    sheet
        .set(Key::path(&["stats", "health"]), 100.0_f32)
        .unwrap();
    sheet.set(Key::path(&["stats", "mana"]), 200.0_f32).unwrap();
    sheet
        .set(Key::path(&["status_effects", "drunk"]), true)
        .unwrap();
    sheet.set("color", &[0.0, 0.5, 0.5, 0.7]).unwrap();
    sheet.set("title", "").unwrap();
    sheet.set("path", &[] as &[f32]).unwrap();
    sheet.set("motto", "héllo").unwrap();
    sheet.set("level", -12).unwrap();
    // Grow an older string out of its slot: leaves a zeroed hole.
    sheet
        .set("name", "The One, now with a longer name")
        .unwrap();
    sheet
}

/// Reads everything a loaded component offers and edits a copy of it; any
/// panic fails the calling test.
fn exercise(sheet: &DataComponent) {
    let mut count = 0;
    for (key, value) in sheet {
        count += 1;
        assert!(same(sheet.get(key), Some(value)));
        match value {
            Value::Str(s) => assert_eq!(sheet.get_str(key).map(str::len), Some(s.len())),
            Value::Floats(xs) => assert_eq!(sheet.get_f32s(key).map(<[f32]>::len), Some(xs.len())),
            Value::Bool(b) => assert_eq!(sheet.get_bool(key), Some(b)),
            Value::Float(_) => assert!(sheet.get_f32(key).is_some()),
            Value::Int(x) => assert_eq!(sheet.get_i32(key), Some(x)),
        }
    }
    assert_eq!(count, sheet.len());
    let _ = format!("{sheet:?}");
    let mut edited = sheet.clone();
    let keys: Vec<Key> = sheet.iter().map(|(k, _)| k).collect();
    for (i, &key) in keys.iter().enumerate() {
        match i % 3 {
            0 => edited.set(key, "replacement text").unwrap(),
            1 => edited.set(key, &[1.0, 2.0, 3.0]).unwrap(),
            _ => assert!(edited.remove(key)),
        }
    }
    edited.set("fresh", "new").unwrap();
    let reloaded = DataComponent::from_bytes(edited.as_bytes()).unwrap();
    assert_eq!(reloaded.as_bytes(), edited.as_bytes());
}

/// Equality that holds for NaN floats too (compares their bits).
fn same(a: Option<Value>, b: Option<Value>) -> bool {
    match (a, b) {
        (Some(Value::Float(x)), Some(Value::Float(y))) => x.to_bits() == y.to_bits(),
        (Some(Value::Floats(xs)), Some(Value::Floats(ys))) => xs
            .iter()
            .map(|x| x.to_bits())
            .eq(ys.iter().map(|y| y.to_bits())),
        _ => a == b,
    }
}

/// Loads `bytes`; if they load, they save back identically and read cleanly.
fn load_or_error(bytes: &[u8]) -> Result<DataComponent, DataError> {
    let result = DataComponent::from_bytes(bytes);
    match &result {
        Ok(sheet) => {
            // Version 1 loads as version 2: only byte 0 changes.
            let mut expected = bytes.to_vec();
            if expected[0] == 1 {
                expected[0] = 2;
            }
            assert_eq!(
                sheet.as_bytes(),
                expected,
                "load then save changed the bytes"
            );
            exercise(sheet);
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
    result
}

#[test]
fn bytes_round_trip_identically() {
    for mut sheet in [
        sample(),
        DataComponent::new(),
        DataComponent::with_capacity(64),
    ] {
        let saved = sheet.as_bytes().to_vec();
        let loaded = DataComponent::from_bytes(&saved).unwrap();
        assert_eq!(loaded, sheet);
        assert_eq!(loaded.as_bytes(), &saved[..]);
        sheet.shrink_to_fit();
        let packed = sheet.as_bytes().to_vec();
        assert_eq!(
            DataComponent::from_bytes(&packed).unwrap().as_bytes(),
            &packed[..]
        );
    }
}

#[test]
fn bytes_load_from_an_odd_address() {
    let sheet = sample();
    let saved = sheet.as_bytes();
    let mut storage = vec![0xAA_u8; saved.len() + 4];
    let base = storage.as_ptr() as usize;
    for misalign in 1..4 {
        // Start where the address is `misalign` past a multiple of 4.
        let shift = (misalign + 4 - base % 4) % 4;
        storage[shift..shift + saved.len()].copy_from_slice(saved);
        let unaligned = &storage[shift..shift + saved.len()];
        assert_eq!(unaligned.as_ptr() as usize % 4, misalign);
        let loaded = DataComponent::from_bytes(unaligned).unwrap();
        assert_eq!(loaded, sheet);
        assert_eq!(loaded.get_f32s("color"), Some(&[0.0, 0.5, 0.5, 0.7][..]));
        assert_eq!(loaded.get_str("motto"), Some("héllo"));
        let floats = loaded.get_f32s("color").unwrap();
        assert_eq!(floats.as_ptr() as usize % 4, 0);
    }
}

#[test]
fn bytes_layout_matches_the_documented_table() {
    let mut sheet = DataComponent::new();
    sheet.set("name", "The One").unwrap();
    sheet.set("hp", 100.0_f32).unwrap();
    sheet.shrink_to_fit();
    let name = Key::new("name").to_hash().to_le_bytes();
    let hp = Key::new("hp").to_hash().to_le_bytes();
    let mut expected = vec![2, 0, 2, 0, 28, 0, 36, 0]; // version, n = 2, P = 28, L = 36
    expected.extend(name);
    expected.extend(hp);
    expected.extend([28, 0, 7, 0]); // string at 28, 7 bytes
    expected.extend(100.0_f32.to_le_bytes());
    expected.extend([3, 2, 0, 0]); // tags: string, float, padding
    expected.extend(b"The One\0");
    assert_eq!(sheet.as_bytes(), &expected[..]);
}

#[test]
fn every_truncation_is_an_error() {
    for saved in [
        sample().as_bytes().to_vec(),
        DataComponent::new().as_bytes().to_vec(),
    ] {
        for len in 0..saved.len() {
            assert!(load_or_error(&saved[..len]).is_err(), "length {len}");
        }
        let mut longer = saved.clone();
        longer.extend([0; 4]);
        assert!(load_or_error(&longer).is_err());
    }
}

#[test]
fn every_single_byte_corruption_loads_cleanly_or_errors() {
    let mut packed = sample();
    packed.shrink_to_fit();
    let (mut loaded, mut rejected) = (0, 0);
    for saved in [sample().as_bytes().to_vec(), packed.as_bytes().to_vec()] {
        // Under Miri, a sample of positions (every byte takes minutes there).
        let step = if cfg!(miri) { 11 } else { 1 };
        let (ok, refused) = single_byte_corruptions(&saved, step, |b| load_or_error(b).map(drop));
        loaded += ok;
        rejected += refused;
    }
    // Float bits and key hashes can take any value; most other bytes cannot.
    assert!(
        loaded > 0 && rejected > loaded,
        "{loaded} loaded, {rejected} rejected"
    );
}

/// Edits one little-endian u32 of `bytes` at byte `at`.
fn with_word(bytes: &[u8], at: usize, word: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&word.to_le_bytes());
    out
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

#[test]
fn each_kind_of_corruption_is_named_by_its_error() {
    // Two entries, packed: header to 28, "xs" = [1.0] at 28..32 and
    // "s" = "abcde" at 32..37, padded to 40.
    let mut sheet = DataComponent::new();
    sheet.set("s", "abcde").unwrap();
    sheet.set("xs", &[1.0]).unwrap();
    sheet.shrink_to_fit();
    let ok = sheet.as_bytes().to_vec();
    assert_eq!(ok.len(), 40);
    assert_eq!(word(&ok, 4), 0x0028_001c, "P = 28, L = 40");
    assert_eq!(word(&ok, 16), 0x0005_0020, "string at 32, 5 bytes");
    assert_eq!(word(&ok, 20), 0x0001_001c, "array at 28, 1 float");
    assert_eq!(word(&ok, 24), 0x0000_0403, "tags");
    let cases: Vec<(Vec<u8>, DataError)> = vec![
        (ok[..5].to_vec(), DataError::Truncated { len: 5 }),
        (ok[..38].to_vec(), DataError::BadLength { len: 38 }),
        (vec![0; 65_536], DataError::BadLength { len: 65_536 }),
        (
            with_word(&ok, 0, 0x0002_0003),
            DataError::UnsupportedVersion { version: 3 },
        ),
        (
            with_word(&ok, 0, 0x0002_0000),
            DataError::UnsupportedVersion { version: 0 },
        ),
        (
            with_word(&ok, 0, 0x0002_0102),
            DataError::NonZeroUnused { offset: 1, byte: 1 },
        ),
        (
            with_word(&ok, 4, 0x0030_001c),
            DataError::LengthMismatch {
                declared: 48,
                actual: 40,
            },
        ),
        (
            with_word(&ok, 4, 0x0028_001e),
            DataError::BadPayloadStart {
                payload_start: 30,
                header_end: 28,
            },
        ),
        (
            with_word(&ok, 0, 0x0003_0002),
            DataError::BadPayloadStart {
                payload_start: 28,
                header_end: 36,
            },
        ),
        (
            with_word(&ok, 24, 0x0000_0603),
            DataError::BadType { index: 1, tag: 6 },
        ),
        (
            // Integers (tag 5) do not exist in version 1.
            with_word(&with_word(&ok, 0, 0x0002_0001), 24, 0x0000_0503),
            DataError::BadType { index: 1, tag: 5 },
        ),
        (
            with_word(&ok, 24, 0x0000_0401),
            DataError::BadBool {
                index: 0,
                word: 0x0005_0020,
            },
        ),
        (
            with_word(&ok, 24, 0x0100_0403),
            DataError::NonZeroUnused {
                offset: 27,
                byte: 1,
            },
        ),
        (
            with_word(&ok, 16, 0x0005_0022),
            DataError::BadPayload {
                index: 0,
                offset: 34,
                len: 5,
            },
        ),
        (
            with_word(&ok, 16, 0x0009_0020),
            DataError::BadPayload {
                index: 0,
                offset: 32,
                len: 9,
            },
        ),
        (
            with_word(&ok, 20, 0x0000_0004),
            DataError::BadPayload {
                index: 1,
                offset: 4,
                len: 0,
            },
        ),
        (
            with_word(&ok, 20, 0x0002_001c),
            DataError::Overlap { index: 0, other: 1 },
        ),
        (
            with_word(&ok, 32, 0x6463_62ff),
            DataError::BadUtf8 { index: 0 },
        ),
        (
            with_word(&ok, 36, 0x0000_0165),
            DataError::NonZeroUnused {
                offset: 37,
                byte: 1,
            },
        ),
        (
            with_word(&ok, 12, word(&ok, 8)),
            DataError::DuplicateKey { key: Key::new("s") },
        ),
    ];
    for (bytes, expected) in cases {
        assert_eq!(DataComponent::from_bytes(&bytes), Err(expected.clone()));
        assert!(!expected.to_string().is_empty());
    }
    // Free space must be zero too.
    let mut roomy = DataComponent::with_capacity(64);
    roomy.set("b", true).unwrap();
    let mut dirty = roomy.as_bytes().to_vec();
    dirty[30] = 7;
    assert_eq!(
        DataComponent::from_bytes(&dirty),
        Err(DataError::NonZeroUnused {
            offset: 30,
            byte: 7
        })
    );
}

fn cases(normal: u32) -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(miri) { 4 } else { normal },
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = load_or_error(&bytes);
    }

    #[test]
    fn random_bytes_behind_a_plausible_header_never_panic(
        version in 1_u8..=2,
        count in 0_u16..12,
        payload_start in 0_u16..120,
        rest in prop::collection::vec(any::<u8>(), 0..120),
    ) {
        let len = (8 + rest.len()) / 4 * 4;
        let mut bytes = vec![version, 0];
        bytes.extend(count.to_le_bytes());
        bytes.extend((payload_start & !3).to_le_bytes());
        bytes.extend((len as u16).to_le_bytes());
        bytes.extend(&rest);
        bytes.truncate(len);
        let _ = load_or_error(&bytes);
    }

    #[test]
    fn random_multi_byte_corruptions_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = sample().as_bytes().to_vec();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        let _ = load_or_error(&bytes);
    }
}

/// A version-1 saved sheet: the sample without integers, version byte 1.
fn version_1_bytes() -> Vec<u8> {
    let mut sheet = sample();
    assert!(sheet.remove("level"));
    let mut bytes = sheet.as_bytes().to_vec();
    assert_eq!(bytes[0], 2);
    bytes[0] = 1;
    bytes
}

#[test]
fn version_1_bytes_load_and_save_as_version_2_with_only_byte_0_changed() {
    let old = version_1_bytes();
    let loaded = DataComponent::from_bytes(&old).unwrap();
    assert_eq!(loaded.get_str("motto"), Some("héllo"));
    assert_eq!(loaded.get_f32s("color"), Some(&[0.0, 0.5, 0.5, 0.7][..]));
    let saved = loaded.as_bytes();
    assert_eq!(saved[0], 2);
    assert_eq!(saved[1..], old[1..]);
    // And the upgraded component takes integers like any other.
    let mut edited = loaded.clone();
    edited.set("level", 3).unwrap();
    assert_eq!(edited.get_i32("level"), Some(3));
    let again = DataComponent::from_bytes(edited.as_bytes()).unwrap();
    assert_eq!(again.as_bytes(), edited.as_bytes());
}

#[test]
fn every_truncation_of_version_1_bytes_is_an_error() {
    let old = version_1_bytes();
    for len in 0..old.len() {
        assert!(load_or_error(&old[..len]).is_err(), "length {len}");
    }
}
