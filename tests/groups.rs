//! Groups against a model: random edits through the group, changes that
//! bypass it (inserts, removes, sorts, clears, `remove_all`, a container
//! swapped for its clone), and joins, checked against `HashMap`s. Whatever
//! happened, a grouped join yields every key that both owned maps hold and
//! the excluded one does not, once, with its own rows, and nothing else.
//! Runs under Miri in CI (few cases).

use std::collections::{HashMap, HashSet};

use idtable::group::Group;
use idtable::join::{Container, JoinItems, RowsToken};
use idtable::rows::Rows;
use idtable::{join, remove_all, IdTable, Maybe, SoaAllocator, SoaMap, SoaStorage, Without};
use proptest::prelude::*;

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Unit {
    pub n: i64,
}
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Pos {
    pub x: i64,
}
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Vel {
    pub x: i64,
}
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Frozen {
    pub left: i64,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Tag {
    pub t: i64,
}
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Mark {
    pub m: i64,
}

#[derive(Clone, Copy, Debug)]
enum Map {
    Pos,
    Vel,
    Frozen,
    Tag,
    Mark,
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Despawn(usize),
    /// Removes the unit from its table only: its components stay, stale,
    /// until a newer id of the same slot replaces them.
    Kill(usize),
    EditInsert(Map, usize, i64),
    EditRemove(Map, usize),
    BypassInsert(Map, usize, i64),
    BypassRemove(Map, usize),
    /// Removes the unit's rows from every mutable source of the group.
    EditRemoveAll(usize),
    /// `retain` over an ungrouped join of two owned maps: rows leave `pos`
    /// behind the group's back.
    RetainPos(i64),
    SortPos,
    ClearFrozen,
    CloneVel,
    Join,
}

fn map() -> impl Strategy<Value = Map> {
    prop_oneof![
        Just(Map::Pos),
        Just(Map::Vel),
        Just(Map::Frozen),
        Just(Map::Tag),
        Just(Map::Mark)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Spawn),
        1 => (0usize..16).prop_map(Op::Despawn),
        1 => (0usize..16).prop_map(Op::Kill),
        6 => (map(), 0usize..16, -50i64..50).prop_map(|(m, i, v)| Op::EditInsert(m, i, v)),
        4 => (map(), 0usize..16).prop_map(|(m, i)| Op::EditRemove(m, i)),
        2 => (map(), 0usize..16, -50i64..50).prop_map(|(m, i, v)| Op::BypassInsert(m, i, v)),
        2 => (map(), 0usize..16).prop_map(|(m, i)| Op::BypassRemove(m, i)),
        1 => (0usize..16).prop_map(Op::EditRemoveAll),
        1 => (2i64..5).prop_map(Op::RetainPos),
        1 => Just(Op::SortPos),
        1 => Just(Op::ClearFrozen),
        1 => Just(Op::CloneVel),
        3 => Just(Op::Join),
    ]
}

/// One row of a grouped join: id, pos, vel, tag, mark.
type Yielded = (UnitId, i64, i64, Option<i64>, Option<i64>);

/// The world's group sources: `tag` optional, and `mark` too for a world
/// with two optional sources.
macro_rules! sources {
    ($w:ident, one) => {
        (
            &mut $w.pos,
            &mut $w.vel,
            Without(&mut $w.frozen),
            Maybe(&mut $w.tag),
        )
    };
    ($w:ident, two) => {
        (
            &mut $w.pos,
            &mut $w.vel,
            Without(&mut $w.frozen),
            Maybe(&mut $w.tag),
            Maybe(&mut $w.mark),
        )
    };
}

/// The containers and their model.
struct World {
    units: UnitAllocator,
    pos: SoaMap<UnitId, Pos>,
    vel: SoaMap<UnitId, Vel>,
    frozen: SoaMap<UnitId, Frozen>,
    /// Optional sources of the group: `tag` always, `mark` when `two`.
    tag: SoaMap<UnitId, Tag>,
    mark: SoaMap<UnitId, Mark>,
    two: bool,
    ids: Vec<UnitId>,
    model: [HashMap<UnitId, i64>; 5],
}

