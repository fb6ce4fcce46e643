//! Saving a `DataMap` through `&`: `to_bytes` and the binary serde form are
//! compact whatever holes the buffer holds (byte for byte what
//! `shrink_to_fit` would leave), and load into an equal map; JSON writes keys
//! by name through `named` and loads names and hashes alike; hostile key
//! texts are errors, never panics.

use std::borrow::Cow;

use idtable_runtime::data::DataMap;
use idtable_runtime::{Id, Id24_8, Id32_32};

fn id24(i: usize, g: u32) -> Id24_8 {
    Id24_8::new(i, g).unwrap()
}

fn id64(i: usize, g: u32) -> Id32_32 {
    Id32_32::new(i, g.into()).unwrap()
}

/// A map with holes of every kind: a removed entity before others, an
/// entity moved by growing, two holes side by side, and a block emptied by
/// `remove_key` (moved into a smaller one).
fn holed<K: Id>(make: impl Fn(usize, u32) -> K) -> DataMap<K> {
    let mut m = DataMap::new();
    for i in 0..12 {
        m.set(make(i, 1), "hp", i as i32).unwrap();
        m.set(make(i, 1), "name", "Aria").unwrap();
    }
    m.remove(make(0, 1));
    m.set(make(3, 1), "xs", &[1.0_f32, 2.0, 3.0]).unwrap(); // moves
    m.remove(make(4, 1)); // next to 3's old place: two holes in a row
    m.set(make(6, 1), "long", "a string long enough to move the block")
        .unwrap();
    assert!(m.remove_key(make(6, 1), "long")); // shrinks into a new block
    m.set(make(7, 2), "newer", true).unwrap(); // replaces 7's data
    m
}

/// The map after `shrink_to_fit`, whose `as_bytes` is the compact form.
fn packed<K: Id>(map: &DataMap<K>) -> DataMap<K> {
    let mut packed = map.clone();
    packed.shrink_to_fit();
    packed
}

/// `to_bytes` is the packed map's bytes, smaller than the buffer when there
/// are holes, borrowed when there are none, and loads into an equal map that
/// saves to the same bytes.
fn check_compact<K: Id>(map: &DataMap<K>) {
    let saved = map.to_bytes();
    let packed = packed(map);
    assert_eq!(
        &saved[..],
        packed.as_bytes(),
        "to_bytes is shrink_to_fit's form"
    );
    assert!(saved.len() <= map.as_bytes().len());
    let has_holes = saved.len() < map.as_bytes().len();
    assert_eq!(matches!(saved, Cow::Owned(_)), has_holes);
    let loaded = DataMap::<K>::from_bytes(&saved).expect("the compact form loads");
    assert_eq!(&loaded, map);
    assert_eq!(loaded.to_bytes(), saved);
    assert_eq!(loaded.as_bytes(), &saved[..]);
    // The buffer with its holes loads too, and saves compact.
    let raw = DataMap::<K>::from_bytes(map.as_bytes()).expect("the buffer loads");
    assert_eq!(raw.to_bytes(), saved);
}

#[test]
fn to_bytes_leaves_the_holes_out_without_mut() {
    let m24 = holed(id24);
    let m64 = holed(id64);
    for (bytes, saved) in [
        (m24.as_bytes().len(), m24.to_bytes().len()),
        (m64.as_bytes().len(), m64.to_bytes().len()),
    ] {
        assert!(saved < bytes, "the holes are left out: {saved} of {bytes}");
    }
    check_compact(&m24);
    check_compact(&m64);
    // No holes: the buffer itself, borrowed.
    let mut plain: DataMap<Id24_8> = DataMap::new();
    assert!(matches!(plain.to_bytes(), Cow::Borrowed(b) if b == plain.as_bytes()));
    plain.set(id24(1, 1), "a", 1).unwrap();
    assert!(matches!(plain.to_bytes(), Cow::Borrowed(b) if b == plain.as_bytes()));
    check_compact(&plain);
}

#[test]
fn a_map_that_lost_every_entity_saves_as_its_header() {
    let mut m: DataMap<Id24_8> = DataMap::new();
    for i in 0..6 {
        m.set(id24(i, 1), "x", i as i32).unwrap();
    }
    // Removing from the front leaves holes until compaction.
    m.remove(id24(0, 1));
    assert!(m.to_bytes().len() < m.as_bytes().len());
    for i in 1..6 {
        m.remove(id24(i, 1));
        check_compact(&m);
    }
    assert!(m.is_empty());
    assert_eq!(m.to_bytes().len(), 8);
}

