//! The `DataComponent`: per-entity key/value data in one relocatable buffer.
