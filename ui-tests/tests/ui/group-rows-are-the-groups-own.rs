// The methods through which a group reaches its sources' rows (to swap
// them) take a token only idtable makes: other code cannot call them.
use idtable::group::{GroupSource, GroupSources};
use idtable::{SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: u32,
}

fn main() {
    let mut map: SoaMap<UnitId, Unit> = SoaMap::new();
    let mut source = &mut map;
    let _ = source.member(idtable::group::member::TOKEN);
    let mut sources = (&mut map,);
    sources.with_members(idtable::group::member::Token(()), |_| ());
}
