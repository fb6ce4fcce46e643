//! Promises that hold where two mechanisms of the id table meet:
//! reservations with saving, with `min_free` of any size, with
//! `insert_with_id`, with a full table, and with a panic inside an insert.
//! Each test drives a derived allocator from outside with safe code only.

use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::SoaAllocator;

/// A never-reuse allocator: freed slots wait until fresh indices run out.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(min_free = 18446744073709551615)]
pub struct Hoarded {
    pub n: u32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(min_free = 9223372036854775809)]
pub struct PastHalf {
    pub n: u32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(min_free = 2)]
pub struct Node {
    pub me: Option<NodeId>,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<2>)]
pub struct Tiny {
    pub n: u32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id64<62>)]
pub struct Wide {
    pub n: u64,
}

/// Every id of `ids()` resolves to its own row, and there are as many rows
/// as ids.
macro_rules! assert_in_step {
    ($alloc:expr) => {{
        let a = &$alloc;
        assert_eq!(a.len(), a.ids().len());
        for (d, &id) in a.ids().iter().enumerate() {
            assert_eq!(a.dense_index(id), Some(d));
        }
        a.check_invariants();
    }};
}

#[test]
fn min_free_of_any_size_keeps_reservations_and_inserts_apart() {
    let mut hoarded = HoardedAllocator::new();
    let a = hoarded.insert(Hoarded { n: 0 });
    hoarded.remove(a);
    let reserved = hoarded.reserve_id();
    let inserted = hoarded.insert(Hoarded { n: 1 });
    assert_ne!(reserved, inserted);
    assert_ne!(
        reserved.index(),
        a.index(),
        "min_free holds the freed slot back"
    );
    assert!(hoarded.get(reserved).is_none());
    assert_eq!(hoarded.reserved_len(), 1);
    hoarded.insert_reserved(reserved, Hoarded { n: 2 }).unwrap();
    assert_eq!(*hoarded.get(reserved).unwrap().n, 2);
    assert_eq!(*hoarded.get(inserted).unwrap().n, 1);
    assert_eq!(hoarded.reserved_len(), 0);
    assert_in_step!(hoarded);

    let mut past_half = PastHalfAllocator::new();
    let reserved: Vec<_> = past_half.reserve_ids(3).collect();
    let inserted: Vec<_> = (0..3).map(|n| past_half.insert(PastHalf { n })).collect();
    for id in &reserved {
        assert!(!inserted.contains(id));
        assert!(past_half.get(*id).is_none());
    }
    assert_eq!(past_half.reserved_len(), 3);
    assert_in_step!(past_half);
}

#[test]
fn insert_with_id_hands_its_closure_the_id_it_issues() {
    let mut nodes = NodeAllocator::new();
    let a = nodes.insert(Node { me: None });
    let b = nodes.insert(Node { me: None });
    nodes.remove(a);
    let reserved = nodes.reserve_id();
    nodes.remove(b); // freed after the claim
    let mut seen = None;
    let issued = nodes.insert_with_id(|id| {
        seen = Some(id);
        Node { me: Some(id) }
    });
    assert_eq!(seen, Some(issued));
    assert_eq!(*nodes.get(issued).unwrap().me, Some(issued));
    let next = nodes.insert(Node { me: None });
    assert_ne!(next, issued);
    assert_ne!(next, reserved);
    assert_ne!(issued, reserved);
    assert!(nodes.insert_reserved(reserved, Node { me: None }).is_ok());
    assert_in_step!(nodes);
}

#[test]
fn a_slot_freed_with_claims_pending_is_usable() {
    let mut tiny = TinyAllocator::new(); // indices 0, 1 and 2
    let a = tiny.insert(Tiny { n: 0 });
    let reserved: Vec<_> = tiny.reserve_ids(2).collect();
    tiny.remove(a);
    assert_eq!(tiny.id_table().free_count(), 1);
    let next = tiny.id_table().next_id().expect("slot 0 is free");
    assert_eq!(next.index(), a.index());
    let issued = tiny.insert_with_id(|_| Tiny { n: 1 });
    assert_eq!(issued, next);
    assert!(
        tiny.try_insert(Tiny { n: 2 }).is_err(),
        "now every index is taken"
    );
    for id in reserved {
        tiny.insert_reserved(id, Tiny { n: 3 }).unwrap();
    }
    assert_eq!(tiny.len(), 3);
    assert_in_step!(tiny);
}