/// A small deterministic generator (xorshift), so that the random edits
/// below need no dependency and repeat exactly.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn random_edits_always_save_compact() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut m: DataMap<Id32_32> = DataMap::new();
    let mut checked_with_holes = 0;
    let steps = if cfg!(miri) { 60 } else { 3000 };
    for step in 0..steps {
        let id = id64(rng.below(24) as usize, 1 + rng.below(3) as u32);
        let key = ["a", "b", "c", "d"][rng.below(4) as usize];
        match rng.below(6) {
            0 => {
                m.remove(id);
            }
            1 => {
                m.remove_key(id, key);
            }
            2 => {
                let len = rng.below(40) as usize;
                let _ = m.set(id, key, "x".repeat(len).as_str());
            }
            3 => {
                let len = rng.below(12) as usize;
                let _ = m.set(id, key, &vec![0.5_f32; len][..]);
            }
            _ => {
                let _ = m.set(id, key, rng.below(100) as i32);
            }
        }
        if step % 7 == 0 {
            if m.to_bytes().len() < m.as_bytes().len() {
                checked_with_holes += 1;
            }
            check_compact(&m);
        }
    }
    assert!(checked_with_holes > 0, "the edits left holes to leave out");
}

#[cfg(feature = "serde")]
mod serde_formats {
    use super::*;
    use idtable_runtime::data::{Key, KeyNames};

    fn hex(key: Key) -> String {
        format!("{:#010x}", key.to_hash())
    }

    #[test]
    fn postcard_saves_the_compact_form_through_a_shared_reference() {
        let map = holed(id24);
        let shared = &map;
        let saved = postcard::to_allocvec(shared).unwrap();
        assert_eq!(saved, postcard::to_allocvec(&packed(&map)).unwrap());
        // The bytes are the compact form after postcard's length prefix.
        let compact = map.to_bytes();
        assert!(saved.ends_with(&compact));
        assert!(saved.len() < compact.len() + 4);
        assert!(saved.len() < map.as_bytes().len());
        let back: DataMap<Id24_8> = postcard::from_bytes(&saved).unwrap();
        assert_eq!(back, map);
        assert_eq!(back.as_bytes(), &compact[..]);
        // A named view saves the same bytes: names are not part of them.
        let names = KeyNames::new().with(&["hp"]).with(&["name"]);
        assert_eq!(postcard::to_allocvec(&map.named(&names)).unwrap(), saved);
        let map = holed(id64);
        let saved = postcard::to_allocvec(&map).unwrap();
        assert_eq!(saved, postcard::to_allocvec(&packed(&map)).unwrap());
        assert_eq!(
            postcard::from_bytes::<DataMap<Id32_32>>(&saved).unwrap(),
            map
        );
    }

