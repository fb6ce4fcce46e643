use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Particle {
    mass: f32,
}

fn main() {
    let mut particles = ParticleAllocator::new();
    let id = particles.insert(Particle { mass: 1.0 });
    let masses = particles.columns().mass;
    particles.remove(id);
    println!("{}", masses[0]);
}
