// An enum is not derived, but the code that stores it as a component gets
// no error of its own: the one error, on `enum`, says what to write.
use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator, Clone, Copy)]
pub enum Team {
    Red,
    Blue,
}

fn main() {
    let mut units = UnitAllocator::new();
    let u = units.insert(Unit { hp: 1 });
    let mut teams: SoaMap<UnitId, Team> = SoaMap::new();
    teams.insert(u, Team::Blue);
    let _: Option<&Team> = teams.get(u);
    let _ = Team::Red;
}
