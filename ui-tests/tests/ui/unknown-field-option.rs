// An unknown field option names the closest known one.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(splt)]
    pub pos: [f32; 3],
}

fn main() {}
