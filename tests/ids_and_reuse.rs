//! Ids: swap-remove keeps `ids()` parallel to the columns, FIFO reuse and
//! `min_free`, stale ids after heavy reuse, forged ids, no resurrection after
//! `clear` / `drain` / `retain`, generation exhaustion (`retire` and `wrap`)
//! and a full `Id16_16` table.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use idtable::SoaAllocator;

mod support;
use support::Rng;

const CHURN: usize = if cfg!(miri) { 300 } else { 5_000 };
const PROBES: usize = if cfg!(miri) { 200 } else { 20_000 };

/// Generates, for one derived allocator, the helpers the tests below share:
/// a value made from a number, and a check that the allocator's content is
/// exactly `model` (id bits -> value) with `ids()` parallel to the columns.
macro_rules! harness {
    ($module:ident, $rec:ident, $alloc:ident, $id:ident, bits = $bits:ty) => {
        #[allow(dead_code)]
        mod $module {
            use super::*;

            pub fn val(n: u64) -> $rec {
                $rec {
                    key: n,
                    tag: (n % 251) as u8,
                }
            }

            pub fn bits(id: $id) -> u64 {
                u64::from(id.to_bits())
            }

            /// The id with these bits, if they fit the layout and name one.
            pub fn forge(bits: u64) -> Option<$id> {
                <$bits>::try_from(bits).ok().and_then($id::from_bits)
            }

            pub fn assert_matches(a: &$alloc, model: &HashMap<u64, u64>) {
                a.check_invariants();
                assert_eq!(a.len(), model.len());
                let cols = a.columns();
                assert_eq!(cols.key.len(), a.len());
                assert_eq!(cols.tag.len(), a.len());
                for (i, &id) in a.ids().iter().enumerate() {
                    let want = model
                        .get(&bits(id))
                        .unwrap_or_else(|| panic!("{id:?} is listed but not live"));
                    assert_eq!(cols.key[i], *want, "row {i} is not {id:?}'s");
                    assert_eq!(cols.tag[i], val(*want).tag);
                    assert_eq!(a.dense_index(id), Some(i));
                    let r = a.get(id).unwrap();
                    assert_eq!((*r.key, *r.tag), (cols.key[i], cols.tag[i]));
                }
            }

            /// `id` resolves exactly as the model says — to its own value or
            /// to nothing — through every lookup, and never panics.
            pub fn assert_resolves_like_model(a: &mut $alloc, id: $id, model: &HashMap<u64, u64>) {
                let want = model.get(&bits(id)).copied();
                assert_eq!(a.contains(id), want.is_some(), "{id:?}");
                assert_eq!(a.get(id).map(|r| *r.key), want, "{id:?}");
                assert_eq!(a.get_mut(id).map(|m| *m.key), want, "{id:?}");
                assert_eq!(a.dense_index(id).is_some(), want.is_some(), "{id:?}");
                assert_eq!(a.get_disjoint_mut([id]).map(|[m]| *m.key), want, "{id:?}");
                if let Some(&other) = a.ids().iter().find(|&&o| o != id) {
                    let pair = a.get_disjoint_mut([other, id]).map(|[_, m]| *m.key);
                    assert_eq!(pair, want, "{id:?} paired with {other:?}");
                }
                if want.is_none() {
                    let len = a.len();
                    assert!(a.remove(id).is_none(), "{id:?} removed something");
                    assert_eq!(a.len(), len);
                }
            }
        }
    };
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Wide {
    key: u64,
    tag: u8,
}
harness!(wide, Wide, WideAllocator, WideId, bits = u64);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8)]
struct Short {
    key: u64,
    tag: u8,
}
harness!(short, Short, ShortAllocator, ShortId, bits = u32);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8, on_exhausted = wrap)]
struct ShortWrap {
    key: u64,
    tag: u8,
}
harness!(
    short_wrap,
    ShortWrap,
    ShortWrapAllocator,
    ShortWrapId,
    bits = u32
);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id24_8, min_free = 4)]
struct Spaced {
    key: u64,
    tag: u8,
}
harness!(spaced, Spaced, SpacedAllocator, SpacedId, bits = u32);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id16_16, on_exhausted = wrap)]
struct Half {
    key: u64,
    tag: u8,
}
harness!(half, Half, HalfAllocator, HalfId, bits = u32);

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<2>, min_free = 100)]
struct Three {
    key: u64,
    tag: u8,
}
harness!(three, Three, ThreeAllocator, ThreeId, bits = u32);

