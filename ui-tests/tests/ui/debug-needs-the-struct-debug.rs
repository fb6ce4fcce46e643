// Fields that are `Debug` do not make the allocator `Debug`: the struct
// itself must be `Debug`.
mod checked {
    #[derive(idtable::SoaAllocator)]
    pub struct Secret {
        pub key: u64,
    }
}

fn main() {
    let secrets = checked::SecretAllocator::new();
    println!("{secrets:?}");
}
