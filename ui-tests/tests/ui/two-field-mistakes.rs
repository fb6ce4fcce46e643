// Mistakes on several fields are all reported at once, one error each.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(split)]
    pub mass: f32,
    #[soa(align = 3)]
    pub pos: [f32; 3],
    #[soa(nestd)]
    pub vel: [f32; 3],
}

fn main() {}
