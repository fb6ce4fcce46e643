//! Status effects: units in one table, their `Burning`, `Poisoned` and
//! `Frozen` components in `SoaMap`s keyed by the units' ids, read together
//! with joins.
//!
//! Every frame some units catch fire, are poisoned or frozen; fire burns
//! every burning unit (harder on a poisoned one: a `Maybe` source), poison
//! hurts every poisoned unit that is not frozen (a `Without` source),
//! expired effects are dropped, dead units leave every container at once
//! (`remove_all`), and new units are spawned into the freed slots. The
//! example asserts that no effect ever reaches a unit it was not given to,
//! then prints a short summary.
//!
//! Run it with `cargo run --example status_effects` (add `-- --frames N`
//! for a longer run).

use std::collections::HashSet;

use idtable::{join, remove_all, Maybe, SoaAllocator, SoaMap, Without};

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8)]
pub struct Unit {
    pub hp: i32,
}

/// Fire: damage per frame, and how many frames it still burns.
#[derive(SoaAllocator)]
pub struct Burning {
    pub dps: i32,
    pub frames_left: u32,
}

/// Poison: damage every `period` frames, for a number of ticks.
#[derive(SoaAllocator)]
pub struct Poisoned {
    pub damage: i32,
    pub period: u32,
    pub ticks_left: u32,
}

/// Frozen units take no poison damage while they thaw.
#[derive(SoaAllocator)]
pub struct Frozen {
    pub frames_left: u32,
}

/// A small deterministic generator (xorshift64*), so runs repeat.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn main() {
    let frames: u32 = match std::env::args().skip_while(|a| a != "--frames").nth(1) {
        Some(n) => n.parse().expect("--frames takes a number"),
        None => 300,
    };
    let mut rng = Rng(0x5eed_cafe_f00d);
    let mut units = UnitAllocator::new();
    let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    let mut poisoned: SoaMap<UnitId, Poisoned> = SoaMap::new();
    let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    // Every unit ever given an effect: the check that ids are never confused.
    let mut given: HashSet<UnitId> = HashSet::new();
    let (mut died, mut reused, mut burn_damage, mut poison_damage) = (0, 0, 0i64, 0i64);
    let mut used_slots: HashSet<usize> = (0..2_000)
        .map(|_| units.insert(Unit { hp: 100 }).index())
        .collect();

    for frame in 0..frames {
        // New effects on random live units (a second one replaces the first).
        for n in 0..70 {
            let unit = units.ids()[rng.below(units.len())];
            let (a, b) = (rng.below(4) as u32, rng.below(20) as u32);
            if n % 7 < 4 {
                burning.insert(
                    unit,
                    Burning {
                        dps: 1 + a as i32,
                        frames_left: 5 + b,
                    },
                );
            } else if n % 7 < 6 {
                let poison = Poisoned {
                    damage: 5 + b as i32 / 2,
                    period: 2 + a % 3,
                    ticks_left: 3 + a,
                };
                poisoned.insert(unit, poison);
            } else {
                frozen.insert(unit, Frozen { frames_left: 1 + a });
            }
            given.insert(unit);
        }

        // Fire, driven by the burning map; poison doubles it.
        for (_, (unit, fire, poison)) in join((&mut units, &mut burning, Maybe(&poisoned))) {
            let damage = *fire.dps * if poison.is_some() { 2 } else { 1 };
            *unit.hp -= damage;
            *fire.frames_left -= 1;
            burn_damage += i64::from(damage);
        }
        // Poison, on every poisoned unit that is not frozen.
        for (_, (unit, poison, ())) in join((&mut units, &mut poisoned, Without(&frozen))) {
            if frame % *poison.period == 0 && *poison.ticks_left > 0 {
                *unit.hp -= *poison.damage;
                *poison.ticks_left -= 1;
                poison_damage += i64::from(*poison.damage);
            }
        }
        burning.retain(|_, fire| *fire.frames_left > 0);
        poisoned.retain(|_, poison| *poison.ticks_left > 0);
        frozen.retain(|_, ice| {
            *ice.frames_left -= 1;
            *ice.frames_left > 0
        });

        // Deaths: the unit leaves every container at once; reinforcements
        // come, often in the slot just freed.
        let dead: Vec<UnitId> = units
            .iter()
            .filter(|(_, u)| *u.hp <= 0)
            .map(|(id, _)| id)
            .collect();
        for id in dead {
            let (unit, ..) = remove_all(id, (&mut units, &mut burning, &mut poisoned, &mut frozen));
            assert!(unit.is_some());
            died += 1;
            let fresh = units.insert(Unit { hp: 100 });
            reused += usize::from(!used_slots.insert(fresh.index()));
            // A new unit never sees a dead unit's components.
            assert!(
                join((&units, Maybe(&burning), Maybe(&poisoned), Maybe(&frozen)))
                    .get(fresh)
                    .is_some_and(|(_, fire, poison, ice)| fire.is_none()
                        && poison.is_none()
                        && ice.is_none())
            );
        }

        // Every effect belongs to a live unit it was given to.
        for keys in [burning.keys(), poisoned.keys(), frozen.keys()] {
            assert!(keys
                .iter()
                .all(|&u| units.contains(u) && given.contains(&u)));
        }
    }

    assert!(reused > 0, "the run reused no slot");
    println!("status effects, {frames} frames");
    println!(
        "  units: {died} died, {} alive; {reused} spawns reused a freed slot",
        units.len()
    );
    println!("  fire dealt {burn_damage}, poison {poison_damage}");
    println!(
        "  now: {} burning, {} poisoned, {} frozen",
        burning.len(),
        poisoned.len(),
        frozen.len()
    );
    println!("  every effect stayed with the unit it was given to");
}
