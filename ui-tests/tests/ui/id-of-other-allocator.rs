use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Particle {
    mass: f32,
}

#[derive(SoaAllocator)]
struct Emitter {
    rate: f32,
}

fn main() {
    let mut particles = ParticleAllocator::new();
    let emitters = EmitterAllocator::new();
    let id = particles.insert(Particle { mass: 1.0 });
    let _ = emitters.get(id);
}
