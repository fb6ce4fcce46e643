use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(serde)]
pub struct Particle {
    pub pos: [f32; 2],
}

fn main() {}
