//! Joins: the rows one key has in several containers, read as one.
//!
//! An object's rows often live in several containers keyed by the same id
//! type: its table (a derived allocator), the [`SoaMap`](crate::SoaMap)s of its
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
//! | `&table`, `&map` (a derived allocator, a [`SoaStorage`], a [`SoaMap`](crate::SoaMap)) | `FooRef<'_>` | required |
//! | `&mut table`, `&mut map` | `FooMut<'_>` | required |
//! | `&data` (a [`DataMap`]) | its [`DataRef`] | required |
//! | [`Maybe(source)`](Maybe) | `Option` of the source's item | optional |
//! | [`Without(&source)`](Without) | `()` | the key must not be held |
//! | [`Driver(source)`](Driver) | the source's item | required, and the driver |
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
//!
//! A join that picks its driver when it starts is compiled with one loop
//! per required source that could drive. Where you know which source is
//! the smaller, name it: [`Driver(source)`](Driver) fixes the driver at
//! compile time, and the compiler builds only the loop written by hand
//! over its keys (less code; the same speed or a little better).
//! benches/NOTES.md ("The join's rule by hand, and `Driver`") has the
//! figures.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

use crate::columns::{RowHandle, RowHandleMut};
#[cfg(target_endian = "little")]
use crate::data::{DataMap, DataRef};
use crate::id::Id;
use crate::marks::Detached;
use crate::record::{make_mut, make_ref, Record};
use crate::rows::sealed::Index as _;
use crate::rows::{self, KeyOf, RowIndex, Rows};

use crate::storage::SoaStorage;

/// A container of rows keyed by ids: a derived allocator, a
/// [`SoaStorage`] or a [`SoaMap`](crate::SoaMap). What
/// [`join`], [`remove_all`] and [groups](crate::group) need of it: its
/// [`Rows`]. `#[derive(SoaAllocator)]` implements it for the
/// allocator; [`Sources`] calls its methods step by step.
///
/// A container is its rows: `rows` and `rows_mut` should hand out the
/// same rows at every call and leave them as they are (the [`RowsToken`]
/// example shows a container of one's own). idtable does not take this on
/// trust from another crate's code: it removes a key's row itself, with
/// the rows engine (the last row moves into the gap), and a
/// [`Group`](crate::group::Group) asks for a container's rows once per
/// call and checks them (identity, order stamp, length) before relying on
/// them. A `rows_mut` that hands out other rows, or reorders them, makes a
/// group rebuild, or its join panic; never yield a row of another key.
pub trait Container {
    /// The index of its rows ([`IdTable`](crate::IdTable) or
    /// [`SparseSet`](crate::map::SparseSet)).
    type Index: RowIndex;
    /// The struct stored.
    type Record: Record;
    /// Its rows.
    fn rows(&self) -> &Rows<Self::Index, Self::Record>;
    /// Its rows, mutably, for this crate's joins only: the
    /// [`RowsToken`] it takes cannot be made outside idtable, so no other
    /// code can swap another table's rows, with another configuration,
    /// into a container. The derive implements it as
    /// `fn rows_mut(&mut self, t: RowsToken<Self>) -> &mut Rows<…> { t.storage_rows(&mut self.storage) }`.
    fn rows_mut(&mut self, token: RowsToken<Self>) -> &mut Rows<Self::Index, Self::Record>
    where
        Self: Sized;
}

/// What [`Container::rows_mut`] takes: made only inside idtable, so only
/// idtable's joins can reach a container's rows mutably. A token is for
/// one container type and is used up by the call.
///
/// A container of one's own, keeping its rows in a [`SoaStorage`], is what
/// the derive writes for an allocator; a join calls its `rows_mut`:
///
/// ```
/// use idtable::join::{Container, RowsToken};
/// use idtable::rows::Rows;
/// use idtable::{join, IdTable, SoaAllocator, SoaStorage};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
///
/// /// Units that only a squad's own methods insert.
/// pub struct Squad { units: SoaStorage<UnitId, Unit> }
///
/// impl Container for Squad {
///     type Index = IdTable<UnitId>;
///     type Record = Unit;
///     fn rows(&self) -> &Rows<IdTable<UnitId>, Unit> {
///         Container::rows(&self.units)
///     }
///     // Called by `join` (`Container::rows_mut(&mut squad, token)`),
///     // never by other code: it cannot make a token.
///     fn rows_mut(&mut self, token: RowsToken<Self>) -> &mut Rows<IdTable<UnitId>, Unit> {
///         token.storage_rows(&mut self.units)
///     }
/// }
///
/// let mut squad = Squad { units: SoaStorage::default() };
/// let a = squad.units.insert(Unit { hp: 3 });
/// for (_, (unit,)) in join((&mut squad,)) {
///     *unit.hp -= 1;
/// }
/// assert_eq!(*Container::rows(&squad).get(a).unwrap().hp, 2);
/// ```
pub struct RowsToken<C>(PhantomData<fn() -> C>);

impl<C> RowsToken<C> {
    #[inline(always)]
    pub(crate) const fn new() -> Self {
        RowsToken(PhantomData)
    }

    /// The rows of `storage`, mutably, for a container that keeps its rows
    /// in a [`SoaStorage`] (every derived allocator: its `rows_mut` is
    /// `token.storage_rows(&mut self.storage)`). It gives nothing more than
    /// the storage itself does: a container's own storage is private to it.
    #[inline(always)]
    pub fn storage_rows<T: Record, I: Id>(
        self,
        storage: &mut SoaStorage<I, T>,
    ) -> &mut Rows<crate::IdTable<I>, T>
    where
        C: Container<Index = crate::IdTable<I>, Record = T>,
    {
        storage
    }
}

