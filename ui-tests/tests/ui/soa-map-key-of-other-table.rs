use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
struct Unit {
    hp: i32,
}

#[derive(SoaAllocator)]
struct Weapon {
    damage: i32,
}

#[derive(SoaAllocator)]
struct Burning {
    dps: f32,
}

fn main() {
    let mut weapons = WeaponAllocator::new();
    let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    let sword = weapons.insert(Weapon { damage: 3 });
    burning.insert(sword, Burning { dps: 1.0 });
}
