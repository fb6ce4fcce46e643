//! A program of several tables, as a new user writes it: a world struct of
//! a unit table, two component maps and per-unit data, saved with serde and
//! reloaded, and the reload checked with one `assert_eq!`. Equality compares
//! what later behaviour depends on: live ids in dense order, the free queue
//! (which ids come next), every row, and each map's keys and rows.
#![cfg(feature = "serde")]

use idtable::data::DataMap;
use idtable::{join, remove_all, Maybe, SoaAllocator, SoaMap};
use serde::{Deserialize, Serialize};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, min_free = 4)]
pub struct Unit {
    pub pos: [f32; 2],
    pub hp: i32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Burning {
    pub dps: i32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq, Eq)]
#[soa(serde)]
pub struct Target {
    pub unit: UnitId,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct World {
    units: UnitAllocator,
    burning: SoaMap<UnitId, Burning>,
    targets: SoaMap<UnitId, Target>,
    data: DataMap<UnitId>,
}

/// 200 units with churn: some burn, most target another unit, some carry
/// data, a quarter die through `remove_all`.
fn world() -> World {
    let mut w = World::default();
    let mut ids = Vec::new();
    for i in 0..200_usize {
        let id = w.units.insert(Unit {
            pos: [i as f32, 0.0],
            hp: 100,
        });
        ids.push(id);
        if i % 3 == 0 {
            w.burning.insert(
                id,
                Burning {
                    dps: (i % 7) as i32,
                },
            );
        }
        if i % 4 != 0 {
            let unit = ids[(i * 7) % ids.len()];
            w.targets.insert(id, Target { unit });
        }
        if i % 5 == 0 {
            w.data.set(id, "name", "scout").unwrap();
        }
    }
    for &id in ids.iter().step_by(4) {
        remove_all(
            id,
            (&mut w.units, &mut w.burning, &mut w.targets, &mut w.data),
        );
    }
    for (_, (unit, fire, _)) in join((&mut w.units, &w.burning, Maybe(&w.targets))) {
        *unit.hp -= *fire.dps;
    }
    w
}

#[test]
fn a_world_saved_and_reloaded_is_equal() {
    let w = world();
    let json = serde_json::to_string(&w).unwrap();
    let from_json: World = serde_json::from_str(&json).unwrap();
    assert_eq!(from_json, w);
    let bytes = postcard::to_allocvec(&w).unwrap();
    let from_bytes: World = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(from_bytes, w);
}

#[test]
fn equality_sees_rows_keys_and_the_free_queue() {
    let w = world();
    let same = || serde_json::from_str::<World>(&serde_json::to_string(&w).unwrap()).unwrap();

    let mut a = same();
    let id = a.units.ids()[3];
    *a.units.get_mut(id).unwrap().hp += 1;
    assert_ne!(a, w, "a row differs");

    let mut b = same();
    let (key, _) = b.burning.iter().next().unwrap();
    b.burning.remove(key);
    assert_ne!(b, w, "a map lost a key");

    // The same live rows, but the next insert would issue another id.
    let mut c = same();
    let extra = c.units.insert(Unit {
        pos: [0.0; 2],
        hp: 1,
    });
    c.units.remove(extra);
    assert_eq!(c.units.len(), w.units.len());
    assert_ne!(c.units, w.units, "the free queue and generations differ");

    // The same rows in another dense order are another table.
    let mut d = same();
    d.units.sort_by_key(|u| -(u.pos[0] as i64));
    assert_ne!(d.units, w.units);

    let mut e = same();
    let id = e.units.ids()[0];
    e.data.set(id, "name", "other").unwrap();
    assert_ne!(e, w, "per-unit data differs");
    assert_eq!(same(), w);
}

/// `Eq` holds where every field is `Eq`.
#[test]
fn eq_where_every_field_is_eq() {
    fn total<T: Eq>(_: &T) {}
    let w = world();
    total(&w.targets);
    let mut targets = TargetAllocator::new();
    targets.insert(Target {
        unit: w.units.ids()[0],
    });
    total(&targets);
    assert_eq!(targets.clone(), targets);
}