/// The runtime's table and map: each is its rows.
impl<X: RowIndex, T: Record> Container for Rows<X, T> {
    type Index = X;
    type Record = T;
    #[inline(always)]
    fn rows(&self) -> &Rows<X, T> {
        self
    }
    #[inline(always)]
    fn rows_mut(&mut self, _: RowsToken<Self>) -> &mut Rows<X, T> {
        self
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

/// A required source chosen as the driver, whatever its length: the join
/// visits keys in its dense order. The choice is made at compile time, so
/// the compiler builds one loop (the one written by hand over this
/// source's keys) where a join that picks its driver when it starts holds
/// one loop per required source that could drive. Only a required source
/// can drive (`Driver(Maybe(..))` does not compile); if several sources
/// are `Driver`s, the first listed drives.
///
/// ```
/// use idtable::{join, Driver, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
/// #[derive(SoaAllocator)]
/// pub struct Burning { pub dps: i32 }
///
/// let mut units = UnitAllocator::new();
/// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
/// let [a, b, c] = [10, 20, 30].map(|hp| units.insert(Unit { hp }));
/// burning.insert(c, Burning { dps: 3 });
/// burning.insert(a, Burning { dps: 1 });
///
/// // `burning` drives: its dense order (c, then a), one loop compiled.
/// let mut seen = Vec::new();
/// for (id, (unit, fire)) in join((&mut units, Driver(&burning))) {
///     *unit.hp -= *fire.dps;
///     seen.push(id);
/// }
/// assert_eq!(seen, [c, a]);
/// // `units` drives though it is the larger: the table's order.
/// let order: Vec<_> = join((Driver(&units), &burning)).into_iter().map(|(id, _)| id).collect();
/// assert_eq!(order, [a, c]);
/// # let _ = b;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Driver<S: IntoSource<Source: Drivable>>(pub S);

/// Type-level yes and no, for "does this join have a required source":
/// [`Source::Required`] is `Yes` for a required source and `No` for
/// `Maybe` and `Without`; a join compiles only when one of its sources is
/// required.
///
/// ```
/// use idtable::join::flag::{Flag, HasRequired, No, Yes};
///
/// fn type_of<T>() -> &'static str {
///     core::any::type_name::<T>()
/// }
/// fn joinable<F: HasRequired>() {}
/// // A tuple's flag is the `or` of its sources': one required source is enough.
/// assert_eq!(type_of::<<No as Flag>::Or<Yes>>(), type_of::<Yes>());
/// assert_eq!(type_of::<<No as Flag>::Or<No>>(), type_of::<No>());
/// joinable::<<No as Flag>::Or<Yes>>(); // `No` alone does not compile
/// ```
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
use sealed::Remove as _;

mod sealed {
    /// Only idtable's sources are sources.
    pub trait Sealed {}
    impl<C: super::Container> Sealed for &C {}
    impl<C: super::Container> Sealed for &mut C {}
    #[cfg(target_endian = "little")]
    impl<K: crate::id::Id> Sealed for &crate::data::DataMap<K> {}
    impl<S: Sealed> Sealed for super::Maybe<S> {}
    impl<S: Sealed> Sealed for super::Without<S> {}
    impl<S: super::IntoSource<Source: super::Drivable>> Sealed for super::Driver<S> {}
    impl<X: crate::rows::RowIndex, T: crate::record::Record> Sealed for super::Shared<'_, X, T> {}
    impl<X: crate::rows::RowIndex, T: crate::record::Record> Sealed for super::Exclusive<'_, X, T> {}

    /// How a join removes rows from a [`Removable`](super::Removable)
    /// source: through the borrow it was made from, once no item of the
    /// join lives.
    pub trait Remove<K, R> {
        /// Detaches the keys at the positions `dense` (in bounds,
        /// ascending), noted in `span`: the marks of a removal by `retain`
        /// (`rows::detach`).
        ///
        /// # Safety
        ///
        /// No item this source handed out lives.
        unsafe fn detach(&mut self, span: &mut crate::marks::Detached, dense: &[usize]);
        /// Takes back the detachments of `span`: no row is removed.
        ///
        /// # Safety
        ///
        /// As `detach`.
        unsafe fn reattach(&mut self, span: crate::marks::Detached);
        /// Removes the rows detached in `span`, keeping the others in
        /// order; `span` is taken unless the index's readying for it
        /// panics (nothing has changed then: see `Rows::remove_detached`).
        ///
        /// # Safety
        ///
        /// As `detach`.
        unsafe fn remove_detached(&mut self, span: &mut crate::marks::Detached);
        /// Removes the row at `dense` (in bounds), the last row moving
        /// into the gap, and returns it.
        ///
        /// # Safety
        ///
        /// As `detach`.
        unsafe fn swap_remove(&mut self, dense: usize) -> (K, R);
    }

    /// Only tuples are [`IntoSources`](super::IntoSources) and
    /// [`Sources`](super::Sources): a join trusts what they answer (its
    /// driver, the keys at its dense positions).
    pub trait Tuple {}
}

/// What a join is given: `&` or `&mut` of a [`Container`], a `&DataMap`,
/// or [`Maybe`] / [`Without`] of those (the trait is sealed). It becomes a
/// [`Source`] when the join is made, as [`Sources`] shows.
pub trait IntoSource: sealed::Sealed {
    /// The id type of the keys.
    type Key: Id;
    /// What the join reads.
    type Source: Source<Key = Self::Key>;
    /// The source, borrowing what `self` borrows.
    fn into_source(self) -> Self::Source;
    /// The source, and for `&mut` a container (in a `Maybe` or not) the
    /// identity, order stamp and length of the rows it reads: what a
    /// [`Group`](crate::group::Group) checks against the rows it aligned.
    #[doc(hidden)]
    #[inline(always)]
    fn into_source_seen(self) -> (Self::Source, Option<(u64, u64, usize)>)
    where
        Self: Sized,
    {
        (self.into_source(), None)
    }
}

/// One source of a join, as the join drives it (the trait is sealed). Its
/// methods are the join's own, public only because the trait is;
/// [`Sources`] calls each of them step by step.
pub trait Source: sealed::Sealed {
    /// The id type of the keys.
    type Key: Id;
    /// What the join yields for this source, borrowed for `'b`.
    type Item<'b>
    where
        Self: 'b;
    /// What a probe found (a dense position, for a container).
    type Probe: Copy;
    /// [`Yes`] for a required source, [`No`] for
    /// `Maybe` and `Without`.
    type Required: Flag;
    /// When the join probes this source for a key: `Without` sources
    /// first (0), then required ones (1), then `Maybe` ones (2), so a key
    /// is rejected before the probes that cannot reject it.
    const ORDER: u8;
    /// Whether this source was chosen as the driver ([`Driver`]).
    const DRIVES: bool = false;

    /// The number of keys, for a required source (the join is driven by
    /// the smallest); `None` for an optional or excluded one.
    fn driver_len(&self) -> Option<usize> {
        None
    }
    /// The key at dense position `dense`.
    ///
    /// # Safety
    ///
    /// `dense < driver_len()`.
    unsafe fn key_at(&self, dense: usize) -> Self::Key {
        let _ = dense;
        unreachable!("only a required source (with a length) drives a join")
    }
    /// The probe of the row at dense position `dense`, for the driver.
    fn at_dense(&self, dense: usize) -> Self::Probe;
    /// Whether the join takes `key` for this source, and what it found:
    /// `None` rejects the key.
    fn probe(&self, key: Self::Key) -> Option<Self::Probe>;
    /// The item of `key`, which `probe` (or `at_dense`) found.
    ///
    /// # Safety
    ///
    /// `probe` is this source's answer for `key`. A mutable source hands
    /// out its row for `'b`, which the caller chooses within the borrow the
    /// source was made from: while an item of one key lives, the caller
    /// (on any thread) fetches no other item of the same key.
    unsafe fn fetch<'b>(&self, key: Self::Key, probe: Self::Probe) -> Self::Item<'b>
    where
        Self: 'b;
    /// The probe of `key` at dense position `dense` of a source a
    /// [`Group`](crate::group::Group) keeps aligned: a container or a
    /// `Without` answers as [`at_dense`](Source::at_dense); a `Maybe`
    /// holds the key at `dense` if `held` (the group's optional prefix),
    /// else does not, or is probed by key if `probe`.
    #[doc(hidden)]
    #[inline(always)]
    fn at_aligned(&self, key: Self::Key, dense: usize, held: bool, probe: bool) -> Self::Probe {
        let _ = (key, held, probe);
        self.at_dense(dense)
    }
    /// The number of rows of a `Maybe` source's container (`None` for
    /// other sources), for a group's optional prefix.
    #[doc(hidden)]
    #[inline(always)]
    fn optional_len(&self) -> Option<usize> {
        None
    }
}

/// Changes the lifetime of an item, which is all that differs between
/// `T` and `U`.
///
/// # Safety
///
/// `T` and `U` are one type up to lifetimes; the caller makes sure the
/// borrow it hands out is valid for its new lifetime.
#[inline(always)]
unsafe fn relife<T, U>(item: T) -> U {
    debug_assert_eq!(core::mem::size_of::<T>(), core::mem::size_of::<U>());
    let item = ManuallyDrop::new(item);
    // SAFETY: `T` and `U` are one type up to lifetimes (the caller's
    // contract), so the bits of one are a valid other.
    unsafe { core::ptr::read((&*item as *const T).cast::<U>()) }
}

/// A container read through `&`: its rows, shared (what `&container`
/// becomes in a join; [`Sources`] makes one).
pub struct Shared<'a, X: RowIndex, T: Record> {
    keys: &'a [KeyOf<X>],
    index: &'a X,
    /// The index's `near_only()` when the join was made (its keys cannot
    /// change while the join borrows it).
    near_only: bool,
    rows: RowHandle<'a, T::Tree>,
}

/// A container read through `&mut`: its index, and its rows handed out
/// mutably one key at a time (what `&mut container` becomes in a join;
/// [`Sources`] makes one).
///
/// It keeps the container's rows as pointers rather than references, all
/// made from `origin`, the one `&mut` borrow the join took: so
/// [`Join::retain`] and [`Join::extract_if`] can remove rows through
/// `origin` once no item of the join lives (a reference held beside it
/// would forbid the write).
pub struct Exclusive<'a, X: RowIndex, T: Record> {
    origin: NonNull<Rows<X, T>>,
    keys: NonNull<[KeyOf<X>]>,
    index: NonNull<X>,
    /// As [`Shared`]'s.
    near_only: bool,
    rows: RowHandleMut<'a, T::Tree>,
    _borrow: PhantomData<&'a mut Rows<X, T>>,
}

