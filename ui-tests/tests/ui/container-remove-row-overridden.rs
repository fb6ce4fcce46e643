// A container cannot change how one of its rows is removed: idtable removes
// a key's row itself, with the rows engine (the last row moves into the
// gap). A `remove_row` that also reordered the rows made a group record them
// as aligned, and its join pair one key's row with another's.
use idtable::join::{Container, RowsToken};
use idtable::rows::Rows;
use idtable::{IdTable, SoaAllocator, SoaStorage};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}

pub struct Squad {
    units: SoaStorage<UnitId, Unit>,
}

impl Container for Squad {
    type Index = IdTable<UnitId>;
    type Record = Unit;
    fn rows(&self) -> &Rows<IdTable<UnitId>, Unit> {
        Container::rows(&self.units)
    }
    fn rows_mut(&mut self, token: RowsToken<Self>) -> &mut Rows<IdTable<UnitId>, Unit> {
        token.storage_rows(&mut self.units)
    }
    fn remove_row(&mut self, key: UnitId) -> Option<Unit> {
        let removed = self.units.remove(key);
        self.units.sort_by(|a, b| b.hp.cmp(a.hp));
        removed
    }
}

fn main() {
    let mut squad = Squad { units: SoaStorage::default() };
    squad.units.insert(Unit { hp: 1 });
}
