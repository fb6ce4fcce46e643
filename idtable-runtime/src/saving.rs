//! Saving and loading (feature `serde`): the traits behind `#[soa(serde)]`,
//! and the saved form of an allocator, a [`SoaStorage`](crate::SoaStorage)
//! and a [`SoaMap`](crate::SoaMap).
//!
//! An allocator (or a [`SoaStorage`](crate::SoaStorage)) is saved as
//! `{ table: { slots, dense, free }, columns: { field: [..], .. } }`: its
//! [`IdTableParts`](crate::IdTableParts) and one sequence per field, in
//! dense order. A [`SoaMap`](crate::SoaMap) is saved as `{ keys: [..],
//! columns: { field: [..], .. } }`: its keys in dense order and the same
//! columns. In binary formats each list of the table is one byte string of
//! fixed-width numbers (see the crate docs' *Saving and loading*).
//! Loading reads each column into a `Vec` of its own type, checks the table
//! with [`IdTable::from_parts`](crate::IdTable::from_parts) (or that no two
//! keys of a map share a slot index) and that every column holds one value
//! per row, and only then moves the values into the column buffer, without
//! building a struct per row.
//!
//! Both directions read or build fields one by one, private fields included,
//! so they exist only for structs that opted in: the derive implements
//! [`SavedRecord`] only under `#[soa(serde)]`, and saving or loading any
//! other struct's container does not compile, with an error that names the
//! attribute.
//!
//! ```
//! use idtable::{SoaAllocator, SoaStorage};
//!
//! #[derive(SoaAllocator)]
//! #[soa(serde)]
//! pub struct Point { pub x: f32, pub y: f32 }
//!
//! let mut points = SoaStorage::<PointId, Point>::default();
//! points.insert(Point { x: 1.0, y: 2.0 });
//! let text = serde_json::to_string(&points).unwrap();
//! assert_eq!(text, r#"{"table":{"slots":[1],"dense":[0],"free":[]},"columns":{"x":[1.0],"y":[2.0]}}"#);
//! ```
//!
//! A struct without `#[soa(serde)]` keeps its fields unread:
//!
//! ```compile_fail,E0277
//! use idtable::{SoaAllocator, SoaStorage};
//!
//! #[derive(SoaAllocator)]
//! pub struct Secret { key: u64 } // no #[soa(serde)]
//!
//! let secrets = SoaStorage::<SecretId, Secret>::default();
//! // error: `Secret` is not saved or loaded: its struct has no `#[soa(serde)]`
//! let _ = serde_json::to_string(&secrets);
//! ```

pub use crate::columns::serde::{SavedColumns, SavedNames, SavedRecord, SplitRows};
