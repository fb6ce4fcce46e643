//! Groups: containers that keep the keys they share packed at the front,
//! in one order, so a join over them streams with no probe per row.
//!
//! A [`Group`] is a small value you create from the containers it orders
//! and hold beside them; it holds no borrow. Its *owned* sources (tables
//! and [`SoaMap`]s, given as `&mut`) keep every key that all of them hold,
//! and no [`Without`] source holds, at dense positions `0..len()`, the same
//! key at the same position in each. A join through the group walks those
//! prefixes side by side.
//!
//! ```
//! use idtable::group::Group;
//! use idtable::{SoaAllocator, SoaMap, Without};
//!
//! #[derive(SoaAllocator)]
//! pub struct Unit { pub hp: f32 }
//! #[derive(SoaAllocator)]
//! pub struct Pos { pub x: f32 }
//! #[derive(SoaAllocator)]
//! pub struct Vel { pub x: f32 }
//! #[derive(SoaAllocator)]
//! pub struct Frozen { pub left: f32 }
//!
//! let mut units = UnitAllocator::new();
//! let mut pos: SoaMap<UnitId, Pos> = SoaMap::new();
//! let mut vel: SoaMap<UnitId, Vel> = SoaMap::new();
//! let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
//! let ids: Vec<UnitId> = (0..4).map(|_| units.insert(Unit { hp: 1.0 })).collect();
//! for &id in &ids {
//!     pos.insert(id, Pos { x: 0.0 });
//! }
//! vel.insert(ids[1], Vel { x: 1.0 });
//! vel.insert(ids[2], Vel { x: 2.0 });
//! frozen.insert(ids[2], Frozen { left: 1.0 });
//!
//! // Units with a position and a velocity that are not frozen.
//! let mut moving = Group::new((&mut pos, &mut vel, Without(&mut frozen)));
//! assert_eq!(moving.len(), 1);
//! for (_, (p, v, ())) in moving.join((&mut pos, &mut vel, Without(&frozen))) {
//!     *p.x += *v.x;
//! }
//! assert_eq!(*pos.get(ids[1]).unwrap().x, 1.0);
//!
//! // Edits through the group keep it aligned, each one call.
//! let mut edit = moving.edit((&mut pos, &mut vel, Without(&mut frozen)));
//! edit.insert(ids[3], Vel { x: 3.0 }); // joins the group
//! edit.remove::<Frozen, _>(ids[2]); // thaws: joins the group
//! edit.insert(ids[1], Frozen { left: 5.0 }); // freezes: leaves it
//! assert_eq!(moving.len(), 2);
//!
//! // A change that bypasses the group is noticed, and repaired before
//! // the next join: never a wrong row.
//! vel.insert(ids[0], Vel { x: 4.0 });
//! let moved: Vec<UnitId> = moving
//!     .join((&mut pos, &mut vel, Without(&frozen)))
//!     .into_iter()
//!     .map(|(id, _)| id)
//!     .collect();
//! assert_eq!(moved.len(), 3);
//! assert!(!moved.contains(&ids[1]));
//! ```
//!
//! # Sources
//!
//! A group's sources are a tuple of 1 to 8: owned containers as `&mut`
//! (a derived allocator, a `SoaStorage`, a `SoaMap`; the first source is
//! one), exclusions as [`Without`]`(&c)` or `Without(&mut c)`, and
//! optional sources as [`Maybe`]`(&mut c)`: the keys of the group they
//! hold come first within it ([`optional_len`](Group::optional_len)), so a
//! join yields their rows with no probe. Every
//! call that takes the sources ([`join`](Group::join),
//! [`edit`](Group::edit), [`sync`](Group::sync)) takes them in the same
//! order as [`new`](Group::new) did.
//!
//! # Keeping it aligned
//!
//! Edits through [`GroupEdit`] keep the prefix aligned in a few row swaps
//! per call: a key that comes to qualify is swapped to position `len()` of
//! every owned container, and one that stops qualifying is swapped to the
//! last position of the prefix before it leaves.
//!
//! Changes that bypass the group (any method of the containers
//! themselves) are noticed by each container's identity and *order
//! stamp*, which every call that removes or moves a row moves on. Pushed
//! rows are checked one by one (new keys join or leave the group); any
//! other change makes the next call that takes the sources rebuild the
//! prefix in one pass over the owned containers. A group never yields a
//! row of another key; at worst its next join starts with that pass.
//! Each call asks every container for its rows once, checks them, and
//! works on those rows only, and the join it makes checks that it reads
//! the rows just aligned: a [`Container`] of one's own whose `rows_mut`
//! hands out other rows at another call makes that join panic.
//! An exclusion given as `Without(&c)` whose container no group has seen
//! through `&mut` has no identity yet, so every call rebuilds: give it as
//! `Without(&mut c)` to [`new`](Group::new) once.
//!
//! # What stays true
//!
//! A group only swaps rows, as `sort_by` does: ids, keys, generations and
//! every lookup are unaffected, and the containers stay your own values.
//! A group is not saved; build it again after loading its containers (the
//! rows are found in place, one pass, nothing moves).
//!
//! [`SoaMap`]: crate::SoaMap

