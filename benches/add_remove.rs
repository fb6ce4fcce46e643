//! The public ECS suite's `add_remove` (rust-gamedev/ecs_bench_suite): 10,000
//! entities with a component `A`; one pass adds a component `B` to every
//! entity, then removes it from every entity. hecs, legion, bevy_ecs (`B`
//! in its default table storage, which moves the entity to another
//! archetype, and in its sparse-set storage) and shipyard written as the
//! suite writes them; idtable three ways:
//!
//! * `idtable SoaMap`: `B` in a `SoaMap` keyed by the table's ids,
//!   `insert` then `remove` (no group);
//! * `idtable grouped`: the same through a `Group` that owns the table and
//!   the map (`GroupEdit::insert` / `remove`), so that a join of the two
//!   walks aligned rows: each add swaps the unit's table row into the
//!   group's prefix, each remove swaps it out;
//! * `idtable grouped, map only`: a group owning `B`'s map and the map of
//!   `A` (`A` as a component of its own), the layout of an ECS whose every
//!   component is a map.
//!
//! Two builds of the ECSs, as `benches/ecs_suite.rs`: `ecs_default` (every
//! ECS with its default features, group `add_remove/default_features`) and
//! `ecs` (without, group `add_remove/no_default_features`). Each pass is a
//! never-inlined function; every implementation is checked to end each pass
//! with 10,000 entities and no `B`, and its group (where it has one) with
//! every entity in it halfway.
//!
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs_default --bench add_remove
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs --bench add_remove

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 10_000;

const BUILD: &str = if cfg!(feature = "ecs_default") {
    "default_features"
} else {
    "no_default_features"
};

mod idt {
    use super::N;
    use idtable::group::Group;
    use idtable::{SoaAllocator, SoaMap};

    #[derive(SoaAllocator)]
    pub struct Unit {
        pub a: f32,
    }
    #[derive(SoaAllocator)]
    pub struct A {
        pub a: f32,
    }
    #[derive(SoaAllocator)]
    pub struct B {
        pub b: f32,
    }

    pub struct World {
        pub units: UnitAllocator,
        pub bs: SoaMap<UnitId, B>,
        pub ids: Vec<UnitId>,
    }

    pub fn world() -> World {
        let mut units = UnitAllocator::with_capacity(N);
        let ids = (0..N).map(|_| units.insert(Unit { a: 0.0 })).collect();
        World {
            units,
            bs: SoaMap::new(),
            ids,
        }
    }

    #[inline(never)]
    pub fn pass(w: &mut World) {
        for &id in &w.ids {
            w.bs.insert(id, B { b: 0.0 });
        }
        for &id in &w.ids {
            w.bs.remove(id);
        }
    }

    pub struct Grouped {
        pub w: World,
        pub group: Group<UnitId>,
    }

    pub fn grouped() -> Grouped {
        let mut w = world();
        let group = Group::new((&mut w.units, &mut w.bs));
        Grouped { w, group }
    }

    /// Returns the group's length after the adds.
    #[inline(never)]
    pub fn pass_grouped(g: &mut Grouped) -> usize {
        let w = &mut g.w;
        let mut edit = g.group.edit((&mut w.units, &mut w.bs));
        for &id in &w.ids {
            edit.insert(id, B { b: 0.0 });
        }
        let full = edit.group().len();
        for &id in &w.ids {
            edit.remove::<B, _>(id);
        }
        full
    }

    pub struct MapsOnly {
        pub a: SoaMap<UnitId, A>,
        pub b: SoaMap<UnitId, B>,
        pub ids: Vec<UnitId>,
        pub group: Group<UnitId>,
    }

    pub fn maps_only() -> MapsOnly {
        let w = world();
        let mut a = SoaMap::new();
        for &id in &w.ids {
            a.insert(id, A { a: 0.0 });
        }
        let mut b = SoaMap::new();
        let group = Group::new((&mut a, &mut b));
        MapsOnly {
            a,
            b,
            ids: w.ids,
            group,
        }
    }

    #[inline(never)]
    pub fn pass_maps_only(m: &mut MapsOnly) -> usize {
        let mut edit = m.group.edit((&mut m.a, &mut m.b));
        for &id in &m.ids {
            edit.insert(id, B { b: 0.0 });
        }
        let full = edit.group().len();
        for &id in &m.ids {
            edit.remove::<B, _>(id);
        }
        full
    }
}

mod hecs_ecs {
    use super::N;
    use hecs::{Entity, World};

