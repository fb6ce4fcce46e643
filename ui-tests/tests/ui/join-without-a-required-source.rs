use idtable::{join, Maybe, SoaAllocator, SoaMap, Without};

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
    for _ in join((Maybe(&burning), Without(&units))) {}
}
