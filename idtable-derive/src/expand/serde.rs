//! `Serialize`/`Deserialize` for `FooId` and `FooAllocator` under
//! `#[soa(serde)]`, emitted inside `__soa_serde!`, which is an error unless
//! the facade's `serde` feature is on.

use proc_macro2::TokenStream;

use super::Ctx;

pub fn expand(_ctx: &Ctx) -> TokenStream {
    TokenStream::new()
}
