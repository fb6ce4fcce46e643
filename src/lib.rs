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
//! # What the derive generates
//!
//! For `struct Foo` (with `Foo`'s visibility and generics):
//!
//! * `FooId`: the typed id, a [`TypedId`] over the chosen layout;
//! * `FooAllocator`: the allocator, wrapping a [`SoaStorage`];
//! * `FooRef<'a>` / `FooMut<'a>`: one reference per field;
//! * `FooColumns<'a>` / `FooColumnsMut<'a>`: one slice per field.
//!
//! Container options, all optional: `#[soa(id = idtable::Id24_8)]` (the id
//! layout; default [`Id32_32`]), `min_free = N` (see [`TableConfig`]),
//! `on_exhausted = retire | wrap` (see [`OnExhausted`]), `allocator = Name`
//! and `id_type = Name` (rename the generated types), and `crate = path`
//! (where the `idtable` crate is, for crates that re-export it).
//!
//! # Choosing an id layout
//!
//! | layout | live objects at most | issues of one slot | bytes per live object (slot + dense id) |
//! | --- | --- | --- | --- |
//! | [`Id32_32`] (default) | 4,294,967,295 | 4,294,967,295 | 16 |
//! | [`Id20_12`] | 1,048,575 | 4,095 | 8 |
//! | [`Id24_8`] | 16,777,215 | 255 | 8 |
//! | [`Id16_16`] | 65,535 | 65,535 | 8 |
//!
//! With `min_free = n`, a freed slot waits until at least `n` freed slots are
//! queued, so under steady churn a slot is reissued at most once every `n`
//! frees: 32-bit layouts with a large `min_free` last much longer.
//!
//! # Guarantees
//!
//! See [`guarantees`]: every id resolves to its own object or to nothing,
//! never to another; a worn-out slot retires (or wraps, if asked); a full
//! table gives the value back; `DataComponent::from_bytes` never panics on
//! hostile bytes; a panic in user code leaves the allocator consistent.
//!
//! # Crates
//!
//! Everything here is re-exported from `idtable-runtime` (ids, [`IdTable`],
//! [`columns`], [`SoaStorage`], [`data`]) and `idtable-derive`.

#![no_std]
#![deny(missing_docs)]

pub use idtable_derive::SoaAllocator;
pub use idtable_runtime::*;

#[cfg(any(doc, test))]
pub mod example;

/// Crates and switches the generated code reaches through `idtable`, so the
/// user's crate needs no direct dependency on them. Not public API.
#[doc(hidden)]
pub mod __private {
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

/// What idtable promises — ids, exhaustion, full tables, hostile bytes, panic
/// safety, `unsafe` — and the test behind each promise.
#[doc = include_str!("../GUARANTEES.md")]
pub mod guarantees {}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
