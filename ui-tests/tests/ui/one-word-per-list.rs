// A table's rows are named by ids, a map's by keys: no container answers
// to the other word for the same list.
use idtable::{SoaAllocator, SoaMap, SoaStorage};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}

fn main() {
    let mut units = UnitAllocator::new();
    let _ = units.keys();
    let _ = units.keys_and_columns_mut();
    let mut storage = SoaStorage::<UnitId, Unit>::default();
    let _ = storage.keys();
    let _ = storage.keys_and_columns_mut();
    let _ = storage.table();
    let mut map: SoaMap<UnitId, Unit> = SoaMap::new();
    let _ = map.ids();
    let _ = map.ids_and_columns_mut();
    let _ = map.id_table();
}