// --- swap-remove ------------------------------------------------------------

#[test]
fn swap_remove_moves_the_last_row_into_the_gap_and_patches_its_id() {
    let mut a = WideAllocator::new();
    let mut model = HashMap::new();
    let ids: Vec<_> = (0..10)
        .map(|n| {
            let id = a.insert(wide::val(n));
            model.insert(wide::bits(id), n);
            id
        })
        .collect();
    // remove from the middle, the front, the back, then everything else
    let mut order = vec![ids[4], ids[0], a.ids()[a.len() - 1]];
    let rest: Vec<_> = ids
        .iter()
        .copied()
        .filter(|id| !order.contains(id))
        .collect();
    order.extend(rest);
    for victim in order {
        let vacated = a.dense_index(victim).unwrap();
        let last = a.len() - 1;
        let moved = a.ids()[last];
        let value = a.remove(victim).unwrap();
        assert_eq!(Some(value.key), model.remove(&wide::bits(victim)));
        if vacated != last {
            assert_eq!(a.ids()[vacated], moved, "the last id moved into the gap");
            assert_eq!(a.dense_index(moved), Some(vacated));
            assert_eq!(a.columns().key[vacated], model[&wide::bits(moved)]);
        }
        assert!(a.dense_index(victim).is_none());
        wide::assert_matches(&a, &model);
    }
    assert!(a.is_empty());
}

#[test]
fn ids_stay_parallel_to_columns_under_random_removes_and_inserts() {
    let mut rng = Rng(1);
    let mut a = SpacedAllocator::new();
    let mut model = HashMap::new();
    for step in 0..2_000u64 {
        if a.is_empty() || rng.below(5) < 3 {
            let id = a.insert(spaced::val(step));
            model.insert(spaced::bits(id), step);
        } else {
            let id = a.ids()[rng.below(a.len())];
            assert_eq!(a.remove(id).map(|v| v.key), model.remove(&spaced::bits(id)));
        }
        if step % 37 == 0 {
            spaced::assert_matches(&a, &model);
        }
    }
    spaced::assert_matches(&a, &model);
}

// --- reuse order ------------------------------------------------------------

#[test]
fn freed_slots_are_reused_oldest_first_with_the_next_generation() {
    let mut a = WideAllocator::new();
    let ids: Vec<_> = (0..6).map(|n| a.insert(wide::val(n))).collect();
    for i in [3, 0, 5] {
        a.remove(ids[i]);
    }
    let again: Vec<_> = (0..4).map(|n| a.insert(wide::val(10 + n))).collect();
    let got: Vec<_> = again
        .iter()
        .map(|id| (id.index(), id.generation()))
        .collect();
    assert_eq!(got, vec![(3, 2), (0, 2), (5, 2), (6, 1)]);
    a.check_invariants();
}

#[test]
fn min_free_holds_freed_slots_back_until_enough_wait() {
    let mut a = SpacedAllocator::new(); // min_free = 4
    let ids: Vec<_> = (0..8).map(|n| a.insert(spaced::val(n))).collect();
    for &id in &ids[..3] {
        a.remove(id);
    }
    let fresh = a.insert(spaced::val(100));
    assert_eq!(fresh.index(), 8, "3 waiting < min_free: a fresh slot");
    a.remove(ids[3]);
    let reused = a.insert(spaced::val(101));
    assert_eq!(
        (reused.index(), reused.generation()),
        (0, 2),
        "4 waiting: oldest"
    );
    let fresh = a.insert(spaced::val(102));
    assert_eq!(fresh.index(), 9, "3 waiting again");
    assert_eq!(a.id_table().free_count(), 3);
    a.check_invariants();
}

