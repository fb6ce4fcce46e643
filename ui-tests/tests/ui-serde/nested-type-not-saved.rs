// A `#[soa(serde)]` struct saves its nested fields' columns: the nested
// struct must opt in too, and the error says so, on the field's type.
use idtable::SoaAllocator;

#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
#[soa(parts_only)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(serde)]
pub struct Body {
    #[soa(nested)]
    pub pos: V2,
    pub mass: f32,
}

fn main() {}
