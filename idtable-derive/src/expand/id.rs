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
         An index and a generation in one integer, laid out as `{layout}`, \
         and typed so that it can only be used with a [`{allocator}`]. An id \
         of a removed {record} resolves to nothing, never to another one.\n\n\
         Ids carry no allocator identity: two `{allocator}`s can issue the same \
         id, so keep each id with the allocator that issued it.",
        layout = ctx.layout_name(),
    );
    let id_trait = quote!(#krate::Id);
    // The layout is named once, in `TypedId::Layout`, with the span of the
    // user's type: a type that is not a layout is one error, on that type.
    let layout_span = ctx
        .input
        .attrs
        .id
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span());
    let layout_assoc = quote_spanned!(layout_span=> type Layout = #layout;);
    let bits = quote!(<Self as #id_trait>::Bits);
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

        #[automatically_derived]
        impl #krate::TypedId for #id {
            #layout_assoc
            #[inline(always)]
            fn from_layout(raw: Self::Layout) -> Self {
                #id(raw)
            }
            #[inline(always)]
            fn to_layout(self) -> Self::Layout {
                self.0
            }
        }

        #[automatically_derived]
        impl #id {
            /// Which slot of the allocator's id table this id names.
            #[inline(always)]
            pub fn index(self) -> usize {
                #id_trait::index(self)
            }
            /// Which issue of its slot this id is (never 0). The integer is
            /// the layout's: `u32` for `Id32` layouts, `u64` for `Id64` ones
            /// such as the default `Id32_32`.
            #[inline(always)]
            pub fn generation(self) -> #bits {
                #id_trait::generation(self)
            }
            /// The id as one integer (`generation << INDEX_BITS | index`), for
            /// saving or passing across an FFI boundary.
            #[inline(always)]
            pub fn to_bits(self) -> #bits {
                #id_trait::to_bits(self)
            }
            /// The id with these bits, or `None` if the generation part is 0.
            /// Bits the allocator never issued resolve to nothing there,
            /// never to another object.
            #[inline(always)]
            pub fn from_bits(bits: #bits) -> ::core::option::Option<Self> {
                #id_trait::from_bits(bits)
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
