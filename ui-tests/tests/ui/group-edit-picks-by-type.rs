// An edit picks the map by the value's type: two maps of one type are
// ambiguous (name the position with `At<N>`).
use idtable::group::Group;
use idtable::{SoaAllocator, SoaMap, Without};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}
#[derive(SoaAllocator)]
pub struct Frozen {
    pub left: f32,
}

fn main() {
    let mut units = UnitAllocator::new();
    let id = units.insert(Unit { hp: 1 });
    let mut speed: SoaMap<UnitId, f32> = SoaMap::new();
    let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
    let frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    let mut group = Group::new((&mut speed, &mut heat, Without(&frozen)));
    let mut edit = group.edit((&mut speed, &mut heat, Without(&frozen)));
    edit.insert(id, 1.0f32);
}
