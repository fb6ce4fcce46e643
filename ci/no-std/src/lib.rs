//! Uses every part of idtable from a `#![no_std]` crate.

#![no_std]
#![deny(missing_docs)]

extern crate alloc;

use alloc::vec::Vec;
use idtable::data::{DataComponent, Key};
use idtable::{Id24_8, IdTable, SoaAllocator, SoaMap};

/// A derived allocator in a `no_std` crate.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8, min_free = 8)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Body {
    /// Position.
    pub pos: [f32; 2],
    /// Velocity.
    pub vel: [f32; 2],
    /// Per-body data.
    pub sheet: DataComponent,
}

/// A component of some bodies, kept in a `SoaMap`.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Thrust {
    /// Acceleration.
    pub acc: [f32; 2],
    /// Seconds left.
    pub left: f32,
}

/// Accelerates the bodies that have thrust; drops spent thrusters.
pub fn thrust(bodies: &mut BodyAllocator, thrusters: &mut SoaMap<BodyId, Thrust>, dt: f32) {
    for (id, t) in thrusters.iter_mut() {
        if let Some(body) = bodies.get_mut(id) {
            body.vel[0] += t.acc[0] * dt;
            body.vel[1] += t.acc[1] * dt;
        }
        *t.left -= dt;
    }
    thrusters.retain(|id, t| *t.left > 0.0 && bodies.contains(id));
}

/// Steps every body and returns the number of live bodies.
pub fn step(bodies: &mut BodyAllocator, dt: f32) -> usize {
    let cols = bodies.columns_mut();
    for (p, v) in cols
        .pos
        .as_flattened_mut()
        .iter_mut()
        .zip(cols.vel.as_flattened())
    {
        *p += v * dt;
    }
    bodies.retain(|_, body| body.pos[1] > -100.0);
    bodies.len()
}

/// Exercises the derive, the id table and the DataComponent.
pub fn exercise() -> Option<usize> {
    const HEALTH: Key = Key::path(&["stats", "health"]);
    let mut sheet = DataComponent::new();
    sheet.set(HEALTH, 100.0_f32).ok()?;
    let mut bodies = BodyAllocator::new();
    let ids: Vec<BodyId> = (0..4)
        .map(|i| {
            bodies.insert(Body {
                pos: [i as f32, 0.0],
                vel: [0.0, -1.0],
                sheet: sheet.clone(),
            })
        })
        .collect();
    bodies.remove(ids[1])?;
    let mut thrusters = SoaMap::new();
    thrusters.insert(
        ids[0],
        Thrust {
            acc: [0.0, 2.0],
            left: 1.0,
        },
    );
    thrust(&mut bodies, &mut thrusters, 0.5);
    let mut table = IdTable::<Id24_8>::new();
    let (id, _) = table.insert();
    let saved = DataComponent::from_bytes(bodies.get(ids[0])?.sheet.as_bytes()).ok()?;
    Some(step(&mut bodies, 0.5) + usize::from(table.contains(id)) + saved.len())
}

/// A 2-float vector, only nested (no allocator, no id type).
#[derive(SoaAllocator, Debug, Clone, Copy, PartialEq)]
#[soa(parts_only)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct V2 {
    /// Across.
    pub x: f32,
    /// Up.
    pub y: f32,
}

/// Shaped columns in a `no_std` crate: nested, split and aligned.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(align = 64)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Boid {
    /// Position: columns `pos.x`, `pos.y`.
    #[soa(nested)]
    pub pos: V2,
    /// Velocity: columns `vel[0]`, `vel[1]`.
    #[soa(split)]
    pub vel: [f32; 2],
}

/// Moves the boids in ranges of 64 rows; counts each boid's steps in a
/// `SoaMap` of plain values.
pub fn flock(boids: &mut BoidAllocator, steps: &mut SoaMap<BoidId, u32>, dt: f32) {
    for chunk in boids.columns_mut().chunks_mut(64) {
        let [vx, vy] = chunk.vel.into_columns();
        for (p, v) in chunk.pos.x.iter_mut().zip(vx.iter()) {
            *p += v * dt;
        }
        for (p, v) in chunk.pos.y.iter_mut().zip(vy.iter()) {
            *p += v * dt;
        }
    }
    for &id in boids.ids() {
        if let Some(entry) = steps.entry(id) {
            *entry.or_insert(0) += 1;
        }
    }
}
