//! Runtime of [idtable](https://docs.rs/idtable): everything a derived
//! structure-of-arrays allocator shares.
//!
//! * [`id`]: the generational id layouts ([`Id32`], [`Id64`] and their
//!   aliases) and the [`Id`] trait;
//! * [`table`]: the id table engine, [`IdTable`];
//! * [`columns`]: every column of an allocator in one allocation;
//! * [`storage`]: [`SoaStorage`], table and columns kept in step, which
//!   every derived allocator wraps;
//! * [`rows`]: [`Rows`], the dense-rows engine both containers are made of;
//! * [`map`]: [`SoaMap`], the rows of a derived struct keyed by another
//!   table's ids (components), through a paged sparse index;
//! * [`join`](mod@join): several containers keyed by the same ids read as one;
//! * [`group`]: containers that keep the keys they share aligned, so a
//!   join over them needs no probe;
//! * [`ranges`]: the columns cut into ranges of rows, for jobs and
//!   threads ([`RowRanges`]);
//! * [`data`]: the `DataComponent`, per-entity key/value data in one buffer,
//!   and the `DataMap` of many entities;
//! * `saving` (feature `serde`): the traits behind saving and loading;
//! * `par` (feature `rayon`): parallel iterators over [`SoaStorage`] and
//!   [`SoaMap`].
//!
//! Users depend on the `idtable` facade crate, which re-exports this crate,
//! so every item here is also reachable as `idtable::...`:
//!
//! ```
//! use idtable::{Id, IdTable, Id32_32};
//!
//! // The engine on its own: ids and dense indices, no values.
//! let mut table = IdTable::<Id32_32>::new();
//! let (id, dense) = table.insert();
//! assert_eq!(dense, 0);
//! assert_eq!(table.dense_index(id), Some(0));
//! assert_eq!(id.generation(), 1);
//! ```
//!
//! The crate is `#![no_std]` and needs only `alloc`; the default `std`
//! feature links `std` and changes nothing else today (errors implement
//! `core::error::Error` either way).

#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;

pub mod columns;
pub mod data;
pub mod group;
pub mod id;
pub mod join;
pub mod map;
mod marks;
mod order;
mod paged_index;
#[cfg(feature = "rayon")]
pub mod par;
pub mod ranges;
mod record;
pub mod rows;
#[cfg(feature = "serde")]
pub mod saving;
pub mod storage;
mod sync;
pub mod table;

pub use id::{
    Id, Id16_16, Id20_12, Id24_8, Id32, Id32_32, Id64, IdBits, IdLayout, LayoutName, TypedId,
};
pub use join::{join, remove_all, Container, Driver, Maybe, Without};
pub use map::SoaMap;
pub use ranges::RowRanges;
#[doc(hidden)]
pub use record::DebugRef;
pub use record::{CloneRow, Nested, PlainValue};
pub use rows::Rows;
pub use storage::{InsertError, Record, RecordToken, SoaStorage};
pub use table::{
    IdTable, IdTableParts, IssueError, IssueErrorKind, OnExhausted, PartsError, SwapRemove,
    TableConfig,
};

/// What the crate's own property tests share.
#[cfg(test)]
mod testing {
    /// `cases` cases (`miri_cases` under Miri, which runs slowly), and no
    /// failure file: Miri's isolation forbids the lookup it needs.
    pub(crate) fn proptest_config(cases: u32, miri_cases: u32) -> proptest::test_runner::Config {
        proptest::test_runner::Config {
            cases: if cfg!(miri) { miri_cases } else { cases },
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        }
    }
}
