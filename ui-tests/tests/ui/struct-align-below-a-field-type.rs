// A struct's alignment applies to every column: below one field type's
// own, it is one error, on the number, however many fields are wider.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa(align = 4)]
pub struct Particle {
    pub id: u64,
    pub seed: u128,
    pub x: f32,
}

fn main() {}