#[test]
fn min_free_gives_way_when_no_fresh_index_is_left() {
    let mut a = ThreeAllocator::new(); // indices 0..=2, min_free = 100
    let ids: Vec<_> = (0..3).map(|n| a.insert(three::val(n))).collect();
    a.remove(ids[1]);
    let id = a.insert(three::val(9));
    assert_eq!((id.index(), id.generation()), (1, 2));
    assert_eq!(a.get(id).unwrap().key, &9);
    assert!(!a.contains(ids[1]));
    a.check_invariants();
}

#[test]
fn every_constructor_keeps_the_soa_config() {
    use idtable::OnExhausted::{Retire, Wrap};
    let configs = |a: &SpacedAllocator| {
        (
            a.id_table().config().min_free,
            a.id_table().config().on_exhausted,
        )
    };
    let mut spaced: SpacedAllocator = (0..3).map(spaced::val).collect();
    assert_eq!(configs(&spaced), (4, Retire), "collect");
    spaced.extend([spaced::val(9)]);
    assert_eq!(configs(&spaced.clone()), (4, Retire), "clone");
    assert_eq!(configs(&SpacedAllocator::default()), (4, Retire), "default");
    assert_eq!(
        configs(&SpacedAllocator::with_capacity(10)),
        (4, Retire),
        "with_capacity"
    );
    let wrap: ShortWrapAllocator = (0..3).map(short_wrap::val).collect();
    assert_eq!(wrap.id_table().config().on_exhausted, Wrap);
    assert_eq!(wrap.clone().id_table().config().on_exhausted, Wrap);
    assert_eq!(
        ShortWrapAllocator::default()
            .id_table()
            .config()
            .on_exhausted,
        Wrap
    );
    assert_eq!(
        WideAllocator::new().id_table().config(),
        idtable::TableConfig::default()
    );
}

// --- stale ids ---------------------------------------------------------------

macro_rules! churn_test {
    ($name:ident, $m:ident, $alloc:ident) => {
        #[test]
        fn $name() {
            let mut rng = Rng(7);
            let mut a = $alloc::new();
            let mut model = HashMap::new();
            let mut dead = Vec::new();
            let mut issued = HashSet::new();
            for n in 0..8 {
                let id = a.insert($m::val(n));
                model.insert($m::bits(id), n);
                assert!(issued.insert($m::bits(id)));
            }
            for n in 8..CHURN as u64 + 8 {
                let victim = a.ids()[rng.below(a.len())];
                assert_eq!(
                    a.remove(victim).map(|v| v.key),
                    model.remove(&$m::bits(victim))
                );
                dead.push(victim);
                let id = a.insert($m::val(n));
                assert!(issued.insert($m::bits(id)), "{id:?} issued twice");
                model.insert($m::bits(id), n);
                if n % 500 == 0 {
                    $m::assert_matches(&a, &model);
                }
            }
            $m::assert_matches(&a, &model);
            assert_eq!(a.len(), 8);
            for id in dead {
                assert!(!a.contains(id), "{id:?} came back");
                $m::assert_resolves_like_model(&mut a, id, &model);
            }
            $m::assert_matches(&a, &model);
        }
    };
}

churn_test!(
    stale_ids_stay_dead_after_thousands_of_reuses_default_layout,
    wide,
    WideAllocator
);
churn_test!(
    stale_ids_stay_dead_after_thousands_of_reuses_id24_8_retiring,
    short,
    ShortAllocator
);
churn_test!(
    stale_ids_stay_dead_after_thousands_of_reuses_id24_8_min_free,
    spaced,
    SpacedAllocator
);
churn_test!(
    stale_ids_stay_dead_after_thousands_of_reuses_id16_16_wrap,
    half,
    HalfAllocator
);

