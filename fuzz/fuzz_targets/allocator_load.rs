//! Loading a `#[soa(serde)]` allocator from hostile bytes (postcard) and
//! hostile text (JSON): an error, or an allocator that passes
//! `check_invariants()`, saves back to an equal form, and goes on working.

#![no_main]

use idtable::SoaAllocator;
use libfuzzer_sys::fuzz_target;

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id32<28>, min_free = 2)]
pub struct Body {
    pub pos: [f32; 2],
    pub name: String,
    pub kind: u8,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id32<28>, on_exhausted = wrap)]
pub struct Wrapped {
    pub kind: u8,
}

fn exercise(mut a: BodyAllocator) {
    a.check_invariants();
    let saved = postcard::to_allocvec(&a).expect("a loaded allocator saves");
    let again: BodyAllocator = postcard::from_bytes(&saved).expect("and loads again");
    assert_eq!(again.ids(), a.ids());
    for n in 0..4u8 {
        let id = a.insert(Body {
            pos: [0.0; 2],
            name: String::new(),
            kind: n,
        });
        assert!(a.contains(id));
    }
    if let Some(&id) = a.ids().first() {
        a.remove(id);
    }
    a.check_invariants();
}

fuzz_target!(|data: &[u8]| {
    if let Ok(a) = postcard::from_bytes::<BodyAllocator>(data) {
        exercise(a);
    }
    if let Ok(w) = postcard::from_bytes::<WrappedAllocator>(data) {
        w.check_invariants();
    }
    if let Ok(a) = serde_json::from_slice::<BodyAllocator>(data) {
        exercise(a);
    }
});
