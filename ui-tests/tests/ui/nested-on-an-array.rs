// `nested` takes a derived struct; on an array the error says to split it.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Body {
    #[soa(nested)]
    pub pos: [f32; 3],
}

fn main() {}