// --- forged ids ----------------------------------------------------------------

/// Near misses of a live id: same index with other generations, same
/// generation with other indices, the reserved all-ones index.
fn near_misses(bits: u64, index_bits: u32, width: u32) -> Vec<u64> {
    let mask = (1u64 << index_bits) - 1;
    let all = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let index = bits & mask;
    let generation = bits >> index_bits;
    let max_gen = all >> index_bits;
    let mut out = Vec::new();
    for g in [
        generation.wrapping_sub(1),
        generation + 1,
        generation + 2,
        1,
        2,
        max_gen,
        max_gen - 1,
    ] {
        if (1..=max_gen).contains(&g) {
            out.push(g << index_bits | index);
        }
    }
    for i in [
        index.wrapping_sub(1),
        index + 1,
        index + 1000,
        mask,
        mask - 1,
        0,
    ] {
        if i <= mask {
            out.push(generation << index_bits | i);
        }
    }
    out.push(all); // every bit set: reserved index, top generation
    out.push(1u64 << index_bits | mask); // reserved index, generation 1
    out.retain(|&b| b != bits);
    out
}

macro_rules! forged_test {
    ($name:ident, $m:ident, $alloc:ident, index_bits = $ib:expr, width = $w:expr) => {
        #[test]
        fn $name() {
            let mut rng = Rng(11);
            let mut a = $alloc::new();
            let mut model = HashMap::new();
            // Give the slots varied generations first.
            for n in 0..300u64 {
                if a.len() < 16 || rng.below(2) == 0 {
                    let id = a.insert($m::val(n));
                    model.insert($m::bits(id), n);
                } else {
                    let id = a.ids()[rng.below(a.len())];
                    model.remove(&$m::bits(id));
                    a.remove(id);
                }
            }
            let live: Vec<_> = a.ids().to_vec();
            let mut probes = 0;
            for &id in &live {
                for bits in near_misses($m::bits(id), $ib, $w) {
                    if let Some(forged) = $m::forge(bits) {
                        $m::assert_resolves_like_model(&mut a, forged, &model);
                        probes += 1;
                    }
                }
            }
            let width_mask = if $w == 64 { u64::MAX } else { (1u64 << $w) - 1 };
            for _ in 0..PROBES {
                let raw = rng.next();
                // random bits, and random bits with a small index (more
                // likely to hit an existing slot)
                for bits in [
                    raw & width_mask,
                    raw & width_mask & !((1u64 << $ib) - 1) | (raw & 31),
                ] {
                    if let Some(forged) = $m::forge(bits) {
                        $m::assert_resolves_like_model(&mut a, forged, &model);
                        probes += 1;
                    }
                }
            }
            assert!(probes > PROBES);
            // every live id still resolves to its own value
            for &id in &live {
                assert_eq!(a.get(id).map(|r| *r.key), model.get(&$m::bits(id)).copied());
            }
            $m::assert_matches(&a, &model);
        }
    };
}

forged_test!(
    forged_ids_never_resolve_to_another_object_default_layout,
    wide,
    WideAllocator,
    index_bits = 32,
    width = 64
);
forged_test!(
    forged_ids_never_resolve_to_another_object_id24_8,
    short,
    ShortAllocator,
    index_bits = 24,
    width = 32
);
forged_test!(
    forged_ids_never_resolve_to_another_object_id16_16_wrap,
    half,
    HalfAllocator,
    index_bits = 16,
    width = 32
);

