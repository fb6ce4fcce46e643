use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(on_exhausted = panic)]
struct Particle {
    mass: f32,
}

fn main() {}
