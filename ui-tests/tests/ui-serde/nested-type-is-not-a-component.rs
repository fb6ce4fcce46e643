// In a `#[soa(serde)]` struct, a nested type that is not a component is
// still one error, on the field's type: derive it, with `#[soa(serde)]`.
use idtable::SoaAllocator;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(serde)]
pub struct Body {
    #[soa(nested)]
    pub pos: Vec3,
    pub mass: f32,
}

fn main() {}
