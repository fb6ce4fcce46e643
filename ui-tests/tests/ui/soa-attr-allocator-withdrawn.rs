// `FooAllocator` is a name for idtable's `SoaStorage<FooId, Foo>`: an
// attribute cannot go on it. One error, at the role, saying what to do.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa_attr(Allocator, derive(Hash))]
#[soa_attr(Ref, derive(PartialEq))]
pub struct Unit {
    pub hp: u32,
}

fn main() {}
