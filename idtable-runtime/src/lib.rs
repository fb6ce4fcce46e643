//! Runtime of [idtable](https://docs.rs/idtable): everything a derived
//! structure-of-arrays allocator shares.
//!
//! Users depend on the `idtable` facade crate, which re-exports this crate.

#![deny(missing_docs)]

pub mod data;
