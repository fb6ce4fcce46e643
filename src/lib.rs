//! Structure-of-arrays allocators with generational ids.
//!
//! `#[derive(SoaAllocator)]` turns a plain struct into an allocator that
//! stores every field in its own dense column and hands out small
//! generational ids that detect stale references.
//!
//! # Quick start
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Particle {
//!     pub pos: [f32; 3],
//!     pub vel: [f32; 3],
//!     pub mass: f32,
//! }
//!
//! let mut particles = ParticleAllocator::new();
//! let a = particles.insert(Particle { pos: [0.0; 3], vel: [1.0; 3], mass: 2.0 });
//! let b = particles.insert(Particle { pos: [5.0; 3], vel: [0.0; 3], mass: 1.0 });
//!
//! // One object, field by field:
//! let p = particles.get(a).unwrap();
//! assert_eq!(*p.mass, 2.0);
//!
//! // Hot loops run over the columns, in dense order:
//! let cols = particles.columns_mut();
//! for (pos, vel) in cols.pos.iter_mut().zip(cols.vel.iter()) {
//!     for k in 0..3 {
//!         pos[k] += vel[k] * 0.5;
//!     }
//! }
//! assert_eq!(particles.get(a).unwrap().pos, &[0.5; 3]);
//!
//! // Removing swaps the last object into the gap; ids stay valid...
//! assert_eq!(particles.remove(a).map(|p| p.mass), Some(2.0));
//! assert_eq!(particles.dense_index(b), Some(0));
//! // ...and a removed id resolves to nothing, even after its slot is reused.
//! let c = particles.insert(Particle { pos: [9.0; 3], vel: [0.0; 3], mass: 3.0 });
//! assert!(particles.get(a).is_none());
//! assert_eq!(c.index(), a.index());
//! assert_ne!(c, a);
//! ```
//!
//! # Guide
//!
//! One chapter per topic, in reading order:
//!
//! 1. [Getting started](guide::getting_started): adding idtable, what the
//!    derive generates, the features, and when another crate fits better.
//! 2. [Ids and generations](guide::ids_and_generations): choosing an id
//!    layout, how long a slot lasts (`min_free`), ids stored across tables.
//! 3. [Columns and loops](guide::columns_and_loops): rows and columns, update
//!    loops as zips of columns, why removal reorders rows, sorting.
//! 4. [Shaping columns](guide::shaping_columns): split, nested and aligned
//!    columns, your attributes on the generated types, row ranges for jobs,
//!    plain values and entries in a `SoaMap`.
//! 5. [`SoaMap`](guide::soa_map): components that only some objects of a
//!    table have, keyed by the table's ids.
//! 6. [Per-entity data](guide::per_entity_data): key/value sheets in a
//!    `DataComponent`, and many entities' sheets in one `DataMap`.
//! 7. [Joins](guide::joins): a table, its maps and its data read as one;
//!    removing an object from every container; a field, a `SoaMap` or a
//!    `DataMap`?
//! 8. [Ids reserved from a shared borrow](guide::reserved_ids): naming the
//!    objects a parallel system creates before their rows exist.
//! 9. [Saving and loading](guide::saving_and_loading) (feature `serde`): the
//!    saved form, and what loading checks.
//! 10. [Parallel loops](guide::parallel_loops) (feature `rayon`): over
//!     columns, rows, joins and groups, and how to call them from a
//!     program's main thread (inside a pool).
//! 11. [Groups](guide::groups): containers that keep the keys they share
//!     packed in one order, so joins over them stream like an archetype
//!     ECS.
//!
//! Then:
//!
//! * [Guarantees](guarantees): every id resolves to its own object or to
//!   nothing, never to another; a worn-out slot retires (or wraps, if
//!   asked); a full table gives the value back; loading hostile bytes is an
//!   error, never a panic; a panic in user code leaves the allocator
//!   consistent. Each promise names the test behind it.
//! * Performance: [BENCHMARKS.md] measures idtable against slot maps and
//!   arenas, SoA crates, ECSs and `HashMap`, with the command that
//!   reproduces each figure.
//! * The [`example`] module: the items the derive generates for a small
//!   struct, as rustdoc renders them.
//!
//! [BENCHMARKS.md]: https://github.com/idtable/idtable/blob/main/BENCHMARKS.md

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

/// `#[derive(SoaAllocator)]` on a struct `Foo` with named fields generates
/// `FooId`, `FooAllocator`, `FooRef`, `FooMut`, `FooColumns` and
/// `FooColumnsMut`: the [`example`] module shows them as rustdoc renders
/// them, the [crate guide](crate) explains how to use them.
///
/// The options of `#[soa(...)]` on the struct, each optional (this is the
/// one list of them):
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// #[soa(
///     id = idtable::Id24_8,  // the id layout (default `Id32_32`)
///     min_free = 64,         // reuse a freed slot once 64 are waiting (default 0)
///     on_exhausted = retire, // or `wrap` (default `retire`)
///     allocator = Flock,     // instead of `BirdAllocator`
///     id_type = BirdHandle,  // instead of `BirdId`
///     crate = idtable,       // the path to idtable, for crates that re-export it
///     align = 32,            // every column at a multiple of 32 bytes (default: its type's alignment)
/// )]
/// // and `#[soa(serde)]`: Serialize/Deserialize, with the `serde` feature
/// // (see "Saving and loading" in the crate guide);
/// // and `#[soa(parts_only)]`: the record, its views and columns only, no
/// // allocator nor id type (for a struct only nested or stored in a `SoaMap`).
/// pub struct Bird {
///     pub pos: [f32; 2],
///     pub name: String,
/// }
///
/// let mut flock = Flock::new();
/// let robin: BirdHandle = flock.insert(Bird { pos: [0.0, 1.0], name: "robin".into() });
/// let r: BirdRef<'_> = flock.get(robin).unwrap();
/// assert_eq!(r.name, "robin");
/// assert_eq!(r.to_owned(), Bird { pos: [0.0, 1.0], name: "robin".into() });
/// assert_eq!(std::mem::size_of::<BirdHandle>(), 4);
/// assert_eq!(flock.columns().pos.as_ptr() as usize % 32, 0);
/// ```
///
/// The options of a field, `#[soa(...)]` above it (the [shaping
/// columns](guide::shaping_columns) chapter shows each at work):
///
/// | option | what it does | default |
/// | --- | --- | --- |
/// | `#[soa(split)]` | a field `[T; N]` becomes `N` columns of `T`: `FooColumns` holds a [`SplitColumns<T, N>`](columns::SplitColumns) (`cols.f[k]` is element `k`'s `[T]`, `cols.f.into_columns()` all `N`), `FooRef` holds `[&T; N]`; insert, remove and serde still take and give `[T; N]` | one column of `[T; N]` |
/// | `#[soa(nested)]` | the fields of a derived struct `V` become columns of this one: `FooColumns` holds `VColumns`, `FooRef` holds `VRef`; nests and splits inside compose | one column of `V` |
/// | `#[soa(align = N)]` | the field's columns start at a multiple of `N` bytes (a power of two, at least the type's alignment) at every capacity, in the one allocation | the type's alignment (or the struct's `align`) |
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
/// #[soa(parts_only)]
/// pub struct V2 { pub x: f32, pub y: f32 }
///
/// #[derive(SoaAllocator, Clone, Debug, PartialEq)]
/// pub struct Boid {
///     #[soa(nested)] pub pos: V2,        // columns pos.x, pos.y
///     #[soa(split)] pub vel: [f32; 2],   // columns vel[0], vel[1]
///     #[soa(align = 64)] pub heat: f32,  // at a multiple of 64 bytes
/// }
///
/// let mut boids = BoidAllocator::new();
/// let id = boids.insert(Boid { pos: V2 { x: 1.0, y: 2.0 }, vel: [0.5, 0.0], heat: 0.0 });
/// let cols = boids.columns_mut();
/// for (x, vx) in cols.pos.x.iter_mut().zip(cols.vel[0].iter()) {
///     *x += vx;
/// }
/// let b: BoidRef<'_> = boids.get(id).unwrap();
/// assert_eq!((*b.pos.x, *b.vel[0]), (1.5, 0.5));
/// assert_eq!(b.to_owned().pos, V2 { x: 1.5, y: 2.0 });
/// assert_eq!(boids.columns().heat.as_ptr() as usize % 64, 0);
/// ```
///
/// The user's attributes on the generated types, by role, one
/// `#[soa_attr(Role, attribute)]` each (or `#[soa_attr(Role, Role, ..,
/// attribute)]` for several types): the roles are `Id`, `Ref`, `Mut`,
/// `Columns` and `ColumnsMut` (the suffix of the type's name), and the
/// attribute is any attribute, `derive(..)`, `cfg_attr(..)` and doc
/// comments included. (`Allocator` is refused: `FooAllocator` is a name
/// for idtable's own `SoaStorage<FooId, Foo>`, which is `Default`, and
/// `Clone`, `Debug`, `PartialEq`, `Eq` and serde where `Foo` is.)
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug)]
/// #[soa_attr(Ref, Columns, derive(PartialEq))]
/// #[soa_attr(Id, doc = "A particle's handle.")]
/// pub struct Particle { pub mass: f32 }
///
/// let mut ps = ParticleAllocator::new();
/// let (a, b) = (ps.insert(Particle { mass: 1.0 }), ps.insert(Particle { mass: 1.0 }));
/// assert!(ps.get(a).unwrap() == ps.get(b).unwrap()); // ParticleRef: PartialEq
/// let (first, second) = ps.columns().split_at(1);
/// assert!(first == second); // ParticleColumns: PartialEq
/// ```
pub use idtable_derive::SoaAllocator;
pub use idtable_runtime::*;

