//! Joins: the rows one key has in several containers, read as one.
//!
//! An object's rows often live in several containers keyed by the same id
//! type: its table (a derived allocator), the [`SoaMap`]s of its
//! components, its [`DataMap`]. [`join`] reads them together, the way an
//! ECS query does, without a world: the containers stay the caller's own
//! values, borrowed for the join.
//!
//! ```
//! use idtable::{join, remove_all, Maybe, SoaAllocator, SoaMap, Without};
//!
//! #[derive(SoaAllocator)]
//! pub struct Unit { pub hp: f32 }
//! #[derive(SoaAllocator, Debug, PartialEq)]
//! pub struct Burning { pub dps: f32 }
//! #[derive(SoaAllocator, Debug, PartialEq)]
//! pub struct Frozen { pub left: f32 }
//!
//! let mut units = UnitAllocator::new();
//! let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
//! let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
//! let [a, b, c] = [10.0, 20.0, 30.0].map(|hp| units.insert(Unit { hp }));
//! burning.insert(a, Burning { dps: 1.0 });
//! burning.insert(b, Burning { dps: 2.0 });
//! frozen.insert(b, Frozen { left: 1.0 });
//!
//! // Every unit that burns: driven by `burning` (the smaller), `units` probed.
//! for (_, (unit, fire)) in join((&mut units, &burning)) {
//!     *unit.hp -= *fire.dps;
//! }
//! assert_eq!((*units.get(a).unwrap().hp, *units.get(b).unwrap().hp), (9.0, 18.0));
//!
//! // Optional and excluded sources.
//! let seen: Vec<_> = join((&units, Maybe(&burning), Without(&frozen)))
//!     .into_iter()
//!     .map(|(id, (_, fire, ()))| (id, fire.map(|f| *f.dps)))
//!     .collect();
//! assert_eq!(seen, [(a, Some(1.0)), (c, None)]);
//!
//! // One key across every source.
//! let mut j = join((&mut units, &burning, Maybe(&frozen)));
//! let (unit, fire, ice) = j.get(b).unwrap();
//! assert_eq!((*unit.hp, *fire.dps, ice.map(|f| *f.left)), (18.0, 2.0, Some(1.0)));
//! assert!(j.get(c).is_none()); // c does not burn
//!
//! // Remove one id from every container at once.
//! let (unit, fire, ice) = remove_all(b, (&mut units, &mut burning, &mut frozen));
//! assert_eq!((unit.map(|u| u.hp), fire, ice), (Some(18.0), Some(Burning { dps: 2.0 }), Some(Frozen { left: 1.0 })));
//! assert!(!units.contains(b) && !burning.contains_key(b) && !frozen.contains_key(b));
//! ```
//!
//! # Sources
//!
//! | source | yields | role |
//! | --- | --- | --- |
//! | `&table`, `&map` (a derived allocator, a [`SoaStorage`], a [`SoaMap`]) | `FooRef<'_>` | required |
//! | `&mut table`, `&mut map` | `FooMut<'_>` | required |
//! | `&data` (a [`DataMap`]) | its [`DataRef`] | required |
//! | [`Maybe(source)`](Maybe) | `Option` of the source's item | optional |
//! | [`Without(&source)`](Without) | `()` | the key must not be held |
//!
//! Tuples of 1 to 8 sources, all keyed by the same id type (a join of
//! `UnitId` and `ShipId` containers does not compile), at least one of them
//! required (a join of only `Maybe` and `Without` does not compile). A
//! container can be a source once (the borrow checker refuses `&mut units`
//! beside `&units`), so a join never hands out one row twice.
//!
//! # Order and cost
//!
//! Iteration visits every key held by all required sources and by no
//! `Without` source, once, in the dense order of the *driver*: the required
//! source with the fewest rows (the first listed on a tie). The driver's
//! rows are read at their dense position, every other source is probed by
//! key: the same work as the loop written by hand over the driver's keys
//! with `get` / `get_mut` on the others. Stale keys never match: an entry
//! answers only to the exact id it was stored with.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;

#[cfg(target_endian = "little")]
use crate::data::{DataMap, DataRef};
use crate::id::Id;
use crate::record::Record;
use crate::rows::{KeyOf, RowIndex, Rows};

