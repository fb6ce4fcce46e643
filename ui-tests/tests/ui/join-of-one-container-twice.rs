use idtable::{join, SoaAllocator};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

fn main() {
    let mut units = UnitAllocator::new();
    for (_, (unit, other)) in join((&mut units, &units)) {
        *unit.hp += *other.hp;
    }
}