// SAFETY: `Exclusive` stands for the `&'a mut Rows<X, T>` it was made from,
// sharing its keys and index and handing out distinct rows: what the
// references it replaces (`&'a [K]`, `&'a X`) and its row handle allow.
unsafe impl<'a, X: RowIndex + Sync, T: Record> Send for Exclusive<'a, X, T> where
    RowHandleMut<'a, T::Tree>: Send
{
}
// SAFETY: as above; `&Exclusive` reads the keys and the index, and hands
// out rows as the handle's `Sync` allows.
unsafe impl<'a, X: RowIndex + Sync, T: Record> Sync for Exclusive<'a, X, T> where
    RowHandleMut<'a, T::Tree>: Sync
{
}

impl<'a, X: RowIndex, T: Record> Exclusive<'a, X, T> {
    /// The source of `rows`.
    #[inline(always)]
    fn new(rows: &'a mut Rows<X, T>) -> Self {
        let origin = NonNull::from(rows);
        // SAFETY: `origin` comes from the `&'a mut` the join took.
        unsafe { Exclusive::from_origin(origin) }
    }

    /// The source of the rows behind `origin`, borrowed mutably for `'a`.
    ///
    /// # Safety
    ///
    /// `origin` is valid and unaliased for `'a` but through what this
    /// returns (it comes from a `&'a mut`).
    #[inline(always)]
    unsafe fn from_origin(origin: NonNull<Rows<X, T>>) -> Self {
        // SAFETY: the caller's promise; the parts below are made from this
        // borrow, so a later `&mut *origin` supersedes them all.
        let Rows { index, columns } = unsafe { &mut *origin.as_ptr() };
        Exclusive {
            origin,
            keys: NonNull::from(index.keys()),
            index: NonNull::from(&*index),
            near_only: index.near_only(),
            rows: columns.handle_mut(),
            _borrow: PhantomData,
        }
    }

    #[inline(always)]
    fn keys(&self) -> &[KeyOf<X>] {
        // SAFETY: made from the borrow of `origin`, which nothing changes
        // while `self` reads it (only `retain` and `extract_if` write, and
        // they make the parts anew after).
        unsafe { self.keys.as_ref() }
    }

    #[inline(always)]
    fn index(&self) -> &X {
        // SAFETY: as `keys`.
        unsafe { self.index.as_ref() }
    }
}

impl<'a, X: RowIndex, T: Record> Shared<'a, X, T> {
    #[inline(always)]
    fn keys(&self) -> &'a [KeyOf<X>] {
        self.keys
    }

    #[inline(always)]
    fn index(&self) -> &'a X {
        self.index
    }
}

impl<X: RowIndex, T: Record> sealed::Remove<KeyOf<X>, T> for Exclusive<'_, X, T> {
    unsafe fn detach(&mut self, span: &mut Detached, dense: &[usize]) {
        // SAFETY: `origin` is the join's `&mut` borrow of the rows; no item
        // made from the parts lives (the caller's promise), and the parts
        // are made anew from the new borrow.
        unsafe {
            let index = &mut (*self.origin.as_ptr()).index;
            for &d in dense {
                let key = index.keys()[d];
                rows::detach(index, span, key, d);
            }
            *self = Exclusive::from_origin(self.origin);
        }
    }
    unsafe fn reattach(&mut self, span: Detached) {
        // SAFETY: as `detach`.
        unsafe {
            rows::reattach(&mut (*self.origin.as_ptr()).index, span);
            *self = Exclusive::from_origin(self.origin);
        }
    }
    unsafe fn remove_detached(&mut self, span: &mut Detached) {
        // SAFETY: as `detach`.
        unsafe {
            (*self.origin.as_ptr()).remove_detached(span);
            *self = Exclusive::from_origin(self.origin);
        }
    }
    unsafe fn swap_remove(&mut self, dense: usize) -> (KeyOf<X>, T) {
        // SAFETY: as `detach`.
        unsafe {
            let removed = (*self.origin.as_ptr()).swap_remove_dense(dense);
            *self = Exclusive::from_origin(self.origin);
            removed
        }
    }
}

/// A source a join can remove rows from, with [`Join::retain`] and
/// [`Join::extract_if`]: `&mut` a table or a map, or a [`Driver`] of one
/// (the trait is sealed; shown with [`RemovingSources`]).
#[diagnostic::on_unimplemented(
    message = "a join removes rows from its first source, which must be `&mut` a table or a map",
    label = "this source cannot lose rows through the join",
    note = "list the container to remove from first, mutably, e.g. `join((&mut burning, &units)).retain(..)`"
)]
pub trait Removable: Source<Probe = usize> + sealed::Remove<Self::Key, Self::Record> {
    /// The record a removed row gives back.
    type Record;
}

impl<X: RowIndex, T: Record> Removable for Exclusive<'_, X, T> {
    type Record = T;
}

impl<S: Drivable + Removable> sealed::Remove<<S as Source>::Key, S::Record> for Driver<S> {
    unsafe fn detach(&mut self, span: &mut Detached, dense: &[usize]) {
        // SAFETY: forwarded under the caller's promise.
        unsafe { self.0.detach(span, dense) }
    }
    unsafe fn reattach(&mut self, span: Detached) {
        // SAFETY: forwarded under the caller's promise.
        unsafe { self.0.reattach(span) }
    }
    unsafe fn remove_detached(&mut self, span: &mut Detached) {
        // SAFETY: forwarded under the caller's promise.
        unsafe { self.0.remove_detached(span) }
    }
    unsafe fn swap_remove(&mut self, dense: usize) -> (<S as Source>::Key, S::Record) {
        // SAFETY: forwarded under the caller's promise.
        unsafe { self.0.swap_remove(dense) }
    }
}

impl<S: Drivable + Removable> Removable for Driver<S> {
    type Record = S::Record;
}

impl<'a, C: Container> IntoSource for &'a C {
    type Key = KeyOf<C::Index>;
    type Source = Shared<'a, C::Index, C::Record>;
    #[inline(always)]
    fn into_source(self) -> Self::Source {
        let rows = self.rows();
        Shared {
            keys: rows.index.keys(),
            index: &rows.index,
            near_only: rows.index.near_only(),
            rows: rows.columns.handle(),
        }
    }
}

impl<'a, C: Container> IntoSource for &'a mut C {
    type Key = KeyOf<C::Index>;
    type Source = Exclusive<'a, C::Index, C::Record>;
    #[inline(always)]
    fn into_source(self) -> Self::Source {
        Exclusive::new(self.rows_mut(RowsToken::new()))
    }
    #[inline(always)]
    fn into_source_seen(self) -> (Self::Source, Option<(u64, u64, usize)>) {
        let rows = self.rows_mut(RowsToken::new());
        let seen = (rows.columns.identity(), rows.columns.order(), rows.len());
        (Exclusive::new(rows), Some(seen))
    }
}

