use idtable::{join, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator)]
pub struct Burning {
    pub dps: f32,
}

fn main() {
    let mut units = UnitAllocator::new();
    let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    let u = units.insert(Unit { hp: 1 });
    burning.insert(u, Burning { dps: 1.0 });
    let rows: Vec<_> = join((&mut units, &burning)).into_iter().collect();
    units.clear();
    drop(rows);
}