use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::id::Id;
use crate::join::{Container, IntoSources, Maybe, RowsToken, Sources, Without};
use crate::map::SoaMap;
use crate::record::Record;
use crate::rows::KeyOf;

pub(crate) mod member {
    /// What a group saw of one source when it last left it aligned.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Seen {
        /// The container's identity; 0 (unknown) never matches.
        pub identity: u64,
        /// Its order stamp.
        pub order: u64,
        /// Its number of rows.
        pub len: usize,
        /// What the group does with it.
        pub role: Role,
    }

    /// What a group does with one of its sources.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Role {
        /// Reordered: its keys of the group first.
        Owned,
        /// Reordered within the group: its keys of the group first of all
        /// (the optional prefix).
        Optional,
        /// Read: its keys are never in the group.
        Excluded,
    }

    /// What the methods that reach a source's rows take: made only in this
    /// crate, so no other code can call them (they could swap rows of a
    /// group's containers behind its back).
    pub struct Token(());

    /// The token, for the group's own calls.
    pub(crate) const TOKEN: Token = Token(());

    /// What a group does with one of its sources: object-safe, so the
    /// group's bookkeeping is compiled once per key type.
    pub trait Member<K> {
        /// What the group sees now; claims the container's identity where
        /// the source is `&mut`.
        fn look(&mut self) -> Seen;
        /// What the group does with this source.
        fn role(&self) -> Role;
        /// Number of rows.
        fn len(&mut self) -> usize;
        /// The key at dense position `i < len()`.
        fn key_at(&mut self, i: usize) -> K;
        /// The dense position of `key`, if it holds a row.
        fn find(&mut self, key: K) -> Option<usize>;
        /// Swaps two rows (owned sources only).
        fn swap_rows(&mut self, a: usize, b: usize);
        /// Removes `key`'s row (the last row moving into the gap), if the
        /// source is mutable and holds it; whether it did.
        fn remove(&mut self, key: K) -> bool;
    }
}
use member::{Member, Role, Seen, Token, TOKEN};

mod sealed {
    pub trait Sealed {}
}

/// One source of a [`Group`]: `&mut` a container it owns, [`Without`] a
/// container it excludes, or [`Maybe`]`(&mut c)` an optional one (the
/// trait is sealed; the bounds are shown with [`GroupSources`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a source of a group",
    label = "a group owns `&mut table_or_map` and excludes `Without(&map)`",
    note = "a group reorders what it owns and its optional sources, so it takes them as `&mut` (`Maybe(&mut map)`)"
)]
pub trait GroupSource: sealed::Sealed {
    /// The id type of the keys.
    type Key: Id;
    #[doc(hidden)]
    type Member<'r>: Member<Self::Key>
    where
        Self: 'r;
    /// The container's rows, asked for once per call of the group: every
    /// check and every move of that call is on the same rows, whatever a
    /// `Container` of one's own answers at its next call.
    #[doc(hidden)]
    fn member(&mut self, token: Token) -> Self::Member<'_>;
}

/// What a group reaches of each source in one call.
mod members {
    use super::{Member, Role, Seen};
    use crate::record::Record;
    use crate::rows::{KeyOf, RowIndex, Rows};

    /// The rows of a source given mutably, for one call of a group.
    pub struct RowsMember<'r, X: RowIndex, T: Record> {
        pub(super) rows: &'r mut Rows<X, T>,
        pub(super) role: Role,
    }

    impl<X: RowIndex, T: Record> Member<KeyOf<X>> for RowsMember<'_, X, T> {
        fn look(&mut self) -> Seen {
            Seen {
                identity: self.rows.columns.claim_identity(),
                order: self.rows.columns.order(),
                len: self.rows.len(),
                role: self.role,
            }
        }
        fn role(&self) -> Role {
            self.role
        }
        fn len(&mut self) -> usize {
            self.rows.len()
        }
        fn key_at(&mut self, i: usize) -> KeyOf<X> {
            self.rows.all_keys()[i]
        }
        fn find(&mut self, key: KeyOf<X>) -> Option<usize> {
            self.rows.dense_index(key)
        }
        fn swap_rows(&mut self, a: usize, b: usize) {
            debug_assert!(
                self.role != Role::Excluded,
                "a group never reorders a source it excludes"
            );
            if a != b {
                self.rows.index.swap_dense(a, b);
                self.rows.columns.swap(a, b);
            }
        }
        fn remove(&mut self, key: KeyOf<X>) -> bool {
            self.rows.remove_row(key).is_some()
        }
    }

    /// The rows of an exclusion given as `Without(&c)`, for one call of a
    /// group.
    pub struct SharedMember<'r, X: RowIndex, T: Record>(pub(super) &'r Rows<X, T>);

    impl<X: RowIndex, T: Record> Member<KeyOf<X>> for SharedMember<'_, X, T> {
        fn look(&mut self) -> Seen {
            Seen {
                identity: self.0.columns.identity(),
                order: self.0.columns.order(),
                len: self.0.len(),
                role: Role::Excluded,
            }
        }
        fn role(&self) -> Role {
            Role::Excluded
        }
        fn len(&mut self) -> usize {
            self.0.len()
        }
        fn key_at(&mut self, i: usize) -> KeyOf<X> {
            self.0.all_keys()[i]
        }
        fn find(&mut self, key: KeyOf<X>) -> Option<usize> {
            self.0.dense_index(key)
        }
        fn swap_rows(&mut self, _: usize, _: usize) {
            debug_assert!(false, "a group never reorders a source it excludes");
        }
        fn remove(&mut self, _: KeyOf<X>) -> bool {
            false
        }
    }
}
use members::{RowsMember, SharedMember};