#[allow(unused_imports)] // for the docs
use crate::{map::SoaMap, storage::SoaStorage};

/// A container of rows keyed by ids: a derived allocator, a
/// [`SoaStorage`](crate::SoaStorage) or a [`SoaMap`](crate::SoaMap). What
/// [`join`] and [`remove_all`] need of it: its [`Rows`], and how one key's
/// row is removed. `#[derive(SoaAllocator)]` implements it for the
/// allocator; see the [module docs](self) for an example.
pub trait Container {
    /// The index of its rows ([`IdTable`](crate::IdTable) or
    /// [`SparseSet`](crate::map::SparseSet)).
    type Index: RowIndex;
    /// The struct stored.
    type Record: Record;
    /// Its rows. See the [module docs](self)'s example.
    fn rows(&self) -> &Rows<Self::Index, Self::Record>;
    /// Its rows, mutably. See the [module docs](self)'s example.
    fn rows_mut(&mut self) -> &mut Rows<Self::Index, Self::Record>;
    /// Removes the row of `key` and returns it. See the
    /// [module docs](self)'s example.
    fn remove_row(&mut self, key: KeyOf<Self::Index>) -> Option<Self::Record>;
}

impl<T: Record, I: Id> Container for SoaStorage<T, I> {
    type Index = crate::IdTable<I>;
    type Record = T;
    #[inline(always)]
    fn rows(&self) -> &Rows<Self::Index, T> {
        self
    }
    #[inline(always)]
    fn rows_mut(&mut self) -> &mut Rows<Self::Index, T> {
        self
    }
    #[inline(always)]
    fn remove_row(&mut self, key: I) -> Option<T> {
        self.remove(key)
    }
}

impl<K: Id, T: Record> Container for SoaMap<K, T> {
    type Index = crate::map::SparseSet<K>;
    type Record = T;
    #[inline(always)]
    fn rows(&self) -> &Rows<Self::Index, T> {
        self
    }
    #[inline(always)]
    fn rows_mut(&mut self) -> &mut Rows<Self::Index, T> {
        self
    }
    #[inline(always)]
    fn remove_row(&mut self, key: K) -> Option<T> {
        self.remove(key)
    }
}

/// An optional source: the join yields `Some(item)` where the key is held,
/// `None` where it is not, and never skips a key for it. See the
/// [module docs](self)'s example.
#[derive(Clone, Copy, Debug)]
pub struct Maybe<S>(pub S);

/// An excluded source: the join skips the keys it holds and yields `()`
/// for it. See the [module docs](self)'s example.
#[derive(Clone, Copy, Debug)]
pub struct Without<S>(pub S);

/// Type-level yes and no, for "does this join have a required source".
pub mod flag {
    /// A yes or a no, with an `or`.
    pub trait Flag {
        /// `self || F`.
        type Or<F: Flag>: Flag;
    }
    /// Yes: the join has a required source.
    pub enum Yes {}
    /// No required source (yet).
    pub enum No {}
    impl Flag for Yes {
        type Or<F: Flag> = Yes;
    }
    impl Flag for No {
        type Or<F: Flag> = F;
    }

    /// Holds for [`Yes`] only: a join needs a required source to drive it.
    #[diagnostic::on_unimplemented(
        message = "a join needs at least one required source",
        label = "every source here is `Maybe(..)` or `Without(..)`",
        note = "add the table or map whose keys the join should visit, e.g. `join((&units, Maybe(&burning)))`"
    )]
    pub trait HasRequired {}
    impl HasRequired for Yes {}
}

use flag::{Flag, HasRequired, No, Yes};

mod sealed {
    /// Only idtable's sources are sources.
    pub trait Sealed {}
    impl<C: super::Container> Sealed for &C {}
    impl<C: super::Container> Sealed for &mut C {}
    #[cfg(target_endian = "little")]
    impl<K: crate::id::Id> Sealed for &crate::data::DataMap<K> {}
    impl<S: Sealed> Sealed for super::Maybe<S> {}
    impl<S: Sealed> Sealed for super::Without<S> {}
}