#[cfg(any(doc, test))]
pub mod example;

/// Crates and switches the generated code reaches through `idtable`, so the
/// user's crate needs no direct dependency on them. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use alloc::vec::Vec;
    #[cfg(feature = "rayon")]
    pub use rayon;
    #[cfg(feature = "serde")]
    pub use serde;
}

/// Expands the `Serialize`/`Deserialize` impls of a `#[soa(serde)]` struct,
/// or explains which feature is missing. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_serde {
    ($($items:tt)*) => { $($items)* };
}

/// Expands the `Serialize`/`Deserialize` impls of a `#[soa(serde)]` struct,
/// or explains which feature is missing. Not public API.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_serde {
    ($($items:tt)*) => {
        ::core::compile_error!(
            "`#[soa(serde)]` needs the `serde` feature of idtable: \
             `idtable = { version = \"0.1\", features = [\"serde\"] }`"
        );
    };
}

/// Expands the `Serialize`/`Deserialize` impls every derived id and
/// allocator has when the `serde` feature is on, and nothing otherwise. Not
/// public API.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_if_serde {
    ($($items:tt)*) => { $($items)* };
}

/// Expands the `Serialize`/`Deserialize` impls every derived id and
/// allocator has when the `serde` feature is on, and nothing otherwise. Not
/// public API.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_if_serde {
    ($($items:tt)*) => {};
}

