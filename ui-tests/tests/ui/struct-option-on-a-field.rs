// A struct option written on a field says where it goes.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(min_free = 16)]
    pub pos: [f32; 3],
}

fn main() {}