#[test]
fn more_reservations_than_memory_are_refused_before_anything_changes() {
    let mut wide = WideAllocator::new();
    let first = wide.insert(Wide { n: 1 });
    // More ids than a `Vec` of slots could hold: refused at once.
    assert!(wide.id_table().try_reserve_ids(1 << 61).is_err());
    assert_eq!(wide.reserved_len(), 0);
    let second = wide.insert(Wide { n: 2 });
    assert_in_step!(wide);
    assert_eq!(*wide.get(second).unwrap().n, 2);
    let _ = first;
}

#[test]
#[cfg_attr(miri, ignore = "allocates (and fails to allocate) exabytes")]
fn a_panic_settling_reservations_leaves_every_id_on_its_own_row() {
    let mut wide = WideAllocator::new();
    wide.insert(Wide { n: 1 });
    // Claimed from a shared borrow, these fit a `Vec` of slots but not the
    // machine's memory: settling them panics inside the next insert.
    let batch = wide
        .id_table()
        .try_reserve_ids(1 << 58)
        .expect("within the layout");
    assert_eq!(batch.len(), 1 << 58);
    let got = catch_unwind(AssertUnwindSafe(|| wide.insert(Wide { n: 2 })));
    assert!(got.is_err(), "settling 2^58 reserved ids cannot allocate");
    assert_eq!(wide.len(), 1);
    assert_eq!(wide.ids().len(), 1);
    let id = wide.ids()[0];
    assert_eq!(*wide.get(id).unwrap().n, 1);
    assert_eq!(wide.columns().n, &[1]);
}

#[cfg(feature = "serde")]
mod saved_with_reservations {
    use super::*;

    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    #[soa(serde, min_free = 2)]
    pub struct Ship {
        pub fuel: u32,
    }

    /// The allocator after `ops`: two ships inserted, the first removed,
    /// then one id reserved and the second removed.
    fn ships() -> (ShipAllocator, Vec<ShipId>) {
        let mut ships = ShipAllocator::new();
        let a = ships.insert(Ship { fuel: 1 });
        let b = ships.insert(Ship { fuel: 2 });
        let c = ships.insert(Ship { fuel: 3 });
        ships.remove(a);
        let reserved: Vec<ShipId> = ships.reserve_ids(2).collect();
        ships.remove(b);
        let _ = c;
        (ships, reserved)
    }

    fn check_loaded(mut loaded: ShipAllocator, reserved: &[ShipId]) {
        loaded.check_invariants();
        assert_eq!(loaded.reserved_len(), 0, "reservations are saved spent");
        for &id in reserved {
            assert!(loaded.get(id).is_none());
            assert!(loaded.insert_reserved(id, Ship { fuel: 0 }).is_err());
        }
        let issued: Vec<ShipId> = (0..64).map(|n| loaded.insert(Ship { fuel: n })).collect();
        for id in reserved {
            assert!(!issued.contains(id), "{id:?} issued again after loading");
        }
        loaded.check_invariants();
    }

    #[test]
    fn a_save_with_claims_pending_loads_and_never_reissues_them() {
        let (ships, reserved) = ships();
        let json = serde_json::to_string(&ships).unwrap();
        check_loaded(serde_json::from_str(&json).unwrap(), &reserved);
        let bytes = postcard::to_allocvec(&ships).unwrap();
        check_loaded(postcard::from_bytes(&bytes).unwrap(), &reserved);
    }

    #[test]
    fn a_save_with_settled_reservations_loads_and_never_reissues_them() {
        let (mut ships, reserved) = ships();
        // Any exclusive change settles the claims.
        let d = ships.insert(Ship { fuel: 4 });
        ships.remove(d);
        assert_eq!(ships.reserved_len(), 2);
        let json = serde_json::to_string(&ships).unwrap();
        check_loaded(serde_json::from_str(&json).unwrap(), &reserved);
        let bytes = postcard::to_allocvec(&ships).unwrap();
        check_loaded(postcard::from_bytes(&bytes).unwrap(), &reserved);
    }

    #[test]
    fn a_table_saved_with_reservations_is_its_parts() {
        let (ships, _) = ships();
        let table = ships.id_table();
        let json = serde_json::to_value(table).unwrap();
        assert_eq!(json, serde_json::to_value(table.to_parts()).unwrap());
    }
}
