// `nested` on a type that is neither derived nor a plain value: one error,
// on the field's type, naming both fixes.
use idtable::SoaAllocator;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Body {
    #[soa(nested)]
    pub pos: Vec3,
    pub mass: f32,
}

fn main() {}