impl<C: Container> sealed::Sealed for Maybe<&mut C> {}
impl<C: Container> sealed::Sealed for &mut C {}
impl<C: Container> sealed::Sealed for Without<&C> {}
impl<C: Container> sealed::Sealed for Without<&mut C> {}

impl<C: Container> GroupSource for &mut C {
    type Key = KeyOf<C::Index>;
    type Member<'r>
        = RowsMember<'r, C::Index, C::Record>
    where
        Self: 'r;
    fn member(&mut self, _: Token) -> Self::Member<'_> {
        RowsMember {
            rows: self.rows_mut(RowsToken::new()),
            role: Role::Owned,
        }
    }
}
impl<C: Container> GroupSource for Without<&C> {
    type Key = KeyOf<C::Index>;
    type Member<'r>
        = SharedMember<'r, C::Index, C::Record>
    where
        Self: 'r;
    fn member(&mut self, _: Token) -> Self::Member<'_> {
        SharedMember(self.0.rows())
    }
}
impl<C: Container> GroupSource for Maybe<&mut C> {
    type Key = KeyOf<C::Index>;
    type Member<'r>
        = RowsMember<'r, C::Index, C::Record>
    where
        Self: 'r;
    fn member(&mut self, _: Token) -> Self::Member<'_> {
        RowsMember {
            rows: self.0.rows_mut(RowsToken::new()),
            role: Role::Optional,
        }
    }
}
impl<C: Container> GroupSource for Without<&mut C> {
    type Key = KeyOf<C::Index>;
    type Member<'r>
        = RowsMember<'r, C::Index, C::Record>
    where
        Self: 'r;
    fn member(&mut self, _: Token) -> Self::Member<'_> {
        RowsMember {
            rows: self.0.rows_mut(RowsToken::new()),
            role: Role::Excluded,
        }
    }
}

/// The first source of a group: one it owns, `&mut` a container (shown
/// with [`GroupSources`]).
#[diagnostic::on_unimplemented(
    message = "the first source of a group must be one it owns, not `{Self}`",
    label = "put a `&mut table_or_map` first",
    note = "a group's keys are read from its first source"
)]
pub trait FirstGroupSource: GroupSource {}
impl<C: Container> FirstGroupSource for &mut C {}

/// A tuple of [`GroupSource`]s, all keyed by one id type, the first one
/// owned: what a [`Group`] is made from and kept with. Implemented for
/// tuples of 1 to 8 (the trait is sealed).
///
/// ```
/// use idtable::group::{At, EditableSource, FirstGroupSource, GroupSource, GroupSources, Pick};
/// use idtable::{SoaAllocator, SoaMap, Without};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: f32 }
/// #[derive(SoaAllocator)]
/// pub struct Frozen { pub left: f32 }
///
/// fn sources<S: GroupSources<Key = UnitId>>(_: &S) -> bool { true }
/// fn first<S: FirstGroupSource>(_: &S) -> bool { true }
/// fn source<S: GroupSource>(_: &S) -> bool { true }
/// fn editable<S: EditableSource>(_: &S) -> bool { true }
/// fn picks<S: Pick<UnitId, Frozen, At<2>>>(_: &S) -> bool { true }
///
/// let mut units = UnitAllocator::new();
/// let mut hp: SoaMap<UnitId, f32> = SoaMap::new();
/// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
/// assert!(first(&&mut units) && source(&Without(&frozen)) && editable(&&mut hp));
/// let all = (&mut units, &mut hp, Without(&mut frozen));
/// assert!(sources(&all) && picks(&all));
/// ```
pub trait GroupSources: sealed::Sealed {
    /// The id type every source is keyed by.
    type Key: Id;
    #[doc(hidden)]
    fn with_members<R>(
        &mut self,
        token: Token,
        f: impl FnOnce(&mut [&mut dyn Member<Self::Key>]) -> R,
    ) -> R;
}

macro_rules! tuple_group_sources {
    ($first:ident $f:tt $(, $rest:ident $n:tt)*) => {
        impl<$first, $($rest,)*> sealed::Sealed for ($first, $($rest,)*) {}

        impl<$first: FirstGroupSource $(, $rest: GroupSource<Key = $first::Key>)*> GroupSources
            for ($first, $($rest,)*)
        {
            type Key = $first::Key;
            fn with_members<R>(
                &mut self,
                _: Token,
                f: impl FnOnce(&mut [&mut dyn Member<Self::Key>]) -> R,
            ) -> R {
                let mut members = (self.$f.member(TOKEN), $(self.$n.member(TOKEN),)*);
                f(&mut [&mut members.$f as &mut dyn Member<Self::Key> $(, &mut members.$n)*])
            }
        }
    };
}

