//! The batch removals (`retain`, `remove_many`, a join's `retain`) mark
//! the rows to remove in place, with no allocation: in the keys (their
//! index's top bit set) while no key's index has that bit, else in the
//! index (a table's slot, a map's entry). Both places, for a table and a
//! map, each against a plain model: the kept rows stay in order with their
//! values, the freed slots are queued in dense order, and a predicate or an
//! iterator of keys that panics part way leaves every row in place, with
//! nothing freed.
//!
//! `Id32<7>` has 127 indices; its top index bit is 64. A table of 60 rows
//! and a map of their ids are marked in the keys; a table of 100 rows (its
//! slots past 64) and a map holding an id of index 64 or more (its page of
//! entries reaches past 64) are marked in the index.

use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::join::JoinItems;
use idtable::{join, Id, Id32, SoaAllocator, SoaMap, SoaStorage};

type Key = Id32<7>;

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Row {
    pub n: u32,
    pub name: String,
}

fn row(n: u32) -> Row {
    Row {
        n,
        name: format!("row {n}"),
    }
}

/// A table of `len` rows, `n` = its position, after some churn (the
/// second row removed and inserted again, so the order is not the slots').
fn table(len: u32) -> SoaStorage<Key, Row> {
    let mut t = SoaStorage::<Key, Row>::default();
    for n in 0..len {
        t.insert(row(n));
    }
    let second = t.ids()[1];
    let moved = t.remove(second).unwrap();
    t.insert(moved);
    t
}

/// A map of every id of `t`, in reverse order, `n` from the table's row.
fn map(t: &SoaStorage<Key, Row>) -> SoaMap<Key, Row> {
    let mut m = SoaMap::new();
    for (id, r) in t.iter().rev() {
        m.insert(id, row(*r.n));
    }
    m
}

/// `(key, n)` of every row, in dense order.
fn rows_of<'a>(keys: &[Key], n: impl Iterator<Item = &'a u32>) -> Vec<(Key, u32)> {
    keys.iter().copied().zip(n.copied()).collect()
}

fn table_rows(t: &SoaStorage<Key, Row>) -> Vec<(Key, u32)> {
    t.check_invariants();
    for (id, r) in t.iter() {
        assert_eq!(
            *r.name,
            format!("row {}", r.n),
            "{id:?} holds its own values"
        );
    }
    rows_of(t.ids(), t.columns().n.iter())
}

fn map_rows(m: &SoaMap<Key, Row>) -> Vec<(Key, u32)> {
    m.check_invariants();
    for (key, r) in m.iter() {
        assert_eq!(
            *r.name,
            format!("row {}", r.n),
            "{key:?} holds its own values"
        );
    }
    rows_of(m.keys(), m.columns().n.iter())
}

/// Whether the row holding `n` goes.
fn goes(n: u32) -> bool {
    n % 3 == 1 || (40..48).contains(&n)
}

/// The slots a table issues next, `count` of them, taken by inserts.
fn next_slots(t: &mut SoaStorage<Key, Row>, count: usize) -> Vec<usize> {
    (0..count).map(|_| t.insert(row(999)).index()).collect()
}

/// For a table of `len` rows: `retain`, `remove_many` (the keys last
/// first, twice over) and a join's `retain` remove exactly the rows that
/// go, keep the others in order, and queue the freed slots in dense order.
fn table_removals_match_the_model(len: u32) {
    let fresh = table(len);
    let before = table_rows(&fresh);
    let want: Vec<_> = before.iter().copied().filter(|&(_, n)| !goes(n)).collect();
    let freed: Vec<usize> = (before.iter())
        .filter(|&&(_, n)| goes(n))
        .map(|(id, _)| id.index())
        .collect();

    let mut t = fresh.clone();
    t.retain(|_, r| !goes(*r.n));
    assert_eq!(table_rows(&t), want, "retain of {len}");
    assert_eq!(next_slots(&mut t, freed.len()), freed, "retain of {len}");

    let mut t = fresh.clone();
    let listed: Vec<Key> = (before.iter().rev().chain(&before))
        .filter(|&&(_, n)| goes(n))
        .map(|&(id, _)| id)
        .collect();
    assert_eq!(t.remove_many(listed), freed.len());
    assert_eq!(table_rows(&t), want, "remove_many of {len}");
    assert_eq!(
        next_slots(&mut t, freed.len()),
        freed,
        "remove_many of {len}"
    );

    let mut t = fresh.clone();
    let m = map(&fresh);
    join((&mut t, &m)).retain(|_, JoinItems((r, _))| !goes(*r.n));
    assert_eq!(table_rows(&t), want, "a join's retain of {len}");
    assert_eq!(
        next_slots(&mut t, freed.len()),
        freed,
        "a join's retain of {len}"
    );
}

