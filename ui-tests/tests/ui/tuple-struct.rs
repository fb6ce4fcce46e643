use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Position(f32, f32);

fn main() {}
