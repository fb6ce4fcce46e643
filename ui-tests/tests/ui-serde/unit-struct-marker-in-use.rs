// The marker a newcomer writes first: one error, on the struct, naming the
// fix, and none from the code that uses it (its allocator, its ids, a map
// of it, saving them).
use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

#[derive(SoaAllocator)]
#[soa(serde)]
pub struct Frozen;

fn save<T: serde::Serialize>(_: &T) {}

fn main() {
    let mut units = UnitAllocator::new();
    let u = units.insert(Unit { hp: 1 });
    let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    frozen.insert(u, Frozen);
    assert!(frozen.contains_key(u));
    let mut markers = FrozenAllocator::new();
    let m: FrozenId = markers.insert(Frozen);
    assert!(markers.get(m).is_some());
    save(&frozen);
    save(&markers);
}