#[test]
fn the_reserved_index_never_resolves_even_in_a_full_table() {
    let mut a = ThreeAllocator::new(); // indices 0, 1, 2; 3 is reserved
    let mut model = HashMap::new();
    for n in 0..3 {
        let id = a.insert(three::val(n));
        model.insert(three::bits(id), n);
    }
    for generation in [1u64, 2, 3, 1 << 29, (1 << 30) - 1] {
        let forged = three::forge(generation << 2 | 3).unwrap();
        assert_eq!(forged.index(), 3);
        three::assert_resolves_like_model(&mut a, forged, &model);
    }
    three::assert_resolves_like_model(&mut a, three::forge(u64::from(u32::MAX)).unwrap(), &model);
    three::assert_matches(&a, &model);
}

#[test]
fn from_bits_rejects_generation_zero() {
    for bits in [0u64, 1, 5, (1 << 24) - 1] {
        assert!(short::forge(bits).is_none(), "{bits:#x}");
    }
    for bits in [0u64, 1, u64::from(u32::MAX)] {
        assert!(wide::forge(bits).is_none(), "{bits:#x}");
    }
    assert!(wide::forge(1 << 32).is_some());
    assert!(short::forge(1 << 24).is_some());
}

// --- no resurrection -------------------------------------------------------

/// After `old` ids went away, more inserts never bring one of them back.
fn assert_never_back(a: &mut WideAllocator, old: &[WideId], model: &mut HashMap<u64, u64>) {
    for &id in old {
        wide::assert_resolves_like_model(a, id, model);
        assert!(!a.contains(id));
    }
    for n in 0..(3 * old.len() as u64 + 10) {
        let id = a.insert(wide::val(1_000 + n));
        assert!(!old.contains(&id), "{id:?} reissued");
        model.insert(wide::bits(id), 1_000 + n);
    }
    for &id in old {
        assert!(!a.contains(id), "{id:?} came back");
        wide::assert_resolves_like_model(a, id, model);
    }
    wide::assert_matches(a, model);
}

fn fill(n: u64) -> (WideAllocator, Vec<WideId>, HashMap<u64, u64>) {
    let mut a = WideAllocator::new();
    let mut model = HashMap::new();
    let ids = (0..n)
        .map(|k| {
            let id = a.insert(wide::val(k));
            model.insert(wide::bits(id), k);
            id
        })
        .collect::<Vec<_>>();
    // some churn so the slots have mixed generations
    for &id in ids.iter().step_by(4) {
        a.remove(id);
        model.remove(&wide::bits(id));
    }
    let mut all = ids;
    for k in 0..n / 4 {
        let id = a.insert(wide::val(500 + k));
        model.insert(wide::bits(id), 500 + k);
        all.push(id);
    }
    (a, all, model)
}

#[test]
fn clear_never_resurrects_old_ids() {
    let (mut a, old, _) = fill(40);
    for round in 0..3 {
        a.clear();
        assert!(a.is_empty());
        a.check_invariants();
        let mut model = HashMap::new();
        assert_never_back(&mut a, &old, &mut model);
        if round == 2 {
            break;
        }
    }
}

#[test]
fn fully_consumed_drain_never_resurrects() {
    let (mut a, old, model) = fill(40);
    let drained: HashMap<u64, u64> = a.drain().map(|(id, v)| (wide::bits(id), v.key)).collect();
    assert_eq!(drained, model);
    assert!(a.is_empty());
    assert_never_back(&mut a, &old, &mut HashMap::new());
}

#[test]
fn partly_consumed_drain_removes_the_rest_and_never_resurrects() {
    let (mut a, old, model) = fill(40);
    let mut d = a.drain();
    let taken: Vec<_> = d.by_ref().take(5).collect();
    drop(d);
    assert_eq!(taken.len(), 5);
    for (id, v) in &taken {
        assert_eq!(model.get(&wide::bits(*id)), Some(&v.key));
    }
    assert!(
        a.is_empty(),
        "dropping a drain removes what it did not yield"
    );
    assert_never_back(&mut a, &old, &mut HashMap::new());
}

