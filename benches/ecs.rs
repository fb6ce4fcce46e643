//! Joins against the queries of the ECSs a user would otherwise pick:
//! hecs, legion, bevy_ecs (its table storage, and sparse-set storage for the
//! status components) and shipyard, on the same data.
//!
//! Every implementation builds its world from one seeded script (the
//! `Build` trait): N units, a tenth despawned and spawned again, then
//! `burning` (on 50% or 10%), `poisoned` (50%) and `frozen` (33%) added to
//! random units, in the same order for all. The script and the
//! idtable world (a unit table and three `SoaMap`s keyed by it) are
//! `support/units.rs`, shared with `benches/joins.rs`.
//!
//! * `ecs_one_map`: every burning unit, `hp -= dps`, hp written through the
//!   table (a join of the table and one map); burning held by 50% and by
//!   10% of the units, at 10k and 1M units.
//! * `ecs_status_step`: burning on 10% (required), poisoned on 50% (`Maybe`,
//!   an `Option` in the ECSs), frozen on 33% (`Without`, a filter),
//!   `hp -= dps + dose`.
//!
//! `idtable grouped` runs each loop through a `Group` (see `idt::Grouped`):
//! the units and their statuses kept aligned, no probe.
//!
//! `idtable floor` is a hand-written floor of idtable's layout for the two
//! loops, with no data-dependent branch (see [`floor`]). `idtable floor,
//! bits` adds one presence bit per slot index to each map (a `Without` or
//! `Maybe` probe of a slot the map does not hold reads one bit); `idtable
//! floor, bits, words` also drives in key order, a word of slots at a time
//! (the slots `burning` holds and `frozen` does not: a lower bound, exact
//! only where no map holds a stale key); `idtable floor, bits, gens` also
//! keeps each map's key beside its page entry, so a probe reads only the
//! value at random. The floors of two changes that could make ungrouped
//! joins cheaper, measured against bevy's sparse-set storage before building
//! either (benches/NOTES.md, "The ungrouped status step"; not built).
//!
//! Each loop is a never-inlined function that returns the rows it visited
//! (black-boxed); the row counts and the units' hp after one pass are
//! checked equal across implementations before anything is timed. ECS
//! queries are written as each crate's docs show them; what can be built
//! once (bevy's `QueryState`, legion's `Query`) is built outside the timed
//! loop, what a system does every frame (hecs' `query_mut`, shipyard's
//! `World::run` borrowing its views) is timed.
//!
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs --bench ecs

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[path = "support/units.rs"]
mod units;
use units::{built, Build};

/// The loops every implementation runs, each returning the rows visited.
trait Loops {
    /// Every burning unit: `hp -= dps`.
    fn burn(&mut self) -> usize;
    /// Burning, maybe poisoned, not frozen: `hp -= dps + dose`.
    fn status(&mut self) -> usize;
    /// Every unit's hp, sorted (the check that all agree).
    fn hps(&mut self) -> Vec<f32>;
}

fn sorted(mut hps: Vec<f32>) -> Vec<f32> {
    hps.sort_by(f32::total_cmp);
    hps
}

mod idt {
    pub use super::units::*;
    use idtable::group::Group;
    use idtable::{join, Maybe, SoaMap, Without};

