use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Particle {
    mass: f32,
}

fn main() {
    let mut particles = ParticleAllocator::new();
    let id = particles.insert(Particle { mass: 1.0 });
    let first = particles.get(id).unwrap();
    particles.insert(Particle { mass: 2.0 });
    println!("{}", first.mass);
}