impl World {
    fn new() -> World {
        World {
            units: UnitAllocator::new(),
            pos: SoaMap::new(),
            vel: SoaMap::new(),
            frozen: SoaMap::new(),
            tag: SoaMap::new(),
            mark: SoaMap::new(),
            two: false,
            ids: Vec::new(),
            model: Default::default(),
        }
    }

    /// An id of the world's, live or removed (stale ids are part of it).
    fn id(&self, i: usize) -> Option<UnitId> {
        (!self.ids.is_empty()).then(|| self.ids[i % self.ids.len()])
    }

    fn insert_direct(&mut self, m: Map, id: UnitId, v: i64) {
        match m {
            Map::Pos => self.pos.insert(id, Pos { x: v }).is_some(),
            Map::Vel => self.vel.insert(id, Vel { x: v }).is_some(),
            Map::Frozen => self.frozen.insert(id, Frozen { left: v }).is_some(),
            Map::Tag => self.tag.insert(id, Tag { t: v }).is_some(),
            Map::Mark => self.mark.insert(id, Mark { m: v }).is_some(),
        };
    }

    fn remove_direct(&mut self, m: Map, id: UnitId) -> Option<i64> {
        match m {
            Map::Pos => self.pos.remove(id).map(|p| p.x),
            Map::Vel => self.vel.remove(id).map(|p| p.x),
            Map::Frozen => self.frozen.remove(id).map(|p| p.left),
            Map::Tag => self.tag.remove(id).map(|p| p.t),
            Map::Mark => self.mark.remove(id).map(|p| p.m),
        }
    }

    /// What inserting `id` into map `m` does to the model: a stale entry
    /// of the same slot index is replaced.
    fn model_insert(&mut self, m: Map, id: UnitId, v: i64) {
        let model = &mut self.model[m as usize];
        model.retain(|k, _| k.index() != id.index() || *k == id);
        model.insert(id, v);
    }

    /// The keys the group must hold: in `pos` and `vel`, not in `frozen`.
    fn expected(&self) -> HashSet<UnitId> {
        self.model[0]
            .keys()
            .filter(|k| self.model[1].contains_key(k) && !self.model[2].contains_key(k))
            .copied()
            .collect()
    }

    /// A grouped join agrees with the model; moves every member's `x` by
    /// its velocity in both, so rows are also checked to be written to
    /// the right key; the optional sources give `Some` exactly where the
    /// model holds the key.
    fn check_join(&mut self, group: &mut Group<UnitId>) {
        let expected = self.expected();
        let mut seen = HashSet::new();
        let mut rows: Vec<Yielded> = Vec::new();
        if self.two {
            let sources = (
                &mut self.pos,
                &mut self.vel,
                Without(&self.frozen),
                Maybe(&mut self.tag),
                Maybe(&mut self.mark),
            );
            for (id, (p, v, (), t, m)) in group.join(sources) {
                *p.x += *v.x;
                rows.push((id, *p.x - *v.x, *v.x, t.map(|t| *t.t), m.map(|m| *m.m)));
            }
        } else {
            let sources = (
                &mut self.pos,
                &mut self.vel,
                Without(&self.frozen),
                Maybe(&mut self.tag),
            );
            for (id, (p, v, (), t)) in group.join(sources) {
                *p.x += *v.x;
                rows.push((id, *p.x - *v.x, *v.x, t.map(|t| *t.t), None));
            }
        }
        for (id, x, v, t, m) in rows {
            assert!(seen.insert(id), "{id:?} yielded twice");
            assert_eq!(Some(&x), self.model[0].get(&id), "pos of {id:?}");
            assert_eq!(Some(&v), self.model[1].get(&id), "vel of {id:?}");
            assert_eq!(t, self.model[3].get(&id).copied(), "tag of {id:?}");
            if self.two {
                assert_eq!(m, self.model[4].get(&id).copied(), "mark of {id:?}");
            }
            *self.model[0].get_mut(&id).unwrap() += v;
        }
        assert_eq!(seen, expected);
        assert_eq!(group.len(), expected.len());
        let tagged = expected.iter().filter(|k| {
            self.model[3].contains_key(k) && (!self.two || self.model[4].contains_key(k))
        });
        assert_eq!(group.optional_len(), tagged.count());
        let aligned = if self.two {
            group.is_aligned(sources!(self, two))
        } else {
            group.is_aligned(sources!(self, one))
        };
        assert!(aligned);
    }

