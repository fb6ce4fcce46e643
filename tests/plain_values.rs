//! Plain values as `SoaMap` components: numbers, `()` as a set, `String`,
//! `Vec`, `Option`, `Box`, arrays, tuples and ids are one column each
//! (`get` gives `Option<&T>`); a user's enum or marker becomes one with
//! one line; and the entry API, checked against a model.

use std::collections::HashMap;

use idtable::map::Entry;
use idtable::{join, PlainValue, SoaAllocator, SoaMap};
use proptest::prelude::*;

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Team {
    Red,
    Blue,
}
impl PlainValue for Team {}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Frozen;
impl PlainValue for Frozen {}

fn units(n: i32) -> (UnitAllocator, Vec<UnitId>) {
    let mut a = UnitAllocator::new();
    let ids = (0..n).map(|hp| a.insert(Unit { hp })).collect();
    (a, ids)
}

/// Plain values as components: the `heat` and `frozen` maps of the guide's
/// chapter *Shaping columns* and of the README (`entry`, `or_insert`,
/// `and_modify`, a set of keys).
#[test]
fn heat_and_frozen_as_in_the_guide() {
    let (_, ids) = units(1);
    let u = ids[0];
    let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
    let mut frozen: SoaMap<UnitId, ()> = SoaMap::new();
    *heat.entry(u).unwrap().or_insert(0.0) += 1.5;
    heat.entry(u)
        .unwrap()
        .and_modify(|h| *h *= 2.0)
        .or_default();
    frozen.insert(u, ());
    assert!(frozen.contains_key(u));
    assert_eq!(heat.columns(), &[3.0]);
}

#[test]
fn plain_values_are_one_column_each() {
    let (_, ids) = units(3);
    let (a, b) = (ids[0], ids[1]);

    let mut names: SoaMap<UnitId, String> = SoaMap::new();
    names.insert(a, "ann".into());
    names.get_mut(a).unwrap().push('!');
    let name: Option<&String> = names.get(a);
    assert_eq!(name.map(String::as_str), Some("ann!"));
    let column: &[String] = names.columns();
    assert_eq!(column, ["ann!".to_string()]);

    let mut path: SoaMap<UnitId, Vec<[f32; 2]>> = SoaMap::new();
    path.insert(b, vec![[0.0, 0.0]]);
    path.get_mut(b).unwrap().push([1.0, 1.0]);
    assert_eq!(path.get(b).map(Vec::len), Some(2));

    let mut target: SoaMap<UnitId, Option<UnitId>> = SoaMap::new();
    target.insert(a, Some(b));
    target.insert(b, None);
    assert_eq!(target.get(a), Some(&Some(b)));
    let mut leader: SoaMap<UnitId, UnitId> = SoaMap::new();
    leader.insert(b, a);
    assert_eq!(leader.columns(), &[a]);

    let mut boxed: SoaMap<UnitId, Box<str>> = SoaMap::new();
    boxed.insert(a, "boxed".into());
    assert_eq!(boxed.get(a).map(|s| &**s), Some("boxed"));

    let mut pair: SoaMap<UnitId, (u8, f64)> = SoaMap::new();
    pair.insert(a, (1, 0.5));
    pair.get_mut(a).unwrap().1 += 1.0;
    assert_eq!(pair.columns(), &[(1, 1.5)]);

    let mut grid: SoaMap<UnitId, [i16; 4]> = SoaMap::new();
    grid.insert(b, [1, 2, 3, 4]);
    assert_eq!(grid.remove(b), Some([1, 2, 3, 4]));

    let mut flags: SoaMap<UnitId, (bool, char)> = SoaMap::new();
    flags.insert(a, (true, 'x'));
    assert_eq!(flags.get(a), Some(&(true, 'x')));
}

#[test]
fn a_set_of_keys_takes_no_column_memory() {
    let (mut all, ids) = units(100);
    let mut selected: SoaMap<UnitId, ()> = SoaMap::new();
    for &id in ids.iter().step_by(3) {
        selected.insert(id, ());
    }
    assert_eq!(selected.len(), 34);
    assert!(selected.contains_key(ids[3]) && !selected.contains_key(ids[4]));
    assert_eq!(selected.remove(ids[3]), Some(()));
    selected.retain(|id, _| id.index() % 2 == 0);
    assert!(selected.keys().iter().all(|id| id.index() % 2 == 0));
    // A join over the set: every selected unit.
    let mut count = 0;
    for (_, (unit, ())) in join((&mut all, &selected)) {
        *unit.hp += 1000;
        count += 1;
    }
    assert_eq!(count, selected.len());
    assert_eq!(*all.get(ids[6]).unwrap().hp, 1006);
}

#[test]
fn a_user_enum_and_a_marker_become_components_with_one_line() {
    let (_, ids) = units(4);
    let mut team: SoaMap<UnitId, Team> = SoaMap::new();
    let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    for (i, &id) in ids.iter().enumerate() {
        team.insert(id, if i % 2 == 0 { Team::Red } else { Team::Blue });
    }
    frozen.insert(ids[1], Frozen);
    assert_eq!(team.get(ids[1]), Some(&Team::Blue));
    team.sort_by_key(|t| matches!(*t, Team::Red));
    assert_eq!(
        team.columns(),
        &[Team::Blue, Team::Blue, Team::Red, Team::Red]
    );
    let blue: Vec<UnitId> = team
        .iter()
        .filter(|(_, t)| **t == Team::Blue)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(blue, [ids[1], ids[3]]);
    assert_eq!(format!("{frozen:?}"), format!("{{{:?}: Frozen}}", ids[1]));
    let copy = team.clone();
    assert!(copy == team);
    let drained: Vec<(UnitId, Team)> = team.drain().collect();
    assert_eq!(drained.len(), 4);
}

