use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(min_free = -1, on_exhausted = never)]
struct Particle {
    mass: f32,
}

fn main() {}
