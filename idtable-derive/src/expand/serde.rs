//! `Serialize`/`Deserialize` for `FooId`, `FooColumns` and `FooAllocator`.
//!
//! The id's and the allocator's impls are emitted for every struct inside
//! `__soa_if_serde!`, which keeps them only when the facade's `serde`
//! feature is on: an id is only bits, and the allocator's impls are bounded
//! by `Foo: SavedRecord`, so for a struct that did not opt in they exist but
//! never apply, and using them is one error naming `#[soa(serde)]`. What
//! reads the fields (`SavedRecord`, the columns' `Serialize`, the per-field
//! check) is emitted only under `#[soa(serde)]`, inside `__soa_serde!`,
//! which is an error unless the feature is on.
//!
//! Glue only: the allocator's impls call `SoaStorage::serialize_named` and
//! `deserialize_named` (the runtime's `saving` module), which save and load
//! `{ table: { slots, dense, free }, columns: { field: [..], .. } }` and check
//! everything on the way in.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, Lifetime, LifetimeParam};

use super::{Ctx, ViewKind};
use crate::ast::Shape;

pub fn expand(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let serde = quote!(#krate::__private::serde);
    let names = ctx.names;
    let (id, allocator, columns) = (&ctx.id_ty, &names.allocator, &names.columns);
    let layout = &ctx.layout;
    let record_ty = &ctx.record_ty;
    let generics = &ctx.input.generics;
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    let idents: Vec<_> = ctx.input.fields.iter().map(|f| f.ident).collect();
    let keys: Vec<String> = idents.iter().map(|i| i.unraw().to_string()).collect();

    let saved_record = quote!(#krate::saving::SavedRecord);
    let de_lt = Lifetime::new("'__soa_de", proc_macro2::Span::call_site());
    let mut de_generics: Generics = generics.clone();
    de_generics
        .params
        .insert(0, GenericParam::Lifetime(LifetimeParam::new(de_lt.clone())));
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    let columns_where = ctx.where_with(&ctx.fields_bound_by_shape(
        false,
        &quote!(#serde::Serialize),
        None,
        ViewKind::Columns,
    ));

    // The columns view borrows with the struct's lifetime in front.
    let lt_generics = ctx.generics_with_lifetime();
    let (lt_impl_generics, _, _) = lt_generics.split_for_impl();
    let lt = &names.lifetime;
    let columns_lt = ctx.view_ty(columns, &quote!(#lt));

    let allocator_name = allocator.unraw().to_string();
    let columns_name = columns.unraw().to_string();
    let saved_names = quote! {
        #krate::saving::SavedNames {
            storage: #allocator_name,
            columns: #columns_name,
        }
    };
    let serialize_columns = serialize_struct(
        &serde,
        &columns_name,
        keys.iter()
            .zip(&ctx.input.fields)
            .map(|(key, field)| {
                let ident = field.ident;
                // The saved form of each field, as the allocator saves it:
                // a split array's rows as arrays, a nested struct's columns
                // as a struct.
                let value = match field.shape {
                    Shape::Plain => quote!(self.#ident),
                    Shape::Split { .. } => quote! {
                        &#krate::saving::SplitRows::new(
                            self.#ident.into_columns(),
                            #krate::ranges::RowSlices::row_count(self),
                        )
                    },
                    Shape::Nested => quote!(&self.#ident),
                };
                (key.clone(), value)
            })
            .collect(),
    );

    // Without generics every field type is known here: check each with its
    // own span, so the error points at the field. (With generics, the
    // bounds above are checked where the allocator is used.)
    let field_check = if generics.params.is_empty() {
        let checks = ctx.input.fields.iter().map(|f| {
            let ty = f.ty;
            match f.shape {
                Shape::Plain => quote_spanned!(ty.span()=> __soa_saveable::<#ty>();),
                Shape::Split { elem, .. } => {
                    quote_spanned!(ty.span()=> __soa_saveable::<#elem>();)
                }
                Shape::Nested => quote_spanned!(ty.span()=> __soa_saved_record::<#ty>();),
            }
        });
        quote! {
            const _: () = {
                fn __soa_saveable<T>()
                where
                    T: #serde::Serialize + for<'de> #serde::Deserialize<'de>,
                {
                }
                fn __soa_saved_record<T: #saved_record>() {}
                fn __soa_fields() {
                    #(#checks)*
                }
            };
        }
    } else {
        TokenStream::new()
    };

    let always = quote! {
        #krate::__soa_if_serde! {
            #[automatically_derived]
            impl #impl_generics #serde::Serialize for #id #where_clause {
                #[inline]
                fn serialize<__S: #serde::Serializer>(
                    &self,
                    serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    #serde::Serialize::serialize(&#krate::TypedId::to_layout(*self), serializer)
                }
            }

            #[automatically_derived]
            impl #de_impl_generics #serde::Deserialize<#de_lt> for #id #where_clause {
                #[inline]
                fn deserialize<__D: #serde::Deserializer<#de_lt>>(
                    deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    <#layout as #serde::Deserialize<#de_lt>>::deserialize(deserializer)
                        .map(<Self as #krate::TypedId>::from_layout)
                }
            }

        }
    };
    // A `parts_only` struct has no id and no allocator to save.
    let always = if ctx.input.parts_only() {
        TokenStream::new()
    } else {
        always
    };
    if !ctx.input.attrs.serde {
        return always;
    }

    let field_names = keys.iter();
    let columns_saveable = ctx.where_with(&ctx.bound(
        quote!(<#record_ty as #krate::Record>::Tree),
        quote!(#krate::saving::SavedColumns),
    ));
    quote! {
        #always

        #krate::__soa_serde! {
            #field_check

            #[automatically_derived]
            impl #impl_generics #saved_record for #record_ty #columns_saveable {
                const FIELDS: &'static [&'static str] = &[#(#field_names),*];
                const NAMES: #krate::saving::SavedNames = #saved_names;
            }

            #[automatically_derived]
            impl #lt_impl_generics #serde::Serialize for #columns_lt #columns_where {
                #serialize_columns
            }
        }
    }
}

/// `fn serialize` writing a struct named `name` with the given fields
/// (key, expression of a reference to the value).
fn serialize_struct(
    serde: &TokenStream,
    name: &str,
    fields: Vec<(String, TokenStream)>,
) -> TokenStream {
    let count = fields.len();
    let (keys, values): (Vec<_>, Vec<_>) = fields.into_iter().unzip();
    quote! {
        fn serialize<__S: #serde::Serializer>(
            &self,
            serializer: __S,
        ) -> ::core::result::Result<__S::Ok, __S::Error> {
            let mut __soa_state = #serde::Serializer::serialize_struct(serializer, #name, #count)?;
            #(
                #serde::ser::SerializeStruct::serialize_field(&mut __soa_state, #keys, #values)?;
            )*
            #serde::ser::SerializeStruct::end(__soa_state)
        }
    }
}
