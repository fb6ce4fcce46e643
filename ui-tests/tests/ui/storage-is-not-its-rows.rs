// A storage and a map own their methods: neither dereferences to the rows
// engine, so no `&mut Rows` (table and columns) can be swapped between two
// of them with different configurations.
use idtable::{OnExhausted, SoaAllocator, SoaMap, SoaStorage, TableConfig};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}

fn main() {
    let mut retiring = SoaStorage::<UnitId, Unit>::default();
    let mut wrapping = SoaStorage::<UnitId, Unit>::with_config(TableConfig {
        min_free: 0,
        on_exhausted: OnExhausted::Wrap,
    });
    std::mem::swap(&mut *retiring, &mut *wrapping);
    let mut a: SoaMap<UnitId, Unit> = SoaMap::new();
    let b = &mut *a;
}