tuple_group_sources!(A 0);
tuple_group_sources!(A 0, B 1);
tuple_group_sources!(A 0, B 1, C 2);
tuple_group_sources!(A 0, B 1, C 2, D 3);
tuple_group_sources!(A 0, B 1, C 2, D 3, E 4);
tuple_group_sources!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_group_sources!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_group_sources!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// Containers that keep the keys they share packed at the front, in one
/// order (the [module docs](self) show a whole system).
///
/// ```
/// use idtable::group::{Group, GroupJoin};
/// use idtable::{SoaAllocator, SoaMap, Without};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: f32 }
/// #[derive(SoaAllocator)]
/// pub struct Burning { pub dps: f32 }
/// #[derive(SoaAllocator)]
/// pub struct Frozen { pub left: f32 }
///
/// let mut units = UnitAllocator::new();
/// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
/// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
/// // The group owns the table too: burning units' rows come first in both.
/// let mut group = Group::new((&mut units, &mut burning, Without(&mut frozen)));
/// assert!(group.is_empty());
///
/// let a = units.insert(Unit { hp: 10.0 });
/// burning.insert(a, Burning { dps: 1.0 }); // bypasses the group
/// assert!(!group.is_aligned((&mut units, &mut burning, Without(&mut frozen))));
/// group.sync((&mut units, &mut burning, Without(&mut frozen)));
/// assert!(group.is_aligned((&mut units, &mut burning, Without(&mut frozen))));
/// assert_eq!(group.len(), 1);
/// assert_eq!(group.optional_len(), 0); // no `Maybe` source
///
/// let rows: GroupJoin<'_, _> = group.join((&mut units, &mut burning, Without(&frozen)));
/// for (_, (unit, fire, ())) in rows {
///     *unit.hp -= *fire.dps;
/// }
/// assert_eq!(*units.get(a).unwrap().hp, 9.0);
/// ```
#[derive(Clone, Debug)]
pub struct Group<K> {
    len: usize,
    /// The optional prefix: the keys of the group that every `Maybe`
    /// source holds too, first in each (`inner <= len`).
    inner: usize,
    /// The number of `Maybe` sources at the last call.
    optional: usize,
    seen: Vec<Seen>,
    _key: PhantomData<fn() -> K>,
}

impl<K: Id> Group<K> {
    /// Groups `sources`: moves every key that all owned sources hold and
    /// no excluded one does to the front of each owned source, in one
    /// order (one pass over the owned source with the fewest rows).
    pub fn new<S: GroupSources<Key = K>>(mut sources: S) -> Self {
        let mut group = Group {
            len: 0,
            inner: 0,
            optional: 0,
            seen: Vec::new(),
            _key: PhantomData,
        };
        sources.with_members(TOKEN, |members| group.rebuild(members));
        group
    }

    /// The number of keys in the group: the length of the aligned
    /// prefixes, as of the last call that took the sources.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of keys of the group that every `Maybe` source holds
    /// too: the optional prefix, `0..optional_len()`, first within
    /// `0..len()` (0 without `Maybe` sources).
    pub fn optional_len(&self) -> usize {
        self.inner
    }

    /// `true` if no key is in the group.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the sources are as the group left them (no change bypassed
    /// it since): the next call that takes them starts without a pass.
    pub fn is_aligned<S: GroupSources<Key = K>>(&self, mut sources: S) -> bool {
        sources.with_members(TOKEN, |members| {
            members.len() == self.seen.len()
                && members.iter_mut().zip(&self.seen).all(|(m, seen)| {
                    let now = m.look();
                    seen.identity != 0 && now == *seen
                })
        })
    }

    /// Brings the group up to date with changes that bypassed it: pushed
    /// rows are checked one by one, any other change rebuilds the prefix.
    /// Every call that takes the sources does this first.
    pub fn sync<S: GroupSources<Key = K>>(&mut self, mut sources: S) {
        sources.with_members(TOKEN, |members| self.sync_members(members));
    }

    /// The join of the group's sources over the aligned prefix: `(key,
    /// items)` for each key of the group, in the prefix's order, each
    /// item read at the same dense position of its container (no probe).
    /// An owned source yields its mutable row, an excluded one `()`, an
    /// optional one `Some` of its mutable row or `None`.
    pub fn join<'a, S>(&mut self, mut sources: S) -> GroupJoin<'a, S::Sources>
    where
        S: GroupSources<Key = K> + IntoSources<Key = K>,
        S::Sources: 'a,
    {
        sources.with_members(TOKEN, |members| self.sync_members(members));
        // The join asks each container for its rows again: they must be
        // the rows just aligned, which an honest `Container` gives (the
        // same at every call), and a `rows_mut` that hands out others (or
        // reorders them) must not make the join pair two keys' rows.
        let seen = &self.seen;
        let mut same = 0;
        let sources = sources.into_sources_seen(&mut |at, rows| {
            same += usize::from(match seen.get(at) {
                Some(s) if s.role == Role::Excluded => true, // never read
                Some(s) => rows == Some((s.identity, s.order, s.len)),
                None => false,
            });
        });
        assert!(
            same == seen.len(),
            "a `Container`'s `rows_mut` handed a group's join other rows than it had just \
             aligned: a container must hand out the same rows at every call"
        );
        // Every owned source holds at least `len` rows; a `Container`
        // whose `rows` and `rows_mut` disagree gets fewer rows, never a
        // read past its end.
        let (_, shortest) = sources.driver();
        debug_assert!(self.len <= shortest);
        let end = self.len.min(shortest);
        // Likewise every optional source holds at least `inner` rows.
        let inner = self
            .inner
            .min(sources.optional_min_len().unwrap_or(0))
            .min(end);
        GroupJoin {
            end,
            inner,
            // With one optional source, a key past the optional prefix
            // does not hold it; with more, it may hold some: probed.
            probe: self.optional > 1,
            sources,
            next: 0,
            _items: PhantomData,
        }
    }

