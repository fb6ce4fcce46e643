// `retain` removes rows from the join's first source, so that source is
// `&mut` a table or a map: a shared borrow cannot lose rows.
use idtable::join::JoinItems;
use idtable::{join, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}
#[derive(SoaAllocator)]
pub struct Burning {
    pub left: u32,
}

fn main() {
    let mut units = UnitAllocator::new();
    let burning: SoaMap<UnitId, Burning> = SoaMap::new();
    join((&burning, &mut units)).retain(|_, JoinItems((fire, _))| *fire.left > 0);
}