    fn agree(&self) {
        for (id, x) in &self.model[0] {
            assert_eq!(self.pos.get(*id).map(|p| *p.x), Some(*x));
        }
        for (id, x) in &self.model[1] {
            assert_eq!(self.vel.get(*id).map(|p| *p.x), Some(*x));
        }
        for (id, x) in &self.model[2] {
            assert_eq!(self.frozen.get(*id).map(|p| *p.left), Some(*x));
        }
        for (id, x) in &self.model[3] {
            assert_eq!(self.tag.get(*id).map(|p| *p.t), Some(*x));
        }
        for (id, x) in &self.model[4] {
            assert_eq!(self.mark.get(*id).map(|p| *p.m), Some(*x));
        }
        assert_eq!(self.pos.len(), self.model[0].len());
        assert_eq!(self.vel.len(), self.model[1].len());
        assert_eq!(self.frozen.len(), self.model[2].len());
    }
}

/// `$body` with `$edit`, an edit of the world's group sources.
macro_rules! with_edit {
    ($w:ident, $group:ident, |$edit:ident| $body:expr) => {
        if $w.two {
            let mut $edit = $group.edit(sources!($w, two));
            $body
        } else {
            let mut $edit = $group.edit(sources!($w, one));
            $body
        }
    };
}

fn run(ops: &[Op], two: bool) {
    let mut w = World::new();
    w.two = two;
    let mut group = if two {
        Group::new(sources!(w, two))
    } else {
        Group::new(sources!(w, one))
    };
    for op in ops {
        match *op {
            Op::Spawn => {
                let id = w.units.insert(Unit { n: 0 });
                w.ids.push(id);
            }
            Op::Despawn(i) => {
                let Some(id) = w.id(i) else { continue };
                // Bypasses the group: removes from every container.
                remove_all(
                    id,
                    (
                        &mut w.units,
                        &mut w.pos,
                        &mut w.vel,
                        &mut w.frozen,
                        &mut w.tag,
                        &mut w.mark,
                    ),
                );
                for m in &mut w.model {
                    m.remove(&id);
                }
            }
            Op::Kill(i) => {
                let Some(id) = w.id(i) else { continue };
                w.units.remove(id);
            }
            Op::EditInsert(m, i, v) => {
                let Some(id) = w.id(i) else { continue };
                if !w.units.contains(id) {
                    continue; // components of live units only, as a game would
                }
                match m {
                    // Not a source of a one-optional group: a plain insert.
                    Map::Mark if !w.two => w.insert_direct(m, id, v),
                    Map::Mark => {
                        let mut edit = group.edit(sources!(w, two));
                        edit.insert(id, Mark { m: v });
                    }
                    _ => {
                        with_edit!(w, group, |edit| match m {
                            Map::Pos => edit.insert(id, Pos { x: v }).map(|p| p.x),
                            Map::Vel => edit.insert(id, Vel { x: v }).map(|p| p.x),
                            Map::Frozen => edit.insert(id, Frozen { left: v }).map(|p| p.left),
                            Map::Tag => edit.insert(id, Tag { t: v }).map(|p| p.t),
                            Map::Mark => unreachable!(),
                        });
                    }
                }
                w.model_insert(m, id, v);
            }
            Op::EditRemove(m, i) => {
                let Some(id) = w.id(i) else { continue };
                let got = match m {
                    Map::Mark if !w.two => w.remove_direct(m, id),
                    Map::Mark => {
                        let mut edit = group.edit(sources!(w, two));
                        edit.remove::<Mark, _>(id).map(|p| p.m)
                    }
                    _ => with_edit!(w, group, |edit| match m {
                        Map::Pos => edit.remove::<Pos, _>(id).map(|p| p.x),
                        Map::Vel => edit.remove::<Vel, _>(id).map(|p| p.x),
                        Map::Frozen => edit.remove::<Frozen, _>(id).map(|p| p.left),
                        Map::Tag => edit.remove::<Tag, _>(id).map(|p| p.t),
                        Map::Mark => unreachable!(),
                    }),
                };
                assert_eq!(got, w.model[m as usize].remove(&id));
            }
            Op::EditRemoveAll(i) => {
                let Some(id) = w.id(i) else { continue };
                let maps = if w.two { 5 } else { 4 };
                let want = w.model[..maps]
                    .iter_mut()
                    .filter_map(|m| m.remove(&id))
                    .count();
                let got = with_edit!(w, group, |edit| edit.remove_all(id));
                assert_eq!(got, want);
            }
            Op::RetainPos(modulus) => {
                join((&mut w.pos, &w.vel))
                    .retain(|_, JoinItems((p, v))| (*p.x + *v.x) % modulus != 0);
                let vel = &w.model[1];
                let gone: Vec<UnitId> = w.model[0]
                    .iter()
                    .filter(|&(id, p)| vel.get(id).is_some_and(|v| (p + v) % modulus == 0))
                    .map(|(&id, _)| id)
                    .collect();
                for id in gone {
                    w.model[0].remove(&id);
                }
            }
            Op::BypassInsert(m, i, v) => {
                let Some(id) = w.id(i) else { continue };
                if !w.units.contains(id) {
                    continue;
                }
                w.insert_direct(m, id, v);
                w.model_insert(m, id, v);
            }
            Op::BypassRemove(m, i) => {
                let Some(id) = w.id(i) else { continue };
                assert_eq!(w.remove_direct(m, id), w.model[m as usize].remove(&id));
            }
            Op::SortPos => w.pos.sort_by_key(|p| -*p.x),
            Op::ClearFrozen => {
                w.frozen.clear();
                w.model[2].clear();
            }
            Op::CloneVel => {
                // Another container with the same rows: a new identity.
                w.vel = w.vel.clone();
            }
            Op::Join => w.check_join(&mut group),
        }
        w.agree();
    }
    w.check_join(&mut group);
}