    /// An edit of the group's sources: inserts and removes through it keep
    /// the group aligned.
    pub fn edit<S: GroupSources<Key = K>>(&mut self, mut sources: S) -> GroupEdit<'_, K, S> {
        sources.with_members(TOKEN, |members| self.sync_members(members));
        GroupEdit {
            group: self,
            sources,
        }
    }

    fn record(&mut self, members: &mut [&mut dyn Member<K>]) {
        self.seen.clear();
        self.seen.extend(members.iter_mut().map(|m| m.look()));
    }

    /// Takes into account a change an edit made itself to one of its maps,
    /// which had `before` (identity, order stamp, length) and now has
    /// `after`: if the group saw the map as it was just before, it now
    /// sees it as it is. Any other change is left for the next call's
    /// check to find.
    fn carry(&mut self, before: (u64, u64, usize), after: (u64, u64, usize)) {
        let (identity, order, len) = before;
        if identity == 0 {
            return;
        }
        if let Some(seen) = self.seen.iter_mut().find(|s| s.identity == identity) {
            if (seen.order, seen.len) == (order, len) {
                (seen.order, seen.len) = (after.1, after.2);
            }
        }
    }

    fn sync_members(&mut self, members: &mut [&mut dyn Member<K>]) {
        if members.len() != self.seen.len() {
            return self.rebuild(members);
        }
        let mut pushed = false;
        for (m, seen) in members.iter_mut().zip(&self.seen) {
            let now = m.look();
            if seen.identity == 0
                || now.identity != seen.identity
                || now.order != seen.order
                || now.role != seen.role
                || now.len < seen.len
            {
                return self.rebuild(members);
            }
            pushed |= now.len > seen.len;
        }
        if !pushed {
            return; // as the group left them
        }
        // Only pushes: every row is where it was, the new keys at the ends.
        // Each new key joins or leaves the group as it now qualifies.
        let mut fresh = Vec::new();
        for (m, seen) in members.iter_mut().zip(&self.seen) {
            let len = m.len();
            fresh.extend((seen.len..len).map(|i| m.key_at(i)));
        }
        for key in fresh {
            self.settle_key(members, key);
        }
        self.record(members);
    }

    /// Rebuilds the prefixes: one pass over the owned source with the
    /// fewest rows.
    fn rebuild(&mut self, members: &mut [&mut dyn Member<K>]) {
        self.len = 0;
        self.inner = 0;
        self.optional = members
            .iter()
            .filter(|m| m.role() == Role::Optional)
            .count();
        let mut driver = None;
        for (at, m) in members.iter_mut().enumerate() {
            if m.role() == Role::Owned {
                let len = m.len();
                if driver.is_none_or(|(_, best)| len < best) {
                    driver = Some((at, len));
                }
            }
        }
        if let Some((driver, _)) = driver {
            let mut i = 0;
            while i < members[driver].len() {
                let key = members[driver].key_at(i);
                // Positions below `len` hold members; `i >= len`, so the
                // row swapped to `i` was already looked at.
                self.settle_key(members, key);
                i += 1;
            }
        }
        self.record(members);
    }

    /// Moves `key` to the level it now qualifies for: out of the group,
    /// in it, or in its optional prefix too.
    fn settle_key(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        let want = self.level_wanted(members, key);
        let mut now = self.level(members, key);
        while now < want {
            now += 1;
            if now == 1 {
                self.enter(members, key);
            } else {
                self.enter_inner(members, key);
            }
        }
        while now > want {
            if now == 1 {
                self.leave(members, key);
            } else {
                self.leave_inner(members, key);
            }
            now -= 1;
        }
    }

    /// `key`'s place now: 0 outside the group, 1 in it, 2 in its optional
    /// prefix too.
    fn level(&self, members: &mut [&mut dyn Member<K>], key: K) -> u8 {
        match members.first_mut().and_then(|first| first.find(key)) {
            Some(p) if p < self.inner => 2,
            Some(p) if p < self.len => 1,
            _ => 0,
        }
    }

    /// The place `key` qualifies for: held by every owned source and by no
    /// excluded one (1), and by every optional one too, if there is one (2).
    fn level_wanted(&self, members: &mut [&mut dyn Member<K>], key: K) -> u8 {
        let mut optional = self.optional > 0;
        for m in members.iter_mut() {
            let held = m.find(key).is_some();
            match m.role() {
                Role::Owned if !held => return 0,
                Role::Excluded if held => return 0,
                Role::Optional => optional &= held,
                _ => {}
            }
        }
        1 + u8::from(optional)
    }

    /// Leaves the group altogether, from whatever place.
    fn leave_all(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        let now = self.level(members, key);
        if now == 2 {
            self.leave_inner(members, key);
        }
        if now >= 1 {
            self.leave(members, key);
        }
    }

    /// Swaps `key`'s row to position `to` in every source of these roles.
    fn move_key(members: &mut [&mut dyn Member<K>], key: K, to: usize, inner: bool) {
        for m in members.iter_mut() {
            let moves = match m.role() {
                Role::Owned => true,
                Role::Optional => inner,
                Role::Excluded => false,
            };
            if moves {
                if let Some(p) = m.find(key) {
                    m.swap_rows(p, to);
                }
            }
        }
    }

    /// `key` (outside, and qualifying) joins: to position `len` of every
    /// owned source, past the optional prefix.
    fn enter(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        Self::move_key(members, key, self.len, false);
        self.len += 1;
    }

    /// `key` (a member) leaves: to the group's last position in every owned
    /// source, which then shrinks by one.
    fn leave(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        self.len -= 1;
        Self::move_key(members, key, self.len, false);
    }

    /// `key` (a member, held by every optional source) joins the optional
    /// prefix: to position `inner` of every owned and optional source.
    fn enter_inner(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        Self::move_key(members, key, self.inner, true);
        self.inner += 1;
    }

    /// `key` leaves the optional prefix: to its last position in every
    /// owned and optional source, which then shrinks by one.
    fn leave_inner(&mut self, members: &mut [&mut dyn Member<K>], key: K) {
        self.inner -= 1;
        Self::move_key(members, key, self.inner, true);
    }
}

