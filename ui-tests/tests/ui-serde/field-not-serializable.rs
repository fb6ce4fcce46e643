use idtable::SoaAllocator;

pub struct Handle(u32);

#[derive(SoaAllocator)]
#[soa(serde)]
pub struct Sprite {
    pub pos: [f32; 2],
    pub texture: Handle,
}

fn main() {}