#[test]
fn a_table_marked_in_its_ids_removes_as_the_model_says() {
    table_removals_match_the_model(60);
}

#[test]
fn a_table_marked_in_its_slots_removes_as_the_model_says() {
    table_removals_match_the_model(100);
}

/// For a map of the ids of a table of `len` rows: the same three.
fn map_removals_match_the_model(len: u32) {
    let t = table(len);
    let fresh = map(&t);
    let before = map_rows(&fresh);
    let want: Vec<_> = before.iter().copied().filter(|&(_, n)| !goes(n)).collect();

    let mut m = fresh.clone();
    m.retain(|_, r| !goes(*r.n));
    assert_eq!(map_rows(&m), want, "retain of {len}");

    let mut m = fresh.clone();
    let listed: Vec<Key> = (before.iter().rev().chain(&before))
        .filter(|&&(_, n)| goes(n))
        .map(|&(id, _)| id)
        .collect();
    let gone = before.len() - want.len();
    assert_eq!(m.remove_many(listed), gone);
    assert_eq!(map_rows(&m), want, "remove_many of {len}");

    let mut m = fresh.clone();
    join((&mut m, &t)).retain(|_, JoinItems((_, r))| !goes(*r.n));
    assert_eq!(map_rows(&m), want, "a join's retain of {len}");
}

#[test]
fn a_map_marked_in_its_keys_removes_as_the_model_says() {
    map_removals_match_the_model(60);
}

#[test]
fn a_map_marked_in_its_entries_removes_as_the_model_says() {
    map_removals_match_the_model(100);
}

/// A panic part way through the first pass (the predicate, the iterator
/// of keys, a join's closure) leaves every row of a table of `len` rows in
/// place, its values whole, and frees no slot.
fn a_panicking_first_pass_leaves_the_table(len: u32) {
    let fresh = table(len);
    let before = table_rows(&fresh);
    let next = fresh.id_table().next_id().unwrap();
    let check = |t: &SoaStorage<Key, Row>, what: &str| {
        assert_eq!(table_rows(t), before, "{what} of {len}");
        assert_eq!(t.id_table().next_id().unwrap(), next, "{what} of {len}");
    };
    let gives_up = |n: u32| n == len - 3;

    let mut t = fresh.clone();
    let r = catch_unwind(AssertUnwindSafe(|| {
        t.retain(|_, r| {
            assert!(!gives_up(*r.n), "the predicate gives up");
            !goes(*r.n)
        })
    }));
    assert!(r.is_err());
    check(&t, "retain");

    let mut t = fresh.clone();
    let listed = before.iter().rev().map(|&(id, n)| {
        assert!(!gives_up(n), "the keys give up");
        id
    });
    let r = catch_unwind(AssertUnwindSafe(|| t.remove_many(listed)));
    assert!(r.is_err());
    check(&t, "remove_many");

    let mut t = fresh.clone();
    let m = map(&fresh);
    let r = catch_unwind(AssertUnwindSafe(|| {
        join((&mut t, &m)).retain(|_, JoinItems((r, _))| {
            assert!(!gives_up(*r.n), "the closure gives up");
            !goes(*r.n)
        })
    }));
    assert!(r.is_err());
    check(&t, "a join's retain");
}

