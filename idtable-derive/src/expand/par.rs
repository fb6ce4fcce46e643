//! `par_iter()` / `par_iter_mut()`: emitted inside `__soa_rayon!`, so they
//! exist exactly when the facade's `rayon` feature is on.

use proc_macro2::TokenStream;

use super::Ctx;

pub fn expand(_ctx: &Ctx) -> TokenStream {
    TokenStream::new()
}
