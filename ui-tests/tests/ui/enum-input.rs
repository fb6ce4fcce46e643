use idtable::SoaAllocator;

#[derive(SoaAllocator)]
enum Shape {
    Circle { radius: f32 },
    Square { side: f32 },
}

fn main() {}
