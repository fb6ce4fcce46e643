// A nested struct's private fields stay private in the outer struct's
// views and columns, as in the nested struct itself.
mod geometry {
    #[derive(idtable::SoaAllocator)]
    #[soa(parts_only)]
    pub struct Checked {
        pub x: f32,
        secret: u32,
    }

    impl Checked {
        pub fn new(x: f32) -> Checked {
            Checked { x, secret: 7 }
        }
    }
}

#[derive(idtable::SoaAllocator)]
pub struct Body {
    #[soa(nested)]
    pub shape: geometry::Checked,
}

fn main() {
    let mut bodies = BodyAllocator::new();
    let id = bodies.insert(Body { shape: geometry::Checked::new(1.0) });
    let _: f32 = *bodies.get(id).unwrap().shape.x;
    let _ = bodies.columns().shape.secret;
}
