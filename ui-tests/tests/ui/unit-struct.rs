use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Marker;

fn main() {}