/// Edits of a group's sources that keep it aligned, from
/// [`Group::edit`]: each insert or remove is one call and a few row swaps.
/// The map is picked by the value's type; where two maps hold one type,
/// [`At`] names its position in the tuple.
///
/// ```
/// use idtable::group::{At, Group, GroupEdit};
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: f32 }
///
/// let mut units = UnitAllocator::new();
/// let a = units.insert(Unit { hp: 1.0 });
/// let mut speed: SoaMap<UnitId, f32> = SoaMap::new();
/// let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
/// let mut group = Group::new((&mut speed, &mut heat));
///
/// let mut edit: GroupEdit<'_, UnitId, _> = group.edit((&mut speed, &mut heat));
/// edit.insert::<f32, At<0>>(a, 2.0);
/// assert_eq!(edit.group().len(), 0); // not in `heat` yet
/// edit.insert::<f32, At<1>>(a, 5.0);
/// assert_eq!(edit.group().len(), 1);
/// assert_eq!(edit.remove::<f32, At<1>>(a), Some(5.0));
/// assert_eq!(edit.group().len(), 0);
/// assert_eq!(speed.get(a), Some(&2.0));
/// ```
pub struct GroupEdit<'g, K: Id, S: GroupSources<Key = K>> {
    group: &'g mut Group<K>,
    sources: S,
}

/// A source of a group that a [`GroupEdit`] can insert into and remove
/// from: `&mut` a [`SoaMap`], owned, [`Without`]`(&mut map)`, excluded, or
/// [`Maybe`]`(&mut map)`, optional (shown with [`GroupSources`]).
pub trait EditableSource: GroupSource {
    /// The component the map holds.
    type Record: Record;
    #[doc(hidden)]
    fn map(&mut self) -> &mut SoaMap<Self::Key, Self::Record>;
}

impl<K: Id, T: Record> EditableSource for &mut SoaMap<K, T> {
    type Record = T;
    fn map(&mut self) -> &mut SoaMap<K, T> {
        self
    }
}

impl<K: Id, T: Record> EditableSource for Maybe<&mut SoaMap<K, T>> {
    type Record = T;
    fn map(&mut self) -> &mut SoaMap<K, T> {
        self.0
    }
}

impl<K: Id, T: Record> EditableSource for Without<&mut SoaMap<K, T>> {
    type Record = T;
    fn map(&mut self) -> &mut SoaMap<K, T> {
        self.0
    }
}

/// Position `N` of a tuple, found by the type of what is stored there: an
/// inference marker for [`Pick`], named where two maps hold one type (as
/// in [`GroupEdit`]'s example).
pub struct At<const N: usize>;

/// The source of a tuple that holds `T`s, found by type (`At` is
/// inferred): what lets [`GroupEdit::insert`] pick the map by the value's
/// type. Ambiguous, and so a compile error, when two sources hold `T`
/// (the bound is shown with [`GroupSources`]).
#[diagnostic::on_unimplemented(
    message = "no source of this edit holds `{T}` mutably",
    label = "the value's type picks the map it goes into",
    note = "give the map as `&mut map` (owned), `Without(&mut map)` (excluded) or `Maybe(&mut map)` (optional) to `Group::edit`"
)]
pub trait Pick<K, T, At> {
    /// The source.
    type Source: EditableSource<Key = K, Record = T>;
    #[doc(hidden)]
    fn pick(&mut self) -> &mut Self::Source;
}

macro_rules! pick_impls {
    ($all:tt $($at:tt $ty:ident),+) => {$(
        pick_impls!(@one $all $at $ty);
    )+};
    (@one [$($all:ident),+] $at:tt $ty:ident) => {
        impl<K: Id, T, $($all),+> Pick<K, T, At<$at>> for ($($all,)+)
        where
            $ty: EditableSource<Key = K, Record = T>,
        {
            type Source = $ty;
            fn pick(&mut self) -> &mut $ty {
                &mut self.$at
            }
        }
    };
}

