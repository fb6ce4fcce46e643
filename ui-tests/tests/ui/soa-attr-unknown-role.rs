// `soa_attr` names a generated type by its role; a misspelt role names the
// closest one.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
#[soa_attr(Columm, derive(Hash))]
pub struct Particle {
    pub x: f32,
}

fn main() {}
