use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
struct Unit {
    hp: i32,
}

// All fields are `Debug`, but the struct chose not to be.
#[derive(SoaAllocator)]
pub struct Secret {
    pub code: u32,
}

fn main() {
    let secrets: SoaMap<UnitId, Secret> = SoaMap::new();
    println!("{secrets:?}");
}
