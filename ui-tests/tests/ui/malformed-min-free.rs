use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(min_free = "ten")]
struct Particle {
    mass: f32,
}

fn main() {}
