//! The two simplest workloads of the public ECS benchmark suite
//! (rust-gamedev/ecs_bench_suite), `simple_insert` and `simple_iter`, for
//! hecs, legion, bevy_ecs and shipyard written the way the suite writes them
//! (moved to the versions this package depends on), and for idtable the way
//! a user writes them with one derived table.
//!
//! Every entity has four components: a transform (a 4×4 `f32` matrix, the
//! identity), a position, a rotation and a velocity (three `f32`s each, all
//! `(1, 0, 0)`). The suite uses cgmath's `Matrix4` and `Vector3`; here they
//! are plain arrays of the same size, and `+=` on a vector is [`add`], the
//! same three adds for every implementation.
//!
//! * `simple_insert`: a new world, 10,000 entities spawned into it, the
//!   world dropped (all timed, as in the suite). Each ECS in its batch form
//!   (hecs and bevy `spawn_batch`, legion `extend` of `into_soa` columns,
//!   shipyard `bulk_add_entity`) and in its loop form (`spawn`, `push`,
//!   `add_entity` on borrowed views); idtable as a loop of `insert` and by
//!   `collect` (the allocator's `FromIterator`).
//! * `simple_iter`: position += velocity over the 10,000 entities. hecs
//!   `query_mut`, legion a `Query` built once and `for_each_mut` on a packed
//!   world, bevy a `QueryState` made in the pass (as the suite does) and
//!   `iter_mut`, shipyard `world.run` borrowing a `View` and a `ViewMut`.
//!   idtable three ways: the zip of the `pos` and `vel` columns, the rows
//!   (`iter_mut()`), and the zip of the flattened columns (30,000 `f32`s).
//!   And the loop body users write first (issue 38), [`add_ref`], which
//!   takes the velocity by reference: over the zip of the columns of
//!   `columns_mut()` (`idtable zip by reference`), and inside [`add_all`], a
//!   never-inlined function that takes the two columns as arguments (`idtable
//!   zip by reference, columns as arguments`). Slices taken out of a view
//!   struct tell the compiler nothing about overlap; only function arguments
//!   do: the columns view's `for_each` passes each column as one (`idtable
//!   for_each by reference`), the way idtable's guide writes hot loops.
//!
//! `Vec columns` is a floor, not a container: four `Vec`s and no ids, with
//! the same loops (`Vec columns zip by reference, as arguments` passes the
//! two `Vec`s to [`add_all`]).
//!
//! Two builds of the ECSs, one per package feature (Cargo builds a crate
//! once per build, with the union of the features asked for):
//!
//! * `ecs_default`: every ECS with its default features, as the public suite
//!   builds them and as their users get them; groups
//!   `simple_insert/default_features` and `simple_iter/default_features`;
//! * `ecs`: legion, bevy_ecs and shipyard without the default features their
//!   queries do not use (threads, serialization, reflection, codegen for
//!   systems; hecs's default is `std` alone, kept); groups
//!   `simple_insert/no_default_features` and `simple_iter/no_default_features`.
//!
//! The criterion ids are `GROUP/FUNCTION`, e.g.
//! `simple_iter/default_features/legion`. idtable and the `Vec` floor are the
//! same code in both builds.
//!
//! Each workload is a never-inlined function; before anything is timed the
//! bench checks that every insert makes 10,000 entities with the given
//! position and velocity, and that one pass of every iteration leaves every
//! position at `(2, 0, 0)`.
//!
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs_default --bench ecs_suite
//!     cargo bench --manifest-path benches/Cargo.toml --features ecs --bench ecs_suite
//!
//! On a loaded machine, the same workloads timed in alternation, one pass of
//! each per round (see [`alternate`]), with no criterion benchmark run:
//!
//!     ECS_SUITE_ALTERNATE=300 cargo bench --manifest-path benches/Cargo.toml --features ecs_default --bench ecs_suite -- alternate
//!     ECS_SUITE_ALTERNATE=300 cargo bench --manifest-path benches/Cargo.toml --features ecs --bench ecs_suite -- alternate

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Entities per world, as in the suite.
const N: usize = 10_000;

type Vec3 = [f32; 3];
type Mat4 = [[f32; 4]; 4];

/// `Matrix4::from_scale(1.0)`.
const TRANSFORM: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];
/// `Vector3::unit_x()`.
const UNIT_X: Vec3 = [1.0, 0.0, 0.0];