/// Operations per case: fewer under Miri, which interprets every one.
const OPS: usize = if cfg!(miri) { 60 } else { 120 };

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 2 } else { 512 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn grouped_joins_agree_with_hash_maps(ops in prop::collection::vec(op(), 1..OPS)) {
        run(&ops, false);
    }

    /// Two optional sources: past the optional prefix, each is probed.
    #[test]
    fn grouped_joins_with_two_optional_sources_agree(ops in prop::collection::vec(op(), 1..OPS)) {
        run(&ops, true);
    }
}

#[test]
fn a_group_owning_the_table_keeps_its_ids_resolving() {
    let mut units = UnitAllocator::new();
    let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
    let ids: Vec<UnitId> = (0..10).map(|n| units.insert(Unit { n })).collect();
    for &id in ids.iter().step_by(3) {
        pos.insert(id, Pos { x: 100 });
    }
    let mut group = Group::new((&mut units, &mut pos));
    assert_eq!(group.len(), 4);
    let mut yielded = Vec::new();
    for (id, (u, p)) in group.join((&mut units, &mut pos)) {
        yielded.push(id);
        *p.x += *u.n;
    }
    // The table's rows moved (the members first); every id still finds its
    // own row.
    assert_eq!(&units.ids()[..4], &yielded[..]);
    for (n, &id) in ids.iter().enumerate() {
        assert_eq!(*units.get(id).unwrap().n, n as i64);
        if n % 3 == 0 {
            assert_eq!(*pos.get(id).unwrap().x, 100 + n as i64);
        }
    }
    units.remove(ids[3]);
    let left: HashSet<UnitId> = group
        .join((&mut units, &mut pos))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(left, [ids[0], ids[6], ids[9]].into_iter().collect());
}

