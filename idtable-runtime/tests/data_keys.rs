//! Laws and pinned values of `idtable::data::Key`.

use std::collections::HashSet;

use idtable_runtime::data::Key;

const HEALTH: Key = Key::path(&["stats", "health"]);
const MANA: Key = Key::new("stats").join("mana");
const EFFECTS: Key = Key::new("status_effects");
const DRUNK: Key = EFFECTS.join("drunk");
const EMPTY_PATH: Key = Key::path(&[]);

#[test]
fn keys_are_computable_in_const_context() {
    const HASH: u32 = HEALTH.to_hash();
    const BACK: Key = Key::from_hash(HASH);
    assert_eq!(BACK, HEALTH);
    assert_eq!(MANA, Key::path(&["stats", "mana"]));
    assert_eq!(DRUNK, Key::path(&["status_effects", "drunk"]));
    // Usable where only constants are allowed.
    let kind = match Key::new("stats").join("health") {
        HEALTH => "health",
        MANA => "mana",
        _ => "other",
    };
    assert_eq!(kind, "health");
}

#[test]
fn path_equals_new_then_join() {
    let cases: &[&[&str]] = &[
        &["a"],
        &["a", "b"],
        &["a", "b", "c"],
        &["", ""],
        &["stats", "health"],
        &["ünïcödé", "🦀", "x.y"],
    ];
    for &segments in cases {
        let mut joined = Key::new(segments[0]);
        for segment in &segments[1..] {
            joined = joined.join(segment);
        }
        assert_eq!(Key::path(segments), joined, "{segments:?}");
    }
}

#[test]
fn dot_inside_a_segment_is_not_a_separator() {
    assert_ne!(Key::new("a.b"), Key::path(&["a", "b"]));
    assert_ne!(Key::new("stats.health"), HEALTH);
    assert_ne!(Key::path(&["a.b", "c"]), Key::path(&["a", "b.c"]));
}

#[test]
fn segment_order_matters() {
    assert_ne!(Key::path(&["a", "b"]), Key::path(&["b", "a"]));
    assert_ne!(
        Key::path(&["stats", "health"]),
        Key::path(&["health", "stats"])
    );
}

#[test]
fn segment_boundaries_matter() {
    assert_ne!(Key::path(&["ab", "c"]), Key::path(&["a", "bc"]));
    assert_ne!(Key::path(&["abc"]), Key::path(&["a", "b", "c"]));
    assert_ne!(Key::path(&["a", ""]), Key::new("a"));
    assert_ne!(Key::new(""), EMPTY_PATH);
}

#[test]
fn str_converts_to_a_one_segment_key() {
    assert_eq!(Key::from("name"), Key::new("name"));
    assert_eq!(Key::from(&String::from("name")), Key::new("name"));
    assert_eq!(Key::path(&["name"]), Key::new("name"));
}

#[test]
fn hash_values_are_pinned() {
    // Changing any of these breaks every saved buffer: see the module docs.
    assert_eq!(EMPTY_PATH.to_hash(), 0x811c_9dc5);
    assert_eq!(Key::new("").to_hash(), 0xa436_2720);
    assert_eq!(Key::new("name").to_hash(), 0xbfa1_1ba6);
    assert_eq!(HEALTH.to_hash(), 0xefa7_583b);
    assert_eq!(Key::new("stats.health").to_hash(), 0xbb8e_176b);
}

#[test]
fn from_hash_and_to_hash_round_trip() {
    for hash in [0, 1, 0x811c_9dc5, u32::MAX] {
        assert_eq!(Key::from_hash(hash).to_hash(), hash);
    }
}

#[test]
fn debug_shows_the_hash_in_hex() {
    assert_eq!(format!("{HEALTH:?}"), "Key(0xefa7583b)");
    assert_eq!(format!("{:?}", Key::from_hash(1)), "Key(0x00000001)");
}

#[test]
fn keys_order_by_hash() {
    assert!(Key::from_hash(1) < Key::from_hash(2));
    let mut keys = [HEALTH, MANA, DRUNK];
    keys.sort();
    assert!(keys.windows(2).all(|w| w[0].to_hash() < w[1].to_hash()));
}

#[test]
fn small_dictionary_has_no_collisions() {
    // Not a guarantee (32 bits), but a sanity check of the mixing.
    let mut seen = HashSet::new();
    for a in 0..60 {
        let outer = format!("k{a}");
        assert!(seen.insert(Key::new(&outer)));
        for b in 0..60 {
            assert!(seen.insert(Key::path(&[&outer, &format!("k{b}")])));
        }
    }
}
