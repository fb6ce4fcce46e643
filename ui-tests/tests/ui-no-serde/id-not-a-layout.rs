use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(id = u64)]
struct Particle {
    mass: f32,
}

fn main() {}