/// One source of a join, as the join drives it. Implemented for `&` and
/// `&mut` of every [`Container`], for `&DataMap`, and for [`Maybe`] and
/// [`Without`] of those (it is sealed).
///
/// The methods are the join's own (see the [module docs](self)); they are
/// public only because the trait is.
pub trait Source: sealed::Sealed {
    /// The id type of the keys.
    type Key: Id;
    /// What the join yields for this source, borrowed for `'b`.
    type Item<'b>
    where
        Self: 'b;
    /// What a probe found (a dense position, for a container).
    type Probe: Copy;
    /// [`Yes`](flag::Yes) for a required source, [`No`](flag::No) for
    /// `Maybe` and `Without`.
    type Required: Flag;

    /// The number of keys, for a required source (the join is driven by
    /// the smallest); `None` for an optional or excluded one.
    fn driver_len(&self) -> Option<usize>;
    /// The key at dense position `dense` (`dense < driver_len()`).
    fn key_at(&self, dense: usize) -> Self::Key;
    /// The probe of the row at dense position `dense`, for the driver.
    fn at_dense(&self, dense: usize) -> Self::Probe;
    /// Whether the join takes `key` for this source, and what it found:
    /// `None` rejects the key.
    fn probe(&self, key: Self::Key) -> Option<Self::Probe>;
    /// The item of `key`, which `probe` (or `at_dense`) found.
    ///
    /// # Safety
    ///
    /// `probe` is this source's answer for `key`, and the source has not
    /// changed since. A mutable source hands out its row for `'b`, which
    /// the caller chooses: while an item of one key lives, the caller
    /// fetches no other item of the same key.
    unsafe fn fetch<'b>(&mut self, key: Self::Key, probe: Self::Probe) -> Self::Item<'b>
    where
        Self: 'b;
}

/// Extends the lifetime of an item whose row the caller keeps exclusive.
///
/// # Safety
///
/// `Item<'b>` and `Item<'a>` differ only in a lifetime; the caller makes
/// sure the row outlives `'a` and is not reached otherwise while it lives.
#[inline(always)]
unsafe fn extend<T, U>(item: T) -> U {
    debug_assert_eq!(core::mem::size_of::<T>(), core::mem::size_of::<U>());
    let item = ManuallyDrop::new(item);
    // SAFETY: `T` and `U` are one type up to lifetimes (the caller's
    // contract), so the bits of one are a valid other.
    unsafe { core::ptr::read((&*item as *const T).cast::<U>()) }
}

