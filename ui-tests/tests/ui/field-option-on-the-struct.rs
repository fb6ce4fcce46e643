// A field option written on the struct says where it goes.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(split)]
pub struct Particle {
    pub pos: [f32; 3],
}

fn main() {}