#[test]
fn forgotten_drain_leaves_a_consistent_allocator_and_never_resurrects() {
    let (mut a, old, mut model) = fill(40);
    let mut d = a.drain();
    let taken: Vec<_> = d.by_ref().take(5).collect();
    std::mem::forget(d);
    a.check_invariants();
    for (id, _) in &taken {
        model.remove(&wide::bits(*id));
        assert!(!a.contains(*id), "a yielded id is live again");
    }
    // What was not yielded is either still live with its value, or gone;
    // never something else.
    model.retain(|&bits, _| a.contains(wide::forge(bits).unwrap()));
    wide::assert_matches(&a, &model);
    let yielded: Vec<_> = taken.iter().map(|(id, _)| *id).collect();
    assert_never_back(&mut a, &yielded, &mut model);
    // and clearing afterwards kills the rest for good
    a.clear();
    assert_never_back(&mut a, &old, &mut HashMap::new());
}

#[test]
fn retain_never_resurrects_removed_ids() {
    let (mut a, _, mut model) = fill(40);
    let mut removed = Vec::new();
    a.retain(|id, m| {
        let keep = *m.key % 3 != 0;
        if !keep {
            removed.push(id);
        }
        keep
    });
    for id in &removed {
        model.remove(&wide::bits(*id));
    }
    assert!(!removed.is_empty());
    wide::assert_matches(&a, &model);
    assert_never_back(&mut a, &removed, &mut model);
}

#[test]
fn sort_keeps_every_id_valid() {
    let (mut a, old, model) = fill(40);
    a.sort_by_key(|r| std::cmp::Reverse(*r.key));
    wide::assert_matches(&a, &model);
    let keys = a.columns().key.to_vec();
    assert!(keys.windows(2).all(|w| w[0] >= w[1]));
    let mut model = model;
    for &id in &old {
        wide::assert_resolves_like_model(&mut a, id, &model);
    }
    a.sort_by(|x, y| x.key.cmp(y.key));
    wide::assert_matches(&a, &model);
    let live: Vec<_> = a.ids().to_vec();
    for id in live {
        assert!(a.remove(id).is_some());
        model.remove(&wide::bits(id));
        wide::assert_matches(&a, &model);
    }
}

// --- exhaustion --------------------------------------------------------------------

#[test]
fn id24_8_retires_a_slot_after_255_generations() {
    let mut a = ShortAllocator::new();
    let mut issued = HashSet::new();
    for generation in 1..=255u32 {
        let id = a.insert(short::val(u64::from(generation)));
        assert_eq!((id.index(), id.generation()), (0, generation));
        assert!(issued.insert(id.to_bits()));
        a.remove(id).unwrap();
        a.check_invariants();
    }
    assert_eq!(
        a.id_table().free_count(),
        0,
        "slot 0 is retired, not queued"
    );
    let id = a.insert(short::val(0));
    assert_eq!((id.index(), id.generation()), (1, 1));
    for generation in 1..=255u32 {
        let forged = short::forge(u64::from(generation) << 24).unwrap();
        assert!(!a.contains(forged));
    }
    a.check_invariants();
}

#[test]
fn id24_8_retire_never_issues_an_id_twice_across_many_slots() {
    let mut a = ShortAllocator::new();
    let mut rng = Rng(3);
    let mut issued = HashSet::new();
    let mut model = HashMap::new();
    let mut retired = HashSet::new();
    let mut dead = Vec::new();
    let live_target = 5;
    // 5 live at a time, ~12 slots' worth of generations used up
    for n in 0..(255 * 12) {
        if a.len() < live_target {
            let id = a.insert(short::val(n));
            assert!(issued.insert(id.to_bits()), "{id:?} issued twice");
            assert!(
                !retired.contains(&id.index()),
                "retired slot {} reissued",
                id.index()
            );
            model.insert(short::bits(id), n);
        } else {
            let id = a.ids()[rng.below(a.len())];
            a.remove(id).unwrap();
            model.remove(&short::bits(id));
            if id.generation() == 255 {
                retired.insert(id.index());
            }
            dead.push(id);
        }
        if n % 97 == 0 {
            short::assert_matches(&a, &model);
        }
    }
    assert!(retired.len() >= 4, "only {} slots retired", retired.len());
    let t = a.id_table();
    assert_eq!(t.slot_count(), t.len() + t.free_count() + retired.len());
    for id in dead {
        short::assert_resolves_like_model(&mut a, id, &model);
    }
    short::assert_matches(&a, &model);
}

