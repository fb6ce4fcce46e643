use idtable::{join, Driver, Maybe, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator)]
pub struct Burning {
    pub dps: f32,
}

fn main() {
    let units = UnitAllocator::new();
    let burning: SoaMap<UnitId, Burning> = SoaMap::new();
    for _ in join((&units, Driver(Maybe(&burning)))) {}
}
