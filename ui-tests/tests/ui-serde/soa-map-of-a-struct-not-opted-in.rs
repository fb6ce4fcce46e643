// Saving a `SoaMap` whose component did not opt in with `#[soa(serde)]`
// does not compile, and the error names the attribute and the struct.
use idtable::{Id24_8, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Secret {
    key: u64,
}

fn save<T: serde::Serialize>(_: &T) {}

fn main() {
    let secrets: SoaMap<Id24_8, Secret> = SoaMap::new();
    save(&secrets);
}