#[test]
fn an_exclusion_seen_only_through_a_shared_borrow_rebuilds_every_time_but_stays_right() {
    let mut units = UnitAllocator::new();
    let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
    let frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    let a = units.insert(Unit { n: 1 });
    pos.insert(a, Pos { x: 1 });
    let mut group = Group::new((&mut pos, Without(&frozen)));
    assert!(!group.is_aligned((&mut pos, Without(&frozen))));
    assert_eq!(group.join((&mut pos, Without(&frozen))).count(), 1);
}

#[test]
fn a_stale_entry_replaced_through_the_group_leaves_no_ghost_member() {
    let mut units = UnitAllocator::new();
    let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
    let mut vel: SoaMap<UnitId, Vel> = SoaMap::new();
    let old = units.insert(Unit { n: 0 });
    pos.insert(old, Pos { x: 1 });
    vel.insert(old, Vel { x: 1 });
    let mut group = Group::new((&mut pos, &mut vel));
    assert_eq!(group.len(), 1);
    units.remove(old);
    let new = units.insert(Unit { n: 1 }); // the same slot, a newer generation
    assert_eq!(new.index(), old.index());
    // `pos` replaces its stale entry of `old` in place; `vel` still holds `old`.
    group.edit((&mut pos, &mut vel)).insert(new, Pos { x: 2 });
    let members: Vec<UnitId> = group.join((&mut pos, &mut vel)).map(|(id, _)| id).collect();
    assert!(members.is_empty(), "{members:?}");

    // The same, bypassing the group: the next join notices.
    vel.insert(new, Vel { x: 3 }); // joins at the next call
    let members: Vec<UnitId> = group.join((&mut pos, &mut vel)).map(|(id, _)| id).collect();
    assert_eq!(members, [new]);
    units.remove(new);
    let newer = units.insert(Unit { n: 2 });
    pos.insert(newer, Pos { x: 4 }); // replaces `new`'s entry in place
    let yielded: Vec<(UnitId, i64, i64)> = group
        .join((&mut pos, &mut vel))
        .map(|(id, (p, v))| (id, *p.x, *v.x))
        .collect();
    assert!(yielded.is_empty(), "{yielded:?}");
}

/// What a [`Fickle`] container does at the calls of `rows_mut` it plays
/// a trick on.
#[derive(Clone, Copy, Debug)]
enum Trick {
    /// Hands out its other storage: the same rows, in reverse order.
    Other,
    /// Sorts its rows (up or down, by turns) before handing them out.
    Sort,
}

/// A container of one's own, written in safe code, whose `rows_mut` does
/// not always hand out the same rows: at its calls `n` with
/// `n % period == phase` it plays its trick (never if `period` is 0).
pub struct Fickle {
    a: SoaStorage<UnitId, Unit>,
    b: SoaStorage<UnitId, Unit>,
    trick: Trick,
    period: u32,
    phase: u32,
    calls: u32,
}

impl Container for Fickle {
    type Index = IdTable<UnitId>;
    type Record = Unit;
    fn rows(&self) -> &Rows<IdTable<UnitId>, Unit> {
        Container::rows(&self.a)
    }
    fn rows_mut(&mut self, token: RowsToken<Self>) -> &mut Rows<IdTable<UnitId>, Unit> {
        self.calls += 1;
        if self.period == 0 || self.calls % self.period != self.phase {
            return token.storage_rows(&mut self.a);
        }
        match self.trick {
            Trick::Other => token.storage_rows(&mut self.b),
            Trick::Sort => {
                let down = self.calls % 2 == 0;
                self.a
                    .sort_by(|x, y| if down { y.n.cmp(x.n) } else { x.n.cmp(y.n) });
                token.storage_rows(&mut self.a)
            }
        }
    }
}