#[test]
fn id24_8_with_min_free_wears_slots_evenly_and_retires_them() {
    let mut a = SpacedAllocator::new(); // min_free = 4
    let mut issued = HashSet::new();
    let mut per_slot: HashMap<usize, u32> = HashMap::new();
    let mut id = a.insert(spaced::val(0));
    *per_slot.entry(id.index()).or_default() += 1;
    for n in 1..(255 * 6) {
        a.remove(id).unwrap();
        id = a.insert(spaced::val(n));
        assert!(issued.insert(id.to_bits()), "{id:?} issued twice");
        let count = per_slot.entry(id.index()).or_default();
        *count += 1;
        assert_eq!(id.generation(), *count, "generations count up by one");
    }
    a.check_invariants();
    // A freed slot waits until 3 more are freed after it: four slots take
    // turns, each wears out all 255 generations and retires; then fresh
    // slots take over.
    for index in 0..4 {
        assert_eq!(per_slot[&index], 255, "slot {index}");
    }
    assert!(per_slot.values().all(|&c| c <= 255));
    let t = a.id_table();
    assert_eq!(t.slot_count(), 8);
    assert_eq!(t.slot_count(), t.len() + t.free_count() + 4);
}

#[test]
fn id24_8_wrap_restarts_the_generation_at_one() {
    let mut a = ShortWrapAllocator::new();
    let first = a.insert(short_wrap::val(0));
    assert_eq!((first.index(), first.generation()), (0, 1));
    a.remove(first);
    let mut last = first;
    for generation in 2..=255u32 {
        last = a.insert(short_wrap::val(u64::from(generation)));
        assert_eq!((last.index(), last.generation()), (0, generation));
        a.remove(last);
    }
    assert_eq!(last.generation(), 255);
    let wrapped = a.insert(short_wrap::val(1000));
    assert_eq!((wrapped.index(), wrapped.generation()), (0, 1));
    // The documented risk of `wrap`: the first id has the same bits again.
    assert_eq!(wrapped, first);
    assert_eq!(a.get(first).map(|r| *r.key), Some(1000));
    assert!(!a.contains(last));
    a.check_invariants();
}

#[test]
#[cfg_attr(miri, ignore = "65,535 reuses")]
fn id16_16_wrap_restarts_the_generation_at_one() {
    let mut a = HalfAllocator::new();
    let mut id = a.insert(half::val(0));
    let first = id;
    for _ in 1..65_535 {
        a.remove(id);
        id = a.insert(half::val(1));
        assert_eq!(id.index(), 0);
    }
    assert_eq!(id.generation(), 65_535);
    a.remove(id);
    let wrapped = a.insert(half::val(2));
    assert_eq!((wrapped.index(), wrapped.generation()), (0, 1));
    assert_eq!(wrapped, first);
    a.check_invariants();
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id32<31>)]
struct Once {
    key: u64,
}

