// The rows `retain` hands its closure live for the call only: rows move
// when others are removed, so none can be kept for later.
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
    let units = UnitAllocator::new();
    let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    let mut kept = Vec::new();
    join((&mut burning, &units)).retain(|_, JoinItems((fire, _))| {
        kept.push(fire);
        false
    });
    drop(kept);
}