macro_rules! container_source {
    ($($mutability:ident)?, $view:ident, $get:ident) => {
        impl<'a, C: Container> Source for &'a $($mutability)? C {
            type Key = KeyOf<C::Index>;
            type Item<'b>
                = <C::Record as Record>::$view<'b>
            where
                Self: 'b;
            type Probe = usize;
            type Required = Yes;

            #[inline(always)]
            fn driver_len(&self) -> Option<usize> {
                Some(self.rows().len())
            }
            #[inline(always)]
            fn key_at(&self, dense: usize) -> Self::Key {
                self.rows().keys()[dense]
            }
            #[inline(always)]
            fn at_dense(&self, dense: usize) -> usize {
                dense
            }
            #[inline(always)]
            fn probe(&self, key: Self::Key) -> Option<usize> {
                self.rows().dense_index(key)
            }
            #[inline(always)]
            unsafe fn fetch<'b>(&mut self, _key: Self::Key, dense: usize) -> Self::Item<'b>
            where
                Self: 'b,
            {
                let item = container_source!(@get self, $get, dense);
                // SAFETY: the row of `dense` is handed out once while it
                // lives (the caller's contract); the container is borrowed
                // for `'a`, which outlives `'b`.
                unsafe { extend::<_, Self::Item<'b>>(item) }
            }
        }
    };
    (@get $self:ident, row, $dense:ident) => {{
        let container: &C = *$self;
        container.rows().row($dense)
    }};
    (@get $self:ident, row_mut, $dense:ident) => { $self.rows_mut().row_mut($dense) };
}

container_source!(, Ref, row);
container_source!(mut, Mut, row_mut);

#[cfg(target_endian = "little")]
impl<'a, K: Id> Source for &'a DataMap<K> {
    type Key = K;
    type Item<'b>
        = DataRef<'b>
    where
        Self: 'b;
    type Probe = ();
    type Required = Yes;

    #[inline]
    fn driver_len(&self) -> Option<usize> {
        Some(self.len())
    }
    #[inline]
    fn key_at(&self, dense: usize) -> K {
        self.ids()[dense]
    }
    #[inline]
    fn at_dense(&self, _dense: usize) {}
    #[inline]
    fn probe(&self, key: K) -> Option<()> {
        self.contains(key).then_some(())
    }
    #[inline]
    unsafe fn fetch<'b>(&mut self, key: K, (): ()) -> DataRef<'b>
    where
        Self: 'b,
    {
        let map: &'a DataMap<K> = self;
        match map.entity(key) {
            Some(view) => view,
            None => unreachable!("a probed key is held"),
        }
    }
}

impl<S: Source> Source for Maybe<S> {
    type Key = S::Key;
    type Item<'b>
        = Option<S::Item<'b>>
    where
        Self: 'b;
    type Probe = Option<S::Probe>;
    type Required = No;

    #[inline(always)]
    fn driver_len(&self) -> Option<usize> {
        None
    }
    #[inline(always)]
    fn key_at(&self, dense: usize) -> S::Key {
        self.0.key_at(dense)
    }
    #[inline(always)]
    fn at_dense(&self, dense: usize) -> Option<S::Probe> {
        Some(self.0.at_dense(dense))
    }
    #[inline(always)]
    fn probe(&self, key: S::Key) -> Option<Option<S::Probe>> {
        Some(self.0.probe(key))
    }
    #[inline(always)]
    unsafe fn fetch<'b>(&mut self, key: S::Key, probe: Option<S::Probe>) -> Self::Item<'b>
    where
        Self: 'b,
    {
        // SAFETY: forwarded under the caller's contract.
        probe.map(|p| unsafe { self.0.fetch(key, p) })
    }
}

impl<S: Source> Source for Without<S> {
    type Key = S::Key;
    type Item<'b>
        = ()
    where
        Self: 'b;
    type Probe = ();
    type Required = No;

    #[inline(always)]
    fn driver_len(&self) -> Option<usize> {
        None
    }
    #[inline(always)]
    fn key_at(&self, dense: usize) -> S::Key {
        self.0.key_at(dense)
    }
    #[inline(always)]
    fn at_dense(&self, _dense: usize) {}
    #[inline(always)]
    fn probe(&self, key: S::Key) -> Option<()> {
        match self.0.probe(key) {
            Some(_) => None,
            None => Some(()),
        }
    }
    #[inline(always)]
    unsafe fn fetch<'b>(&mut self, _key: S::Key, (): ()) -> Self::Item<'b>
    where
        Self: 'b,
    {
    }
}

/// A tuple of [`Source`]s, all keyed by one id type: what [`join`] takes.
/// Implemented for tuples of 1 to 8 sources; see the [module docs](self).
pub trait Sources {
    /// The id type every source is keyed by.
    type Key: Id;
    /// One item per source, borrowed for `'b`.
    type Items<'b>
    where
        Self: 'b;
    /// The probes of one key, one per source.
    type Probes: Copy;
    /// [`Yes`](flag::Yes) if any source is required.
    type Required: Flag;

    /// The driver: the position in the tuple of the required source with
    /// the fewest keys (the first on a tie), and its length.
    fn driver(&self) -> (usize, usize);
    /// The key at dense position `dense` of the source at `driver`.
    fn driver_key(&self, driver: usize, dense: usize) -> Self::Key;
    /// The probes of `key`, the driver's at its dense position; `None` if
    /// a source rejects it.
    fn probe_all(&self, key: Self::Key, driver: usize, dense: usize) -> Option<Self::Probes>;
    /// The probes of `key` in every source.
    fn probe_key(&self, key: Self::Key) -> Option<Self::Probes>;
    /// The items of `key`.
    ///
    /// # Safety
    ///
    /// As [`Source::fetch`], for every source.
    unsafe fn fetch_all<'b>(&mut self, key: Self::Key, probes: Self::Probes) -> Self::Items<'b>
    where
        Self: 'b;
}

macro_rules! tuple_sources {
    ($first:ident $f:tt $(, $rest:ident $n:tt)*) => {
        impl<$first: Source $(, $rest: Source<Key = $first::Key>)*> Sources for ($first, $($rest,)*) {
            type Key = $first::Key;
            type Items<'b>
                = ($first::Item<'b>, $($rest::Item<'b>,)*)
            where
                Self: 'b;
            type Probes = ($first::Probe, $($rest::Probe,)*);
            type Required = tuple_sources!(@or $first $(, $rest)*);

            #[inline]
            fn driver(&self) -> (usize, usize) {
                let mut best = (usize::MAX, usize::MAX);
                for (at, len) in [(0, self.$f.driver_len()) $(, ($n, self.$n.driver_len()))*] {
                    if let Some(len) = len {
                        if best.0 == usize::MAX || len < best.1 {
                            best = (at, len);
                        }
                    }
                }
                best
            }
            #[inline]
            fn driver_key(&self, driver: usize, dense: usize) -> Self::Key {
                match driver {
                    $($n => self.$n.key_at(dense),)*
                    _ => self.$f.key_at(dense),
                }
            }
            #[inline(always)]
            fn probe_all(&self, key: Self::Key, driver: usize, dense: usize) -> Option<Self::Probes> {
                Some((
                    if driver == $f { self.$f.at_dense(dense) } else { self.$f.probe(key)? },
                    $(
                        if driver == $n {
                            self.$n.at_dense(dense)
                        } else {
                            self.$n.probe(key)?
                        },
                    )*
                ))
            }
            #[inline(always)]
            fn probe_key(&self, key: Self::Key) -> Option<Self::Probes> {
                Some((
                    self.$f.probe(key)?,
                    $(self.$n.probe(key)?,)*
                ))
            }
            #[inline(always)]
            unsafe fn fetch_all<'b>(&mut self, key: Self::Key, probes: Self::Probes) -> Self::Items<'b>
            where
                Self: 'b,
            {
                // SAFETY: forwarded under the caller's contract; the
                // sources are distinct values, so each is fetched once.
                unsafe {
                    (
                        self.$f.fetch(key, probes.$f),
                        $(self.$n.fetch(key, probes.$n),)*
                    )
                }
            }
        }
    };
    (@or $only:ident) => { $only::Required };
    (@or $first:ident $(, $rest:ident)+) => {
        <$first::Required as Flag>::Or<tuple_sources!(@or $($rest),+)>
    };
}