    #[test]
    fn json_of_a_map_with_holes_round_trips() {
        let map = holed(id64);
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, serde_json::to_string(&packed(&map)).unwrap());
        let back: DataMap<Id32_32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
    }

    /// Every value type under known, unknown and awkward keys.
    fn sheets() -> (DataMap<Id24_8>, KeyNames) {
        let names = KeyNames::new()
            .with(&["stats", "health"])
            .with(&["name"])
            .with(&["status_effects", "drunk"])
            .with(&["inventory", "weights"])
            .with(&["level"]);
        let mut m = DataMap::new();
        for i in 0..5 {
            let id = id24(i * 7, 1 + i as u32);
            m.set(id, Key::path(&["stats", "health"]), 40.0 + i as f32)
                .unwrap();
            m.set(id, "name", "Innkeeper").unwrap();
            m.set(id, Key::path(&["status_effects", "drunk"]), i % 2 == 0)
                .unwrap();
            m.set(id, Key::path(&["inventory", "weights"]), &[1.5_f32, 0.25])
                .unwrap();
            m.set(id, "level", i as i32).unwrap();
            m.set(id, "unnamed", -3).unwrap(); // not in the table
        }
        m.insert(id24(99, 1), &Default::default()).unwrap();
        (m, names)
    }

    #[test]
    fn json_with_names_round_trips() {
        let (map, names) = sheets();
        let value = serde_json::to_value(map.named(&names)).unwrap();
        let bits = id24(7, 2).to_bits().to_string();
        let entity = value[&bits].as_object().unwrap();
        assert_eq!(entity["stats.health"], 41.0);
        assert_eq!(entity["name"], "Innkeeper");
        assert_eq!(entity["status_effects.drunk"], false);
        assert_eq!(entity["inventory.weights"], serde_json::json!([1.5, 0.25]));
        assert_eq!(entity["level"], 1);
        assert_eq!(entity[&hex(Key::new("unnamed"))], -3);
        assert_eq!(entity.len(), 6);
        assert_eq!(
            value[id24(99, 1).to_bits().to_string()],
            serde_json::json!({})
        );
        let back: DataMap<Id24_8> = serde_json::from_value(value).unwrap();
        assert_eq!(back, map);
        // Without a table, or with an empty one, every key is a hash.
        let plain = serde_json::to_string(&map).unwrap();
        assert_eq!(
            plain,
            serde_json::to_string(&map.named(&KeyNames::new())).unwrap()
        );
        assert!(!plain.contains("stats.health"));
        assert_eq!(
            serde_json::from_str::<DataMap<Id24_8>>(&plain).unwrap(),
            map
        );
    }

    #[test]
    fn json_mixing_names_and_hashes_loads() {
        let text = format!(
            r#"{{"16777217":{{"stats.health":40.0,"{}":"Aria","status_effects.drunk":true}},
                "16777218":{{"level":3,"{}":[1.0,2.0]}}}}"#,
            hex(Key::new("name")),
            hex(Key::path(&["inventory", "weights"])),
        );
        let map: DataMap<Id24_8> = serde_json::from_str(&text).unwrap();
        let (a, b) = (id24(1, 1), id24(2, 1));
        assert_eq!(map.get_f32(a, Key::path(&["stats", "health"])), Some(40.0));
        assert_eq!(map.get_str(a, "name"), Some("Aria"));
        assert_eq!(
            map.get_bool(a, Key::new("status_effects").join("drunk")),
            Some(true)
        );
        assert_eq!(map.get_i32(b, "level"), Some(3));
        assert_eq!(
            map.get_f32s(b, Key::path(&["inventory", "weights"])),
            Some(&[1.0, 2.0][..])
        );
        // Written back with a partial table: named keys by name, the rest by hash.
        let names = KeyNames::new().with(&["name"]);
        let again = serde_json::to_value(map.named(&names)).unwrap();
        assert_eq!(again["16777217"]["name"], "Aria");
        assert_eq!(
            again["16777217"][hex(Key::path(&["stats", "health"]))],
            40.0
        );
        assert_eq!(
            serde_json::from_value::<DataMap<Id24_8>>(again).unwrap(),
            map
        );
    }

    #[test]
    fn names_that_would_read_back_as_another_key_are_written_as_hashes() {
        let awkward: [&[&str]; 6] = [
            &["a.b"],          // a dot inside a segment
            &["stats", "x.y"], // the same, deeper
            &["0x12345678"],   // looks like a hash
            &["0xname"],       // starts like one
            &["", "x"],        // an empty segment
            &[],               // the empty path
        ];
        let names: KeyNames = awkward.iter().copied().collect();
        let id = id24(0, 1);
        let mut map: DataMap<Id24_8> = DataMap::new();
        for (n, path) in awkward.iter().enumerate() {
            map.set(id, Key::path(path), n as i32).unwrap();
        }
        // A name that is fine next to them.
        map.set(id, Key::path(&["x", "0x12345678"]), 9).unwrap();
        let names = names.with(&["x", "0x12345678"]);
        let value = serde_json::to_value(map.named(&names)).unwrap();
        let entity = value[id.to_bits().to_string()].as_object().unwrap();
        for path in awkward {
            assert!(
                entity.contains_key(&hex(Key::path(path))),
                "{path:?}: {entity:?}"
            );
        }
        assert_eq!(entity["x.0x12345678"], 9);
        assert_eq!(
            serde_json::from_value::<DataMap<Id24_8>>(value).unwrap(),
            map
        );
    }

    /// Two names whose paths hash to the same key, found by a search over
    /// `k0`, `k1`, … (32-bit hashes collide after some 2^16 names: here the
    /// 55,966th meets an earlier one).
    const COLLIDING: (&str, &str) = ("k17592", "k55965");

    #[test]
    fn hostile_key_texts_are_errors() {
        let h = hex(Key::new("name"));
        let (x, y) = COLLIDING;
        assert_eq!(Key::new(x), Key::new(y), "{x} and {y} share a hash");
        // Far past what an error quotes (Miri: shorter, as it is slow).
        let long = "k".repeat(if cfg!(miri) { 1 << 12 } else { 1 << 20 });
        let bad = [
            r#"{"16777217":{"":1}}"#.to_string(),              // empty
            r#"{"16777217":{"0x":1}}"#.into(),                 // a hash without digits
            r#"{"16777217":{"0x1234":1}}"#.into(),             // too short
            r#"{"16777217":{"0x123456789":1}}"#.into(),        // too long
            r#"{"16777217":{"0x1234567g":1}}"#.into(),         // not hex
            r#"{"16777217":{"0x+1234567":1}}"#.into(),         // a sign
            r#"{"16777217":{"0X12345678":1}}"#.into(),         // capital X
            r#"{"16777217":{"0xstats.health":1}}"#.into(),     // a hash-like path
            r#"{"16777217":{"a..b":1}}"#.into(),               // empty segment
            r#"{"16777217":{".a":1}}"#.into(),                 // leading dot
            r#"{"16777217":{"a.":1}}"#.into(),                 // trailing dot
            r#"{"16777217":{".":1}}"#.into(),                  // dots only
            format!(r#"{{"16777217":{{"name":1,"{h}":2}}}}"#), // by name and hash
            r#"{"16777217":{"a.b":1,"a.b":2}}"#.into(),        // one name twice
            format!(r#"{{"16777217":{{"{x}":1,"{y}":2}}}}"#),  // two names, one hash
            format!(r#"{{"16777217":{{"0x{long}":1}}}}"#),     // long and bad
            format!(r#"{{"16777217":{{"{long}..":1}}}}"#),
            r#"{"16777217":{"name":{}}}"#.into(), // value not a value
            r#"{"16777217":{"\ud800":1}}"#.into(), // not UTF-8 text
        ];
        for text in &bad {
            let err = serde_json::from_str::<DataMap<Id24_8>>(text).unwrap_err();
            // Errors quote at most a clipped key text.
            assert!(err.to_string().len() < 300, "{}", err.to_string().len());
        }
        // A key text of any length and characters is hashed, not refused.
        let ok = format!(r#"{{"16777217":{{"{long}":1,"é.\n.\"":2}}}}"#).replace('\n', "\\n");
        let map: DataMap<Id24_8> = serde_json::from_str(&ok).unwrap();
        assert_eq!(map.get_i32(id24(1, 1), Key::new(&long)), Some(1));
        assert_eq!(
            map.get_i32(id24(1, 1), Key::path(&["é", "\n", "\""])),
            Some(2)
        );
    }

    proptest::proptest! {
        // No failure file: Miri's isolation refuses the file system, and
        // these tests run under Miri in CI.
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Any key text loads as the key its rule gives, or is an error;
        /// never a panic. A loaded key saves under a table that names it
        /// and loads back to the same map.
        #[test]
        fn any_key_text_loads_or_errors(text in "(0x|0X)?[0-9a-fA-F.xé ]{0,12}") {
            let json = serde_json::to_string(&serde_json::json!({ "16777217": { &text: 1 } })).unwrap();
            if let Ok(map) = serde_json::from_str::<DataMap<Id24_8>>(&json) {
                let (key, _) = map.entity(id24(1, 1)).unwrap().iter().next().unwrap();
                let segments: Vec<&str> = text.split('.').collect();
                let hash = text.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok());
                proptest::prop_assert_eq!(key, hash.map_or(Key::path(&segments), Key::from_hash));
                let names = KeyNames::new().with(&segments);
                let again = serde_json::to_string(&map.named(&names)).unwrap();
                proptest::prop_assert_eq!(serde_json::from_str::<DataMap<Id24_8>>(&again).unwrap(), map);
            }
        }
    }
}
