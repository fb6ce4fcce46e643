// The same mistake as tests/ui-no-serde/id-not-a-layout.rs: with the serde
// feature, the allocator's Deserialize impl reports the layout once more.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(id = u64)]
struct Particle {
    mass: f32,
}

fn main() {}
