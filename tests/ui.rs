//! Compile-fail tests: each file in `tests/ui/` holds one mistake, and its
//! `.stderr` the error a user sees, pointing at the token to change.

#[test]
#[cfg_attr(miri, ignore = "trybuild runs rustc")]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    // Parallel iterators exist only with the `rayon` feature.
    #[cfg(feature = "rayon")]
    cases.compile_fail("tests/ui-rayon/*.rs");
}