/// The two container sources: the same keys and probes, shared or
/// mutable rows.
macro_rules! container_source {
    ($name:ident, $view:ident, |$self:ident, $dense:ident| $fetch:expr) => {
        /// A source is what it becomes (so it can be a [`Driver`]).
        impl<'a, X: RowIndex, T: Record + 'a> IntoSource for $name<'a, X, T> {
            type Key = KeyOf<X>;
            type Source = Self;
            #[inline(always)]
            fn into_source(self) -> Self {
                self
            }
        }
        impl<'a, X: RowIndex, T: Record + 'a> Drivable for $name<'a, X, T> {}

        impl<'a, X: RowIndex, T: Record + 'a> Source for $name<'a, X, T> {
            type Key = KeyOf<X>;
            type Item<'b>
                = T::$view<'b>
            where
                Self: 'b;
            type Probe = usize;
            type Required = Yes;
            const ORDER: u8 = 1;

            #[inline(always)]
            fn driver_len(&self) -> Option<usize> {
                Some(self.keys().len())
            }
            #[inline(always)]
            unsafe fn key_at(&self, dense: usize) -> Self::Key {
                debug_assert!(dense < self.keys().len());
                // SAFETY: `dense < driver_len()`, the keys' length (the
                // caller's promise).
                unsafe { *self.keys().get_unchecked(dense) }
            }
            #[inline(always)]
            fn at_dense(&self, dense: usize) -> usize {
                dense
            }
            #[inline(always)]
            fn probe(&self, key: Self::Key) -> Option<usize> {
                // A test of a value the source holds, so the compiler can
                // build the join's loop once without the index's cold call:
                // a call in the loop would take registers from every loop
                // of the join (benches/NOTES.md, "Joins against the loop
                // written by hand").
                if self.near_only {
                    self.index().find_near(key)
                } else {
                    self.index().find(key)
                }
            }
            #[inline(always)]
            unsafe fn fetch<'b>(&$self, _key: Self::Key, $dense: usize) -> T::$view<'b>
            where
                Self: 'b,
            {
                let row: T::$view<'a> = $fetch;
                // SAFETY: the row is borrowed for `'a` and handed out for
                // `'b`, which `Self: 'b` keeps within `'a`.
                unsafe { relife::<T::$view<'a>, T::$view<'b>>(row) }
            }
        }
    };
}

container_source!(Shared, Ref, |self, dense| {
    // SAFETY: `dense` is a row of the index (the probe or the driver's
    // position), so below the length the index and the columns share.
    let row = unsafe { self.rows.row(dense) };
    make_ref::<T>(row)
});
container_source!(Exclusive, Mut, |self, dense| {
    // SAFETY: `dense` is a row of the index (the probe or the driver's
    // position), so below the length the index and the columns share; the
    // caller hands each key's row out once at a time, and one key has one
    // row.
    let row = unsafe { self.rows.row(dense) };
    make_mut::<T>(row)
});

#[cfg(target_endian = "little")]
impl<K: Id> IntoSource for &DataMap<K> {
    type Key = K;
    type Source = Self;
    #[inline(always)]
    fn into_source(self) -> Self {
        self
    }
}

#[cfg(target_endian = "little")]
impl<'a, K: Id> Source for &'a DataMap<K> {
    type Key = K;
    type Item<'b>
        = DataRef<'b>
    where
        Self: 'b;
    type Probe = ();
    type Required = Yes;
    const ORDER: u8 = 1;

    #[inline]
    fn driver_len(&self) -> Option<usize> {
        Some(self.len())
    }
    #[inline]
    unsafe fn key_at(&self, dense: usize) -> K {
        self.ids()[dense]
    }
    #[inline]
    fn at_dense(&self, _dense: usize) {}
    #[inline]
    fn probe(&self, key: K) -> Option<()> {
        self.contains(key).then_some(())
    }
    #[inline]
    unsafe fn fetch<'b>(&self, key: K, (): ()) -> DataRef<'b>
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

impl<S: IntoSource> IntoSource for Maybe<S> {
    type Key = S::Key;
    type Source = Maybe<S::Source>;
    #[inline(always)]
    fn into_source(self) -> Self::Source {
        Maybe(self.0.into_source())
    }
    #[inline(always)]
    fn into_source_seen(self) -> (Self::Source, Option<(u64, u64, usize)>) {
        let (source, seen) = self.0.into_source_seen();
        (Maybe(source), seen)
    }
}

impl<S: IntoSource> IntoSource for Without<S> {
    type Key = S::Key;
    type Source = Without<S::Source>;
    #[inline(always)]
    fn into_source(self) -> Self::Source {
        Without(self.0.into_source())
    }
}

/// A source that can drive a join: a required one (a container, shared or
/// mutable, or a `&DataMap`), not `Maybe` or `Without` ([`Sources`] checks
/// one).
#[diagnostic::on_unimplemented(
    message = "only a required source can drive a join",
    label = "`Maybe(..)` and `Without(..)` cannot be a `Driver`",
    note = "wrap the table or map itself, e.g. `join((Driver(&burning), Maybe(&poisoned)))`"
)]
pub trait Drivable: Source<Required = Yes> + IntoSource<Source = Self> {}
#[cfg(target_endian = "little")]
impl<K: Id> Drivable for &DataMap<K> {}

impl<S: IntoSource<Source: Drivable>> IntoSource for Driver<S> {
    type Key = S::Key;
    type Source = Driver<S::Source>;
    #[inline(always)]
    fn into_source(self) -> Self::Source {
        Driver(self.0.into_source())
    }
}

impl<S: Drivable> Source for Driver<S> {
    type Key = <S as Source>::Key;
    type Item<'b>
        = <S as Source>::Item<'b>
    where
        Self: 'b;
    type Probe = <S as Source>::Probe;
    type Required = Yes;
    const ORDER: u8 = S::ORDER;
    const DRIVES: bool = true;

    #[inline(always)]
    fn driver_len(&self) -> Option<usize> {
        self.0.driver_len()
    }
    #[inline(always)]
    unsafe fn key_at(&self, dense: usize) -> <S as Source>::Key {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.0.key_at(dense) }
    }
    #[inline(always)]
    fn at_dense(&self, dense: usize) -> <S as Source>::Probe {
        self.0.at_dense(dense)
    }
    #[inline(always)]
    fn probe(&self, key: <S as Source>::Key) -> Option<<S as Source>::Probe> {
        self.0.probe(key)
    }
    #[inline(always)]
    unsafe fn fetch<'b>(
        &self,
        key: <S as Source>::Key,
        probe: <S as Source>::Probe,
    ) -> Self::Item<'b>
    where
        Self: 'b,
    {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.0.fetch(key, probe) }
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
    const ORDER: u8 = 2;

    #[inline(always)]
    fn at_dense(&self, dense: usize) -> Option<S::Probe> {
        Some(self.0.at_dense(dense))
    }
    #[inline(always)]
    fn at_aligned(&self, key: S::Key, dense: usize, held: bool, probe: bool) -> Option<S::Probe> {
        if held {
            Some(self.0.at_dense(dense))
        } else if probe {
            self.0.probe(key)
        } else {
            None
        }
    }
    #[inline(always)]
    fn optional_len(&self) -> Option<usize> {
        self.0.driver_len()
    }
    #[inline(always)]
    fn probe(&self, key: S::Key) -> Option<Option<S::Probe>> {
        Some(self.0.probe(key))
    }
    #[inline(always)]
    unsafe fn fetch<'b>(&self, key: S::Key, probe: Option<S::Probe>) -> Self::Item<'b>
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
    const ORDER: u8 = 0;

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
    unsafe fn fetch<'b>(&self, _key: S::Key, (): ()) -> Self::Item<'b>
    where
        Self: 'b,
    {
    }
}

/// A tuple of [`IntoSource`]s, all keyed by one id type: what [`join`]
/// takes. Implemented for tuples of 1 to 8 (the trait is sealed); the
/// join turns them into [`Sources`].
pub trait IntoSources: sealed::Tuple {
    /// The id type every source is keyed by.
    type Key: Id;
    /// The tuple of their sources.
    type Sources: Sources<Key = Self::Key>;
    /// The sources, borrowing what `self` borrows.
    fn into_sources(self) -> Self::Sources;
    /// The sources, each one's [`into_source_seen`](IntoSource::into_source_seen)
    /// answer handed to `seen` with its position (every tuple hands them
    /// all; a group's join refuses fewer).
    #[doc(hidden)]
    #[inline]
    fn into_sources_seen(
        self,
        seen: &mut dyn FnMut(usize, Option<(u64, u64, usize)>),
    ) -> Self::Sources
    where
        Self: Sized,
    {
        let _ = seen;
        self.into_sources()
    }
}

