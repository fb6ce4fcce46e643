//! `SoaMap` with the `serde` and `rayon` features, through derived structs.
//!
//! * serde: a round trip (serde_json and postcard) keeps every key and row
//!   and keeps stale keys stale; loading refuses a repeated key, two keys
//!   of one slot index and columns of the wrong length. (Saving a map of a
//!   struct that did not opt in with `#[soa(serde)]` is a compile error:
//!   `ui-tests/tests/ui-serde/soa-map-of-a-struct-not-opted-in.rs`.)
//! * rayon: `par_iter()` / `par_iter_mut()` yield what `iter()` /
//!   `iter_mut()` yield, in dense order, after churn.

#![cfg(any(feature = "serde", feature = "rayon"))]

use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
#[soa(id = idtable::Id24_8)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Burning {
    pub dps: f32,
    pub name: String,
}

fn burning(n: u32) -> Burning {
    Burning {
        dps: n as f32,
        name: format!("fire{n}"),
    }
}

/// 50 units, the even ones burning; then every fifth unit dies and is
/// replaced (reusing its slot), the newcomers burning too.
fn churned() -> (UnitAllocator, SoaMap<UnitId, Burning>, Vec<UnitId>) {
    let mut units = UnitAllocator::new();
    let mut map = SoaMap::new();
    let ids: Vec<UnitId> = (0..50).map(|hp| units.insert(Unit { hp })).collect();
    for (n, &id) in ids.iter().enumerate().step_by(2) {
        map.insert(id, burning(n as u32));
    }
    let mut dead = Vec::new();
    for &id in ids.iter().step_by(5) {
        units.remove(id);
        dead.push(id);
        let fresh = units.insert(Unit { hp: 99 });
        map.insert(fresh, burning(1000 + fresh.index() as u32));
    }
    (units, map, dead)
}

#[cfg(feature = "serde")]
mod saved {
    use super::*;
    use serde_json::json;

    fn rows(map: &SoaMap<UnitId, Burning>) -> Vec<(UnitId, Burning)> {
        map.iter().map(|(k, b)| (k, b.to_owned())).collect()
    }

    #[test]
    fn a_round_trip_keeps_every_key_row_and_stale_key() {
        let (_, map, dead) = churned();
        let text = serde_json::to_string(&map).unwrap();
        let back: SoaMap<UnitId, Burning> = serde_json::from_str(&text).unwrap();
        back.check_invariants();
        assert_eq!(rows(&back), rows(&map));
        for id in &dead {
            assert_eq!(back.contains_key(*id), map.contains_key(*id));
        }
        let bytes = postcard::to_allocvec(&map).unwrap();
        let back: SoaMap<UnitId, Burning> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(rows(&back), rows(&map));
    }

    #[test]
    fn the_saved_form_is_keys_and_columns() {
        let mut units = UnitAllocator::new();
        let a = units.insert(Unit { hp: 1 });
        let mut map = SoaMap::new();
        map.insert(a, burning(2));
        assert_eq!(
            serde_json::to_value(&map).unwrap(),
            json!({ "keys": [a.to_bits()], "columns": { "dps": [2.0], "name": ["fire2"] } })
        );
    }

    #[test]
    fn loading_refuses_repeated_keys_shared_slots_and_wrong_lengths() {
        let k = |i: usize, g: u32| UnitId::from_bits(g << 24 | i as u32).unwrap().to_bits();
        let cases = [
            (
                json!({ "keys": [k(1, 1), k(1, 1)], "columns": { "dps": [1.0, 2.0], "name": ["a", "b"] } }),
                "appears twice",
            ),
            (
                json!({ "keys": [k(1, 1), k(1, 2)], "columns": { "dps": [1.0, 2.0], "name": ["a", "b"] } }),
                "share slot index 1",
            ),
            (
                json!({ "keys": [k(1, 1)], "columns": { "dps": [1.0], "name": [] } }),
                "column `name` has 0 values, but the map has 1 keys",
            ),
        ];
        for (value, want) in cases {
            let err = serde_json::from_value::<SoaMap<UnitId, Burning>>(value.clone())
                .err()
                .unwrap_or_else(|| panic!("{value} loaded"));
            assert!(err.to_string().contains(want), "{value}: {err}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// Any bytes: an error, or a map that passes its checks and saves
        /// back to a map of the same entries.
        #[test]
        fn hostile_postcard_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            if let Ok(map) = postcard::from_bytes::<SoaMap<UnitId, Burning>>(&bytes) {
                map.check_invariants();
                let again: SoaMap<UnitId, Burning> =
                    postcard::from_bytes(&postcard::to_allocvec(&map).unwrap()).unwrap();
                proptest::prop_assert_eq!(rows(&again), rows(&map));
            }
        }

        /// Keys of any bits with columns of any lengths: an error exactly when
        /// a key repeats a slot index, a generation is 0 or a length differs.
        #[test]
        fn hostile_json_keys_are_refused_exactly_when_invalid(
            keys in proptest::collection::vec(proptest::prop_oneof![0u32..40, (1u32 << 24)..(1u32 << 24) + 40, proptest::num::u32::ANY], 0..8),
            extra in 0usize..2,
        ) {
            let n = keys.len();
            let value = json!({
                "keys": keys,
                "columns": { "dps": vec![1.0; n], "name": vec!["x"; n + extra] },
            });
            let slots: std::collections::HashSet<u32> = keys.iter().map(|k| k & 0xff_ffff).collect();
            let valid = extra == 0 && slots.len() == n && keys.iter().all(|k| k >> 24 != 0);
            match serde_json::from_value::<SoaMap<UnitId, Burning>>(value) {
                Ok(map) => {
                    proptest::prop_assert!(valid);
                    map.check_invariants();
                    proptest::prop_assert_eq!(map.len(), n);
                }
                Err(_) => proptest::prop_assert!(!valid),
            }
        }
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn par_iter_yields_the_serial_pairs_in_dense_order() {
        let (_, map, _) = churned();
        let serial: Vec<(UnitId, f32)> = map.iter().map(|(k, b)| (k, *b.dps)).collect();
        let parallel: Vec<(UnitId, f32)> = map
            .par_iter()
            .with_max_len(1)
            .map(|(k, b)| (k, *b.dps))
            .collect();
        assert_eq!(parallel, serial);
        let via_ref: f32 = (&map).into_par_iter().map(|(_, b)| *b.dps).sum();
        assert_eq!(via_ref, map.columns().dps.iter().sum::<f32>());
    }

    #[test]
    fn par_iter_mut_writes_each_entry_once_under_its_key() {
        let (_, mut map, _) = churned();
        map.par_iter_mut()
            .with_max_len(2)
            .for_each(|(k, b)| *b.dps = k.index() as f32 + 0.5);
        (&mut map)
            .into_par_iter()
            .for_each(|(_, b)| b.name.push('!'));
        for (k, b) in map.iter() {
            assert_eq!(*b.dps, k.index() as f32 + 0.5);
            assert!(b.name.ends_with('!') && !b.name.ends_with("!!"));
        }
    }
}