    #[inline(never)]
    pub fn burn_joined(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) -> usize {
        let mut rows = 0;
        for (_, (unit, fire)) in join((&mut *units, burning)) {
            *unit.hp -= *fire.dps;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status_joined(w: &mut World) -> usize {
        let sources = (
            &mut w.units,
            &w.burning,
            Maybe(&w.poisoned),
            Without(&w.frozen),
        );
        let mut rows = 0;
        for (_, (unit, fire, poison, ())) in join(sources) {
            *unit.hp -= *fire.dps + poison.map_or(0.0, |p| *p.dose);
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn burn_by_hand(units: &mut UnitAllocator, burning: &SoaMap<UnitId, Burning>) -> usize {
        let mut rows = 0;
        for (id, fire) in burning.iter() {
            if let Some(unit) = units.get_mut(id) {
                *unit.hp -= *fire.dps;
                rows += 1;
            }
        }
        rows
    }

    #[inline(never)]
    pub fn status_by_hand(w: &mut World) -> usize {
        let mut rows = 0;
        for (id, fire) in w.burning.iter() {
            if w.frozen.contains_key(id) {
                continue;
            }
            let Some(unit) = w.units.get_mut(id) else {
                continue;
            };
            let poison = w.poisoned.get(id).map_or(0.0, |p| *p.dose);
            *unit.hp -= *fire.dps + poison;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn burn_grouped(
        group: &mut Group<UnitId>,
        units: &mut UnitAllocator,
        burning: &mut SoaMap<UnitId, Burning>,
    ) -> usize {
        let mut rows = 0;
        for (_, (unit, fire)) in group.join((&mut *units, &mut *burning)) {
            *unit.hp -= *fire.dps;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status_grouped(group: &mut Group<UnitId>, w: &mut World) -> usize {
        let mut rows = 0;
        let sources = (
            &mut w.units,
            &mut w.burning,
            Without(&w.frozen),
            Maybe(&mut w.poisoned),
        );
        for (_, (unit, fire, (), poison)) in group.join(sources) {
            *unit.hp -= *fire.dps + poison.map_or(0.0, |p| *p.dose);
            rows += 1;
        }
        rows
    }

    /// The idtable world through groups: `burn` through a group that owns
    /// the table and `burning`, `status` through one that owns them too,
    /// excludes `frozen` and has `poisoned` as its optional source (the
    /// poisoned units first within the group, no probe). The two
    /// groups order the same containers, so a world that ran both loops
    /// every frame would have each undo the other's order (one pass each)
    /// until they can be nested; here each benchmark runs one loop, and
    /// the group's first call (a pass) is part of criterion's warm-up.
    pub struct Grouped {
        pub w: World,
        burn: Group<UnitId>,
        status: Group<UnitId>,
    }

    impl Grouped {
        pub fn new(mut w: World) -> Self {
            let burn = Group::new((&mut w.units, &mut w.burning));
            let status = Group::new((
                &mut w.units,
                &mut w.burning,
                Without(&mut w.frozen),
                Maybe(&mut w.poisoned),
            ));
            Grouped { w, burn, status }
        }
    }

    impl super::Loops for Grouped {
        fn burn(&mut self) -> usize {
            burn_grouped(&mut self.burn, &mut self.w.units, &mut self.w.burning)
        }
        fn status(&mut self) -> usize {
            status_grouped(&mut self.status, &mut self.w)
        }
        fn hps(&mut self) -> Vec<f32> {
            super::sorted(self.w.units.columns().hp.to_vec())
        }
    }

    /// The idtable world, through `join`.
    pub struct Joined(pub World);

    /// The idtable world, through the loop written by hand.
    pub struct ByHand(pub World);

    impl super::Loops for Joined {
        fn burn(&mut self) -> usize {
            burn_joined(&mut self.0.units, &self.0.burning)
        }
        fn status(&mut self) -> usize {
            status_joined(&mut self.0)
        }
        fn hps(&mut self) -> Vec<f32> {
            super::sorted(self.0.units.columns().hp.to_vec())
        }
    }

    impl super::Loops for ByHand {
        fn burn(&mut self) -> usize {
            burn_by_hand(&mut self.0.units, &self.0.burning)
        }
        fn status(&mut self) -> usize {
            status_by_hand(&mut self.0)
        }
        fn hps(&mut self) -> Vec<f32> {
            super::sorted(self.0.units.columns().hp.to_vec())
        }
    }
}

mod hecs_ecs {
    use hecs::{Entity, World};

    pub struct Hp(pub f32);
    #[allow(dead_code)] // held as the idtable table holds `pos`, never read
    pub struct Pos(pub [f32; 2]);
    pub struct Burning(pub f32);
    pub struct Poisoned(pub f32);
    #[allow(dead_code)] // only its presence is read
    pub struct Frozen(pub f32);

    pub struct Hecs(pub World);

    impl super::Build for Hecs {
        type Handle = Entity;
        fn spawn(&mut self, hp: f32) -> Entity {
            self.0.spawn((Hp(hp), Pos([0.0; 2])))
        }
        fn despawn(&mut self, unit: Entity) {
            self.0.despawn(unit).unwrap();
        }
        fn burn(&mut self, unit: Entity, dps: f32) {
            self.0.insert_one(unit, Burning(dps)).unwrap();
        }
        fn poison(&mut self, unit: Entity, dose: f32) {
            self.0.insert_one(unit, Poisoned(dose)).unwrap();
        }
        fn freeze(&mut self, unit: Entity, left: f32) {
            self.0.insert_one(unit, Frozen(left)).unwrap();
        }
    }

    #[inline(never)]
    pub fn burn(world: &mut World) -> usize {
        let mut rows = 0;
        for (hp, fire) in world.query_mut::<(&mut Hp, &Burning)>() {
            hp.0 -= fire.0;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status(world: &mut World) -> usize {
        let mut rows = 0;
        for (hp, fire, poison) in world
            .query_mut::<(&mut Hp, &Burning, Option<&Poisoned>)>()
            .without::<&Frozen>()
        {
            hp.0 -= fire.0 + poison.map_or(0.0, |p| p.0);
            rows += 1;
        }
        rows
    }

    impl super::Loops for Hecs {
        fn burn(&mut self) -> usize {
            burn(&mut self.0)
        }
        fn status(&mut self) -> usize {
            status(&mut self.0)
        }
        fn hps(&mut self) -> Vec<f32> {
            super::sorted(self.0.query_mut::<&Hp>().into_iter().map(|h| h.0).collect())
        }
    }
}

mod legion_ecs {
    use legion::query::{EntityFilter, Query};
    use legion::{component, Entity, IntoQuery, Read, TryRead, World, Write};

    pub struct Hp(pub f32);
    #[allow(dead_code)] // held as the idtable table holds `pos`, never read
    pub struct Pos(pub [f32; 2]);
    pub struct Burning(pub f32);
    pub struct Poisoned(pub f32);
    #[allow(dead_code)] // only its presence is read
    pub struct Frozen(pub f32);

    pub struct Legion(pub World);

    impl super::Build for Legion {
        type Handle = Entity;
        fn spawn(&mut self, hp: f32) -> Entity {
            self.0.push((Hp(hp), Pos([0.0; 2])))
        }
        fn despawn(&mut self, unit: Entity) {
            assert!(self.0.remove(unit));
        }
        fn burn(&mut self, unit: Entity, dps: f32) {
            self.0.entry(unit).unwrap().add_component(Burning(dps));
        }
        fn poison(&mut self, unit: Entity, dose: f32) {
            self.0.entry(unit).unwrap().add_component(Poisoned(dose));
        }
        fn freeze(&mut self, unit: Entity, left: f32) {
            self.0.entry(unit).unwrap().add_component(Frozen(left));
        }
    }

    pub type BurnQuery<F> = Query<(Write<Hp>, Read<Burning>), F>;
    pub type StatusQuery<F> = Query<(Write<Hp>, Read<Burning>, TryRead<Poisoned>), F>;

    #[inline(never)]
    pub fn burn<F: EntityFilter>(world: &mut World, query: &mut BurnQuery<F>) -> usize {
        let mut rows = 0;
        for (hp, fire) in query.iter_mut(world) {
            hp.0 -= fire.0;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status<F: EntityFilter>(world: &mut World, query: &mut StatusQuery<F>) -> usize {
        let mut rows = 0;
        for (hp, fire, poison) in query.iter_mut(world) {
            hp.0 -= fire.0 + poison.map_or(0.0, |p| p.0);
            rows += 1;
        }
        rows
    }

    /// Runs `f` with the world and its two queries, built once.
    pub fn with_queries<R>(world: &mut World, f: impl FnOnce(&mut dyn super::Loops) -> R) -> R {
        let burn_query = <(Write<Hp>, Read<Burning>)>::query();
        let status_query =
            <(Write<Hp>, Read<Burning>, TryRead<Poisoned>)>::query().filter(!component::<Frozen>());
        let mut loops = Queries {
            world,
            burn_query,
            status_query,
        };
        f(&mut loops)
    }

    struct Queries<'w, A: EntityFilter, B: EntityFilter> {
        world: &'w mut World,
        burn_query: BurnQuery<A>,
        status_query: StatusQuery<B>,
    }

    impl<A: EntityFilter, B: EntityFilter> super::Loops for Queries<'_, A, B> {
        fn burn(&mut self) -> usize {
            burn(self.world, &mut self.burn_query)
        }
        fn status(&mut self) -> usize {
            status(self.world, &mut self.status_query)
        }
        fn hps(&mut self) -> Vec<f32> {
            let mut q = <Read<Hp>>::query();
            super::sorted(q.iter(self.world).map(|h| h.0).collect())
        }
    }
}

mod bevy {
    use bevy_ecs::prelude::*;
    use bevy_ecs::query::QueryState;

    #[derive(Component)]
    pub struct Hp(pub f32);
    #[derive(Component)]
    #[allow(dead_code)] // held as the idtable table holds `pos`, never read
    pub struct Pos(pub [f32; 2]);

    /// A status component's value.
    pub trait Status: Component {
        fn new(value: f32) -> Self;
        fn value(&self) -> f32;
    }

    macro_rules! status {
        ($($name:ident $storage:literal),*) => {$(
            #[derive(Component)]
            #[component(storage = $storage)]
            pub struct $name(pub f32);
            impl Status for $name {
                #[inline(always)]
                fn new(value: f32) -> Self {
                    $name(value)
                }
                #[inline(always)]
                fn value(&self) -> f32 {
                    self.0
                }
            }
        )*};
    }

    status!(
        Burning "Table", Poisoned "Table", Frozen "Table",
        SparseBurning "SparseSet", SparsePoisoned "SparseSet", SparseFrozen "SparseSet"
    );

    /// A world and its two queries, their `QueryState`s built once.
    pub struct Bevy<B: Status, P: Status, F: Status> {
        pub world: World,
        burn: QueryState<(&'static mut Hp, &'static B)>,
        status: QueryState<(&'static mut Hp, &'static B, Option<&'static P>), Without<F>>,
    }

    /// Table storage for every component.
    pub type Table = Bevy<Burning, Poisoned, Frozen>;
    /// Sparse-set storage for the status components.
    pub type Sparse = Bevy<SparseBurning, SparsePoisoned, SparseFrozen>;

    impl<B: Status, P: Status, F: Status> Bevy<B, P, F> {
        pub fn new() -> Self {
            let mut world = World::new();
            let burn = world.query::<(&mut Hp, &B)>();
            let status = world.query_filtered::<(&mut Hp, &B, Option<&P>), Without<F>>();
            Bevy {
                world,
                burn,
                status,
            }
        }
    }

    impl<B: Status, P: Status, F: Status> super::Build for Bevy<B, P, F> {
        type Handle = Entity;
        fn spawn(&mut self, hp: f32) -> Entity {
            self.world.spawn((Hp(hp), Pos([0.0; 2]))).id()
        }
        fn despawn(&mut self, unit: Entity) {
            assert!(self.world.despawn(unit));
        }
        fn burn(&mut self, unit: Entity, dps: f32) {
            self.world.entity_mut(unit).insert(B::new(dps));
        }
        fn poison(&mut self, unit: Entity, dose: f32) {
            self.world.entity_mut(unit).insert(P::new(dose));
        }
        fn freeze(&mut self, unit: Entity, left: f32) {
            self.world.entity_mut(unit).insert(F::new(left));
        }
    }

    #[inline(never)]
    pub fn burn<B: Status>(
        world: &mut World,
        query: &mut QueryState<(&'static mut Hp, &'static B)>,
    ) -> usize {
        let mut rows = 0;
        for (mut hp, fire) in query.iter_mut(world) {
            hp.0 -= fire.value();
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status<B: Status, P: Status, F: Status>(
        world: &mut World,
        query: &mut QueryState<(&'static mut Hp, &'static B, Option<&'static P>), Without<F>>,
    ) -> usize {
        let mut rows = 0;
        for (mut hp, fire, poison) in query.iter_mut(world) {
            hp.0 -= fire.value() + poison.map_or(0.0, |p| p.value());
            rows += 1;
        }
        rows
    }

    impl<B: Status, P: Status, F: Status> super::Loops for Bevy<B, P, F> {
        fn burn(&mut self) -> usize {
            burn(&mut self.world, &mut self.burn)
        }
        fn status(&mut self) -> usize {
            status(&mut self.world, &mut self.status)
        }
        fn hps(&mut self) -> Vec<f32> {
            let mut q = self.world.query::<&Hp>();
            super::sorted(q.iter(&self.world).map(|h| h.0).collect())
        }
    }
}

mod shipyard_ecs {
    use shipyard::{Component, EntityId, IntoIter, View, ViewMut, World};

    #[derive(Component)]
    pub struct Hp(pub f32);
    #[derive(Component)]
    #[allow(dead_code)] // held as the idtable table holds `pos`, never read
    pub struct Pos(pub [f32; 2]);
    #[derive(Component)]
    pub struct Burning(pub f32);
    #[derive(Component)]
    pub struct Poisoned(pub f32);
    #[derive(Component)]
    #[allow(dead_code)] // only its presence is read
    pub struct Frozen(pub f32);

    pub struct Shipyard(pub World);

    impl super::Build for Shipyard {
        type Handle = EntityId;
        fn spawn(&mut self, hp: f32) -> EntityId {
            self.0.add_entity((Hp(hp), Pos([0.0; 2])))
        }
        fn despawn(&mut self, unit: EntityId) {
            assert!(self.0.delete_entity(unit));
        }
        fn burn(&mut self, unit: EntityId, dps: f32) {
            self.0.add_component(unit, Burning(dps));
        }
        fn poison(&mut self, unit: EntityId, dose: f32) {
            self.0.add_component(unit, Poisoned(dose));
        }
        fn freeze(&mut self, unit: EntityId, left: f32) {
            self.0.add_component(unit, Frozen(left));
        }
    }

    #[inline(never)]
    pub fn burn(world: &World) -> usize {
        world.run(|mut hp: ViewMut<Hp>, burning: View<Burning>| {
            let mut rows = 0;
            for (hp, fire) in (&mut hp, &burning).iter() {
                hp.0 -= fire.0;
                rows += 1;
            }
            rows
        })
    }

    #[inline(never)]
    pub fn status(world: &World) -> usize {
        world.run(
            |mut hp: ViewMut<Hp>,
             burning: View<Burning>,
             poisoned: View<Poisoned>,
             frozen: View<Frozen>| {
                let mut rows = 0;
                for (hp, fire, poison, ()) in
                    (&mut hp, &burning, poisoned.as_optional(), !&frozen).iter()
                {
                    hp.0 -= fire.0 + poison.map_or(0.0, |p| p.0);
                    rows += 1;
                }
                rows
            },
        )
    }

    impl super::Loops for Shipyard {
        fn burn(&mut self) -> usize {
            burn(&self.0)
        }
        fn status(&mut self) -> usize {
            status(&self.0)
        }
        fn hps(&mut self) -> Vec<f32> {
            let hp = self.0.borrow::<View<Hp>>().unwrap();
            super::sorted(hp.iter().map(|h| h.0).collect())
        }
    }
}

/// A hand-written floor of idtable's layout for these loops, with no
/// data-dependent branch: what the probes themselves cost once `Without`
/// and `Maybe` are decided by selects instead of jumps.
///
/// The layout is idtable's (the derived table's engine and `SoaMap`): a
/// table of one `u64` slot per slot index (`generation << 32 | dense`)
/// and an `hp` column; each map a sparse index of one `u32` dense position
/// per slot index in pages of 1024, dense keys (`generation << 32 |
/// index`) and a value column. Unlike idtable, a map allocates every page
/// up to its highest slot index (vacant pages for the gaps), so a probe
/// needs no page test, and keeps one more row past its end (a key nothing
/// matches, the value 0.0) where a miss lands: the dose of an unpoisoned
/// unit is read there. Every probe is made on every row, and hp is written
/// on every row (minus 0.0 on a frozen or dead unit). It is not a container
/// anyone would ship, only the bound the layout puts on a join.
// `select_unpredictable` is stable since 1.88; this benchmark needs 1.95
// anyway (bevy_ecs 0.20).
#[allow(clippy::incompatible_msrv)]
mod floor {
    use std::hint::select_unpredictable;

    const PAGE: usize = 1024;
    const VACANT: u32 = u32::MAX;

    /// `value` if `keep`, else 0.0 (`value` is finite): a product, as
    /// LLVM turns a float select, even one through the bits, into a jump
    /// on x86-64.
    #[inline(always)]
    fn pick(keep: bool, value: f32) -> f32 {
        value * f32::from(u8::from(keep))
    }

    fn key(index: u32, generation: u32) -> u64 {
        u64::from(generation) << 32 | u64::from(index)
    }

    /// A map of idtable's layout, plus one row past the end: a key no
    /// probe matches and the value 0.0, where every probe that misses
    /// lands (a select of the dense position, not a jump).
    struct Map {
        pages: Vec<Box<[u32; PAGE]>>,
        keys: Vec<u64>,
        values: Vec<f32>,
        /// One bit per slot index: set where the map holds a row for some
        /// key of that index (presence bits, tried for ungrouped joins and
        /// not built; only the `bits` floors read them).
        present: Vec<u64>,
        /// Each slot's key where `pages` has its row: the generation
        /// checked at the page, in slot order, instead of at `keys[d]`
        /// (only `status_bits_gens` reads it).
        page_keys: Vec<Box<[u64; PAGE]>>,
    }

    impl Default for Map {
        fn default() -> Self {
            Map {
                pages: Vec::new(),
                keys: vec![u64::MAX],
                values: vec![0.0],
                present: Vec::new(),
                page_keys: Vec::new(),
            }
        }
    }

    impl Map {
        /// The rows held (the last row is the miss row).
        fn len(&self) -> usize {
            self.keys.len() - 1
        }

        /// Inserts or replaces `key`'s value (keys are never stale here).
        fn insert(&mut self, key: u64, value: f32) {
            let i = key as u32 as usize;
            while self.pages.len() <= i / PAGE {
                self.pages.push(Box::new([VACANT; PAGE]));
                self.page_keys.push(Box::new([u64::MAX; PAGE]));
            }
            self.page_keys[i / PAGE][i % PAGE] = key;
            if self.present.len() <= i / 64 {
                self.present.resize(i / 64 + 1, 0);
            }
            self.present[i / 64] |= 1 << (i % 64);
            let len = self.len();
            let entry = &mut self.pages[i / PAGE][i % PAGE];
            if *entry == VACANT {
                *entry = len as u32;
                self.keys.insert(len, key);
                self.values.insert(len, value);
            } else {
                self.keys[*entry as usize] = key;
                self.values[*entry as usize] = value;
            }
        }

        /// `key`'s dense position, or the miss row's, and whether it is
        /// held, without a data-dependent branch.
        #[inline(always)]
        fn probe(&self, key: u64) -> (usize, bool) {
            let (i, miss) = (key as u32 as usize, self.len());
            // The one test left is the page's bound, which the driver's
            // keys pass in this data (a predictable branch).
            let Some(page) = self.pages.get(i / PAGE) else {
                return (miss, false);
            };
            let entry = page[i % PAGE] as usize;
            let d = select_unpredictable(entry < miss, entry, miss);
            // SAFETY: `d <= miss < keys.len()`.
            let held = unsafe { *self.keys.get_unchecked(d) } == key;
            (select_unpredictable(held, d, miss), held)
        }

        /// Whether slot index `i` may be held: a clear bit is a certain
        /// miss, a set one is probed in full.
        #[inline(always)]
        fn may_hold(&self, i: usize) -> bool {
            self.present
                .get(i / 64)
                .is_some_and(|word| word & (1 << (i % 64)) != 0)
        }

        /// `key`'s value if it is held, else 0.0: the bit first, the
        /// probe only where it is set.
        #[inline(always)]
        fn value_or_zero(&self, key: u64) -> (f32, bool) {
            if !self.may_hold(key as u32 as usize) {
                return (0.0, false);
            }
            let (p, held) = self.probe(key);
            // SAFETY: `p < keys.len() == values.len()`.
            (unsafe { *self.values.get_unchecked(p) }, held)
        }

        /// The rows in the order of their slot indices: each set bit's
        /// page entry, as a join driven in key order would walk them.
        fn in_key_order(&self) -> impl Iterator<Item = usize> + '_ {
            self.present.iter().enumerate().flat_map(move |(w, &word)| {
                let mut bits = word;
                std::iter::from_fn(move || {
                    if bits == 0 {
                        return None;
                    }
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    Some(self.pages[i / PAGE][i % PAGE] as usize)
                })
            })
        }
    }

    #[derive(Default)]
    pub struct World {
        slots: Vec<u64>,
        free: std::collections::VecDeque<u32>,
        dense: Vec<u32>,
        hp: Vec<f32>,
        burning: Map,
        poisoned: Map,
        frozen: Map,
    }

    impl super::Build for World {
        type Handle = u64;
        fn spawn(&mut self, hp: f32) -> u64 {
            let d = self.hp.len() as u32;
            let (index, generation) = match self.free.pop_front() {
                Some(index) => (index, (self.slots[index as usize] >> 32) as u32 + 1),
                None => {
                    self.slots.push(0);
                    (self.slots.len() as u32 - 1, 1)
                }
            };
            self.slots[index as usize] = key(d, generation);
            self.dense.push(index);
            self.hp.push(hp);
            key(index, generation)
        }
        fn despawn(&mut self, unit: u64) {
            let index = unit as u32 as usize;
            let d = self.slots[index] as u32 as usize;
            self.hp.swap_remove(d);
            self.dense.swap_remove(d);
            if let Some(&moved) = self.dense.get(d) {
                let slot = &mut self.slots[moved as usize];
                *slot = *slot & !0xffff_ffff | d as u64;
            }
            self.slots[index] |= 0xffff_ffff;
            self.free.push_back(index as u32);
        }
        fn burn(&mut self, unit: u64, dps: f32) {
            self.burning.insert(unit, dps);
        }
        fn poison(&mut self, unit: u64, dose: f32) {
            self.poisoned.insert(unit, dose);
        }
        fn freeze(&mut self, unit: u64, left: f32) {
            self.frozen.insert(unit, left);
        }
    }

    /// The dense position `slot` holds for the unit `key`, if the unit is
    /// live (`len` units): a jump, which the CPU predicts (the driver's
    /// units are live), so the address of its hp does not wait for the
    /// generation compare.
    #[inline(always)]
    fn live(slot: u64, len: usize, key: u64) -> Option<usize> {
        let d = slot as u32 as usize;
        (slot >> 32 == key >> 32 && d < len).then_some(d)
    }

    impl World {
        /// The unit's dense position, if it is live ([`live`] written out:
        /// through it, the compiler allocates `status_bits`' registers
        /// otherwise, and that floor ran 9% slower at 1M).
        #[inline(always)]
        fn unit(&self, key: u64) -> Option<usize> {
            let slot = *self.slots.get(key as u32 as usize)?;
            let d = slot as u32 as usize;
            (slot >> 32 == key >> 32 && d < self.hp.len()).then_some(d)
        }
    }

    #[inline(never)]
    pub fn burn(w: &mut World) -> usize {
        let mut rows = 0;
        for (&key, &dps) in w.burning.keys[..w.burning.len()]
            .iter()
            .zip(&w.burning.values)
        {
            let Some(d) = w.unit(key) else {
                continue;
            };
            // SAFETY: `d < hp.len()`, a live dense position.
            *unsafe { w.hp.get_unchecked_mut(d) } -= dps;
            rows += 1;
        }
        rows
    }

    #[inline(never)]
    pub fn status(w: &mut World) -> usize {
        let mut rows = 0;
        for (&key, &dps) in w.burning.keys[..w.burning.len()]
            .iter()
            .zip(&w.burning.values)
        {
            let (_, frozen) = w.frozen.probe(key);
            // The miss row's dose is 0.0.
            let (p, _) = w.poisoned.probe(key);
            // SAFETY: `p < poisoned.keys.len() == poisoned.values.len()`.
            let dose = unsafe { *w.poisoned.values.get_unchecked(p) };
            let Some(d) = w.unit(key) else {
                continue;
            };
            // SAFETY: `d < hp.len()`, a live dense position.
            *unsafe { w.hp.get_unchecked_mut(d) } -= pick(!frozen, dps + dose);
            rows += usize::from(!frozen);
        }
        rows
    }

    /// The status step with presence bits: `frozen` and `poisoned` read
    /// one bit per row, and are probed only where it is set.
    #[inline(never)]
    pub fn status_bits(w: &mut World) -> usize {
        let mut rows = 0;
        for (&key, &dps) in w.burning.keys[..w.burning.len()]
            .iter()
            .zip(&w.burning.values)
        {
            let (_, frozen) = w.frozen.value_or_zero(key);
            let (dose, _) = w.poisoned.value_or_zero(key);
            let Some(d) = w.unit(key) else {
                continue;
            };
            // SAFETY: `d < hp.len()`, a live dense position.
            *unsafe { w.hp.get_unchecked_mut(d) } -= pick(!frozen, dps + dose);
            rows += usize::from(!frozen);
        }
        rows
    }

    /// The status step of the word floors: each slot index that `burning`
    /// holds and `frozen` does not, in slot order, a word of presence bits
    /// at a time (a lower bound of key order with presence bits: exact
    /// here, where no map holds a stale key; a map with stale keys would
    /// need the frozen slots probed); `row(burning, poisoned, i)` gives the
    /// slot's key and what its unit loses.
    #[inline(always)]
    fn status_by_words(w: &mut World, row: impl Fn(&Map, &Map, usize) -> (u64, f32)) -> usize {
        let mut rows = 0;
        let World {
            slots,
            hp,
            burning,
            frozen,
            poisoned,
            ..
        } = w;
        for (at, &word) in burning.present.iter().enumerate() {
            let mut bits = word & !frozen.present.get(at).copied().unwrap_or(0);
            while bits != 0 {
                let i = at * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (key, loss) = row(burning, poisoned, i);
                let Some(u) = live(slots[i], hp.len(), key) else {
                    continue;
                };
                // SAFETY: `u < hp.len()`, a live dense position.
                *unsafe { hp.get_unchecked_mut(u) } -= loss;
                rows += 1;
            }
        }
        rows
    }

    /// The status step by words, each slot's row then read in slot order.
    #[inline(never)]
    pub fn status_bits_words(w: &mut World) -> usize {
        status_by_words(w, |burning, poisoned, i| {
            let d = burning.pages[i / PAGE][i % PAGE] as usize;
            let (key, dps) = (burning.keys[d], burning.values[d]);
            let (dose, _) = poisoned.value_or_zero(key);
            (key, dps + dose)
        })
    }

    /// As `status_bits_words`, with each map's key kept beside its page
    /// entry: a probe checks the generation in slot order and reads only
    /// the value at random (the layout of bevy's sparse sets, which keep
    /// no key per row to compare).
    #[inline(never)]
    pub fn status_bits_gens(w: &mut World) -> usize {
        status_by_words(w, |burning, poisoned, i| {
            let (page, slot) = (i / PAGE, i % PAGE);
            let key = burning.page_keys[page][slot];
            let dps = burning.values[burning.pages[page][slot] as usize];
            // No branch: a miss reads the miss row's 0.0.
            let dose = match (poisoned.page_keys.get(page), poisoned.pages.get(page)) {
                (Some(keys), Some(rows)) => {
                    let held = keys[slot] == key;
                    let p = select_unpredictable(held, rows[slot] as usize, poisoned.len());
                    // SAFETY: a held key's row, or the miss row.
                    unsafe { *poisoned.values.get_unchecked(p) }
                }
                _ => 0.0,
            };
            (key, dps + dose)
        })
    }

    /// The one-map loop driven in key order (the bits floors' `burn`).
    #[inline(never)]
    pub fn burn_key_order(w: &mut World) -> usize {
        let mut rows = 0;
        for d in w.burning.in_key_order() {
            let (key, dps) = (w.burning.keys[d], w.burning.values[d]);
            let Some(u) = w.unit(key) else {
                continue;
            };
            // SAFETY: `u < hp.len()`, a live dense position.
            *unsafe { w.hp.get_unchecked_mut(u) } -= dps;
            rows += 1;
        }
        rows
    }

    impl super::Loops for World {
        fn burn(&mut self) -> usize {
            burn(self)
        }
        fn status(&mut self) -> usize {
            status(self)
        }
        fn hps(&mut self) -> Vec<f32> {
            super::sorted(self.hp.clone())
        }
    }

    /// The floor with presence bits (`burn` is the floor's).
    #[derive(Default)]
    pub struct Bits(pub World);

    /// The floor with presence bits, a word of slots at a time.
    #[derive(Default)]
    pub struct BitsWords(pub World);

    /// As `BitsWords`, the generation checked at the page.
    #[derive(Default)]
    pub struct BitsGens(pub World);

    macro_rules! bits_loops {
        ($ty:ident, $burn:ident, $status:ident) => {
            impl super::Build for $ty {
                type Handle = u64;
                fn spawn(&mut self, hp: f32) -> u64 {
                    self.0.spawn(hp)
                }
                fn despawn(&mut self, unit: u64) {
                    self.0.despawn(unit)
                }
                fn burn(&mut self, unit: u64, dps: f32) {
                    super::Build::burn(&mut self.0, unit, dps)
                }
                fn poison(&mut self, unit: u64, dose: f32) {
                    self.0.poison(unit, dose)
                }
                fn freeze(&mut self, unit: u64, left: f32) {
                    self.0.freeze(unit, left)
                }
            }
            impl super::Loops for $ty {
                fn burn(&mut self) -> usize {
                    $burn(&mut self.0)
                }
                fn status(&mut self) -> usize {
                    $status(&mut self.0)
                }
                fn hps(&mut self) -> Vec<f32> {
                    self.0.hps()
                }
            }
        };
    }
    bits_loops!(Bits, burn, status_bits);
    bits_loops!(BitsWords, burn_key_order, status_bits_words);
    bits_loops!(BitsGens, burn_key_order, status_bits_gens);
}

fn sizes() -> [usize; 2] {
    [10_000, 1_000_000]
}

/// The implementations, in the tables' order.
const NAMES: [&str; 12] = [
    "idtable join",
    "idtable by hand",
    "idtable floor",
    "hecs",
    "legion",
    "bevy table",
    "bevy sparse set",
    "shipyard",
    "idtable grouped",
    "idtable floor, bits",
    "idtable floor, bits, words",
    "idtable floor, bits, gens",
];

/// Builds every implementation's world for `n` units with burning on
/// `burn` percent and runs `f` with each (name, loops), in [`NAMES`] order.
fn each(n: usize, burn: u64, mut f: impl FnMut(&str, &mut dyn Loops)) {
    f(
        NAMES[0],
        &mut idt::Joined(built(idt::World::new(n), n, burn)),
    );
    f(
        NAMES[1],
        &mut idt::ByHand(built(idt::World::new(n), n, burn)),
    );
    f(NAMES[2], &mut built(floor::World::default(), n, burn));
    f(
        NAMES[3],
        &mut built(hecs_ecs::Hecs(hecs::World::new()), n, burn),
    );
    let mut legion = built(legion_ecs::Legion(legion::World::default()), n, burn);
    legion_ecs::with_queries(&mut legion.0, |loops| f(NAMES[4], loops));
    drop(legion);
    f(NAMES[5], &mut built(bevy::Table::new(), n, burn));
    f(NAMES[6], &mut built(bevy::Sparse::new(), n, burn));
    f(
        NAMES[7],
        &mut built(shipyard_ecs::Shipyard(shipyard::World::new()), n, burn),
    );
    f(
        NAMES[8],
        &mut idt::Grouped::new(built(idt::World::new(n), n, burn)),
    );
    f(NAMES[9], &mut built(floor::Bits::default(), n, burn));
    f(NAMES[10], &mut built(floor::BitsWords::default(), n, burn));
    f(NAMES[11], &mut built(floor::BitsGens::default(), n, burn));
}

/// Every implementation visits the same rows and leaves the same hp,
/// for both loops; checked once, before anything is timed.
fn check(_: &mut Criterion) {
    for burn in [50, 10] {
        let mut expected = None;
        each(5_000, burn, |name, loops| {
            let rows = (loops.burn(), loops.status());
            let got = (rows, loops.hps());
            match &expected {
                None => expected = Some(got),
                Some(want) => assert!(*want == got, "{name} disagrees with idtable"),
            }
        });
    }
}

/// Criterion's settings at `n` units: fewer samples at 1M, where one pass
/// takes milliseconds.
fn samples(n: usize) -> usize {
    if n >= 1_000_000 {
        20
    } else {
        100
    }
}

fn bench_one_map(c: &mut Criterion) {
    let mut group = c.benchmark_group("ecs_one_map");
    for n in sizes() {
        group.sample_size(samples(n));
        for burn in [50, 10] {
            let label = format!("{n}/{burn}%");
            let mut rows = None;
            each(n, burn, |name, loops| {
                let visited = loops.burn();
                assert_eq!(*rows.get_or_insert(visited), visited, "{name}: rows");
                group.throughput(Throughput::Elements(visited as u64));
                group.bench_function(BenchmarkId::new(name, &label), |b| {
                    b.iter(|| black_box(loops.burn()))
                });
            });
        }
    }
    group.finish();
}

fn bench_status_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("ecs_status_step");
    for n in sizes() {
        group.sample_size(samples(n));
        let mut rows = None;
        each(n, 10, |name, loops| {
            let visited = loops.status();
            assert_eq!(*rows.get_or_insert(visited), visited, "{name}: rows");
            group.throughput(Throughput::Elements(visited as u64));
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| black_box(loops.status()))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, check, bench_one_map, bench_status_step);
criterion_main!(benches);
