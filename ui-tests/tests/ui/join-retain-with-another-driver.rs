// A join that removes rows walks the rows of its first source: a `Driver`
// elsewhere in the tuple cannot drive it.
use idtable::join::JoinItems;
use idtable::{join, Driver, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}
#[derive(SoaAllocator)]
pub struct Burning {
    pub left: u32,
}

fn main() {
    let units = UnitAllocator::new();
    let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    join((&mut burning, Driver(&units))).retain(|_, JoinItems((fire, _))| *fire.left > 0);
}