/// The build of the ECSs this binary holds (see the module docs): the
/// second part of every group name.
const BUILD: &str = if cfg!(feature = "ecs_default") {
    "default_features"
} else {
    "no_default_features"
};

/// `position += velocity`, as cgmath's `AddAssign` for `Vector3`, which
/// takes the velocity by value.
#[inline(always)]
fn add(position: &mut Vec3, velocity: Vec3) {
    position[0] += velocity[0];
    position[1] += velocity[1];
    position[2] += velocity[2];
}

/// The same with the velocity by reference, as a user writes it first over
/// `iter_mut().zip(iter())`.
#[inline(always)]
fn add_ref(position: &mut Vec3, velocity: &Vec3) {
    position[0] += velocity[0];
    position[1] += velocity[1];
    position[2] += velocity[2];
}

/// [`add_ref`] over two columns passed as arguments (which the compiler
/// knows do not overlap).
#[inline(never)]
fn add_all(positions: &mut [Vec3], velocities: &[Vec3]) {
    for (pos, vel) in positions.iter_mut().zip(velocities.iter()) {
        add_ref(pos, vel);
    }
}

/// The suite's four component types in an ECS's module, each with the
/// derives that ECS asks for, and `components()`, one entity's values.
macro_rules! components {
    ($(#[$derive:meta])*) => {
        $(#[$derive])*
        #[allow(dead_code)] // stored, never read
        pub struct Transform(Mat4);
        $(#[$derive])*
        pub struct Position(Vec3);
        $(#[$derive])*
        #[allow(dead_code)] // stored, never read
        pub struct Rotation(Vec3);
        $(#[$derive])*
        pub struct Velocity(Vec3);

        fn components() -> (Transform, Position, Rotation, Velocity) {
            (
                Transform(TRANSFORM),
                Position(UNIT_X),
                Rotation(UNIT_X),
                Velocity(UNIT_X),
            )
        }
    };
}

/// `insert_batch` (`World::spawn_batch`) and `insert_loop` (`World::spawn`
/// per entity) in the module of an ECS whose world spells them so (hecs and
/// bevy_ecs, each as the suite writes it).
macro_rules! spawns {
    () => {
        #[inline(never)]
        pub fn insert_batch() -> World {
            let mut world = World::new();
            world.spawn_batch((0..N).map(|_| components()));
            world
        }

        #[inline(never)]
        pub fn insert_loop() -> World {
            let mut world = World::new();
            for _ in 0..N {
                world.spawn(components());
            }
            world
        }
    };
}

mod idt {
    use super::{add, add_all, add_ref, Mat4, Vec3, N, TRANSFORM, UNIT_X};
    use idtable::SoaAllocator;

    #[derive(SoaAllocator)]
    pub struct Body {
        pub transform: Mat4,
        pub pos: Vec3,
        pub rot: Vec3,
        pub vel: Vec3,
    }

    fn body() -> Body {
        Body {
            transform: TRANSFORM,
            pos: UNIT_X,
            rot: UNIT_X,
            vel: UNIT_X,
        }
    }

    #[inline(never)]
    pub fn insert_loop() -> BodyAllocator {
        let mut bodies = BodyAllocator::new();
        for _ in 0..N {
            bodies.insert(body());
        }
        bodies
    }

    #[inline(never)]
    pub fn insert_collect() -> BodyAllocator {
        (0..N).map(|_| body()).collect()
    }

    #[inline(never)]
    pub fn iter_zip(bodies: &mut BodyAllocator) {
        let cols = bodies.columns_mut();
        for (pos, vel) in cols.pos.iter_mut().zip(cols.vel.iter()) {
            add(pos, *vel);
        }
    }

    #[inline(never)]
    pub fn iter_zip_ref(bodies: &mut BodyAllocator) {
        let cols = bodies.columns_mut();
        for (pos, vel) in cols.pos.iter_mut().zip(cols.vel.iter()) {
            add_ref(pos, vel);
        }
    }

    #[inline(never)]
    pub fn iter_zip_ref_args(bodies: &mut BodyAllocator) {
        let cols = bodies.columns_mut();
        add_all(cols.pos, cols.vel);
    }

    /// The by-reference body the way idtable documents hot loops: the
    /// columns view's `for_each`, which passes each column as an argument.
    #[inline(never)]
    pub fn iter_for_each_ref(bodies: &mut BodyAllocator) {
        bodies
            .columns_mut()
            .for_each(|body| add_ref(body.pos, body.vel));
    }

    #[inline(never)]
    pub fn iter_rows(bodies: &mut BodyAllocator) {
        for (_, body) in bodies.iter_mut() {
            add(body.pos, *body.vel);
        }
    }

    #[inline(never)]
    pub fn iter_flat(bodies: &mut BodyAllocator) {
        let cols = bodies.columns_mut();
        for (p, v) in cols
            .pos
            .as_flattened_mut()
            .iter_mut()
            .zip(cols.vel.as_flattened())
        {
            *p += v;
        }
    }

    pub fn pos_vel(bodies: &BodyAllocator) -> Vec<(Vec3, Vec3)> {
        let cols = bodies.columns();
        cols.pos
            .iter()
            .copied()
            .zip(cols.vel.iter().copied())
            .collect()
    }
}

/// The floor: four `Vec`s, no ids.
mod vecs {
    use super::{add, add_all, add_ref, Mat4, Vec3, N, TRANSFORM, UNIT_X};

    #[derive(Default)]
    pub struct Columns {
        transform: Vec<Mat4>,
        pos: Vec<Vec3>,
        rot: Vec<Vec3>,
        vel: Vec<Vec3>,
    }

    #[inline(never)]
    pub fn insert_loop() -> Columns {
        let mut c = Columns::default();
        for _ in 0..N {
            c.transform.push(TRANSFORM);
            c.pos.push(UNIT_X);
            c.rot.push(UNIT_X);
            c.vel.push(UNIT_X);
        }
        c
    }

    #[inline(never)]
    pub fn iter_zip(c: &mut Columns) {
        for (pos, vel) in c.pos.iter_mut().zip(c.vel.iter()) {
            add(pos, *vel);
        }
    }

    #[inline(never)]
    pub fn iter_zip_ref(c: &mut Columns) {
        for (pos, vel) in c.pos.iter_mut().zip(c.vel.iter()) {
            add_ref(pos, vel);
        }
    }

    #[inline(never)]
    pub fn iter_zip_ref_args(c: &mut Columns) {
        add_all(&mut c.pos, &c.vel);
    }

    #[inline(never)]
    pub fn iter_flat(c: &mut Columns) {
        for (p, v) in c
            .pos
            .as_flattened_mut()
            .iter_mut()
            .zip(c.vel.as_flattened())
        {
            *p += v;
        }
    }

    pub fn pos_vel(c: &Columns) -> Vec<(Vec3, Vec3)> {
        assert_eq!(c.transform.len(), c.rot.len());
        c.pos.iter().copied().zip(c.vel.iter().copied()).collect()
    }
}

mod hecs_ecs {
    use super::{add, Mat4, Vec3, N, TRANSFORM, UNIT_X};
    use hecs::World;

    components!();

    spawns!();

    #[inline(never)]
    pub fn iter(world: &mut World) {
        for (velocity, position) in world.query_mut::<(&Velocity, &mut Position)>() {
            add(&mut position.0, velocity.0);
        }
    }

    pub fn pos_vel(world: &mut World) -> Vec<(Vec3, Vec3)> {
        let query = world.query_mut::<(&Transform, &Position, &Rotation, &Velocity)>();
        query.into_iter().map(|(_, p, _, v)| (p.0, v.0)).collect()
    }
}

mod legion_ecs {
    use super::{add, Mat4, Vec3, N, TRANSFORM, UNIT_X};
    use legion::query::Query;
    use legion::storage::{IntoSoa, PackOptions};
    use legion::{IntoQuery, Read, World, Write};

    components!(#[derive(Clone, Copy)]);

    /// The suite's batch: one `Vec` per component, `into_soa`.
    #[inline(never)]
    pub fn insert_soa() -> World {
        let mut world = World::default();
        world.extend(
            (
                vec![Transform(TRANSFORM); N],
                vec![Position(UNIT_X); N],
                vec![Rotation(UNIT_X); N],
                vec![Velocity(UNIT_X); N],
            )
                .into_soa(),
        );
        world
    }

    /// The batch of its docs: `extend` with an iterator of tuples.
    #[inline(never)]
    pub fn insert_iter() -> World {
        let mut world = World::default();
        world.extend((0..N).map(|_| components()));
        world
    }

    #[inline(never)]
    pub fn insert_loop() -> World {
        let mut world = World::default();
        for _ in 0..N {
            world.push(components());
        }
        world
    }

    pub type IterQuery = Query<(Read<Velocity>, Write<Position>)>;

    /// The suite's world for `simple_iter`: the soa batch, packed, and its
    /// query built once.
    pub fn iter_world() -> (World, IterQuery) {
        let mut world = insert_soa();
        world.pack(PackOptions::force());
        (world, <(Read<Velocity>, Write<Position>)>::query())
    }

    #[inline(never)]
    pub fn iter(world: &mut World, query: &mut IterQuery) {
        query.for_each_mut(world, |(velocity, position)| {
            add(&mut position.0, velocity.0);
        });
    }

    pub fn pos_vel(world: &World) -> Vec<(Vec3, Vec3)> {
        let mut query = <(
            Read<Transform>,
            Read<Position>,
            Read<Rotation>,
            Read<Velocity>,
        )>::query();
        query.iter(world).map(|(_, p, _, v)| (p.0, v.0)).collect()
    }
}

mod bevy {
    use super::{add, Mat4, Vec3, N, TRANSFORM, UNIT_X};
    use bevy_ecs::prelude::*;

    components!(#[derive(Component)]);

    spawns!();

    /// As the suite: the query's state is made in the pass.
    #[inline(never)]
    pub fn iter(world: &mut World) {
        let mut query = world.query::<(&Velocity, &mut Position)>();
        for (velocity, mut position) in query.iter_mut(world) {
            add(&mut position.0, velocity.0);
        }
    }

    pub fn pos_vel(world: &mut World) -> Vec<(Vec3, Vec3)> {
        let mut query = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
        query.iter(world).map(|(_, p, _, v)| (p.0, v.0)).collect()
    }
}

mod shipyard_ecs {
    use super::{add, Mat4, Vec3, N, TRANSFORM, UNIT_X};
    use shipyard::{Component, EntitiesViewMut, IntoIter, View, ViewMut, World};

    components!(#[derive(Component)]);

    /// The suite's form: `add_entity` on borrowed views, in a loop.
    #[inline(never)]
    pub fn insert_loop() -> World {
        let world = World::new();
        world.run(
            |mut entities: EntitiesViewMut,
             mut transforms: ViewMut<Transform>,
             mut positions: ViewMut<Position>,
             mut rotations: ViewMut<Rotation>,
             mut velocities: ViewMut<Velocity>| {
                for _ in 0..N {
                    entities.add_entity(
                        (
                            &mut transforms,
                            &mut positions,
                            &mut rotations,
                            &mut velocities,
                        ),
                        components(),
                    );
                }
            },
        );
        world
    }

    /// The batch form of its docs: `bulk_add_entity` on the same views.
    #[inline(never)]
    pub fn insert_batch() -> World {
        let world = World::new();
        world.run(
            |mut entities: EntitiesViewMut,
             mut transforms: ViewMut<Transform>,
             mut positions: ViewMut<Position>,
             mut rotations: ViewMut<Rotation>,
             mut velocities: ViewMut<Velocity>| {
                entities.bulk_add_entity(
                    (
                        &mut transforms,
                        &mut positions,
                        &mut rotations,
                        &mut velocities,
                    ),
                    (0..N).map(|_| components()),
                );
            },
        );
        world
    }

    #[inline(never)]
    pub fn iter(world: &World) {
        world.run(
            |velocities: View<Velocity>, mut positions: ViewMut<Position>| {
                (&velocities, &mut positions)
                    .iter()
                    .for_each(|(velocity, position)| {
                        add(&mut position.0, velocity.0);
                    })
            },
        );
    }

    pub fn pos_vel(world: &World) -> Vec<(Vec3, Vec3)> {
        world.run(
            |t: View<Transform>, p: View<Position>, r: View<Rotation>, v: View<Velocity>| {
                (&t, &p, &r, &v)
                    .iter()
                    .map(|(_, p, _, v)| (p.0, v.0))
                    .collect()
            },
        )
    }
}

/// Asserts that `got` holds `N` entities, each with this position and
/// velocity `(1, 0, 0)`.
fn assert_world(name: &str, got: Vec<(Vec3, Vec3)>, pos: Vec3) {
    assert_eq!(got.len(), N, "{name}: entities");
    for (p, v) in got {
        assert_eq!((p, v), (pos, UNIT_X), "{name}: position, velocity");
    }
}

/// Every insert makes the same world, and one pass of every iteration
/// leaves the same positions; checked once, before anything is timed.
fn check(_: &mut Criterion) {
    let fresh = UNIT_X;
    assert_world("idtable insert", idt::pos_vel(&idt::insert_loop()), fresh);
    assert_world(
        "idtable collect",
        idt::pos_vel(&idt::insert_collect()),
        fresh,
    );
    assert_world("Vec columns", vecs::pos_vel(&vecs::insert_loop()), fresh);
    assert_world(
        "hecs batch",
        hecs_ecs::pos_vel(&mut hecs_ecs::insert_batch()),
        fresh,
    );
    assert_world(
        "hecs loop",
        hecs_ecs::pos_vel(&mut hecs_ecs::insert_loop()),
        fresh,
    );
    assert_world(
        "legion soa",
        legion_ecs::pos_vel(&legion_ecs::insert_soa()),
        fresh,
    );
    assert_world(
        "legion iter",
        legion_ecs::pos_vel(&legion_ecs::insert_iter()),
        fresh,
    );
    assert_world(
        "legion loop",
        legion_ecs::pos_vel(&legion_ecs::insert_loop()),
        fresh,
    );
    assert_world(
        "bevy batch",
        bevy::pos_vel(&mut bevy::insert_batch()),
        fresh,
    );
    assert_world("bevy loop", bevy::pos_vel(&mut bevy::insert_loop()), fresh);
    assert_world(
        "shipyard loop",
        shipyard_ecs::pos_vel(&shipyard_ecs::insert_loop()),
        fresh,
    );
    assert_world(
        "shipyard batch",
        shipyard_ecs::pos_vel(&shipyard_ecs::insert_batch()),
        fresh,
    );

    let moved = [2.0, 0.0, 0.0];
    for (name, pass) in [
        ("idtable zip", idt::iter_zip as fn(&mut idt::BodyAllocator)),
        ("idtable zip by reference", idt::iter_zip_ref),
        (
            "idtable zip by reference, columns as arguments",
            idt::iter_zip_ref_args,
        ),
        ("idtable for_each by reference", idt::iter_for_each_ref),
        ("idtable rows", idt::iter_rows),
        ("idtable flattened", idt::iter_flat),
    ] {
        let mut bodies = idt::insert_collect();
        pass(&mut bodies);
        assert_world(name, idt::pos_vel(&bodies), moved);
    }
    for (name, pass) in [
        ("Vec columns zip", vecs::iter_zip as fn(&mut vecs::Columns)),
        ("Vec columns zip by reference", vecs::iter_zip_ref),
        (
            "Vec columns zip by reference, as arguments",
            vecs::iter_zip_ref_args,
        ),
        ("Vec columns flattened", vecs::iter_flat),
    ] {
        let mut c = vecs::insert_loop();
        pass(&mut c);
        assert_world(name, vecs::pos_vel(&c), moved);
    }
    let mut world = hecs_ecs::insert_batch();
    hecs_ecs::iter(&mut world);
    assert_world("hecs", hecs_ecs::pos_vel(&mut world), moved);
    let (mut world, mut query) = legion_ecs::iter_world();
    legion_ecs::iter(&mut world, &mut query);
    assert_world("legion", legion_ecs::pos_vel(&world), moved);
    let mut world = bevy::insert_batch();
    bevy::iter(&mut world);
    assert_world("bevy", bevy::pos_vel(&mut world), moved);
    let world = shipyard_ecs::insert_loop();
    shipyard_ecs::iter(&world);
    assert_world("shipyard", shipyard_ecs::pos_vel(&world), moved);
}

fn bench_simple_insert(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("simple_insert/{BUILD}"));
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function("idtable insert loop", |b| b.iter(idt::insert_loop));
    group.bench_function("idtable collect", |b| b.iter(idt::insert_collect));
    group.bench_function("hecs spawn loop", |b| b.iter(hecs_ecs::insert_loop));
    group.bench_function("hecs spawn_batch", |b| b.iter(hecs_ecs::insert_batch));
    group.bench_function("legion push loop", |b| b.iter(legion_ecs::insert_loop));
    group.bench_function("legion extend soa", |b| b.iter(legion_ecs::insert_soa));
    group.bench_function("legion extend iter", |b| b.iter(legion_ecs::insert_iter));
    group.bench_function("bevy spawn loop", |b| b.iter(bevy::insert_loop));
    group.bench_function("bevy spawn_batch", |b| b.iter(bevy::insert_batch));
    group.bench_function("shipyard add_entity loop", |b| {
        b.iter(shipyard_ecs::insert_loop)
    });
    group.bench_function("shipyard bulk_add_entity", |b| {
        b.iter(shipyard_ecs::insert_batch)
    });
    group.bench_function("Vec columns push loop", |b| b.iter(vecs::insert_loop));
    group.finish();
}

fn bench_simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("simple_iter/{BUILD}"));
    group.throughput(Throughput::Elements(N as u64));
    let mut bodies = idt::insert_collect();
    group.bench_function("idtable zip", |b| {
        b.iter(|| idt::iter_zip(black_box(&mut bodies)))
    });
    group.bench_function("idtable zip by reference", |b| {
        b.iter(|| idt::iter_zip_ref(black_box(&mut bodies)))
    });
    group.bench_function("idtable zip by reference, columns as arguments", |b| {
        b.iter(|| idt::iter_zip_ref_args(black_box(&mut bodies)))
    });
    group.bench_function("idtable for_each by reference", |b| {
        b.iter(|| idt::iter_for_each_ref(black_box(&mut bodies)))
    });
    group.bench_function("idtable rows", |b| {
        b.iter(|| idt::iter_rows(black_box(&mut bodies)))
    });
    group.bench_function("idtable flattened", |b| {
        b.iter(|| idt::iter_flat(black_box(&mut bodies)))
    });
    let mut world = hecs_ecs::insert_batch();
    group.bench_function("hecs", |b| b.iter(|| hecs_ecs::iter(black_box(&mut world))));
    let (mut world, mut query) = legion_ecs::iter_world();
    group.bench_function("legion", |b| {
        b.iter(|| legion_ecs::iter(black_box(&mut world), &mut query))
    });
    let mut world = bevy::insert_batch();
    group.bench_function("bevy", |b| b.iter(|| bevy::iter(black_box(&mut world))));
    let world = shipyard_ecs::insert_loop();
    group.bench_function("shipyard", |b| {
        b.iter(|| shipyard_ecs::iter(black_box(&world)))
    });
    let mut columns = vecs::insert_loop();
    group.bench_function("Vec columns zip", |b| {
        b.iter(|| vecs::iter_zip(black_box(&mut columns)))
    });
    group.bench_function("Vec columns zip by reference", |b| {
        b.iter(|| vecs::iter_zip_ref(black_box(&mut columns)))
    });
    group.bench_function("Vec columns zip by reference, as arguments", |b| {
        b.iter(|| vecs::iter_zip_ref_args(black_box(&mut columns)))
    });
    group.bench_function("Vec columns flattened", |b| {
        b.iter(|| vecs::iter_flat(black_box(&mut columns)))
    });
    group.finish();
}

/// With `ECS_SUITE_ALTERNATE=<passes>` set: every workload in turn, once
/// each per round, for that many rounds, then each one's median, printed.
/// On a shared machine a change of load then hits every workload alike,
/// where criterion's runs, one after the other, meet it at different times.
/// Off (nothing printed, nothing run) without the variable.
fn alternate(_: &mut Criterion) {
    let Some(rounds) = std::env::var("ECS_SUITE_ALTERNATE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let (mut zip, mut zip_ref, mut zip_ref_args, mut for_each_ref, mut rows, mut flat) = (
        idt::insert_collect(),
        idt::insert_collect(),
        idt::insert_collect(),
        idt::insert_collect(),
        idt::insert_collect(),
        idt::insert_collect(),
    );
    let mut hecs_world = hecs_ecs::insert_batch();
    let (mut legion_world, mut legion_query) = legion_ecs::iter_world();
    let mut bevy_world = bevy::insert_batch();
    let shipyard_world = shipyard_ecs::insert_loop();
    let (mut columns, mut columns_ref, mut columns_ref_args, mut flat_columns) = (
        vecs::insert_loop(),
        vecs::insert_loop(),
        vecs::insert_loop(),
        vecs::insert_loop(),
    );
    type Pass<'a> = (&'static str, Box<dyn FnMut() + 'a>);
    let mut passes: Vec<Pass> = vec![
        (
            "simple_insert/idtable insert loop",
            Box::new(|| drop(black_box(idt::insert_loop()))),
        ),
        (
            "simple_insert/idtable collect",
            Box::new(|| drop(black_box(idt::insert_collect()))),
        ),
        (
            "simple_insert/hecs spawn loop",
            Box::new(|| drop(black_box(hecs_ecs::insert_loop()))),
        ),
        (
            "simple_insert/hecs spawn_batch",
            Box::new(|| drop(black_box(hecs_ecs::insert_batch()))),
        ),
        (
            "simple_insert/legion push loop",
            Box::new(|| drop(black_box(legion_ecs::insert_loop()))),
        ),
        (
            "simple_insert/legion extend soa",
            Box::new(|| drop(black_box(legion_ecs::insert_soa()))),
        ),
        (
            "simple_insert/legion extend iter",
            Box::new(|| drop(black_box(legion_ecs::insert_iter()))),
        ),
        (
            "simple_insert/bevy spawn loop",
            Box::new(|| drop(black_box(bevy::insert_loop()))),
        ),
        (
            "simple_insert/bevy spawn_batch",
            Box::new(|| drop(black_box(bevy::insert_batch()))),
        ),
        (
            "simple_insert/shipyard add_entity loop",
            Box::new(|| drop(black_box(shipyard_ecs::insert_loop()))),
        ),
        (
            "simple_insert/shipyard bulk_add_entity",
            Box::new(|| drop(black_box(shipyard_ecs::insert_batch()))),
        ),
        (
            "simple_insert/Vec columns push loop",
            Box::new(|| drop(black_box(vecs::insert_loop()))),
        ),
        (
            "simple_iter/idtable zip",
            Box::new(|| idt::iter_zip(black_box(&mut zip))),
        ),
        (
            "simple_iter/idtable zip by reference",
            Box::new(|| idt::iter_zip_ref(black_box(&mut zip_ref))),
        ),
        (
            "simple_iter/idtable zip by reference, columns as arguments",
            Box::new(|| idt::iter_zip_ref_args(black_box(&mut zip_ref_args))),
        ),
        (
            "simple_iter/idtable for_each by reference",
            Box::new(|| idt::iter_for_each_ref(black_box(&mut for_each_ref))),
        ),
        (
            "simple_iter/idtable rows",
            Box::new(|| idt::iter_rows(black_box(&mut rows))),
        ),
        (
            "simple_iter/idtable flattened",
            Box::new(|| idt::iter_flat(black_box(&mut flat))),
        ),
        (
            "simple_iter/hecs",
            Box::new(|| hecs_ecs::iter(black_box(&mut hecs_world))),
        ),
        (
            "simple_iter/legion",
            Box::new(|| legion_ecs::iter(black_box(&mut legion_world), &mut legion_query)),
        ),
        (
            "simple_iter/bevy",
            Box::new(|| bevy::iter(black_box(&mut bevy_world))),
        ),
        (
            "simple_iter/shipyard",
            Box::new(|| shipyard_ecs::iter(black_box(&shipyard_world))),
        ),
        (
            "simple_iter/Vec columns zip",
            Box::new(|| vecs::iter_zip(black_box(&mut columns))),
        ),
        (
            "simple_iter/Vec columns zip by reference",
            Box::new(|| vecs::iter_zip_ref(black_box(&mut columns_ref))),
        ),
        (
            "simple_iter/Vec columns zip by reference, as arguments",
            Box::new(|| vecs::iter_zip_ref_args(black_box(&mut columns_ref_args))),
        ),
        (
            "simple_iter/Vec columns flattened",
            Box::new(|| vecs::iter_flat(black_box(&mut flat_columns))),
        ),
    ];
    let mut times = vec![Vec::with_capacity(rounds); passes.len()];
    for _ in 0..rounds {
        for ((_, pass), times) in passes.iter_mut().zip(&mut times) {
            let start = std::time::Instant::now();
            pass();
            times.push(start.elapsed());
        }
    }
    for ((name, _), times) in passes.iter().zip(&mut times) {
        times.sort();
        // `simple_iter/legion` -> `simple_iter/default_features/legion`.
        let name = name.replacen('/', &format!("/{BUILD}/"), 1);
        println!(
            "alternating {name}: median {:?} of {rounds}",
            times[rounds / 2]
        );
    }
}

criterion_group!(
    benches,
    check,
    alternate,
    bench_simple_insert,
    bench_simple_iter
);
criterion_main!(benches);
