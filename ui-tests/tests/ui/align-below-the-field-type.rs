// An alignment below the field type's own is a mistake (it would do
// nothing): one error, on the number.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Particle {
    #[soa(align = 2)]
    pub id: u64,
    pub x: f32,
}

fn main() {}
