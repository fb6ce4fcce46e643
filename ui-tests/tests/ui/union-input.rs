use idtable::SoaAllocator;

#[derive(SoaAllocator)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
