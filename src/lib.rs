//! idtable: structure-of-arrays allocators with generational ids.

pub use idtable_derive::SoaAllocator;
pub use idtable_runtime::*;
