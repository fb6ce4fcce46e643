// A generic struct's id carries its type arguments: an id of
// `TrackAllocator<u8>` is not one of `TrackAllocator<String>`.
use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Track<T> {
    key: T,
}

fn main() {
    let mut bytes = TrackAllocator::<u8>::new();
    let strings = TrackAllocator::<String>::new();
    let id = bytes.insert(Track { key: 1 });
    let _ = strings.get(id);
}
