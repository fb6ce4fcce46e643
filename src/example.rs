//! What `#[derive(SoaAllocator)]` generates, rendered by rustdoc.
//!
//! This module holds one small derived struct, [`Particle`], so that the
//! items the derive writes for it can be read here as they appear in a
//! user's own `cargo doc`: [`ParticleId`], [`ParticleAllocator`] (every
//! method, with the doc comments the derive gives it), [`ParticleRef`],
//! [`ParticleMut`], [`ParticleColumns`] and [`ParticleColumnsMut`].
//!
//! It exists only in documentation builds (and in the crate's own unit tests,
//! which check that it compiles): `#[cfg(any(doc, test))]`. Compiled always,
//! it would run the derive and generate code in every build of every crate
//! that depends on idtable, and `idtable::example::Particle` would become
//! public API that no one should use. Under `cfg(doc)` it costs users
//! nothing.
//!
//! # The struct
//!
//! ```rust
//! use idtable::SoaAllocator;
//!
//! /// A point mass moving in the plane.
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! #[soa(id = idtable::Id24_8, min_free = 16)]
//! pub struct Particle {
//!     /// Position.
//!     pub pos: [f32; 2],
//!     /// Velocity, per second.
//!     pub vel: [f32; 2],
//!     /// Mass.
//!     pub mass: f32,
//! }
//!
//! let mut particles = ParticleAllocator::new();
//! let id: ParticleId = particles.insert(Particle { pos: [0.0, 0.0], vel: [1.0, 2.0], mass: 1.0 });
//!
//! let p: ParticleRef<'_> = particles.get(id).unwrap();
//! assert_eq!(*p.mass, 1.0);
//! let p: ParticleMut<'_> = particles.get_mut(id).unwrap();
//! p.pos[0] = 5.0;
//! let cols: ParticleColumnsMut<'_> = particles.columns_mut();
//! cols.mass[0] = 2.0;
//! let cols: ParticleColumns<'_> = particles.columns();
//! assert_eq!((cols.pos, cols.mass), (&[[5.0, 0.0]][..], &[2.0][..]));
//! assert_eq!(std::mem::size_of::<Option<ParticleId>>(), 4);
//! ```
//!
//! (Inside this crate the struct is declared with `#[soa(crate = crate)]`,
//! since the generated code names the runtime as `::idtable` by default; a
//! crate that re-exports idtable uses the same option with its own path.
//! With the `serde` feature it is also `#[soa(serde)]`, and with `rayon`
//! the allocator has its parallel iterators, so docs built with
//! `--all-features` show those impls and methods too.)
//!
//! # The generated items, abridged
//!
//! Signatures only, bodies left out; every item has the visibility of the
//! struct. `'a` is the borrow of the allocator.
//!
//! ```text
//! /// Generational id of a Particle in a ParticleAllocator.
//! #[repr(transparent)]
//! pub struct ParticleId(Id24_8, PhantomData<fn() -> Particle>); // `Foo<T>` gets `FooId<T>`
//! impl Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash for ParticleId; // no bounds on the struct's parameters
//! impl Debug for ParticleId;                 // "ParticleId(3v1)"
//! impl PlainValue for ParticleId;            // an id is a component of other tables: SoaMap<K, ParticleId>
//!
//! impl TypedId for ParticleId { type Layout = Id24_8; /* from_layout, to_layout */ }
//! impl ParticleId {                          // also through the `Id` trait
//!     pub fn index(self) -> usize;
//!     pub fn generation(self) -> u32;        // the layout's integer: u32 here, u64 for Id32_32
//!     pub fn to_bits(self) -> u32;
//!     pub fn from_bits(bits: u32) -> Option<ParticleId>;
//! }
//!
//! /// One reference per field, each with its field's visibility (Clone + Copy + Debug;
//! /// every view's Debug prints the `pub` fields, and `..` for any other).
//! pub struct ParticleRef<'a> { pub pos: &'a [f32; 2], pub vel: &'a [f32; 2], pub mass: &'a f32 }
//! impl ParticleRef<'_> { pub fn to_owned(&self) -> Particle; }  // when Particle is Clone
//!
//! /// One mutable reference per field (Debug).
//! pub struct ParticleMut<'a> { pub pos: &'a mut [f32; 2], pub vel: &'a mut [f32; 2], pub mass: &'a mut f32 }
//!
//! /// One slice per field, in dense order (Clone + Copy + Debug).
//! pub struct ParticleColumns<'a> { pub pos: &'a [[f32; 2]], pub vel: &'a [[f32; 2]], pub mass: &'a [f32] }
//! impl<'a> ParticleColumns<'a> {             // row ranges: every column cut at the same rows
//!     pub fn len(&self) -> usize;
//!     pub fn is_empty(&self) -> bool;
//!     pub fn split_at(self, mid: usize) -> (Self, Self);
//!     pub fn chunks(self, size: usize) -> ranges::Chunks<Self>;
//!     pub fn get(self, range: impl RangeBounds<usize>) -> Option<Self>;
//!     pub fn row(self, index: usize) -> ParticleRef<'a>;
//!     pub fn par_chunks(self, size: usize) -> ranges::ParChunks<Self>;   // feature `rayon`
//! }
//!
//! /// One mutable slice per field, in dense order (Debug).
//! pub struct ParticleColumnsMut<'a> { pub pos: &'a mut [[f32; 2]], pub vel: &'a mut [[f32; 2]], pub mass: &'a mut [f32] }
//! impl<'a> ParticleColumnsMut<'a> {          // the `_mut` ones take the view by value
//!     pub fn len(&self) -> usize;
//!     pub fn is_empty(&self) -> bool;
//!     pub fn split_at_mut(self, mid: usize) -> (Self, Self);
//!     pub fn chunks_mut(self, size: usize) -> ranges::Chunks<Self>;
//!     pub fn get_mut(self, range: impl RangeBounds<usize>) -> Option<Self>;
//!     pub fn row_mut(self, index: usize) -> ParticleMut<'a>;
//!     pub fn reborrow(&mut self) -> ParticleColumnsMut<'_>;
//!     pub fn as_columns(&self) -> ParticleColumns<'_>;
//!     pub fn row(&self, index: usize) -> ParticleRef<'_>;
//!     pub fn par_chunks_mut(self, size: usize) -> ranges::ParChunks<Self>; // feature `rayon`
//! }
//! impl RowSlices for ParticleColumns<'_>, ParticleColumnsMut<'_>; // what the ranges are built on
//!
//! // With `#[soa(split)] pos: [f32; 2]` the columns hold `pos: SplitColumns<'a, f32, 2>`
//! // (`pos.column(k)`, `pos.into_columns()`) and a row `pos: [&'a f32; 2]`; with
//! // `#[soa(nested)] pos: V2` (a derived `V2`) they hold `V2Columns<'a>` and `V2Ref<'a>`.
//! // With `#[soa(parts_only)]` the struct gets only the views, the columns and the
//! // impls below: no id type, no allocator.
//!
//! /// The allocator: a name for the runtime's table of Particles. Every
//! /// method below is `SoaStorage`'s (that is, `Rows<IdTable<ParticleId>,
//! /// Particle>`'s), written once in the runtime for every derived struct.
//! pub type ParticleAllocator = SoaStorage<ParticleId, Particle>;
//!
//! // What a table does, as this struct's table shows it:
//! impl ParticleAllocator {
//!     pub const fn new() -> Self;                                   // Particle's TABLE_CONFIG
//!     pub fn with_capacity(capacity: usize) -> Self;
//!     pub fn len(&self) -> usize;
//!     pub fn is_empty(&self) -> bool;
//!     pub fn capacity(&self) -> usize;
//!     pub fn reserve(&mut self, additional: usize);
//!     pub fn shrink_to_fit(&mut self);
//!     pub fn clear(&mut self);
//!
//!     pub fn insert(&mut self, value: Particle) -> ParticleId;
//!     pub fn try_insert(&mut self, value: Particle) -> Result<ParticleId, InsertError<Particle>>;
//!     pub fn insert_with_id(&mut self, make: impl FnOnce(ParticleId) -> Particle) -> ParticleId;
//!     pub fn remove(&mut self, id: ParticleId) -> Option<Particle>;
//!     pub fn contains(&self, id: ParticleId) -> bool;
//!
//!     pub fn reserve_id(&self) -> ParticleId;                        // from a shared borrow, lock-free
//!     pub fn reserve_ids(&self, n: usize) -> table::ReservedIds<'_, ParticleId>;
//!     pub fn reserved_len(&self) -> usize;
//!     pub fn insert_reserved(&mut self, id: ParticleId, value: Particle) -> Result<(), Particle>;
//!     pub fn release_reserved(&mut self, id: ParticleId) -> bool;
//!
//!     pub fn get(&self, id: ParticleId) -> Option<ParticleRef<'_>>;
//!     pub fn get_mut(&mut self, id: ParticleId) -> Option<ParticleMut<'_>>;
//!     pub fn get_disjoint_mut<const N: usize>(&mut self, ids: [ParticleId; N])
//!         -> Option<[ParticleMut<'_>; N]>;
//!
//!     pub fn columns(&self) -> ParticleColumns<'_>;
//!     pub fn columns_mut(&mut self) -> ParticleColumnsMut<'_>;
//!     pub fn ids(&self) -> &[ParticleId];
//!     pub fn ids_and_columns_mut(&mut self) -> (&[ParticleId], ParticleColumnsMut<'_>);
//!     pub fn dense_index(&self, id: ParticleId) -> Option<usize>;
//!     pub fn row(&self, dense: usize) -> ParticleRef<'_>;
//!     pub fn row_mut(&mut self, dense: usize) -> ParticleMut<'_>;
//!
//!     pub fn iter(&self) -> rows::Iter<'_, ParticleId, Particle>;        // (ParticleId, ParticleRef)
//!     pub fn iter_mut(&mut self) -> rows::IterMut<'_, ParticleId, Particle>; // (ParticleId, ParticleMut)
//!     pub fn drain(&mut self) -> storage::Drain<'_, ParticleId, Particle>;  // (ParticleId, Particle)
//!     pub fn retain(&mut self, keep: impl FnMut(ParticleId, ParticleMut<'_>) -> bool);
//!     pub fn extract_if<F: FnMut(ParticleId, ParticleMut<'_>) -> bool>(&mut self, pred: F)
//!         -> rows::ExtractIf<'_, IdTable<ParticleId>, Particle, F>; // swap-removes, order not kept
//!     pub fn remove_many(&mut self, ids: impl IntoIterator<Item = ParticleId>) -> usize;
//!     pub fn sort_by(&mut self, compare: impl FnMut(ParticleRef<'_>, ParticleRef<'_>) -> Ordering);
//!     pub fn sort_by_key<K: Ord>(&mut self, key: impl FnMut(ParticleRef<'_>) -> K);
//!     pub fn par_iter(&self) -> par::ParIter<'_, ParticleId, Particle>;      // feature `rayon`
//!     pub fn par_iter_mut(&mut self) -> par::ParIterMut<'_, ParticleId, Particle>;
//!
//!     pub fn id_table(&self) -> &IdTable<ParticleId>;
//!     pub fn check_invariants(&self);
//! }
//!
//! impl Default for ParticleAllocator;        // new()
//! impl Debug for ParticleAllocator;          // when Particle is Debug: a map id => ParticleRef
//! impl Clone for ParticleAllocator;          // when Particle is Clone (clones field by field)
//! impl PartialEq, Eq for ParticleAllocator;  // when Particle is: same ids, slots, free queue, rows
//! impl Serialize, Deserialize for ParticleAllocator; // with #[soa(serde)]
//! impl Extend<Particle> for ParticleAllocator;
//! impl FromIterator<Particle> for ParticleAllocator;
//! impl IntoIterator for ParticleAllocator;   // (ParticleId, Particle), storage::IntoIter
//! impl IntoIterator for &ParticleAllocator;  // same as iter()
//! impl IntoIterator for &mut ParticleAllocator; // same as iter_mut()
//!
//! impl Record for Particle {                 // how Particle splits into columns
//!     type Tree = (Col<[f32; 2]>, (Col<[f32; 2]>, Col<f32>)); // Split<..>, Nested<..>, Aligned<..> when asked
//!     type Values = ([f32; 2], ([f32; 2], f32));
//!     type Ref<'a> = ParticleRef<'a>;
//!     type Mut<'a> = ParticleMut<'a>;
//!     type Columns<'a> = ParticleColumns<'a>;
//!     type ColumnsMut<'a> = ParticleColumnsMut<'a>;
//!     const TABLE_CONFIG: TableConfig = /* min_free = 16, on_exhausted = retire */;
//!     /* into_values, from_values, make_ref, make_mut, make_columns, make_columns_mut:
//!        each takes a RecordToken<Particle>, which only the runtime can create;
//!        shared_columns and reborrow_columns lend a shorter-lived view */
//! }
//! impl CloneRow for Particle;                // when Particle is Clone: what to_owned() calls
//! impl DebugRow for Particle;                // a row prints as its ParticleRef
//! ```
//!
//! The generated doc comments hold no examples on purpose: a doc test in
//! generated code would run in every user's crate. The examples are on the
//! runtime's table ([`SoaStorage`](crate::SoaStorage) and
//! [`Rows`](crate::Rows) have one per method) and in the [crate guide](crate).

use crate::SoaAllocator;

/// A point mass moving in the plane: the struct this module derives an
/// allocator for.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(crate = crate, id = crate::Id24_8, min_free = 16)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Particle {
    /// Position.
    pub pos: [f32; 2],
    /// Velocity, per second.
    pub vel: [f32; 2],
    /// Mass.
    pub mass: f32,
}
