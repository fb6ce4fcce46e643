// A `parts_only` struct has no id type to put attributes on.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(parts_only)]
#[soa_attr(Id, derive(Default))]
pub struct V2 {
    pub x: f32,
}

fn main() {}
