//! Compile-fail tests: each file in `tests/ui/` holds one mistake, and its
//! `.stderr` the error a user sees, pointing at the token to change.
//! `tests/ui-serde/` runs with the `serde` feature (of this package, which
//! turns on idtable's), `tests/ui-no-serde/` without it, `tests/ui-rayon/`
//! with the `rayon` feature.

#[test]
#[cfg_attr(miri, ignore = "trybuild runs rustc")]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    #[cfg(feature = "serde")]
    cases.compile_fail("tests/ui-serde/*.rs");
    #[cfg(not(feature = "serde"))]
    cases.compile_fail("tests/ui-no-serde/*.rs");
    // Parallel iterators exist only with the `rayon` feature.
    #[cfg(feature = "rayon")]
    cases.compile_fail("tests/ui-rayon/*.rs");
}
