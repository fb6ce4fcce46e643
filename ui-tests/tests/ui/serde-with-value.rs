use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(serde = true)]
pub struct Particle {
    pub pos: [f32; 2],
}

fn main() {}
