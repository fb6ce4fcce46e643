//! `remove_many` on records whose fields need no drop (the columns' pass
//! without destructors) and on records that do, against a plain model: the
//! kept rows keep their order, every kept id still finds its row, removed
//! and stale ids find nothing, and the freed slots are reissued oldest first
//! in dense order.

use idtable::SoaAllocator;
use proptest::prelude::*;

#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
struct Plain {
    n: u32,
    pos: [f32; 2],
    flag: bool,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(id = idtable::Id24_8)]
struct Named {
    n: u32,
    name: String,
}

/// Inserts `len` rows, removes the ones `pick` selects (plus repeats and a
/// stale id) with one `remove_many`, and checks the result against the
/// model; then checks which slots the next inserts reuse.
macro_rules! check_remove_many {
    ($alloc:ty, $make:expr, $len:expr, $pick:expr) => {{
        let make = $make;
        let mut a = <$alloc>::new();
        let mut ids: Vec<_> = (0..$len).map(|i| a.insert(make(i))).collect();
        // One stale id: removed and its slot reused before the batch.
        let stale = ids[0];
        a.remove(stale);
        ids[0] = a.insert(make(0));
        // The model: the live ids in dense order.
        let dense_before = a.ids().to_vec();
        let chosen: Vec<_> = dense_before
            .iter()
            .enumerate()
            .filter(|&(d, _)| $pick(d))
            .map(|(_, &id)| id)
            .collect();
        let mut batch = chosen.clone();
        batch.extend(chosen.iter().take(3).copied()); // repeats
        batch.push(stale);
        let removed = a.remove_many(batch);
        assert_eq!(removed, chosen.len());
        let kept: Vec<_> = dense_before
            .iter()
            .copied()
            .filter(|id| !chosen.contains(id))
            .collect();
        assert_eq!(a.ids(), &kept[..], "kept rows keep their order");
        a.id_table().check_invariants();
        for &id in &kept {
            let i = ids.iter().position(|&x| x == id).unwrap();
            assert_eq!(a.get(id).map(|r| *r.n), Some(make(i).n));
        }
        for &id in chosen.iter().chain([&stale]) {
            assert!(a.get(id).is_none());
        }
        // Freed slots come back oldest first: in the dense order they had
        // (`chosen` is in that order).
        for id in chosen.iter().take(5) {
            let new = a.insert(make(0));
            assert_eq!(new.index(), id.index());
            assert_ne!(new, *id);
        }
        a.id_table().check_invariants();
    }};
}

fn plain(i: usize) -> Plain {
    Plain {
        n: i as u32,
        pos: [i as f32, -(i as f32)],
        flag: i % 2 == 0,
    }
}

fn named(i: usize) -> Named {
    Named {
        n: i as u32,
        name: format!("unit {i}"),
    }
}

#[test]
fn remove_many_of_every_other_row_and_of_a_run() {
    for len in [1usize, 2, 63, 64, 65, 200] {
        check_remove_many!(PlainAllocator, plain, len, |d: usize| d % 2 == 1);
        check_remove_many!(PlainAllocator, plain, len, |d: usize| (10..70).contains(&d));
        check_remove_many!(NamedAllocator, named, len, |d: usize| d % 2 == 1);
        check_remove_many!(NamedAllocator, named, len, |d: usize| d % 3 != 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 128 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn remove_many_matches_the_model(
        len in 1usize..300,
        chosen in proptest::collection::vec(any::<bool>(), 300),
    ) {
        check_remove_many!(PlainAllocator, plain, len, |d: usize| chosen[d]);
        check_remove_many!(NamedAllocator, named, len, |d: usize| chosen[d]);
    }
}
