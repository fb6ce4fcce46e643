//! Holds nothing: the compile-fail tests of idtable are in `tests/`. The
//! library exists so that trybuild turns this package's `serde` and `rayon`
//! features on for the cases it compiles.

#![no_std]