    pub struct A(#[allow(dead_code)] pub f32);
    pub struct B(#[allow(dead_code)] pub f32);

    pub fn world() -> (World, Vec<Entity>) {
        let mut world = World::new();
        let entities = world.spawn_batch((0..N).map(|_| (A(0.0),))).collect();
        (world, entities)
    }

    #[inline(never)]
    pub fn pass((world, entities): &mut (World, Vec<Entity>)) {
        for &e in entities.iter() {
            world.insert_one(e, B(0.0)).unwrap();
        }
        for &e in entities.iter() {
            world.remove_one::<B>(e).unwrap();
        }
    }

    pub fn count_b(world: &mut World) -> usize {
        world.query_mut::<&B>().into_iter().count()
    }
}

mod legion_ecs {
    use super::N;
    use legion::{Entity, EntityStore, World};

    pub struct A(#[allow(dead_code)] pub f32);
    pub struct B(#[allow(dead_code)] pub f32);

    pub fn world() -> (World, Vec<Entity>) {
        let mut world = World::default();
        let entities = world.extend((0..N).map(|_| (A(0.0),))).to_vec();
        (world, entities)
    }

    #[inline(never)]
    pub fn pass((world, entities): &mut (World, Vec<Entity>)) {
        for &e in entities.iter() {
            world.entry(e).unwrap().add_component(B(0.0));
        }
        for &e in entities.iter() {
            world.entry(e).unwrap().remove_component::<B>();
        }
    }

    pub fn has_b(world: &World, e: Entity) -> bool {
        world.entry_ref(e).unwrap().get_component::<B>().is_ok()
    }
}

mod bevy {
    use super::N;
    use bevy_ecs::prelude::{Component, Entity, World};

    #[derive(Component)]
    pub struct A(#[allow(dead_code)] pub f32);
    #[derive(Component)]
    pub struct B(#[allow(dead_code)] pub f32);
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    pub struct SparseB(#[allow(dead_code)] pub f32);

    pub fn world() -> (World, Vec<Entity>) {
        let mut world = World::new();
        let entities = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
        (world, entities)
    }

    #[inline(never)]
    pub fn pass((world, entities): &mut (World, Vec<Entity>)) {
        for &e in entities.iter() {
            world.entity_mut(e).insert(B(0.0));
        }
        for &e in entities.iter() {
            world.entity_mut(e).remove::<B>();
        }
    }

    #[inline(never)]
    pub fn pass_sparse((world, entities): &mut (World, Vec<Entity>)) {
        for &e in entities.iter() {
            world.entity_mut(e).insert(SparseB(0.0));
        }
        for &e in entities.iter() {
            world.entity_mut(e).remove::<SparseB>();
        }
    }

    pub fn count_b(world: &mut World) -> usize {
        world.query::<&B>().iter(world).count() + world.query::<&SparseB>().iter(world).count()
    }
}

mod shipyard_ecs {
    use super::N;
    use shipyard::{Component, EntitiesViewMut, EntityId, Remove, ViewMut, World};

    #[derive(Component)]
    pub struct A(#[allow(dead_code)] pub f32);
    #[derive(Component)]
    pub struct B(#[allow(dead_code)] pub f32);

    pub fn world() -> (World, Vec<EntityId>) {
        let world = World::new();
        let entities = world.run(|mut entities: EntitiesViewMut, mut a: ViewMut<A>| {
            (0..N)
                .map(|_| entities.add_entity(&mut a, A(0.0)))
                .collect()
        });
        (world, entities)
    }

    #[inline(never)]
    pub fn pass((world, entities): &mut (World, Vec<EntityId>)) {
        world.run(|entities_view: EntitiesViewMut, mut b: ViewMut<B>| {
            for &e in entities.iter() {
                entities_view.add_component(e, &mut b, B(0.0));
            }
            for &e in entities.iter() {
                b.remove(e);
            }
        });
    }

    pub fn count_b(world: &World) -> usize {
        world.run(|b: ViewMut<B>| b.len())
    }
}

/// Every implementation ends a pass with no `B` (and the groups full
/// halfway), checked before anything is timed.
fn check() {
    let mut w = idt::world();
    idt::pass(&mut w);
    assert!(w.bs.is_empty() && w.units.len() == N);
    let mut g = idt::grouped();
    assert_eq!(idt::pass_grouped(&mut g), N);
    assert!(g.w.bs.is_empty() && g.group.is_empty());
    let mut m = idt::maps_only();
    assert_eq!(idt::pass_maps_only(&mut m), N);
    assert!(m.b.is_empty() && m.group.is_empty());
    let mut h = hecs_ecs::world();
    hecs_ecs::pass(&mut h);
    assert_eq!(hecs_ecs::count_b(&mut h.0), 0);
    let mut l = legion_ecs::world();
    legion_ecs::pass(&mut l);
    assert!(!legion_ecs::has_b(&l.0, l.1[0]));
    let mut b = bevy::world();
    bevy::pass(&mut b);
    bevy::pass_sparse(&mut b);
    assert_eq!(bevy::count_b(&mut b.0), 0);
    let mut s = shipyard_ecs::world();
    shipyard_ecs::pass(&mut s);
    assert_eq!(shipyard_ecs::count_b(&s.0), 0);
}

fn bench_add_remove(c: &mut Criterion) {
    check();
    let mut group = c.benchmark_group(format!("add_remove/{BUILD}"));
    group.throughput(Throughput::Elements(N as u64));
    let mut w = idt::world();
    group.bench_function("idtable SoaMap", |b| {
        b.iter(|| idt::pass(black_box(&mut w)))
    });
    let mut g = idt::grouped();
    group.bench_function("idtable grouped", |b| {
        b.iter(|| idt::pass_grouped(black_box(&mut g)))
    });
    let mut m = idt::maps_only();
    group.bench_function("idtable grouped, map only", |b| {
        b.iter(|| idt::pass_maps_only(black_box(&mut m)))
    });
    let mut h = hecs_ecs::world();
    group.bench_function("hecs", |b| b.iter(|| hecs_ecs::pass(black_box(&mut h))));
    let mut l = legion_ecs::world();
    group.bench_function("legion", |b| b.iter(|| legion_ecs::pass(black_box(&mut l))));
    let mut bt = bevy::world();
    group.bench_function("bevy table", |b| b.iter(|| bevy::pass(black_box(&mut bt))));
    let mut bs = bevy::world();
    group.bench_function("bevy sparse set", |b| {
        b.iter(|| bevy::pass_sparse(black_box(&mut bs)))
    });
    let mut s = shipyard_ecs::world();
    group.bench_function("shipyard", |b| {
        b.iter(|| shipyard_ecs::pass(black_box(&mut s)))
    });
    group.finish();
}

criterion_group!(benches, bench_add_remove);
criterion_main!(benches);
