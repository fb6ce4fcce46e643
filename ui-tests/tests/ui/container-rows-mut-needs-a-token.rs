// A container's rows are reached mutably only by idtable's joins: the token
// `Container::rows_mut` takes cannot be made outside idtable, so another
// table (here one whose generations wrap) cannot be swapped into a derived
// allocator declared to retire its slots.
use idtable::join::{Container, RowsToken};
use idtable::{OnExhausted, SoaAllocator, SoaStorage, TableConfig};

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8)]
pub struct Unit {
    pub hp: u32,
}

fn main() {
    let mut units = UnitAllocator::new();
    let mut wrapping = SoaStorage::<UnitId, Unit>::with_config(TableConfig {
        min_free: 0,
        on_exhausted: OnExhausted::Wrap,
    });
    let token = RowsToken::<UnitAllocator>(Default::default());
    let theirs = Container::rows_mut(&mut wrapping, RowsToken::new());
    std::mem::swap(Container::rows_mut(&mut units, token), theirs);
}