/// A tuple of [`Source`]s, all keyed by one id type, as a join drives it.
/// Implemented for tuples of 1 to 8 (the trait is sealed).
///
/// What [`join`] does, step by step (users call `join` and iterate; this
/// shows the machinery that the module's other items link here for):
///
/// ```
/// use idtable::join::flag::{Flag, HasRequired, No, Yes};
/// use idtable::join::{
///     Container, Drivable, Driver, Exclusive, IntoSource, IntoSources, Join, JoinIter, Maybe,
///     RemoveAll, RemoveFrom, Shared, Source, Sources,
/// };
/// use idtable::{join, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
/// #[derive(SoaAllocator)]
/// pub struct Burning { pub dps: i32 }
///
/// let mut units = UnitAllocator::new();
/// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
/// let [a, b] = [1, 2].map(|hp| units.insert(Unit { hp }));
/// burning.insert(b, Burning { dps: 5 });
///
/// // A container is its rows.
/// assert_eq!(Container::rows(&units).ids(), &[a, b]);
/// assert_eq!(Container::rows(&burning).len(), 1);
///
/// // `join` turns what it is given into sources, picks the driver (the
/// // required source with the fewest keys), and probes the others by key.
/// {
///     let sources: (Exclusive<'_, _, Unit>, Shared<'_, _, Burning>) =
///         (&mut units, &burning).into_sources();
///     assert_eq!(sources.0.driver_len(), Some(2));
///     assert_eq!(sources.driver(), (1, 1)); // `burning`, one key
///     fn count<S: Sources>(_: &S) -> usize { S::LEN }
///     assert_eq!(count(&sources), 2);
///     // SAFETY: position 0 of the driver, which holds one key.
///     let key = unsafe { sources.driver_key(1, 0) };
///     // SAFETY: as above.
///     assert_eq!((key, unsafe { sources.1.key_at(0) }, sources.1.at_dense(0)), (b, b, 0));
///     assert_eq!(sources.0.probe(key), Some(1));
///     let probes = sources.probe_all(key, 1, 0).unwrap();
///     assert_eq!(probes, (1, 0));
///     assert_eq!(sources.probe_key(a), None); // `a` does not burn
///     // SAFETY: the probes were just taken; no other item of `b` lives.
///     let (unit, fire) = unsafe { sources.fetch_all(key, probes) };
///     *unit.hp -= *fire.dps;
/// }
/// let maybe = Maybe(&burning).into_source(); // optional: never a driver
/// assert_eq!(maybe.driver_len(), None);
/// fn order<S: Source>(_: &S) -> u8 { S::ORDER } // probed after required sources
/// assert_eq!(order(&maybe), 2);
/// // SAFETY: a shared source; the probe is `maybe`'s answer for `a`.
/// assert!(unsafe { maybe.fetch(a, maybe.probe(a).unwrap()) }.is_none());
///
/// // A `Driver` fixes the driver at compile time, whatever the lengths.
/// fn fixed<S: Sources>(_: &S) -> Option<usize> { S::FIXED_DRIVER }
/// fn drives<S: Source>(_: &S) -> bool { S::DRIVES }
/// fn drivable<S: Drivable>(_: &S) {}
/// let led = (Driver(&units), &burning).into_sources();
/// assert_eq!((fixed(&led), drives(&led.0), drives(&led.1)), (Some(0), true, false));
/// assert_eq!(led.driver(), (0, 2)); // `units`, though `burning` is smaller
/// drivable(&led.1);
///
/// // Whether a join has a required source is decided at compile time.
/// fn driven<F: HasRequired>() {}
/// driven::<<No as Flag>::Or<Yes>>();
///
/// let all: Join<'_, _> = join((&units,));
/// let rows: JoinIter<'_, _> = all.into_iter();
/// assert_eq!(rows.map(|(_, (unit,))| *unit.hp).collect::<Vec<_>>(), [1, -3]);
///
/// // `remove_all` removes a key from each container of a tuple.
/// let (unit, fire) = (&mut units, &mut burning).remove_all(b);
/// assert_eq!((unit.map(|u| u.hp), fire.map(|f| f.dps)), (Some(-3), Some(5)));
/// assert_eq!((&mut units).remove_from(a).map(|u| u.hp), Some(1));
/// assert!((&mut units).remove_from(a).is_none());
/// ```
pub trait Sources: sealed::Tuple {
    /// The id type every source is keyed by.
    type Key: Id;
    /// One item per source, borrowed for `'b`.
    type Items<'b>
    where
        Self: 'b;
    /// The probes of one key, one per source.
    type Probes: Copy;
    /// [`Yes`] if any source is required.
    type Required: Flag;
    /// The number of sources.
    const LEN: usize;
    /// The position of the first [`Driver`] source, if any: the driver,
    /// fixed at compile time. When it is `Some`, [`driver`](Sources::driver)
    /// answers it.
    const FIXED_DRIVER: Option<usize> = None;

    /// The driver: the position in the tuple of the first [`Driver`]
    /// source, or else of the required source with the fewest keys (the
    /// first on a tie), and its length.
    fn driver(&self) -> (usize, usize);
    /// The key at dense position `dense` of the source at `driver`.
    ///
    /// # Safety
    ///
    /// The source at `driver` is required (it has a `driver_len`) and
    /// `dense` is below its length: the driver `self.driver()` names, or
    /// another required source a caller drives by (`Join::retain` and a
    /// group's join drive by the first).
    unsafe fn driver_key(&self, driver: usize, dense: usize) -> Self::Key;
    /// The probes of `key`, the driver's at its dense position; `None` if
    /// a source rejects it.
    fn probe_all(&self, key: Self::Key, driver: usize, dense: usize) -> Option<Self::Probes>;
    /// The probes of `key` in every source.
    fn probe_key(&self, key: Self::Key) -> Option<Self::Probes>;
    /// The probes of the key at dense position `dense` of every source,
    /// for sources a [`Group`](crate::group::Group) keeps aligned (each
    /// container holds the key there; each `Without` source does not hold
    /// it). Not meaningful for other sources.
    ///
    /// `key` is the key at `dense`; a `Maybe` source holds it there if
    /// `held`, else does not or is probed (`probe`): see
    /// [`Source::at_aligned`].
    #[doc(hidden)]
    fn aligned(&self, key: Self::Key, dense: usize, held: bool, probe: bool) -> Self::Probes;
    /// The fewest rows of a `Maybe` source's container, if there is one.
    #[doc(hidden)]
    fn optional_min_len(&self) -> Option<usize>;
    /// The items of `key`.
    ///
    /// # Safety
    ///
    /// As [`Source::fetch`], for every source.
    unsafe fn fetch_all<'b>(&self, key: Self::Key, probes: Self::Probes) -> Self::Items<'b>
    where
        Self: 'b;
}

