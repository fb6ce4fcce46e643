//! Known bugs: tests of promises the code or the docs make that do not hold.
//! Each is `#[ignore = "BUG: ..."]` so the suite stays green, and fails when
//! run (`cargo test --test known_bugs -- --ignored`) until the bug is fixed;
//! then remove the `ignore`.

use idtable::SoaAllocator;

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8)]
struct Short {
    key: u64,
}

/// The README ("Ids never alias") promises that an id "from another allocator
/// of the same type" resolves to the object it was issued for or to nothing.
/// Ids carry no allocator identity, so an id issued by one allocator resolves
/// in another allocator of the same type to whatever that one issued with the
/// same bits (as with slotmap keys). Either the promise or the code must change.
#[test]
#[ignore = "BUG: README 'Ids never alias' is wrong: an id from another allocator of the same type resolves to that allocator's object with the same bits"]
fn an_id_from_another_allocator_of_the_same_type_never_resolves_to_another_object() {
    let mut a = ShortAllocator::new();
    let mut b = ShortAllocator::new();
    let from_a = a.insert(Short { key: 1 });
    b.insert(Short { key: 2 });
    assert_eq!(
        b.get(from_a).map(|r| *r.key),
        None,
        "{from_a:?}, issued by a for key 1, resolves in b to another object"
    );
}
