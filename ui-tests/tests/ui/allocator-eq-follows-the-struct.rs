// An allocator compares its rows only where the struct itself does: a
// struct without `PartialEq` gives an allocator without it (its crate chose
// not to compare it), and a struct that is `PartialEq` but not `Eq` (a
// float field) gives an allocator that is not `Eq`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
pub struct Secret {
    key: u64,
}

#[derive(SoaAllocator, PartialEq)]
pub struct Pos {
    pub x: f32,
}

fn total<T: Eq>(_: &T) {}

fn main() {
    let (a, b) = (SecretAllocator::new(), SecretAllocator::new());
    let _ = a == b;
    let p = PosAllocator::new();
    let _ = p == PosAllocator::new();
    total(&p);
}