#[test]
fn a_panicking_first_pass_leaves_a_table_marked_in_its_ids() {
    a_panicking_first_pass_leaves_the_table(60);
}

#[test]
fn a_panicking_first_pass_leaves_a_table_marked_in_its_slots() {
    a_panicking_first_pass_leaves_the_table(100);
}

/// The same for a map of the ids of a table of `len` rows.
fn a_panicking_first_pass_leaves_the_map(len: u32) {
    let t = table(len);
    let fresh = map(&t);
    let before = map_rows(&fresh);
    let gives_up = |n: u32| n == 2;

    let mut m = fresh.clone();
    let r = catch_unwind(AssertUnwindSafe(|| {
        m.retain(|_, r| {
            assert!(!gives_up(*r.n), "the predicate gives up");
            !goes(*r.n)
        })
    }));
    assert!(r.is_err());
    assert_eq!(map_rows(&m), before, "retain of {len}");

    let mut m = fresh.clone();
    let listed = before.iter().map(|&(key, n)| {
        assert!(!gives_up(n), "the keys give up");
        key
    });
    let r = catch_unwind(AssertUnwindSafe(|| m.remove_many(listed)));
    assert!(r.is_err());
    assert_eq!(map_rows(&m), before, "remove_many of {len}");

    let mut m = fresh.clone();
    let r = catch_unwind(AssertUnwindSafe(|| {
        join((&mut m, &t)).retain(|_, JoinItems((_, r))| {
            assert!(!gives_up(*r.n), "the closure gives up");
            !goes(*r.n)
        })
    }));
    assert!(r.is_err());
    assert_eq!(map_rows(&m), before, "a join's retain of {len}");
}

#[test]
fn a_panicking_first_pass_leaves_a_map_marked_in_its_keys() {
    a_panicking_first_pass_leaves_the_map(60);
}

#[test]
fn a_panicking_first_pass_leaves_a_map_marked_in_its_entries() {
    a_panicking_first_pass_leaves_the_map(100);
}

/// A map's second pass goes 4,096 rows at a time: a table and a map of more
/// rows, with values to drop, against the model, and every value dropped
/// once.
#[test]
fn a_second_pass_of_several_chunks_matches_the_model() {
    use std::rc::Rc;
    #[derive(SoaAllocator)]
    pub struct Counted {
        pub n: u32,
        pub alive: Rc<()>,
    }
    let len: u32 = if cfg!(miri) { 4_200 } else { 9_000 };
    let alive = Rc::new(());
    let mut t = SoaStorage::<idtable::Id32_32, Counted>::default();
    let ids: Vec<_> = (0..len)
        .map(|n| {
            t.insert(Counted {
                n,
                alive: alive.clone(),
            })
        })
        .collect();
    let mut m: SoaMap<idtable::Id32_32, Counted> = SoaMap::new();
    for (&id, n) in ids.iter().zip(0..len).rev() {
        m.insert(
            id,
            Counted {
                n,
                alive: alive.clone(),
            },
        );
    }
    let goes = |n: u32| n % 7 == 3 || (4_000..4_300).contains(&n);
    let kept = (0..len).filter(|&n| !goes(n)).count();
    t.retain(|_, c| !goes(*c.n));
    t.check_invariants();
    let want: Vec<_> = ids.iter().zip(0..).filter(|&(_, n)| !goes(n)).collect();
    let got: Vec<_> = t.ids().iter().zip(t.columns().n.iter().copied()).collect();
    assert_eq!(got, want);
    let listed: Vec<_> = m
        .keys()
        .iter()
        .copied()
        .filter(|&k| !t.contains(k))
        .collect();
    assert_eq!(m.remove_many(listed), len as usize - kept);
    m.check_invariants();
    let got: Vec<_> = m.keys().iter().zip(m.columns().n.iter().copied()).collect();
    let want: Vec<_> = want.into_iter().rev().collect();
    assert_eq!(got, want);
    assert_eq!(
        Rc::strong_count(&alive),
        1 + 2 * kept,
        "each removed value dropped once"
    );
}

