// What a group takes: `&mut` what it owns (first), `Without(..)` what it
// excludes, `Maybe(&mut ..)` what is optional. Shared owned or optional
// sources are refused (a group reorders them).
use idtable::group::Group;
use idtable::{Maybe, SoaAllocator, SoaMap, Without};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}
#[derive(SoaAllocator)]
pub struct Pos {
    pub x: f32,
}
#[derive(SoaAllocator)]
pub struct Vel {
    pub x: f32,
}

fn main() {
    let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
    let mut vel: SoaMap<UnitId, Vel> = SoaMap::new();
    let _ = Group::new((&mut pos, Maybe(&vel)));
    let _ = Group::new((Without(&mut vel), &mut pos));
    let _ = Group::new((&mut pos, &vel));
}
