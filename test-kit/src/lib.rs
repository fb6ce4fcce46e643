//! Reference models and operation sequences shared by idtable's integration
//! tests (`tests/`, `idtable-runtime/tests/`) and its fuzz targets (`fuzz/`).
//!
//! Each module holds, for one container, the operations a sequence is made
//! of, a plain model of the contract's rules, and a runner that applies the
//! operations to the real container and to the model and panics at the
//! first difference:
//!
//! * [`allocator`]: derived allocators against a FIFO slot allocator
//!   (`min_free`, generations, retire or wrap, a full table).
//! * [`soa_map`]: `SoaMap` keyed by the ids of a real allocator, against a
//!   map from slot index to `(key, value)` (exact key match, a newer key
//!   replaces a stale entry, an older key inserts nothing).
//! * [`data`]: `DataComponent` against a map from key to value.
//! * [`data_map`]: `DataMap` keyed by the ids of a real `IdTable`, against a
//!   map from id to entity (the stale-id rule of writes).
//!
//! The operation enums derive `arbitrary::Arbitrary` with the feature
//! `arbitrary` (used by the fuzz targets); proptest strategies for them come
//! with the feature `proptest` (used by the tests). Test sizes scale down
//! under `cfg(miri)` where the tests say so; the kit itself has no `unsafe`.

#![forbid(unsafe_code)]

pub mod allocator;
pub mod data;
pub mod data_map;
pub mod soa_map;
