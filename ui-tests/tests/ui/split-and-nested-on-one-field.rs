// `split` and `nested` exclude each other: one error, on `nested`; the
// array keeps `split`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(split, nested)]
    pub pos: [f32; 3],
}

fn main() {
    let particles = ParticleAllocator::new();
    let _: [&[f32]; 3] = particles.columns().pos.into_columns();
}