#[test]
fn one_generation_bit_issues_each_slot_once_then_retires_it() {
    let mut a = OnceAllocator::new();
    let mut issued = HashSet::new();
    let mut old = Vec::new();
    for n in 0..200u64 {
        let id = a.insert(Once { key: n });
        assert_eq!(id.generation(), 1);
        assert_eq!(id.index() as u64, n, "every insert takes a fresh slot");
        assert!(issued.insert(id.to_bits()));
        if n % 3 != 0 {
            assert_eq!(a.remove(id), Some(Once { key: n }));
            old.push(id);
        }
        a.check_invariants();
    }
    assert_eq!(a.id_table().free_count(), 0);
    for id in old {
        assert!(!a.contains(id) && a.get(id).is_none());
    }
    a.clear();
    assert_eq!(a.id_table().free_count(), 0, "clear retires them too");
    let id = a.insert(Once { key: 0 });
    assert_eq!(id.index(), 200);
}

// --- a full Id16_16 table ------------------------------------------------------------

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(id = idtable::Id16_16)]
struct Dot {
    v: u16,
}

fn full_dots() -> (DotAllocator, Vec<DotId>) {
    let mut a = DotAllocator::with_capacity(65_535);
    let ids: Vec<_> = (0..65_535u32)
        .map(|v| a.insert(Dot { v: v as u16 }))
        .collect();
    (a, ids)
}

#[test]
#[cfg_attr(miri, ignore = "65,535 inserts")]
fn full_id16_16_table_try_insert_gives_the_value_back() {
    let (mut a, ids) = full_dots();
    assert_eq!(a.len(), 65_535);
    assert_eq!(ids.last().unwrap().index(), 65_534);
    let err = a.try_insert(Dot { v: 4242 }).expect_err("table is full");
    assert!(err.to_string().contains("Id16_16"), "{err}");
    assert_eq!(err.into_inner(), Dot { v: 4242 });
    assert_eq!(a.len(), 65_535);
    a.check_invariants();
    // every object is intact
    for (v, &id) in ids.iter().enumerate() {
        assert_eq!(*a.get(id).unwrap().v, v as u16);
    }
    // a freed slot makes room again, with the next generation
    a.remove(ids[123]);
    let id = a.try_insert(Dot { v: 7 }).unwrap();
    assert_eq!((id.index(), id.generation()), (123, 2));
    assert!(a.try_insert(Dot { v: 8 }).is_err());
    a.check_invariants();
}

#[test]
#[cfg_attr(miri, ignore = "65,535 inserts")]
#[should_panic(expected = "Id16_16")]
fn full_id16_16_table_insert_panics_naming_the_layout() {
    let (mut a, _) = full_dots();
    a.insert(Dot { v: 1 });
}

#[test]
#[cfg_attr(miri, ignore = "65,535 inserts")]
fn full_id16_16_table_insert_panic_leaves_the_allocator_intact() {
    let (mut a, ids) = full_dots();
    let r = catch_unwind(AssertUnwindSafe(|| a.insert(Dot { v: 1 })));
    let payload = r.expect_err("full");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("Id16_16"), "{msg}");
    assert_eq!(a.len(), 65_535);
    a.check_invariants();
    assert_eq!(*a.get(ids[65_534]).unwrap().v, 65_534);
}

mod instance_identity {
    use idtable::SoaAllocator;

    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    #[soa(id = idtable::Id24_8)]
    struct Short {
        key: u64,
    }

    /// Documented in GUARANTEES.md: ids carry no allocator-instance identity.
    /// An id of one allocator type does not compile with another type
    /// (ui-tests/tests/ui/id-of-other-allocator.rs), but two allocators of the same
    /// type issue the same bits, so an id used with the wrong instance of its
    /// type resolves to that instance's object with those bits.
    #[test]
    fn ids_carry_no_instance_identity_within_one_type() {
        let mut a = ShortAllocator::new();
        let mut b = ShortAllocator::new();
        let from_a = a.insert(Short { key: 1 });
        let from_b = b.insert(Short { key: 2 });
        assert_eq!(from_a, from_b);
        assert_eq!(b.get(from_a).map(|r| *r.key), Some(2));
        // Once the instances diverge, a foreign id is only ever stale there.
        b.remove(from_b);
        assert!(b.get(from_a).is_none());
    }
}
