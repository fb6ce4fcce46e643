//! The `#[derive(SoaAllocator)]` macro of [idtable](https://docs.rs/idtable).
//!
//! Use it through the `idtable` crate, which documents what it generates.
//!
//! The pipeline has one file per stage: `ast.rs` reads the struct into a
//! model that keeps the original tokens for spans, `attr.rs` parses the
//! `#[soa(...)]` options, `valid.rs` runs the checks that need the whole model,
//! `names.rs` owns every generated identifier, and `expand/` writes the code.
//! Errors are collected, not returned at the first one, so the user fixes
//! them in one pass.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod expand;
mod names;
mod valid;

use proc_macro::TokenStream;

/// Derives a structure-of-arrays allocator with generational ids for a
/// struct with named fields. See the `idtable` crate for what it generates.
#[proc_macro_derive(SoaAllocator, attributes(soa, soa_attr))]
pub fn derive_soa_allocator(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
