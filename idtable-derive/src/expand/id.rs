//! The typed id, `FooId`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::Ctx;
use crate::attr::Role;

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
    // The id names the struct's generic arguments through a marker, so the
    // id of `Track<u8>` is not the id of `Track<String>`; the marker asks
    // nothing of them (every impl below is written out, with no bounds
    // beyond the struct's own), and `fn() -> _` keeps the id `Send + Sync`.
    let generics = &ctx.input.generics;
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let id_ty = &ctx.id_ty;
    let record_ty = &ctx.record_ty;
    let marker = quote!(::core::marker::PhantomData<fn() -> #record_ty>);
    let cmp = quote!(::core::cmp);
    let user_attrs = ctx.user_attrs(Role::Id);
    quote! {
        #[doc = #doc]
        #user_attrs
        #[repr(transparent)]
        #vis struct #id #generics (#layout, #marker) #where_clause;

        /// An id is stored whole, as a component of other tables
        /// (`SoaMap<K, FooId>`).
        #[automatically_derived]
        impl #impl_generics #krate::PlainValue for #id_ty #where_clause {}

        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #id_ty #where_clause {
            #[inline(always)]
            fn clone(&self) -> Self {
                *self
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::marker::Copy for #id_ty #where_clause {}
        #[automatically_derived]
        impl #impl_generics #cmp::PartialEq for #id_ty #where_clause {
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                self.0 == other.0
            }
        }
        #[automatically_derived]
        impl #impl_generics #cmp::Eq for #id_ty #where_clause {}
        #[automatically_derived]
        impl #impl_generics #cmp::PartialOrd for #id_ty #where_clause {
            #[inline(always)]
            fn partial_cmp(&self, other: &Self) -> ::core::option::Option<#cmp::Ordering> {
                ::core::option::Option::Some(#cmp::Ord::cmp(self, other))
            }
        }
        #[automatically_derived]
        impl #impl_generics #cmp::Ord for #id_ty #where_clause {
            #[inline(always)]
            fn cmp(&self, other: &Self) -> #cmp::Ordering {
                #cmp::Ord::cmp(&self.0, &other.0)
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::hash::Hash for #id_ty #where_clause {
            #[inline(always)]
            fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
                ::core::hash::Hash::hash(&self.0, state)
            }
        }

        #[automatically_derived]
        impl #impl_generics #krate::TypedId for #id_ty #where_clause {
            #layout_assoc
            #[inline(always)]
            fn from_layout(raw: Self::Layout) -> Self {
                #id(raw, ::core::marker::PhantomData)
            }
            #[inline(always)]
            fn to_layout(self) -> Self::Layout {
                self.0
            }
        }

        #[automatically_derived]
        impl #impl_generics #id_ty #where_clause {
            /// Which slot of the allocator's id table this id names.
            #[inline(always)]
            pub fn index(self) -> usize {
                #id_trait::index(self)
            }
            /// Which issue of its slot this id is (never 0).
            #[inline(always)]
            pub fn generation(self) -> #bits {
                #id_trait::generation(self)
            }
            /// The id as one integer, `generation << INDEX_BITS | index`.
            #[inline(always)]
            pub fn to_bits(self) -> #bits {
                #id_trait::to_bits(self)
            }
            /// The id of these bits; `None` for generation 0.
            #[inline(always)]
            pub fn from_bits(bits: #bits) -> ::core::option::Option<Self> {
                #id_trait::from_bits(bits)
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #id_ty #where_clause {
            #[inline]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::id::fmt_id(*self, #name, f)
            }
        }
    }
}