/// Runs a group over a [`Fickle`] container (owned, or optional if
/// `optional`) and a map through new, joins, edits, a bypassing insert and
/// `is_aligned`. Every row of `ids[n]` holds `n`: returns the number of
/// rows the joins yielded, and those that pair one key's unit with another
/// key's position.
fn fickle_group(
    trick: Trick,
    period: u32,
    phase: u32,
    optional: bool,
) -> (usize, Vec<(UnitId, i64, i64)>) {
    let mut f = Fickle {
        a: SoaStorage::default(),
        b: SoaStorage::default(),
        trick,
        period,
        phase,
        calls: 0,
    };
    let ids: Vec<UnitId> = (0..8).map(|n| f.a.insert(Unit { n })).collect();
    for n in 0..8 {
        f.b.insert(Unit { n }); // the same ids, a fresh table
    }
    f.b.sort_by(|x, y| y.n.cmp(x.n));
    let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
    for (n, &id) in ids.iter().enumerate() {
        if n % 4 != 3 {
            pos.insert(id, Pos { x: n as i64 });
        }
    }
    let mut wrong = Vec::new();
    let mut yielded = 0;
    let mut check = |rows: Vec<(UnitId, i64, i64)>| {
        yielded += rows.len();
        wrong.extend(
            rows.into_iter()
                .filter(|&(id, n, x)| n != x || ids.get(n as usize) != Some(&id)),
        );
    };
    macro_rules! steps {
        ($sources:expr, $rows:expr) => {{
            let mut group = Group::new($sources);
            check(group.join($sources).map($rows).collect());
            group.edit($sources).remove_all(ids[1]);
            check(group.join($sources).map($rows).collect());
            pos.insert(ids[3], Pos { x: 3 }); // bypasses the group
            check(group.join($sources).map($rows).collect());
            let mut edit = group.edit($sources);
            edit.remove::<Pos, _>(ids[0]);
            edit.insert(ids[0], Pos { x: 0 });
            edit.insert(ids[7], Pos { x: 7 });
            check(group.join($sources).map($rows).collect());
            let _ = group.is_aligned($sources);
            check(group.join($sources).map($rows).collect());
        }};
    }
    if optional {
        steps!((&mut pos, Maybe(&mut f)), |(id, (p, u))| (
            id,
            u.map_or(*p.x, |u| *u.n),
            *p.x
        ));
    } else {
        steps!((&mut f, &mut pos), |(id, (u, p))| (id, *u.n, *p.x));
    }
    (yielded, wrong)
}

/// No safe code can make a group yield a row of another key: a
/// `Container` whose `rows_mut` hands out another storage, or reorders its
/// rows, at some of its calls, makes the group rebuild or panic (naming
/// the broken contract), never pair one key's row with another's.
#[test]
fn a_container_whose_rows_mut_changes_its_rows_never_pairs_two_keys_rows() {
    let mut failures = Vec::new();
    for optional in [false, true] {
        // An honest container: every row right, no panic.
        let (yielded, wrong) = fickle_group(Trick::Other, 0, 0, optional);
        assert!(
            yielded == 6 + 5 + 6 + 7 + 7 && wrong.is_empty(),
            "{yielded} {wrong:?}"
        );
        for trick in [Trick::Other, Trick::Sort] {
            for period in 1..=6 {
                for phase in 0..period {
                    let case =
                        format!("{trick:?} at calls {phase} mod {period}, optional {optional}");
                    match std::panic::catch_unwind(|| fickle_group(trick, period, phase, optional))
                    {
                        Ok((_, wrong)) if wrong.is_empty() => {}
                        Ok((_, wrong)) => failures.push(format!(
                            "{case}: {} rows of another key: {wrong:?}",
                            wrong.len()
                        )),
                        Err(panic) => {
                            let message = panic
                                .downcast_ref::<String>()
                                .map(String::as_str)
                                .or_else(|| panic.downcast_ref::<&str>().copied())
                                .unwrap_or_default();
                            if !message.contains("rows_mut") {
                                failures.push(format!("{case}: panicked: {message}"));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
