//! `#[derive(SoaAllocator)]`: see the `idtable` crate.