/// `remove_many` keeps the marks of up to 16,384 rows in a bitset on the
/// stack; past that, in the index or the keys as `retain` does. A table
/// (its slots marked), a map (its keys tagged) and a map keyed past half
/// its layout's indices (its entries marked) of 20,000 rows: against the
/// model, and an iterator of keys that panics part way leaves every row.
#[test]
#[cfg_attr(miri, ignore = "20,000 rows")]
fn remove_many_past_the_stack_marks_in_the_index_or_the_keys() {
    use idtable::{Id16_16, Id32_32};
    let len = 20_000u32;
    let goes = |n: u32| n % 5 == 2 || (15_000..17_000).contains(&n);

    // A table, its slots marked.
    let mut t = SoaStorage::<Id32_32, Row>::default();
    for n in 0..len {
        t.insert(row(n));
    }
    let before: Vec<(Id32_32, u32)> = t
        .ids()
        .iter()
        .copied()
        .zip(t.columns().n.iter().copied())
        .collect();
    let listed: Vec<Id32_32> = (before.iter().rev())
        .filter(|&&(_, n)| goes(n))
        .map(|&(id, _)| id)
        .collect();
    let mut panicking = t.clone();
    let r = catch_unwind(AssertUnwindSafe(|| {
        panicking.remove_many(listed.iter().enumerate().map(|(k, &id)| {
            assert!(k < listed.len() - 10, "the keys give up");
            id
        }))
    }));
    assert!(r.is_err());
    panicking.check_invariants();
    let after: Vec<_> = panicking
        .ids()
        .iter()
        .copied()
        .zip(panicking.columns().n.iter().copied())
        .collect();
    assert_eq!(after, before, "a panicking iterator removes nothing");
    let freed: Vec<usize> = listed.iter().rev().map(|id| id.index()).collect();
    assert_eq!(
        t.remove_many(listed.iter().chain(&listed).copied()),
        listed.len()
    );
    t.check_invariants();
    let want: Vec<_> = before.iter().copied().filter(|&(_, n)| !goes(n)).collect();
    let got: Vec<_> = t
        .ids()
        .iter()
        .copied()
        .zip(t.columns().n.iter().copied())
        .collect();
    assert_eq!(got, want);
    let reused: Vec<usize> = (0..freed.len()).map(|_| t.insert(row(0)).index()).collect();
    assert_eq!(reused, freed, "freed slots are queued in dense order");

    // Maps, their keys tagged (indices below 32,768) or their entries
    // marked (indices up to 59,997).
    for spread in [1, 3] {
        let mut m: SoaMap<Id16_16, Row> = SoaMap::new();
        for n in 0..len {
            m.insert(Id16_16::new(n as usize * spread, 1).unwrap(), row(n));
        }
        let before: Vec<_> = m
            .keys()
            .iter()
            .copied()
            .zip(m.columns().n.iter().copied())
            .collect();
        let listed: Vec<Id16_16> = (before.iter())
            .filter(|&&(_, n)| goes(n))
            .map(|&(k, _)| k)
            .collect();
        let mut panicking = m.clone();
        let r = catch_unwind(AssertUnwindSafe(|| {
            panicking.remove_many(listed.iter().enumerate().map(|(k, &key)| {
                assert!(k < listed.len() - 10, "the keys give up");
                key
            }))
        }));
        assert!(r.is_err());
        panicking.check_invariants();
        let after: Vec<_> = panicking
            .keys()
            .iter()
            .copied()
            .zip(panicking.columns().n.iter().copied())
            .collect();
        assert_eq!(
            after, before,
            "spread {spread}: a panicking iterator removes nothing"
        );
        assert_eq!(
            m.remove_many(listed.iter().rev().chain(&listed).copied()),
            listed.len()
        );
        m.check_invariants();
        let want: Vec<_> = before.iter().copied().filter(|&(_, n)| !goes(n)).collect();
        let got: Vec<_> = m
            .keys()
            .iter()
            .copied()
            .zip(m.columns().n.iter().copied())
            .collect();
        assert_eq!(got, want, "spread {spread}");
    }
}