tuple_sources!(A 0);
tuple_sources!(A 0, B 1);
tuple_sources!(A 0, B 1, C 2);
tuple_sources!(A 0, B 1, C 2, D 3);
tuple_sources!(A 0, B 1, C 2, D 3, E 4);
tuple_sources!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_sources!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_sources!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// The rows that one key has in several containers, read as one: see the
/// [module docs](self) for the sources, the order and an example.
///
/// `sources` is a tuple of 1 to 8 sources, all keyed by the same id type,
/// at least one of them required.
#[inline]
pub fn join<'a, S: Sources + 'a>(sources: S) -> Join<'a, S>
where
    S::Required: HasRequired,
{
    Join {
        sources,
        _items: PhantomData,
    }
}

/// A join of [`Sources`], from [`join`]: iterate it (`for (id, items) in
/// join(..)`), or ask it for one key with [`get`](Join::get). See the
/// [module docs](self)'s example.
pub struct Join<'a, S> {
    sources: S,
    // The items of the iteration borrow the containers for `'a` (`S: 'a`).
    _items: PhantomData<&'a ()>,
}

impl<'a, S: Sources + 'a> Join<'a, S> {
    /// The items of `key` in every source, if the join takes it (held by
    /// every required source and by no `Without` source). See the
    /// [module docs](self)'s example.
    #[inline]
    pub fn get(&mut self, key: S::Key) -> Option<S::Items<'_>> {
        let probes = self.sources.probe_key(key)?;
        // SAFETY: the probes were just taken and the sources are borrowed
        // mutably for the items' lifetime, so no other item lives beside.
        Some(unsafe { self.sources.fetch_all(key, probes) })
    }
}

