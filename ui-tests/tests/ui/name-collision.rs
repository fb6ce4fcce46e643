use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(allocator = Particle)]
struct Particle {
    mass: f32,
}

fn main() {}
