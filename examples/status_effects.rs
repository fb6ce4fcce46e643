//! Status effects: units in one table, their `Burning` and `Poisoned`
//! components in two `SoaMap`s keyed by the units' ids.
//!
//! Every frame some units catch fire or are poisoned, fire and poison deal
//! their damage in joined loops (a map's dense columns, the unit table looked
//! up by key), expired effects are dropped, dead units are removed, and new
//! units are spawned into the freed slots. Burning is removed when its unit
//! dies; poison is deliberately left behind and swept every few frames, to
//! show that a stale entry never resolves for the new unit in its slot.
//! The example asserts that no effect ever reaches a unit it was not given
//! to, then prints a short summary.
//!
//! Run it with `cargo run --example status_effects` (add `-- --frames N`
//! for a longer run).

use std::collections::HashSet;

use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8)]
pub struct Unit {
    pub hp: i32,
    pub name: u32,
}

/// Fire: damage per frame, and how many frames it still burns.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Burning {
    pub dps: i32,
    pub frames_left: u32,
}

/// Poison: damage every `period` frames, for a number of ticks.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Poisoned {
    pub damage: i32,
    pub period: u32,
    pub ticks_left: u32,
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

#[derive(Default)]
struct Stats {
    spawned: usize,
    died: usize,
    slots_reused: usize,
    ignited: usize,
    poisoned: usize,
    burn_damage: i64,
    poison_damage: i64,
    stale_poison_swept: usize,
    stale_lookups: usize,
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
    // Every unit ever given each effect: the check that ids are never
    // confused.
    let mut given_fire: HashSet<UnitId> = HashSet::new();
    let mut given_poison: HashSet<UnitId> = HashSet::new();
    let mut names = 0u32;
    let mut stats = Stats::default();
    let mut used_slots = HashSet::new();

    for _ in 0..2_000 {
        let u = units.insert(Unit {
            hp: 100,
            name: names,
        });
        names += 1;
        used_slots.insert(u.index());
        stats.spawned += 1;
    }

    for frame in 0..frames {
        // New effects on random live units (a second fire replaces the first).
        for _ in 0..40 {
            let unit = units.ids()[rng.below(units.len())];
            let fire = Burning {
                dps: 1 + rng.below(4) as i32,
                frames_left: 5 + rng.below(20) as u32,
            };
            burning.insert(unit, fire);
            given_fire.insert(unit);
            stats.ignited += 1;
        }
        for _ in 0..25 {
            let unit = units.ids()[rng.below(units.len())];
            let poison = Poisoned {
                damage: 5 + rng.below(10) as i32,
                period: 2 + rng.below(3) as u32,
                ticks_left: 3 + rng.below(5) as u32,
            };
            poisoned.insert(unit, poison);
            given_poison.insert(unit);
            stats.poisoned += 1;
        }

        // Fire: a joined loop over the burning map's dense columns.
        let (keys, fire) = burning.keys_and_columns_mut();
        for ((unit, dps), left) in keys
            .iter()
            .zip(fire.dps.iter())
            .zip(fire.frames_left.iter_mut())
        {
            let hp = units.get_mut(*unit).expect("burning units are alive").hp;
            *hp -= dps;
            *left -= 1;
            stats.burn_damage += i64::from(*dps);
        }
        burning.retain(|_, fire| *fire.frames_left > 0);

        // Poison: stale entries (of dead units) find no unit and are skipped.
        for (unit, poison) in poisoned.iter_mut() {
            let Some(target) = units.get_mut(unit) else {
                stats.stale_lookups += 1;
                continue;
            };
            if frame % *poison.period == 0 && *poison.ticks_left > 0 {
                *target.hp -= *poison.damage;
                *poison.ticks_left -= 1;
                stats.poison_damage += i64::from(*poison.damage);
            }
        }
        poisoned.retain(|unit, poison| *poison.ticks_left > 0 || !units.contains(unit));

        // Deaths: the unit and its fire go; its poison stays behind, stale.
        let dead: Vec<UnitId> = units
            .iter()
            .filter(|(_, u)| *u.hp <= 0)
            .map(|(id, _)| id)
            .collect();
        for id in dead {
            units.remove(id);
            burning.remove(id);
            stats.died += 1;
            // Reinforcements, often in the slot just freed.
            let fresh = units.insert(Unit {
                hp: 100,
                name: names,
            });
            names += 1;
            stats.spawned += 1;
            if !used_slots.insert(fresh.index()) {
                stats.slots_reused += 1;
            }
            // A new unit never sees a dead unit's components.
            assert!(!burning.contains_key(fresh) && burning.get(fresh).is_none());
            assert!(!poisoned.contains_key(fresh) && poisoned.get(fresh).is_none());
        }

        if frame % 10 == 9 {
            let before = poisoned.len();
            poisoned.retain(|unit, _| units.contains(unit));
            stats.stale_poison_swept += before - poisoned.len();
        }

        // Every live unit resolves only to effects it was given; every fire
        // belongs to a live unit.
        for &unit in units.ids() {
            assert!(!burning.contains_key(unit) || given_fire.contains(&unit));
            assert!(!poisoned.contains_key(unit) || given_poison.contains(&unit));
        }
        assert!(burning.keys().iter().all(|&u| units.contains(u)));
        burning.check_invariants();
        poisoned.check_invariants();
    }

    assert!(stats.slots_reused > 0, "the run reused no slot");
    println!("status effects, {frames} frames");
    println!(
        "  units: {} spawned, {} died, {} alive; {} spawns reused a freed slot",
        stats.spawned,
        stats.died,
        units.len(),
        stats.slots_reused
    );
    println!(
        "  burning: {} fires lit, {} damage dealt, {} burning now",
        stats.ignited,
        stats.burn_damage,
        burning.len()
    );
    println!(
        "  poisoned: {} doses, {} damage dealt, {} poisoned now; {} stale entries skipped in loops, {} swept",
        stats.poisoned,
        stats.poison_damage,
        poisoned.len(),
        stats.stale_lookups,
        stats.stale_poison_swept
    );
    println!("  every effect stayed with the unit it was given to");
}
