use idtable::join::IntoSources;
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

/// A user's own wrapper cannot stand in for the tuple a join takes: the
/// join trusts what its sources answer, so only idtable's tuples are.
struct Units<'a>(&'a UnitAllocator);

impl<'a> IntoSources for Units<'a> {
    type Key = UnitId;
    type Sources = <(&'a UnitAllocator,) as IntoSources>::Sources;
    fn into_sources(self) -> Self::Sources {
        (self.0,).into_sources()
    }
}

fn main() {}
