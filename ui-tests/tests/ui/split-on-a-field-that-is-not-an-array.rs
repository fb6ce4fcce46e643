// `split` makes one column per element of an array; on any other field it
// is one error, on the option, and the field stays one column.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(split)]
    pub mass: f32,
    pub pos: [f32; 3],
}

fn main() {
    let mut particles = ParticleAllocator::new();
    let id = particles.insert(Particle { mass: 1.0, pos: [0.0; 3] });
    let _: &f32 = particles.get(id).unwrap().mass;
}