pick_impls!([A] 0 A);
pick_impls!([A, B] 0 A, 1 B);
pick_impls!([A, B, C] 0 A, 1 B, 2 C);
pick_impls!([A, B, C, D] 0 A, 1 B, 2 C, 3 D);
pick_impls!([A, B, C, D, E] 0 A, 1 B, 2 C, 3 D, 4 E);
pick_impls!([A, B, C, D, E, F] 0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
pick_impls!([A, B, C, D, E, F, G] 0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
pick_impls!([A, B, C, D, E, F, G, H] 0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);

impl<K: Id, S: GroupSources<Key = K>> GroupEdit<'_, K, S> {
    /// Inserts `value` for `key` into the source that holds `T`s (picked
    /// by type), as [`SoaMap::insert`]; `key` joins the group if it now
    /// qualifies, or leaves it if the source is an exclusion.
    pub fn insert<T: Record, N>(&mut self, key: K, value: T) -> Option<T>
    where
        S: Pick<K, T, N>,
    {
        let map = self.sources.pick().map();
        let before = stamp(map);
        let old = map.insert(key, value);
        let after = stamp(map);
        if after.1 == before.1 {
            // A push, or a value replaced: only `key` may change standing.
            self.group.carry(before, after);
        }
        // Else a stale entry of the same slot index was replaced in place:
        // its old key may have been a member, and the check that `settle`
        // starts with rebuilds the group.
        self.settle(key);
        old
    }

    /// Removes `key`'s `T` from the source that holds `T`s (picked by
    /// type), as [`SoaMap::remove`]; `key` leaves the group if it was a
    /// member, or joins it if the source is an exclusion and it now
    /// qualifies.
    pub fn remove<T: Record, N>(&mut self, key: K) -> Option<T>
    where
        S: Pick<K, T, N>,
    {
        let group = &mut *self.group;
        // Out of the group first: the removal then swaps in a row from
        // past every prefix.
        self.sources.with_members(TOKEN, |members| {
            group.sync_members(members);
            group.leave_all(members, key);
            group.record(members);
        });
        let map = self.sources.pick().map();
        let before = stamp(map);
        let old = map.remove(key);
        self.group.carry(before, stamp(map));
        self.settle(key);
        old
    }

    /// Removes `key` from every source of the edit that is given mutably
    /// (owned, optional, and excluded as `Without(&mut map)`), as
    /// [`remove_all`](crate::remove_all) does for ungrouped containers,
    /// keeping the group aligned: `key` leaves the group first, so each
    /// removal swaps in a row from past every prefix (a few row swaps,
    /// whatever the group's size). Returns how many sources held `key`; the
    /// removed values are dropped. Containers outside the group (a
    /// `DataMap`, other maps) are left to `remove_all`.
    ///
    /// ```
    /// use idtable::group::Group;
    /// use idtable::{SoaAllocator, SoaMap, Maybe, Without};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: f32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Frozen { pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut speed: SoaMap<UnitId, f32> = SoaMap::new();
    /// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    /// let mut heat: SoaMap<UnitId, u8> = SoaMap::new();
    /// let ids: Vec<UnitId> = (0..4).map(|_| units.insert(Unit { hp: 1.0 })).collect();
    /// let mut group = Group::new((&mut units, &mut speed, Without(&mut frozen), Maybe(&mut heat)));
    /// let mut edit = group.edit((&mut units, &mut speed, Without(&mut frozen), Maybe(&mut heat)));
    /// for &u in &ids {
    ///     edit.insert(u, 2.0_f32);
    ///     edit.insert(u, 7_u8);
    /// }
    /// assert_eq!(edit.remove_all(ids[1]), 3); // the unit, its speed and its heat
    /// assert_eq!(edit.group().len(), 3);
    /// drop(edit);
    /// assert!(!units.contains(ids[1]) && !speed.contains_key(ids[1]) && !heat.contains_key(ids[1]));
    /// assert!(group.is_aligned((&mut units, &mut speed, Without(&mut frozen), Maybe(&mut heat))));
    /// ```
    pub fn remove_all(&mut self, key: K) -> usize {
        let group = &mut *self.group;
        let mut removed = 0;
        self.sources.with_members(TOKEN, |members| {
            group.sync_members(members);
            group.leave_all(members, key);
            for m in members.iter_mut() {
                removed += usize::from(m.remove(key));
            }
            group.record(members);
        });
        removed
    }

    /// The group, up to date.
    pub fn group(&self) -> &Group<K> {
        self.group
    }

    /// Settles `key` after a change of one source through the edit, and
    /// records what the group now sees. Starts with the check every call
    /// makes: a change the edit did not make itself (and
    /// [`carry`](Group::carry)) is repaired first.
    fn settle(&mut self, key: K) {
        let group = &mut *self.group;
        self.sources.with_members(TOKEN, |members| {
            group.sync_members(members);
            group.settle_key(members, key);
            group.record(members);
        });
    }
}

/// A map's identity, order stamp and length.
fn stamp<K: Id, T: Record>(map: &SoaMap<K, T>) -> (u64, u64, usize) {
    let columns = &map.columns;
    (columns.identity(), columns.order(), map.len())
}

/// The iterator of a group's join, from [`Group::join`]: `(key, items)`
/// over the aligned prefix (named in [`Group`]'s example).
pub struct GroupJoin<'a, S> {
    sources: S,
    next: usize,
    end: usize,
    inner: usize,
    probe: bool,
    _items: PhantomData<&'a ()>,
}

