// An alignment must be a power of two; the error names the two nearest.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(align = 48)]
    pub x: f32,
}

fn main() {}
