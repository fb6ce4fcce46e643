use idtable::{join, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator)]
pub struct Ship {
    pub hull: i32,
}

#[derive(SoaAllocator)]
pub struct Burning {
    pub dps: f32,
}

fn main() {
    let units = UnitAllocator::new();
    let burning_ships: SoaMap<ShipId, Burning> = SoaMap::new();
    for _ in join((&units, &burning_ships)) {}
}