impl<'a, S: Sources + 'a> IntoIterator for Join<'a, S> {
    type Item = (S::Key, S::Items<'a>);
    type IntoIter = JoinIter<'a, S>;

    #[inline]
    fn into_iter(self) -> JoinIter<'a, S> {
        let (driver, len) = self.sources.driver();
        JoinIter {
            sources: self.sources,
            driver,
            next: 0,
            end: len,
            _items: PhantomData,
        }
    }
}

/// The iterator of a [`Join`]: `(key, items)` in the driver's dense order.
/// See the [module docs](self)'s example.
pub struct JoinIter<'a, S> {
    sources: S,
    driver: usize,
    next: usize,
    end: usize,
    _items: PhantomData<&'a ()>,
}

impl<'a, S: Sources + 'a> Iterator for JoinIter<'a, S> {
    type Item = (S::Key, S::Items<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.end {
            let dense = self.next;
            self.next += 1;
            let key = self.sources.driver_key(self.driver, dense);
            if let Some(probes) = self.sources.probe_all(key, self.driver, dense) {
                // SAFETY: the driver's keys are distinct and each is
                // visited once, and every index maps a key to one row:
                // no row is handed out twice. The sources are owned by
                // the iterator and borrowed from their containers for
                // `'a`, and nothing else reaches them meanwhile.
                let items = unsafe { self.sources.fetch_all(key, probes) };
                return Some((key, items));
            }
        }
        None
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.end - self.next))
    }
}

impl<'a, S: Sources + 'a> core::iter::FusedIterator for JoinIter<'a, S> {}

/// A tuple of containers (`&mut` each) from which one key is removed at
/// once: what [`remove_all`] takes. Implemented for tuples of 1 to 8 of
/// `&mut` a [`Container`] (a derived allocator, a `SoaStorage`, a
/// `SoaMap`) or a `&mut DataMap`, all keyed by one id type.
pub trait RemoveAll<K: Id> {
    /// One result per container: the removed row as an `Option` for a
    /// table or a map, a `bool` for a `DataMap`.
    type Removed;
    /// Removes `key` from every container. See the [module docs](self)'s
    /// example.
    fn remove_all(self, key: K) -> Self::Removed;
}

/// One container of [`remove_all`].
pub trait RemoveFrom<K: Id> {
    /// What removing a key gives back.
    type Removed;
    /// Removes `key`. See the [module docs](self)'s example.
    fn remove_from(self, key: K) -> Self::Removed;
}

impl<C: Container> RemoveFrom<KeyOf<C::Index>> for &mut C {
    type Removed = Option<C::Record>;
    #[inline]
    fn remove_from(self, key: KeyOf<C::Index>) -> Option<C::Record> {
        self.remove_row(key)
    }
}

#[cfg(target_endian = "little")]
impl<K: Id> RemoveFrom<K> for &mut DataMap<K> {
    type Removed = bool;
    #[inline]
    fn remove_from(self, key: K) -> bool {
        self.remove(key)
    }
}

macro_rules! tuple_remove {
    ($($s:ident),+; $($n:tt),+) => {
        impl<K: Id, $($s: RemoveFrom<K>),+> RemoveAll<K> for ($($s,)+) {
            type Removed = ($($s::Removed,)+);
            #[inline]
            fn remove_all(self, key: K) -> Self::Removed {
                ($(self.$n.remove_from(key),)+)
            }
        }
    };
}

tuple_remove!(A; 0);
tuple_remove!(A, B; 0, 1);
tuple_remove!(A, B, C; 0, 1, 2);
tuple_remove!(A, B, C, D; 0, 1, 2, 3);
tuple_remove!(A, B, C, D, E; 0, 1, 2, 3, 4);
tuple_remove!(A, B, C, D, E, F; 0, 1, 2, 3, 4, 5);
tuple_remove!(A, B, C, D, E, F, G; 0, 1, 2, 3, 4, 5, 6);
tuple_remove!(A, B, C, D, E, F, G, H; 0, 1, 2, 3, 4, 5, 6, 7);

/// Removes `key` from every container of `containers` (a tuple of `&mut`
/// tables, maps and `DataMap`s), so none is forgotten; returns one result
/// per container. See the [module docs](self)'s example.
#[inline]
pub fn remove_all<K: Id, R: RemoveAll<K>>(key: K, containers: R) -> R::Removed {
    containers.remove_all(key)
}