macro_rules! tuple_sources {
    ($first:ident $f:tt $fv:ident $(, $rest:ident $n:tt $v:ident)*) => {
        impl<$first, $($rest,)*> sealed::Tuple for ($first, $($rest,)*) {}

        impl<$first: IntoSource $(, $rest: IntoSource<Key = $first::Key>)*> IntoSources
            for ($first, $($rest,)*)
        {
            type Key = $first::Key;
            type Sources = ($first::Source, $($rest::Source,)*);
            #[inline(always)]
            fn into_sources(self) -> Self::Sources {
                (self.$f.into_source(), $(self.$n.into_source(),)*)
            }
            #[inline]
            fn into_sources_seen(
                self,
                seen: &mut dyn FnMut(usize, Option<(u64, u64, usize)>),
            ) -> Self::Sources {
                (
                    tuple_sources!(@seen self.$f, $f, seen),
                    $(tuple_sources!(@seen self.$n, $n, seen),)*
                )
            }
        }

        impl<$first: Source $(, $rest: Source<Key = $first::Key>)*> Sources for ($first, $($rest,)*) {
            type Key = $first::Key;
            type Items<'b>
                = ($first::Item<'b>, $($rest::Item<'b>,)*)
            where
                Self: 'b;
            type Probes = ($first::Probe, $($rest::Probe,)*);
            type Required = tuple_sources!(@or $first $(, $rest)*);
            const LEN: usize = 1 $(+ tuple_sources!(@one $n))*;
            const FIXED_DRIVER: Option<usize> = {
                let drives = [$first::DRIVES $(, $rest::DRIVES)*];
                let mut at = 0;
                loop {
                    if at == drives.len() {
                        break None;
                    }
                    if drives[at] {
                        break Some(at);
                    }
                    at += 1;
                }
            };

            #[inline]
            fn driver(&self) -> (usize, usize) {
                if let Some(at) = Self::FIXED_DRIVER {
                    let len = match at {
                        $($n => self.$n.driver_len(),)*
                        _ => self.$f.driver_len(),
                    };
                    // A `Driver` wraps a required source, which has a length.
                    return (at, len.unwrap_or(0));
                }
                let mut best = (usize::MAX, usize::MAX);
                for (at, len) in [($f, self.$f.driver_len()) $(, ($n, self.$n.driver_len()))*] {
                    if let Some(len) = len {
                        if best.0 == usize::MAX || len < best.1 {
                            best = (at, len);
                        }
                    }
                }
                best
            }
            #[inline(always)]
            unsafe fn driver_key(&self, driver: usize, dense: usize) -> Self::Key {
                // SAFETY: `dense` is below the driver's length (the
                // caller's promise).
                unsafe {
                    match driver {
                        $($n => self.$n.key_at(dense),)*
                        _ => self.$f.key_at(dense),
                    }
                }
            }
            #[inline(always)]
            fn probe_all(&self, key: Self::Key, driver: usize, dense: usize) -> Option<Self::Probes> {
                // In `ORDER` (the constants fold the branches away), so a key
                // is rejected as early as it can be; the driver's row is at
                // its dense position.
                let $fv = tuple_sources!(@excluded $first, self.$f, key);
                $(let $v = tuple_sources!(@excluded $rest, self.$n, key);)*
                let $fv = tuple_sources!(@required $first, self.$f, $fv, key, driver, dense, $f);
                $(let $v = tuple_sources!(@required $rest, self.$n, $v, key, driver, dense, $n);)*
                Some((
                    match $fv { Some(p) => p, None => self.$f.probe(key)? },
                    $(match $v { Some(p) => p, None => self.$n.probe(key)? },)*
                ))
            }
            #[inline(always)]
            fn probe_key(&self, key: Self::Key) -> Option<Self::Probes> {
                Some((self.$f.probe(key)?, $(self.$n.probe(key)?,)*))
            }
            #[inline(always)]
            fn aligned(&self, key: Self::Key, dense: usize, held: bool, probe: bool) -> Self::Probes {
                (
                    self.$f.at_aligned(key, dense, held, probe),
                    $(self.$n.at_aligned(key, dense, held, probe),)*
                )
            }
            #[inline]
            fn optional_min_len(&self) -> Option<usize> {
                [self.$f.optional_len() $(, self.$n.optional_len())*].into_iter().flatten().min()
            }
            #[inline(always)]
            unsafe fn fetch_all<'b>(&self, key: Self::Key, probes: Self::Probes) -> Self::Items<'b>
            where
                Self: 'b,
            {
                // SAFETY: forwarded under the caller's contract; the sources
                // borrow distinct containers (the borrow checker saw to it
                // when the join was made), so each row is fetched once.
                unsafe { (self.$f.fetch(key, probes.$f), $(self.$n.fetch(key, probes.$n),)*) }
            }
        }
    };
    (@excluded $ty:ident, $source:expr, $key:ident) => {
        if <$ty as Source>::ORDER == 0 { Some($source.probe($key)?) } else { None }
    };
    (@required $ty:ident, $source:expr, $done:ident, $key:ident, $driver:ident, $dense:ident, $n:tt) => {
        match $done {
            Some(p) => Some(p),
            None if <$ty as Source>::ORDER == 1 => Some(if $driver == $n {
                $source.at_dense($dense)
            } else {
                $source.probe($key)?
            }),
            None => None,
        }
    };
    (@seen $source:expr, $n:tt, $seen:ident) => {{
        let (source, rows) = $source.into_source_seen();
        $seen($n, rows);
        source
    }};
    (@one $n:tt) => { 1 };
    (@or $only:ident) => { $only::Required };
    (@or $first:ident $(, $rest:ident)+) => {
        <$first::Required as Flag>::Or<tuple_sources!(@or $($rest),+)>
    };
}

tuple_sources!(A 0 a);
tuple_sources!(A 0 a, B 1 b);
tuple_sources!(A 0 a, B 1 b, C 2 c);
tuple_sources!(A 0 a, B 1 b, C 2 c, D 3 d);
tuple_sources!(A 0 a, B 1 b, C 2 c, D 3 d, E 4 e);
tuple_sources!(A 0 a, B 1 b, C 2 c, D 3 d, E 4 e, F 5 f);
tuple_sources!(A 0 a, B 1 b, C 2 c, D 3 d, E 4 e, F 5 f, G 6 g);
tuple_sources!(A 0 a, B 1 b, C 2 c, D 3 d, E 4 e, F 5 f, G 6 g, H 7 h);

/// A source that follows the join's driver rather than naming itself the
/// driver: every source but a [`Driver`] (the trait is sealed; shown with
/// [`RemovingSources`]). The sources after the first of [`Join::retain`]
/// and [`Join::extract_if`] are all followers: those drive by the first.
#[diagnostic::on_unimplemented(
    message = "a join that removes rows is driven by its first source: no other source can be a `Driver`",
    label = "remove this `Driver(..)`",
    note = "`retain` and `extract_if` remove from the first source and walk its rows; put the container to remove from first"
)]
pub trait Follower: Source {}
impl<'a, X: RowIndex, T: Record + 'a> Follower for Shared<'a, X, T> {}
impl<'a, X: RowIndex, T: Record + 'a> Follower for Exclusive<'a, X, T> {}
#[cfg(target_endian = "little")]
impl<K: Id> Follower for &DataMap<K> {}
impl<S: Source> Follower for Maybe<S> {}
impl<S: Source> Follower for Without<S> {}

/// Sources whose first is [`Removable`] and whose others are
/// [`Follower`]s: what [`Join::retain`] and [`Join::extract_if`] take
/// (tuples only: the trait is sealed).
///
/// ```
/// use idtable::join::{Follower, IntoSource, IntoSources, Removable, RemovingSources};
/// use idtable::{Driver, Maybe, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
/// #[derive(SoaAllocator)]
/// pub struct Burning { pub dps: i32 }
///
/// fn removing<S: IntoSources<Sources: RemovingSources>>(_: S) -> bool { true }
/// fn removable<S: IntoSource<Source: Removable>>(_: S) -> bool { true }
/// fn follower<S: IntoSource<Source: Follower>>(_: S) -> bool { true }
///
/// let mut units = UnitAllocator::new();
/// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
/// assert!(removable(&mut burning) && removable(Driver(&mut units)));
/// assert!(follower(&units) && follower(Maybe(&burning)));
/// assert!(removing((&mut burning, &units)));
/// // Not `removable(&burning)`, nor `follower(Driver(&units))`.
/// ```
pub trait RemovingSources: Sources {
    /// The first source, the one rows are removed from.
    type Target: Removable<Key = Self::Key>;
    /// The first source.
    #[doc(hidden)]
    fn target(&self) -> &Self::Target;
    /// The first source, mutably.
    #[doc(hidden)]
    fn target_mut(&mut self) -> &mut Self::Target;
}

macro_rules! removing_sources {
    ($first:ident $(, $rest:ident)*) => {
        impl<$first: Removable $(, $rest: Follower<Key = $first::Key>)*> RemovingSources
            for ($first, $($rest,)*)
        {
            type Target = $first;
            #[inline(always)]
            fn target(&self) -> &$first {
                &self.0
            }
            #[inline(always)]
            fn target_mut(&mut self) -> &mut $first {
                &mut self.0
            }
        }
    };
}

