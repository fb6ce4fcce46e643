//! Model test of joins: random inserts, removes and slot reuse in a table,
//! three `SoaMap`s and a `DataMap` keyed by its ids, checked against a
//! reference join written with `HashMap`s.
//!
//! The table's id layout has 31 slots, so slots are reused all the time and
//! the maps hold stale entries (a unit removed from the table alone leaves
//! its components behind). After every few operations each join shape —
//! one map, two maps, `Maybe`, `Without`, a `DataMap`, mutable sources
//! written through — must visit exactly the keys the reference says, once
//! each, in the driver's dense order (the required source with the fewest
//! rows, the first on a tie, or the one marked `Driver`), with the
//! reference's values; `get` must
//! answer for live, stale and forged keys as the reference does;
//! `remove_all` must remove a key from every container at once; and
//! `retain` / `extract_if` over a join must see and remove exactly the rows
//! the reference does, in the order the reference says.

use std::collections::HashMap;

use idtable::data::DataMap;
use idtable::join::JoinItems;
use idtable::{join, remove_all, Driver, Maybe, SoaAllocator, SoaMap, Without};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<5>)]
pub struct Unit {
    pub hp: i64,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Burn {
    pub dps: i64,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Poison {
    pub n: i64,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Frozen {
    pub t: i64,
}

/// A map keyed like a `SoaMap`: one entry per slot index, found only by the
/// exact key it was stored with.
#[derive(Default, Clone, Debug)]
struct Model<V> {
    slots: HashMap<usize, (UnitId, V)>,
}

impl<V: Clone> Model<V> {
    fn get(&self, key: UnitId) -> Option<V> {
        match self.slots.get(&key.index()) {
            Some((k, v)) if *k == key => Some(v.clone()),
            _ => None,
        }
    }
    fn contains(&self, key: UnitId) -> bool {
        self.get(key).is_some()
    }
    /// Inserts for a key that is live in the table, so never older than
    /// the stored one: a stale entry of its slot is replaced.
    fn insert(&mut self, key: UnitId, value: V) {
        self.slots.insert(key.index(), (key, value));
    }
    fn remove(&mut self, key: UnitId) -> Option<V> {
        let v = self.get(key)?;
        self.slots.remove(&key.index());
        Some(v)
    }
    fn len(&self) -> usize {
        self.slots.len()
    }
}

struct World {
    units: UnitAllocator,
    burning: SoaMap<UnitId, Burn>,
    poisoned: SoaMap<UnitId, Poison>,
    frozen: SoaMap<UnitId, Frozen>,
    data: DataMap<UnitId>,
    m_units: Model<i64>,
    m_burning: Model<i64>,
    m_poisoned: Model<i64>,
    m_frozen: Model<i64>,
    m_data: Model<i32>,
    /// Every id the table ever issued.
    seen: Vec<UnitId>,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const HP: idtable::data::Key = idtable::data::Key::new("hp");

impl World {
    fn new() -> Self {
        World {
            units: UnitAllocator::new(),
            burning: SoaMap::new(),
            poisoned: SoaMap::new(),
            frozen: SoaMap::new(),
            data: DataMap::new(),
            m_units: Model::default(),
            m_burning: Model::default(),
            m_poisoned: Model::default(),
            m_frozen: Model::default(),
            m_data: Model::default(),
            seen: Vec::new(),
        }
    }

    /// A key to probe with: live, stale, one generation off, or forged.
    fn any_key(&self, rng: &mut Rng) -> UnitId {
        match rng.below(4) {
            0 if !self.units.is_empty() => self.units.ids()[rng.below(self.units.len())],
            1 if !self.seen.is_empty() => self.seen[rng.below(self.seen.len())],
            2 if !self.seen.is_empty() => {
                let k = self.seen[rng.below(self.seen.len())];
                UnitId::from_bits(k.to_bits().wrapping_add(1 << 5)).unwrap_or(k)
            }
            _ => loop {
                if let Some(k) = UnitId::from_bits(rng.next() as u32) {
                    break k;
                }
            },
        }
    }

    fn live_key(&self, rng: &mut Rng) -> Option<UnitId> {
        (!self.units.is_empty()).then(|| self.units.ids()[rng.below(self.units.len())])
    }

    fn step(&mut self, rng: &mut Rng) {
        match rng.below(14) {
            0..=2 => {
                if self.units.len() < 31 {
                    let hp = rng.below(1000) as i64;
                    let id = self.units.insert(Unit { hp });
                    self.m_units.insert(id, hp);
                    self.seen.push(id);
                }
            }
            3 => {
                // The table alone: the maps keep stale entries.
                let key = self.any_key(rng);
                assert_eq!(
                    self.units.remove(key).map(|u| u.hp),
                    self.m_units.remove(key)
                );
            }
            4 => {
                if let Some(key) = self.live_key(rng) {
                    let v = rng.below(100) as i64;
                    self.burning.insert(key, Burn { dps: v });
                    self.m_burning.insert(key, v);
                }
            }
            5 => {
                if let Some(key) = self.live_key(rng) {
                    let v = rng.below(100) as i64;
                    self.poisoned.insert(key, Poison { n: v });
                    self.m_poisoned.insert(key, v);
                }
            }
            6 => {
                if let Some(key) = self.live_key(rng) {
                    let v = rng.below(100) as i64;
                    self.frozen.insert(key, Frozen { t: v });
                    self.m_frozen.insert(key, v);
                }
            }
            7 => {
                if let Some(key) = self.live_key(rng) {
                    let v = rng.below(100) as i32;
                    self.data.set(key, HP, v).unwrap();
                    self.m_data.insert(key, v);
                }
            }
            8 => {
                let key = self.any_key(rng);
                match rng.below(4) {
                    0 => assert_eq!(
                        self.burning.remove(key).map(|b| b.dps),
                        self.m_burning.remove(key)
                    ),
                    1 => assert_eq!(
                        self.poisoned.remove(key).map(|p| p.n),
                        self.m_poisoned.remove(key)
                    ),
                    2 => assert_eq!(
                        self.frozen.remove(key).map(|f| f.t),
                        self.m_frozen.remove(key)
                    ),
                    _ => assert_eq!(self.data.remove(key), self.m_data.remove(key).is_some()),
                }
            }
            9 => {
                let key = self.any_key(rng);
                let (unit, burn, poison, frozen, data) = remove_all(
                    key,
                    (
                        &mut self.units,
                        &mut self.burning,
                        &mut self.poisoned,
                        &mut self.frozen,
                        &mut self.data,
                    ),
                );
                assert_eq!(unit.map(|u| u.hp), self.m_units.remove(key));
                assert_eq!(burn.map(|b| b.dps), self.m_burning.remove(key));
                assert_eq!(poison.map(|p| p.n), self.m_poisoned.remove(key));
                assert_eq!(frozen.map(|f| f.t), self.m_frozen.remove(key));
                assert_eq!(data, self.m_data.remove(key).is_some());
                assert!(!self.units.contains(key) && !self.burning.contains_key(key));
            }
            10 => self.check_gets(rng),
            11 => self.retain_burning(rng),
            12 => self.extract_units(rng),
            _ => self.check_joins(),
        }
    }

    /// `retain` over a join removes from its first source the rows the
    /// closure refuses, sees the keys the join takes in that source's
    /// dense order, and keeps the other rows in their order.
    fn retain_burning(&mut self, rng: &mut Rng) {
        let modulus = 2 + rng.below(3) as i64;
        let before: Vec<UnitId> = self.burning.keys().to_vec();
        let taken = |w: &World, k: UnitId| w.m_units.contains(k) && !w.m_frozen.contains(k);
        let want_seen: Vec<UnitId> = before.iter().copied().filter(|&k| taken(self, k)).collect();
        let mut seen = Vec::new();
        let keep = |id: UnitId, dps: &mut i64, hp: i64, poison: Option<i64>| {
            *dps -= 1;
            let _ = id;
            (*dps + hp + poison.unwrap_or(0)).rem_euclid(modulus) != 0
        };
        if rng.below(2) == 0 {
            join((
                &mut self.burning,
                &self.units,
                Without(&self.frozen),
                Maybe(&self.poisoned),
            ))
            .retain(|id, JoinItems((burn, unit, (), poison))| {
                seen.push(id);
                keep(id, burn.dps, *unit.hp, poison.map(|p| *p.n))
            });
        } else {
            join((
                Driver(&mut self.burning),
                Maybe(&self.poisoned),
                &self.units,
                Without(&self.frozen),
            ))
            .retain(|id, JoinItems((burn, poison, unit, ()))| {
                seen.push(id);
                keep(id, burn.dps, *unit.hp, poison.map(|p| *p.n))
            });
        }
        assert_eq!(seen, want_seen);
        let mut kept = Vec::new();
        for &k in &before {
            if taken(self, k) {
                let mut dps = self.m_burning.get(k).unwrap();
                let hp = self.m_units.get(k).unwrap();
                if keep(k, &mut dps, hp, self.m_poisoned.get(k)) {
                    self.m_burning.insert(k, dps);
                    kept.push(k);
                } else {
                    self.m_burning.remove(k);
                }
            } else {
                kept.push(k);
            }
        }
        assert_eq!(self.burning.keys(), kept);
        for &k in &kept {
            assert_eq!(self.burning.get(k).map(|b| *b.dps), self.m_burning.get(k));
        }
        self.burning.check_invariants();
    }

    /// `extract_if` over a join takes rows out of its first source (here
    /// the table) as it reaches them, swapping the last row into each gap,
    /// and leaves the rows it did not reach when dropped.
    fn extract_units(&mut self, rng: &mut Rng) {
        let modulus = 2 + rng.below(4) as i64;
        let stop_after = rng.below(4);
        // The reference: the table's dense order, replayed with swap-removes.
        let mut order: Vec<UnitId> = self.units.ids().to_vec();
        let taken = |w: &World, k: UnitId| !w.m_poisoned.contains(k);
        let mut want = Vec::new();
        let mut next = 0;
        while next < order.len() && want.len() < stop_after {
            let k = order[next];
            if taken(self, k) {
                let hp = self.m_units.get(k).unwrap() + 1 + self.m_burning.get(k).unwrap_or(0);
                self.m_units.insert(k, hp);
                if hp.rem_euclid(modulus) == 0 {
                    want.push((k, hp));
                    order.swap_remove(next);
                    continue;
                }
            }
            next += 1;
        }
        let got: Vec<(UnitId, i64)> = join((
            &mut self.units,
            Maybe(&self.burning),
            Without(&self.poisoned),
        ))
        .extract_if(|_, JoinItems((unit, burn, ()))| {
            *unit.hp += 1 + burn.map_or(0, |b| *b.dps);
            (*unit.hp).rem_euclid(modulus) == 0
        })
        .take(stop_after)
        .map(|(id, unit)| (id, unit.hp))
        .collect();
        assert_eq!(got, want);
        for (k, _) in &want {
            self.m_units.remove(*k);
        }
        assert_eq!(self.units.ids(), order);
        for &k in &order {
            assert_eq!(self.units.get(k).map(|u| *u.hp), self.m_units.get(k));
        }
        self.units.check_invariants();
    }

    /// `get` on joins of every shape, for keys of every kind.
    fn check_gets(&mut self, rng: &mut Rng) {
        for _ in 0..4 {
            let key = self.any_key(rng);
            let mut j = join((
                &self.units,
                &self.burning,
                Maybe(&self.poisoned),
                Without(&self.frozen),
            ));
            let got = j
                .get(key)
                .map(|(u, b, p, ())| (*u.hp, *b.dps, p.map(|p| *p.n)));
            let want = (|| {
                let hp = self.m_units.get(key)?;
                let dps = self.m_burning.get(key)?;
                if self.m_frozen.contains(key) {
                    return None;
                }
                Some((hp, dps, self.m_poisoned.get(key)))
            })();
            assert_eq!(got, want, "get({key:?})");

            let mut j = join((Maybe(&self.units), &self.data));
            let got = j.get(key).map(|(u, d)| (u.map(|u| *u.hp), d.get_i32(HP)));
            let want = self
                .m_data
                .get(key)
                .map(|v| (self.m_units.get(key), Some(v)));
            assert_eq!(got, want, "data get({key:?})");

            let mut j = join((&mut self.burning, &mut self.poisoned));
            if let Some((b, p)) = j.get(key) {
                *b.dps += 1;
                *p.n -= 1;
                let (b, p) = (*b.dps, *p.n);
                self.m_burning.insert(key, b);
                self.m_poisoned.insert(key, p);
            } else {
                assert!(!(self.m_burning.contains(key) && self.m_poisoned.contains(key)));
            }
        }
    }

    /// Every join shape visits the reference's keys, in the driver's order.
    fn check_joins(&mut self) {
        // The order a join must follow: the driver's keys, filtered.
        fn expected(lens: &[(usize, &[UnitId])], take: impl Fn(UnitId) -> bool) -> Vec<UnitId> {
            let mut best = 0;
            for (i, (len, _)) in lens.iter().enumerate() {
                if *len < lens[best].0 {
                    best = i;
                }
            }
            lens[best].1.iter().copied().filter(|&k| take(k)).collect()
        }

        // One map with the table, the table written through.
        let want = expected(
            &[
                (self.units.len(), self.units.ids()),
                (self.burning.len(), self.burning.keys()),
            ],
            |k| self.m_units.contains(k) && self.m_burning.contains(k),
        );
        let mut got = Vec::new();
        for (id, (unit, burn)) in join((&mut self.units, &self.burning)) {
            *unit.hp -= *burn.dps;
            got.push(id);
        }
        assert_eq!(got, want);
        for &k in &got {
            let hp = self.m_units.get(k).unwrap() - self.m_burning.get(k).unwrap();
            self.m_units.insert(k, hp);
            assert_eq!(self.units.get(k).map(|u| *u.hp), Some(hp));
        }

        // Two maps, both mutable, with Maybe and Without.
        let want = expected(
            &[
                (self.burning.len(), self.burning.keys()),
                (self.poisoned.len(), self.poisoned.keys()),
            ],
            |k| {
                self.m_burning.contains(k)
                    && self.m_poisoned.contains(k)
                    && !self.m_frozen.contains(k)
            },
        );
        let mut got = Vec::new();
        for (id, (burn, poison, unit, ())) in join((
            &mut self.burning,
            &mut self.poisoned,
            Maybe(&self.units),
            Without(&self.frozen),
        )) {
            assert_eq!(unit.map(|u| *u.hp), self.m_units.get(id));
            *burn.dps += *poison.n;
            *poison.n = 7;
            got.push(id);
        }
        assert_eq!(got, want);
        for &k in &got {
            let dps = self.m_burning.get(k).unwrap() + self.m_poisoned.get(k).unwrap();
            self.m_burning.insert(k, dps);
            self.m_poisoned.insert(k, 7);
        }

        // Maybe first, a DataMap as a required source.
        let want = expected(
            &[
                (self.data.len(), self.data.ids()),
                (self.units.len(), self.units.ids()),
            ],
            |k| self.m_data.contains(k) && self.m_units.contains(k) && !self.m_poisoned.contains(k),
        );
        let got: Vec<_> = join((
            Maybe(&self.frozen),
            &self.data,
            &self.units,
            Without(&self.poisoned),
        ))
        .into_iter()
        .map(|(id, (f, d, u, ()))| {
            assert_eq!(f.map(|f| *f.t), self.m_frozen.get(id));
            assert_eq!(d.get_i32(HP), self.m_data.get(id));
            assert_eq!(*u.hp, self.m_units.get(id).unwrap());
            id
        })
        .collect();
        assert_eq!(got, want);

        // A fixed driver, whatever the lengths: the table's order, then a
        // map's, then the DataMap's (the first `Driver` listed drives).
        let take = |k| self.m_units.contains(k) && self.m_burning.contains(k);
        let want: Vec<_> = self
            .units
            .ids()
            .iter()
            .copied()
            .filter(|&k| take(k))
            .collect();
        let got: Vec<_> = join((Driver(&self.units), &self.burning))
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(got, want);
        let want: Vec<_> = self
            .burning
            .keys()
            .iter()
            .copied()
            .filter(|&k| take(k))
            .collect();
        let mut got = Vec::new();
        for (id, (unit, burn)) in join((&mut self.units, Driver(&mut self.burning))) {
            *burn.dps += 1;
            assert_eq!(Some(*unit.hp), self.m_units.get(id));
            got.push(id);
        }
        assert_eq!(got, want);
        for &k in &got {
            self.m_burning.insert(k, self.m_burning.get(k).unwrap() + 1);
        }
        let take = |k| {
            self.m_units.contains(k) && self.m_burning.contains(k) && !self.m_frozen.contains(k)
        };
        let want: Vec<_> = (self.data.ids().iter().copied())
            .filter(|&k| take(k) && self.m_data.contains(k))
            .collect();
        let got: Vec<_> = join((
            &self.units,
            Maybe(&self.poisoned),
            Driver(&self.data),
            Without(&self.frozen),
            Driver(&self.burning),
        ))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
        assert_eq!(got, want);

        // A single source is its own dense order.
        let got: Vec<_> = join((&self.frozen,))
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(got, self.frozen.keys());
        assert_eq!(self.frozen.len(), self.m_frozen.len());

        // Everything, eight sources.
        let want = expected(
            &[
                (self.units.len(), self.units.ids()),
                (self.burning.len(), self.burning.keys()),
                (self.data.len(), self.data.ids()),
            ],
            |k| {
                self.m_units.contains(k)
                    && self.m_burning.contains(k)
                    && self.m_data.contains(k)
                    && !self.m_frozen.contains(k)
            },
        );
        let got: Vec<_> = join((
            &self.units,
            Maybe(&self.poisoned),
            &self.burning,
            Without(&self.frozen),
            &self.data,
            Maybe(&self.frozen),
            Maybe(&self.data),
            Without(&self.frozen),
        ))
        .into_iter()
        .map(|(id, (_, p, _, (), _, f, d, ()))| {
            assert!(f.is_none() && d.is_some());
            assert_eq!(p.map(|p| *p.n), self.m_poisoned.get(id));
            id
        })
        .collect();
        assert_eq!(got, want);

        self.units.check_invariants();
        self.burning.check_invariants();
        self.poisoned.check_invariants();
        self.frozen.check_invariants();
    }
}

#[test]
fn joins_agree_with_a_hashmap_reference_over_random_edits() {
    // 20 × 6,000 = 120,000 operations in all (fewer under Miri).
    let (seeds, ops) = if cfg!(miri) { (2, 300) } else { (20, 6_000) };
    for seed in 0..seeds {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed + 1));
        let mut world = World::new();
        for _ in 0..ops {
            world.step(&mut rng);
        }
        world.check_joins();
    }
}

#[test]
fn a_join_without_rows_in_a_required_source_visits_nothing() {
    let mut units = UnitAllocator::new();
    let burning: SoaMap<UnitId, Burn> = SoaMap::new();
    let a = units.insert(Unit { hp: 1 });
    assert_eq!(join((&units, &burning)).into_iter().count(), 0);
    assert_eq!(join((&units, Maybe(&burning))).into_iter().count(), 1);
    assert!(join((&mut units, &burning)).get(a).is_none());
}

/// Split between threads, a join visits what it visits in order, each key
/// once, and writes through its mutable sources land once per key.
#[cfg(feature = "rayon")]
#[test]
fn par_iter_visits_each_key_of_the_sequential_join_once() {
    use rayon::prelude::*;

    #[derive(SoaAllocator)]
    pub struct Soldier {
        pub hp: i64,
    }

    let n = if cfg!(miri) { 200 } else { 20_000 };
    let mut units = SoldierAllocator::new();
    let mut burning: SoaMap<SoldierId, Burn> = SoaMap::new();
    let mut poisoned: SoaMap<SoldierId, Poison> = SoaMap::new();
    let mut frozen: SoaMap<SoldierId, Frozen> = SoaMap::new();
    let mut rng = Rng(7);
    let mut all = Vec::new();
    for _ in 0..n {
        // Churn, so keys and dense order differ from insertion order.
        if !all.is_empty() && rng.below(4) == 0 {
            let gone = all.swap_remove(rng.below(all.len()));
            remove_all(gone, (&mut units, &mut burning, &mut poisoned, &mut frozen));
        }
        let id = units.insert(Soldier { hp: 0 });
        all.push(id);
        if rng.below(2) == 0 {
            burning.insert(id, Burn { dps: 1 });
        }
        if rng.below(3) == 0 {
            poisoned.insert(id, Poison { n: 2 });
        }
        if rng.below(10) == 0 {
            frozen.insert(id, Frozen { t: 3 });
        }
    }
    let sequential: Vec<SoldierId> = join((&units, &burning, Maybe(&poisoned), Without(&frozen)))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut parallel: Vec<SoldierId> =
        join((&mut units, &mut burning, Maybe(&poisoned), Without(&frozen)))
            .par_iter()
            .map(|(id, (unit, burn, poison, ()))| {
                *unit.hp += 1;
                *burn.dps += poison.map_or(0, |p| *p.n);
                id
            })
            .collect();
    // An indexed collect keeps the order of the split range.
    assert_eq!(parallel, sequential);
    parallel.sort();
    parallel.dedup();
    assert_eq!(parallel.len(), sequential.len());
    let visited_set: std::collections::HashSet<SoldierId> = sequential.iter().copied().collect();
    for (id, unit) in units.iter() {
        let visited = visited_set.contains(&id);
        assert_eq!(*unit.hp, i64::from(visited), "{id:?}");
        if visited {
            let expected = 1 + poisoned.get(id).map_or(0, |p| *p.n);
            assert_eq!(burning.get(id).map(|b| *b.dps), Some(expected));
        }
    }

    // With a `Driver`, the split range is that source's: the table's order
    // here, though `burning` is the smaller.
    assert!(burning.len() < units.len());
    let sequential: Vec<SoldierId> = join((Driver(&units), &burning, Without(&frozen)))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let parallel: Vec<SoldierId> = join((Driver(&mut units), &burning, Without(&frozen)))
        .par_iter()
        .map(|(id, (unit, _, ()))| {
            *unit.hp += 10;
            id
        })
        .collect();
    assert_eq!(parallel, sequential);
    let order: Vec<SoldierId> = (units.ids().iter().copied())
        .filter(|&id| burning.contains_key(id) && !frozen.contains_key(id))
        .collect();
    assert_eq!(parallel, order);
}

/// A map whose keys reach past its page table (slot indices far apart) is
/// probed through its far pages; a map without any is probed through its
/// table alone, and a far key finds nothing there.
#[test]
fn joins_probe_keys_past_a_maps_page_table() {
    use idtable::TypedId;

    #[derive(SoaAllocator)]
    #[soa(id = idtable::Id32_32)]
    pub struct Ship {
        pub hull: i32,
    }

    let id = |index| ShipId::from_layout(idtable::Id32_32::new(index, 1).unwrap());
    let (near, far) = (id(5), id(1 << 30));
    let mut a: SoaMap<ShipId, Burn> = SoaMap::new();
    let mut b: SoaMap<ShipId, Poison> = SoaMap::new();
    for k in [near, far] {
        a.insert(k, Burn { dps: 1 });
        b.insert(k, Poison { n: 2 });
    }
    // `a` drives (the first on a tie), `b` is probed, for `far` in its far page.
    let got: Vec<ShipId> = join((&a, &b)).into_iter().map(|(k, _)| k).collect();
    assert_eq!(got, [near, far]);
    for (_, (fire, poison)) in join((&mut a, Driver(&mut b))) {
        *fire.dps += *poison.n;
    }
    assert_eq!(
        (a.get(near).map(|f| *f.dps), a.get(far).map(|f| *f.dps)),
        (Some(3), Some(3))
    );

    let mut c: SoaMap<ShipId, Frozen> = SoaMap::new();
    c.insert(near, Frozen { t: 0 });
    let got: Vec<ShipId> = join((Driver(&a), &c)).into_iter().map(|(k, _)| k).collect();
    assert_eq!(got, [near]);
    let got: Vec<ShipId> = (join((Driver(&a), Without(&c))).into_iter())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(got, [far]);
}

/// A closure that panics in `retain` or `extract_if` leaves every row in
/// place but those `extract_if` had already handed out.
#[test]
fn a_panicking_closure_removes_nothing_more() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut units = UnitAllocator::new();
    let mut burning: SoaMap<UnitId, Burn> = SoaMap::new();
    let ids: Vec<UnitId> = (0..6).map(|hp| units.insert(Unit { hp })).collect();
    for &id in &ids {
        burning.insert(id, Burn { dps: 1 });
    }
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        join((&mut burning, &units)).retain(|_, JoinItems((_, unit))| {
            assert!(*unit.hp < 3, "the closure gives up");
            false
        })
    }));
    assert!(panicked.is_err());
    assert_eq!(burning.keys(), ids);
    burning.check_invariants();
    assert!(ids.iter().all(|&id| burning.contains_key(id)));
    // The same from a table: its slots are freed by no row.
    let next = units.id_table().next_id().unwrap();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        join((&mut units, &burning)).retain(|_, JoinItems((unit, _))| {
            assert!(*unit.hp < 3, "the closure gives up");
            *unit.hp % 2 == 1
        })
    }));
    assert!(panicked.is_err());
    assert_eq!(units.ids(), ids);
    units.check_invariants();
    assert!(ids.iter().all(|&id| units.contains(id)));
    assert_eq!(units.id_table().next_id().unwrap(), next);

    let mut extracted = Vec::new();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        for (id, _) in join((&mut units, &burning)).extract_if(|_, JoinItems((unit, _))| {
            assert!(*unit.hp != 4, "the closure gives up");
            *unit.hp % 2 == 0
        }) {
            extracted.push(id);
        }
    }));
    assert!(panicked.is_err());
    // 0 goes (5 moves into its place and stays), 2 goes (4 moves in: the
    // closure panics there).
    assert_eq!(extracted, [ids[0], ids[2]]);
    assert_eq!(units.ids(), [ids[5], ids[1], ids[4], ids[3]]);
    units.check_invariants();
}
