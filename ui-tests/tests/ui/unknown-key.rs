use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(min_fre = 16)]
struct Particle {
    mass: f32,
}

fn main() {}
