// `parts_only` generates no allocator: an option of the allocator is one
// error, on its key.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(parts_only, min_free = 64)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

fn main() {}
