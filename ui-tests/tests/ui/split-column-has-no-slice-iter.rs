// Written when `pos` was one column of `[i64; 2]`, one array per row. Split,
// an `iter()` over its element columns would run with another meaning: the
// columns' `iter()` is `pos.column(k).iter()`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Body {
    #[soa(split)]
    pub pos: [i64; 2],
}

pub fn checksum(bodies: &BodyAllocator) -> i64 {
    bodies.columns().pos.iter().map(|p| p[0] + 3 * p[1]).sum()
}

fn main() {}