impl<'a, S: Sources + 'a> GroupJoin<'a, S> {
    /// The key at `dense` and its items.
    ///
    /// # Safety
    ///
    /// `dense < end` of the join `sources`, `inner` and `probe` were made
    /// for (`Group::join`); no other item of the same key lives while
    /// these do.
    #[inline(always)]
    unsafe fn at(sources: &S, dense: usize, inner: usize, probe: bool) -> (S::Key, S::Items<'a>) {
        // SAFETY: `dense < end`, which is at most every owned source's
        // length (`Group::join`), and the first source is owned.
        let key = unsafe { sources.driver_key(0, dense) };
        let probes = sources.aligned(key, dense, dense < inner, probe);
        // SAFETY: every owned source holds a row at `dense`, each excluded
        // source's probe is `()`, and an optional source's is `dense` only
        // below `inner`, at most its length (`Group::join`), or its own
        // answer for `key`; the caller hands out each key once.
        (key, unsafe { sources.fetch_all(key, probes) })
    }
}

impl<'a, S: Sources + 'a> Iterator for GroupJoin<'a, S> {
    type Item = (S::Key, S::Items<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next < self.end {
            let dense = self.next;
            self.next += 1;
            // SAFETY: `dense < end`; each position is taken once, so no
            // other item of the same key lives.
            Some(unsafe { Self::at(&self.sources, dense, self.inner, self.probe) })
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

#[cfg(feature = "rayon")]
impl<'a, S: Sources + Send + Sync + 'a> GroupJoin<'a, S>
where
    S::Key: Send,
    S::Items<'a>: Send,
{
    /// The rows not yet visited as a rayon parallel iterator: the aligned
    /// prefix is split between threads, each key visited once, still with
    /// no probe per row. Needs every shared source's fields `Sync` and
    /// every owned source's fields `Send`.
    ///
    /// ```
    /// use idtable::group::Group;
    /// use idtable::{SoaAllocator, SoaMap, Without};
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Burning { pub dps: i32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Frozen { pub left: i32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    /// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    /// let ids: Vec<UnitId> = (0..1000).map(|_| units.insert(Unit { hp: 100 })).collect();
    /// let mut group = Group::new((&mut units, &mut burning, Without(&mut frozen)));
    /// let mut edit = group.edit((&mut units, &mut burning, Without(&mut frozen)));
    /// for (n, &u) in ids.iter().enumerate() {
    ///     if n % 2 == 0 {
    ///         edit.insert(u, Burning { dps: 3 });
    ///     }
    ///     if n % 4 == 0 {
    ///         edit.insert(u, Frozen { left: 1 });
    ///     }
    /// }
    /// group
    ///     .join((&mut units, &mut burning, Without(&frozen)))
    ///     .par_iter()
    ///     .for_each(|(_, (unit, fire, ()))| *unit.hp -= *fire.dps);
    /// assert_eq!(units.iter().filter(|(_, u)| *u.hp == 97).count(), 250);
    /// ```
    pub fn par_iter(
        self,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = (S::Key, S::Items<'a>)> + 'a {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        let GroupJoin {
            sources,
            next,
            end,
            inner,
            probe,
            ..
        } = self;
        (next..end).into_par_iter().map(move |dense| {
            // SAFETY: `next..end` is within the join's prefix; every dense
            // position of it is taken by one thread, once.
            unsafe { Self::at(&sources, dense, inner, probe) }
        })
    }
}

impl<'a, S: Sources + 'a> ExactSizeIterator for GroupJoin<'a, S> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a group reads to notice a bypass: pushes leave the order
    /// stamp alone; a stale entry replaced in place (by `insert` or by an
    /// entry) moves it, since another key now sits at that position.
    #[test]
    fn a_stale_entry_replaced_in_place_moves_the_order_stamp() {
        use crate::id::Id24_8;
        let mut map: SoaMap<Id24_8, u32> = SoaMap::new();
        let old = Id24_8::new(3, 1).unwrap();
        let newer = Id24_8::new(3, 2).unwrap();
        let other = Id24_8::new(4, 1).unwrap();
        map.insert(old, 1);
        let order = map.columns.order();
        map.insert(other, 2);
        assert_eq!(map.columns.order(), order, "a push");
        map.insert(newer, 3);
        assert_ne!(map.columns.order(), order, "`insert` over a stale entry");
        assert_eq!(map.get(newer).copied(), Some(3));

        let newest = Id24_8::new(3, 3).unwrap();
        let order = map.columns.order();
        map.entry(newest).unwrap().or_insert(4);
        assert_ne!(map.columns.order(), order, "an entry over a stale entry");
        assert_eq!(map.get(newest).copied(), Some(4));
    }

    #[test]
    fn an_empty_group_of_empty_maps() {
        use crate::id::Id24_8;
        let mut a: SoaMap<Id24_8, ()> = SoaMap::new();
        let g = Group::new((&mut a,));
        assert!(g.is_empty());
    }
}