removing_sources!(A);
removing_sources!(A, B);
removing_sources!(A, B, C);
removing_sources!(A, B, C, D);
removing_sources!(A, B, C, D, E);
removing_sources!(A, B, C, D, E, F);
removing_sources!(A, B, C, D, E, F, G);
removing_sources!(A, B, C, D, E, F, G, H);

/// The rows that one key has in several containers, read as one: see the
/// [module docs](self) for the sources, the order and an example.
///
/// `sources` is a tuple of 1 to 8 sources, all keyed by the same id type,
/// at least one of them required.
#[inline]
pub fn join<'a, S: IntoSources>(sources: S) -> Join<'a, S::Sources>
where
    S::Sources: 'a,
    <S::Sources as Sources>::Required: HasRequired,
{
    Join {
        sources: sources.into_sources(),
        _items: PhantomData,
    }
}

/// A join of [`Sources`], from [`join`]: iterate it (`for (id, items) in
/// join(..)`), ask it for one key with [`get`](Join::get), or split it
/// between threads with `par_iter` (feature `rayon`). See the
/// [module docs](self)'s example.
pub struct Join<'a, S> {
    sources: S,
    // The items of the iteration borrow the containers for `'a` (`S: 'a`).
    _items: PhantomData<&'a ()>,
}

impl<'a, S: Sources + 'a> Join<'a, S> {
    /// The items of `key` in every source, if the join takes it (held by
    /// every required source and by no `Without` source).
    #[inline]
    pub fn get(&mut self, key: S::Key) -> Option<S::Items<'_>> {
        let probes = self.sources.probe_key(key)?;
        // SAFETY: the probes were just taken, and the items borrow the join
        // mutably: no other item of it lives beside them.
        Some(unsafe { self.sources.fetch_all(key, probes) })
    }

    /// The driver's key at `dense` and the items of every source, if the
    /// join takes that key.
    ///
    /// # Safety
    ///
    /// `(driver, len) == sources.driver()` and `dense < len`; no item of
    /// the same key lives while these do (each dense position is asked
    /// once: the driver's keys are distinct).
    #[inline(always)]
    unsafe fn at<'b>(sources: &S, driver: usize, dense: usize) -> Option<(S::Key, S::Items<'b>)>
    where
        S: 'b,
    {
        // SAFETY: the caller's promise: `dense` is a position of the driver.
        let key = unsafe { sources.driver_key(driver, dense) };
        let probes = sources.probe_all(key, driver, dense)?;
        // SAFETY: the caller's promise; every index maps one key to one
        // row, so distinct keys never share a row.
        Some((key, unsafe { sources.fetch_all(key, probes) }))
    }
}

impl<'a, S: Sources + 'a> Join<'a, S> {
    /// Removes from the join's first source (`&mut` a table or a map) the
    /// rows for which `keep` returns `false`, keeping the others in their
    /// order; keys the join does not take stay, unseen. Driven by the
    /// first source, in its dense order (a [`Driver`] elsewhere does not
    /// compile): the same work as that container's own `retain` with the
    /// other sources read by hand inside it, each kept row moved at most
    /// once. `keep` sees every key before any row is removed: if it panics,
    /// no row is. Allocates nothing (the rows to remove are marked in the
    /// first source's own keys or index).
    ///
    /// ```
    /// use idtable::join::JoinItems;
    /// use idtable::{join, SoaAllocator, SoaMap, Without};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Burning { pub left: i32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Frozen { pub left: i32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    /// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    /// let [a, b, c] = [10, 0, 5].map(|hp| units.insert(Unit { hp }));
    /// for u in [a, b, c] {
    ///     burning.insert(u, Burning { left: 2 });
    /// }
    /// frozen.insert(c, Frozen { left: 1 });
    ///
    /// // A fire burns down on every unit that is not frozen, and goes out
    /// // at zero or on a dead unit; a frozen unit's fire is not seen.
    /// join((&mut burning, &units, Without(&frozen))).retain(|_, JoinItems((fire, unit, ()))| {
    ///     *fire.left -= 1;
    ///     *fire.left > 0 && *unit.hp > 0
    /// });
    /// assert_eq!(burning.keys(), [a, c]);
    /// assert_eq!((*burning.get(a).unwrap().left, *burning.get(c).unwrap().left), (1, 2));
    /// ```
    pub fn retain(self, mut keep: impl FnMut(S::Key, JoinItems<'_, S>) -> bool)
    where
        S: RemovingSources,
    {
        /// The first pass: the rows `keep` rejects are detached, marked in
        /// the first source's keys or index (nothing is allocated).
        /// Dropped before the second pass (`keep` panicked), it reattaches
        /// them: no row is removed.
        struct Marking<S: RemovingSources> {
            sources: S,
            span: Detached,
        }
        impl<S: RemovingSources> Drop for Marking<S> {
            fn drop(&mut self) {
                if !self.span.is_empty() {
                    // SAFETY: no item lives: `keep`, which held the last
                    // ones, has unwound.
                    unsafe { self.sources.target_mut().reattach(self.span) }
                }
            }
        }
        let mut marking = Marking {
            sources: self.sources,
            span: Detached::NONE,
        };
        let len = marking.sources.target().driver_len().unwrap_or(0);
        // The rejected positions wait here, 64 at most, and are detached
        // together: each detachment goes through the join's borrow and
        // makes the first source's parts anew.
        let mut rejected = [0usize; 64];
        let mut waiting = 0;
        for dense in 0..len {
            // SAFETY: the first source is required (`Removable`) and
            // `dense` is below its length; each key is fetched once, and
            // its items end with the call of `keep`.
            if let Some((key, items)) = unsafe { Self::at(&marking.sources, 0, dense) } {
                if !keep(key, JoinItems(items)) {
                    rejected[waiting] = dense;
                    waiting += 1;
                    if waiting == rejected.len() {
                        // SAFETY: no item lives: `keep` took them for its
                        // call.
                        unsafe {
                            marking
                                .sources
                                .target_mut()
                                .detach(&mut marking.span, &rejected)
                        }
                        waiting = 0;
                    }
                }
            }
        }
        // SAFETY: no item lives: `keep` took each one for its call only.
        unsafe {
            let target = marking.sources.target_mut();
            target.detach(&mut marking.span, &rejected[..waiting]);
        }
        // SAFETY: as above.
        unsafe {
            marking
                .sources
                .target_mut()
                .remove_detached(&mut marking.span)
        }
    }

    /// Removes from the join's first source the rows for which `pred`
    /// returns `true` and yields them, `(key, value)`, as the join reaches
    /// them: each removal moves the first source's last row into the gap
    /// (seen next), so a removal costs one row's move and the rows keep no
    /// order ([`retain`](Join::retain) keeps it). `pred` sees each key the
    /// join takes at most once; rows not reached when the iterator is
    /// dropped stay. Driven by the first source, as `retain` is.
    ///
    /// ```
    /// use idtable::join::ExtractIf;
    /// use idtable::{join, SoaAllocator, SoaMap};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator, Debug, PartialEq)]
    /// pub struct Frozen { pub left: i32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut frozen: SoaMap<UnitId, Frozen> = SoaMap::new();
    /// let [a, b] = [10, 20].map(|hp| units.insert(Unit { hp }));
    /// frozen.insert(a, Frozen { left: 1 });
    /// frozen.insert(b, Frozen { left: 3 });
    ///
    /// // Thaw: every frozen unit's ice melts; melted ice is taken out.
    /// let melting: ExtractIf<'_, _, _> = join((&mut frozen, &units)).extract_if(|_, items| {
    ///     let (ice, _unit) = items.into_inner(); // or `|_, JoinItems((ice, _unit))|`
    ///     *ice.left -= 1;
    ///     *ice.left == 0
    /// });
    /// let thawed: Vec<_> = melting.collect();
    /// assert_eq!(thawed, [(a, Frozen { left: 0 })]);
    /// assert_eq!(frozen.keys(), [b]);
    /// ```
    pub fn extract_if<F>(self, pred: F) -> ExtractIf<'a, S, F>
    where
        S: RemovingSources,
        F: FnMut(S::Key, JoinItems<'_, S>) -> bool,
    {
        ExtractIf {
            sources: self.sources,
            next: 0,
            pred,
            _items: PhantomData,
        }
    }
}

/// The items of one key, as [`Join::retain`] and [`Join::extract_if`]
/// hand them to their closure: the tuple the join's iteration yields, in
/// a wrapper that keeps them to the call (a closure over the join's own
/// `Items<'_>` would ask the containers to be borrowed for `'static`).
/// Take the tuple apart in the closure's argument,
/// `|id, JoinItems((fire, unit, ()))|`, or with
/// [`into_inner`](JoinItems::into_inner).
pub struct JoinItems<'b, S: Sources + 'b>(pub S::Items<'b>);

impl<'b, S: Sources + 'b> JoinItems<'b, S> {
    /// The items themselves.
    #[inline(always)]
    pub fn into_inner(self) -> S::Items<'b> {
        self.0
    }
}

/// The iterator of [`Join::extract_if`]: the removed rows of the join's
/// first source, `(key, value)`.
pub struct ExtractIf<'a, S, F> {
    sources: S,
    next: usize,
    pred: F,
    _items: PhantomData<&'a ()>,
}

