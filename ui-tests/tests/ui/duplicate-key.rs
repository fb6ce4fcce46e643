use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8)]
#[soa(id = idtable::Id16_16)]
struct Particle {
    mass: f32,
}

fn main() {}