#[test]
fn entries_of_stale_and_newer_keys() {
    let (mut all, ids) = units(1);
    let old = ids[0];
    all.remove(old);
    let new = all.insert(Unit { hp: 2 }); // old's slot, a newer generation
    assert_eq!(new.index(), old.index());
    let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
    heat.insert(old, 1.0);
    // A newer key finds the stale row vacant, and replaces it.
    match heat.entry(new) {
        Some(Entry::Vacant(place)) => *place.insert(5.0) += 1.0,
        other => panic!("expected a vacant entry, got {other:?}"),
    }
    assert_eq!(
        (heat.len(), heat.get(new), heat.get(old)),
        (1, Some(&6.0), None)
    );
    // An older key has no entry at all.
    assert!(heat.entry(old).is_none());
    assert_eq!(heat.entry(new).unwrap().key(), new);
    heat.check_invariants();
}

#[derive(Debug, Clone)]
enum Op {
    OrInsert(usize, i64),
    AndModify(usize, i64),
    OrDefault(usize),
    RemoveOccupied(usize),
    ReplaceOccupied(usize, i64),
    Retire(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..12, -9i64..9).prop_map(|(k, v)| Op::OrInsert(k, v)),
        (0usize..12, -9i64..9).prop_map(|(k, v)| Op::AndModify(k, v)),
        (0usize..12).prop_map(Op::OrDefault),
        (0usize..12).prop_map(Op::RemoveOccupied),
        (0usize..12, -9i64..9).prop_map(|(k, v)| Op::ReplaceOccupied(k, v)),
        (0usize..12).prop_map(Op::Retire),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, failure_persistence: None, ..ProptestConfig::default() })]

    /// Entries answer as a `HashMap` of the live keys does; a key retired
    /// by its table never finds its old row, and the stale row is replaced
    /// when the slot's newer key inserts.
    #[test]
    fn entries_agree_with_a_hash_map(ops in prop::collection::vec(op(), 1..80)) {
        let (mut table, mut keys) = units(12);
        let mut map: SoaMap<UnitId, i64> = SoaMap::new();
        let mut model: HashMap<UnitId, i64> = HashMap::new();
        for op in ops {
            match op {
                Op::OrInsert(k, v) => {
                    let got = *map.entry(keys[k]).unwrap().or_insert(v);
                    prop_assert_eq!(got, *model.entry(keys[k]).or_insert(v));
                }
                Op::AndModify(k, v) => {
                    let got = *map.entry(keys[k]).unwrap().and_modify(|x| *x += v).or_insert(0);
                    prop_assert_eq!(got, *model.entry(keys[k]).and_modify(|x| *x += v).or_insert(0));
                }
                Op::OrDefault(k) => {
                    let got = *map.entry(keys[k]).unwrap().or_default();
                    prop_assert_eq!(got, *model.entry(keys[k]).or_default());
                }
                Op::RemoveOccupied(k) => match map.entry(keys[k]).unwrap() {
                    Entry::Occupied(e) => prop_assert_eq!(Some(e.remove()), model.remove(&keys[k])),
                    Entry::Vacant(_) => prop_assert!(!model.contains_key(&keys[k])),
                },
                Op::ReplaceOccupied(k, v) => {
                    if let Entry::Occupied(mut e) = map.entry(keys[k]).unwrap() {
                        let old = e.insert(v);
                        prop_assert_eq!(Some(old), model.insert(keys[k], v));
                    }
                }
                Op::Retire(k) => {
                    // The key's object goes and its slot comes back newer;
                    // the old row stays, stale, until replaced.
                    let old = keys[k];
                    table.remove(old);
                    model.remove(&old);
                    keys[k] = table.insert(Unit { hp: 0 });
                    prop_assert!(map.get(keys[k]).is_none(), "a new key never sees the old row");
                }
            }
            map.check_invariants();
            let live = keys.iter().filter(|k| map.contains_key(**k)).count();
            prop_assert_eq!(live, model.len());
            for (key, value) in &model {
                prop_assert_eq!(map.get(*key), Some(value));
            }
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn plain_value_maps_round_trip() {
    let (_, ids) = units(3);
    let mut names: SoaMap<UnitId, String> = SoaMap::new();
    let mut selected: SoaMap<UnitId, ()> = SoaMap::new();
    names.insert(ids[2], "c".into());
    selected.insert(ids[0], ());
    let text = serde_json::to_string(&names).unwrap();
    let back: SoaMap<UnitId, String> = serde_json::from_str(&text).unwrap();
    assert!(back == names);
    let bytes = postcard::to_allocvec(&selected).unwrap();
    let back: SoaMap<UnitId, ()> = postcard::from_bytes(&bytes).unwrap();
    assert!(back.contains_key(ids[0]));
    assert!(serde_json::from_str::<SoaMap<UnitId, String>>(
        r#"{"keys":[4294967296],"columns":{"value":[]}}"#
    )
    .is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn plain_value_maps_run_in_parallel() {
    use rayon::prelude::*;
    let (_, ids) = units(1000);
    let mut heat: SoaMap<UnitId, f32> = ids.iter().map(|&id| (id, 1.0)).collect();
    heat.par_iter_mut().for_each(|(_, h)| *h *= 2.0);
    let total: f32 = heat.par_iter().map(|(_, h)| *h).sum();
    assert_eq!(total, 2000.0);
}
