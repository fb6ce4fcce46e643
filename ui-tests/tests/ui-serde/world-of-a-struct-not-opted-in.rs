// A world saved with serde holds an allocator and a `SoaMap` of structs that
// did not opt in with `#[soa(serde)]`: each use is an error that names the
// attribute, on the field that holds the container.
use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator)]
pub struct Burning {
    pub dps: f32,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct World {
    units: UnitAllocator,
    burning: SoaMap<UnitId, Burning>,
}

fn main() {}
