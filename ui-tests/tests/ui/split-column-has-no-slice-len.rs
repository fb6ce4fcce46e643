// Written when `pos` was one column of `[i64; 2]`: its `len()` counted the
// rows. Split, a `len()` of the element columns would give 2: the rows are
// the view's `len()`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Body {
    #[soa(split)]
    pub pos: [i64; 2],
}

pub fn count(bodies: &BodyAllocator) -> usize {
    bodies.columns().pos.len()
}

fn main() {}
