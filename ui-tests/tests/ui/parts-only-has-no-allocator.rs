// A `parts_only` struct has no allocator and no id type.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(parts_only)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

fn main() {
    let _ = V2Allocator::new();
}