impl<'a, S: RemovingSources + 'a, F> Iterator for ExtractIf<'a, S, F>
where
    F: FnMut(S::Key, JoinItems<'_, S>) -> bool,
{
    type Item = (S::Key, <S::Target as Removable>::Record);

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.sources.target().driver_len().unwrap_or(0) {
            let dense = self.next;
            // SAFETY: the first source is required and `dense` is below
            // its length; each key is fetched once (a removed key is gone;
            // the row moved into its place has not been seen), and its
            // items end with the call of `pred`.
            if let Some((key, items)) = unsafe { Join::<'a, S>::at(&self.sources, 0, dense) } {
                if (self.pred)(key, JoinItems(items)) {
                    // The last row moves to `dense`, unseen yet: `next` stays.
                    // SAFETY: no item lives: `pred` took them for its call.
                    return Some(unsafe { self.sources.target_mut().swap_remove(dense) });
                }
            }
            self.next += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.sources.target().driver_len().unwrap_or(0);
        (0, Some(len - self.next))
    }
}

#[cfg(feature = "rayon")]
impl<'a, S: Sources + Send + Sync + 'a> Join<'a, S>
where
    S::Key: Send,
    S::Items<'a>: Send,
{
    /// The join as a rayon parallel iterator: the driver's dense range is
    /// split between threads, each key still visited once. Needs every
    /// shared source's fields `Sync` and every mutable source's fields
    /// `Send`.
    ///
    /// ```
    /// use idtable::{join, SoaAllocator, SoaMap};
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    /// #[derive(SoaAllocator)]
    /// pub struct Burning { pub dps: i32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
    /// for n in 0..1000 {
    ///     let u = units.insert(Unit { hp: 100 });
    ///     if n % 2 == 0 {
    ///         burning.insert(u, Burning { dps: 3 });
    ///     }
    /// }
    /// join((&mut units, &burning)).par_iter().for_each(|(_, (unit, fire))| *unit.hp -= *fire.dps);
    /// let hurt = units.iter().filter(|(_, u)| *u.hp == 97).count();
    /// assert_eq!(hurt, 500);
    /// ```
    pub fn par_iter(
        self,
    ) -> impl rayon::iter::ParallelIterator<Item = (S::Key, S::Items<'a>)> + 'a {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        let (driver, len) = self.sources.driver();
        let sources = self.sources;
        (0..len).into_par_iter().filter_map(move |dense| {
            // SAFETY: `(driver, len)` is the driver; every dense position of it is taken by one
            // thread, once.
            unsafe { Self::at(&sources, driver, dense) }
        })
    }
}

impl<'a, S: Sources + 'a> IntoIterator for Join<'a, S> {
    type Item = (S::Key, S::Items<'a>);
    type IntoIter = JoinIter<'a, S>;

    #[inline]
    fn into_iter(self) -> JoinIter<'a, S> {
        let (driver, len) = self.sources.driver();
        // `next` takes a fixed driver as a constant: it must be the driver
        // `len` belongs to. Every tuple answers it (`Sources` is sealed) and
        // the test folds away; it stays as the guard of `next`'s unsafe
        // reads of the driver's keys.
        if let Some(at) = S::FIXED_DRIVER {
            assert_eq!(at, driver, "`Sources::driver` must answer `FIXED_DRIVER`");
        }
        JoinIter {
            sources: self.sources,
            driver,
            next: 0,
            end: len,
            _items: PhantomData,
        }
    }
}

/// The iterator of a [`Join`]: `(key, items)` in the driver's dense order
/// (made at the end of [`Sources`]' walk-through).
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
        // The driver as a constant in each arm, so the probes' "is this the
        // driver" tests fold away; arms past the tuple's length are never
        // taken and fold away too. A driver fixed by `Driver` leaves one arm.
        let driver = match S::FIXED_DRIVER {
            Some(at) => at,
            None => self.driver,
        };
        match driver {
            0 => self.next_driven_by::<0>(),
            1 if S::LEN > 1 => self.next_driven_by::<1>(),
            2 if S::LEN > 2 => self.next_driven_by::<2>(),
            3 if S::LEN > 3 => self.next_driven_by::<3>(),
            4 if S::LEN > 4 => self.next_driven_by::<4>(),
            5 if S::LEN > 5 => self.next_driven_by::<5>(),
            6 if S::LEN > 6 => self.next_driven_by::<6>(),
            _ => self.next_driven_by::<7>(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.end - self.next))
    }
}

impl<'a, S: Sources + 'a> JoinIter<'a, S> {
    /// The next key the join takes, with the driver at position `D`.
    #[inline(always)]
    fn next_driven_by<const D: usize>(&mut self) -> Option<(S::Key, S::Items<'a>)> {
        debug_assert_eq!(self.driver, D);
        while self.next < self.end {
            let dense = self.next;
            self.next += 1;
            // SAFETY: `dense < end`, the driver's length; each position is asked once.
            if let Some(found) = unsafe { Join::<'a, S>::at(&self.sources, D, dense) } {
                return Some(found);
            }
        }
        None
    }
}

impl<'a, S: Sources + 'a> core::iter::FusedIterator for JoinIter<'a, S> {}

/// A tuple of containers (`&mut` each) from which one key is removed at
/// once: what [`remove_all`] takes. Implemented for tuples of 1 to 8 of
/// `&mut` a [`Container`] (a derived allocator, a `SoaStorage`, a
/// `SoaMap`) or a `&mut DataMap`, all keyed by one id type; [`Sources`]
/// calls it directly.
pub trait RemoveAll<K: Id> {
    /// One result per container: the removed row as an `Option` for a
    /// table or a map, a `bool` for a `DataMap`.
    type Removed;
    /// Removes `key` from every container. See the [module docs](self)'s
    /// example.
    fn remove_all(self, key: K) -> Self::Removed;
}

/// One container of [`remove_all`] ([`Sources`] calls it directly).
pub trait RemoveFrom<K: Id> {
    /// What removing a key gives back.
    type Removed;
    /// Removes `key`.
    fn remove_from(self, key: K) -> Self::Removed;
}

impl<C: Container> RemoveFrom<KeyOf<C::Index>> for &mut C {
    type Removed = Option<C::Record>;
    /// The rows engine's removal: the last row moves into the gap.
    #[inline]
    fn remove_from(self, key: KeyOf<C::Index>) -> Option<C::Record> {
        self.rows_mut(RowsToken::new()).remove_row(key)
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
