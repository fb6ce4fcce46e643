// Written when `pos` was one column of `[i64; 2]`: `pos[i][k]` was element
// `k` of row `i`. Split, indexing the element columns would read row `k`
// of column `i`: element `k` of row `i` is `pos.column(k)[i]`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Body {
    #[soa(split)]
    pub pos: [i64; 2],
}

pub fn y_of(bodies: &BodyAllocator, row: usize) -> i64 {
    bodies.columns().pos[row][1]
}

fn main() {}