/// Expands the parallel iterators of a derived allocator when the `rayon`
/// feature is on, and nothing otherwise. Not public API.
#[cfg(feature = "rayon")]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_rayon {
    ($($items:tt)*) => { $($items)* };
}

/// Expands the parallel iterators of a derived allocator when the `rayon`
/// feature is on, and nothing otherwise. Not public API.
#[cfg(not(feature = "rayon"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_rayon {
    ($($items:tt)*) => {};
}

/// The guide's chapters, one module each; the [crate root](crate#guide)
/// lists them in reading order.
///
/// Each chapter is a markdown file in the `guide/` folder of the package,
/// and its code blocks run as doc tests.
// A new chapter: a markdown file in guide/, a module below, and a line in
// the crate root's list.
pub mod guide {
    #[doc = include_str!("../guide/getting-started.md")]
    pub mod getting_started {}

    #[doc = include_str!("../guide/ids-and-generations.md")]
    pub mod ids_and_generations {}

    #[doc = include_str!("../guide/columns-and-loops.md")]
    pub mod columns_and_loops {}

    #[doc = include_str!("../guide/shaping-columns.md")]
    pub mod shaping_columns {}

    #[doc = include_str!("../guide/soa-map.md")]
    pub mod soa_map {}

    #[doc = include_str!("../guide/per-entity-data.md")]
    pub mod per_entity_data {}

    #[doc = include_str!("../guide/joins.md")]
    pub mod joins {}

    #[doc = include_str!("../guide/reserved-ids.md")]
    pub mod reserved_ids {}

    #[doc = include_str!("../guide/saving-and-loading.md")]
    pub mod saving_and_loading {}

    #[doc = include_str!("../guide/parallel-loops.md")]
    pub mod parallel_loops {}

    #[doc = include_str!("../guide/groups.md")]
    pub mod groups {}
}

/// What idtable promises — ids, exhaustion, full tables, hostile bytes, panic
/// safety, `unsafe` — and the test behind each promise.
///
/// The first promises, in a few lines:
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// #[soa(id = idtable::Id32<2>)] // 3 usable indices, 2^30 - 1 issues per slot
/// pub struct Token {
///     pub n: u32,
/// }
///
/// let mut tokens = TokenAllocator::new();
/// let a = tokens.insert(Token { n: 1 });
/// tokens.remove(a);
/// let b = tokens.insert(Token { n: 2 }); // reuses `a`'s slot
/// assert_eq!(b.index(), a.index());
/// assert!(tokens.get(a).is_none()); // stale: nothing, not `b`'s object
///
/// // Any bits: the object they were issued for, or nothing.
/// for bits in 0..1024 {
///     if let Some(token) = TokenId::from_bits(bits).and_then(|id| tokens.get(id)) {
///         assert_eq!((bits, *token.n), (b.to_bits(), 2));
///     }
/// }
///
/// // A full table gives the value back and stays as it was.
/// tokens.insert(Token { n: 3 });
/// tokens.insert(Token { n: 4 });
/// let err = tokens.try_insert(Token { n: 5 }).unwrap_err();
/// assert_eq!(err.into_inner(), Token { n: 5 });
/// assert_eq!(tokens.len(), 3);
/// ```
///
#[doc = include_str!("../GUARANTEES.md")]
pub mod guarantees {}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
