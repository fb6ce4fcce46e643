//! The typed id, `FooId`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::Ctx;

pub fn expand(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let layout = &ctx.layout;
    let vis = ctx.input.vis;
    let id = &ctx.names.id;
    let allocator = &ctx.names.allocator;
    let name = id.to_string();
    let record = ctx.record_link();
    let doc = format!(
        "Generational id of a {record} in a [`{allocator}`].\n\n\
         A copy of the layout's bits (`{layout}`), typed so that it can only \
         be used with [`{allocator}`]. An id of a removed {record} resolves to \
         nothing, never to another one.",
        layout = layout.to_string().replace(' ', ""),
    );
    // The layout check carries the span of the user's `id = ..` type, so a
    // type that is not a layout is reported there, once.
    let layout_span = ctx
        .input
        .attrs
        .id
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span());
    let assert_layout = quote_spanned! {layout_span=>
        const _: () = {
            fn __soa_layout<L: #krate::IdLayout>() {}
            let _ = __soa_layout::<#layout>;
        };
    };
    let id_trait = quote!(#krate::Id);
    quote! {
        #[doc = #doc]
        #[repr(transparent)]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::cmp::PartialOrd,
            ::core::cmp::Ord,
            ::core::hash::Hash
        )]
        #vis struct #id(#layout);

        #assert_layout

        #[automatically_derived]
        impl #id_trait for #id {
            type Bits = <#layout as #id_trait>::Bits;
            const INDEX_BITS: u32 = <#layout as #id_trait>::INDEX_BITS;
            const GENERATION_BITS: u32 = <#layout as #id_trait>::GENERATION_BITS;
            const MAX_INDEX: usize = <#layout as #id_trait>::MAX_INDEX;
            const MAX_GENERATION: Self::Bits = <#layout as #id_trait>::MAX_GENERATION;

            #[inline(always)]
            fn index(self) -> usize {
                #id_trait::index(self.0)
            }
            #[inline(always)]
            fn generation(self) -> Self::Bits {
                #id_trait::generation(self.0)
            }
            #[inline(always)]
            fn to_bits(self) -> Self::Bits {
                #id_trait::to_bits(self.0)
            }
            #[inline(always)]
            fn from_bits(bits: Self::Bits) -> ::core::option::Option<Self> {
                ::core::option::Option::map(<#layout as #id_trait>::from_bits(bits), #id)
            }
        }

        #[automatically_derived]
        impl #id {
            /// Which slot of the allocator's id table this id names.
            #[inline(always)]
            pub fn index(self) -> usize {
                #id_trait::index(self)
            }
            /// Which issue of its slot this id is (never 0).
            #[inline(always)]
            pub fn generation(self) -> <#layout as #id_trait>::Bits {
                #id_trait::generation(self)
            }
            /// The id as one integer (`generation << INDEX_BITS | index`), for
            /// saving or passing across an FFI boundary.
            #[inline(always)]
            pub fn to_bits(self) -> <#layout as #id_trait>::Bits {
                #id_trait::to_bits(self)
            }
            /// The id with these bits, or `None` if the generation part is 0.
            /// An id that was never issued resolves to nothing.
            #[inline(always)]
            pub fn from_bits(bits: <#layout as #id_trait>::Bits) -> ::core::option::Option<Self> {
                <Self as #id_trait>::from_bits(bits)
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #id {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::id::fmt_id(*self, #name, f)
            }
        }
    }
}
