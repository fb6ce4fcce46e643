// A `SoaMap` of a type that is neither derived nor a plain value: the
// error names the one line that makes it a component.
use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

pub enum Mood {
    Calm,
    Angry,
}

fn main() {
    let mut moods: SoaMap<UnitId, Mood> = SoaMap::new();
    let mut units = UnitAllocator::new();
    let u = units.insert(Unit { hp: 1 });
    moods.insert(u, Mood::Angry);
}
