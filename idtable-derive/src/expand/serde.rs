//! `Serialize`/`Deserialize` for `FooId`, `FooColumns` and `FooAllocator`
//! under `#[soa(serde)]`, emitted inside `__soa_serde!`, which is an error
//! unless the facade's `serde` feature is on.
//!
//! The saved form of an allocator is
//! `{ table: { slots, dense, free }, columns: { field: [..], .. } }`: the
//! runtime's `IdTableParts` and one sequence per field, in dense order.
//! Loading checks the table with `IdTable::from_parts` and the column lengths
//! before any row is built.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, Lifetime, LifetimeParam};

use super::Ctx;

pub fn expand(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let serde = quote!(#krate::__private::serde);
    let serde_path = serde.to_string().replace(' ', "");
    let names = ctx.names;
    let (id, allocator, columns) = (&ctx.id_ty, &names.allocator, &names.columns);
    let ident = ctx.input.ident;
    let layout = &ctx.layout;
    let generics = ctx.input.generics;
    let (impl_generics, ty_generics, _) = generics.split_for_impl();

    let fields = &ctx.input.fields;
    let idents: Vec<_> = fields.iter().map(|f| f.ident).collect();
    let keys: Vec<String> = idents.iter().map(|i| i.unraw().to_string()).collect();
    let tys = ctx.field_types();
    let bound_tys = ctx.distinct_field_types();
    let field_count = fields.len();
    let locals: Vec<_> = (0..field_count)
        .map(|i| format_ident!("__soa_column_{}", i))
        .collect();

    // Bounds on the field types, higher-ranked (see `Ctx::fields_bound`) so
    // that a struct without generics whose field cannot be saved gets no
    // "trivially false" bound error on the derive; `field_check` below
    // reports that field.
    let ser_where = ctx.where_with(&ctx.fields_bound(quote!(#serde::Serialize)));
    let de_lt = Lifetime::new("'__soa_de", proc_macro2::Span::call_site());
    let de_where = ctx.where_with(&ctx.fields_bound(quote!(#serde::Deserialize<#de_lt>)));
    let mut de_generics: Generics = generics.clone();
    de_generics
        .params
        .insert(0, GenericParam::Lifetime(LifetimeParam::new(de_lt.clone())));
    let (de_impl_generics, _, _) = de_generics.split_for_impl();

    // The columns view borrows with the struct's lifetime in front.
    let lt_generics = ctx.generics_with_lifetime();
    let (lt_impl_generics, _, _) = lt_generics.split_for_impl();
    let lt = &names.lifetime;
    let columns_lt = ctx.view_ty(columns, &quote!(#lt));

    // The owned helpers that serde_derive reads into; their bounds are the
    // outer impl's, spelled for serde's own `'de`.
    let helper_bound: String = bound_tys
        .iter()
        .map(|ty| format!("{}: {serde_path}::Deserialize<'de>,", quote!(#ty)))
        .collect();
    let saved_columns = format_ident!("__SoaSavedColumns");
    let saved = format_ident!("__SoaSaved");
    let allocator_name = allocator.unraw().to_string();
    let columns_name = columns.unraw().to_string();
    let where_clause = &generics.where_clause;
    // Unknown fields are refused: a column the struct no longer has would
    // otherwise be dropped silently.
    let helper_attrs = |rename: &str| {
        quote! {
            #[derive(#serde::Deserialize)]
            #[serde(
                crate = #serde_path,
                rename = #rename,
                deny_unknown_fields,
                bound(deserialize = #helper_bound)
            )]
        }
    };
    let columns_helper_attrs = helper_attrs(&columns_name);
    let saved_helper_attrs = helper_attrs(&allocator_name);
    let rows = if field_count == 0 {
        quote!((0..__soa_table.len()).map(|_| #ident {}))
    } else {
        let zipped = zip_rows(&locals);
        let pattern = zip_pattern(&locals);
        quote!(#zipped.map(|#pattern| #ident { #(#idents: #locals),* }))
    };

    let serialize_columns = serialize_struct(
        &serde,
        &columns_name,
        keys.iter()
            .zip(&idents)
            .map(|(key, ident)| (key.clone(), quote!(self.#ident)))
            .collect(),
    );
    let serialize_allocator = serialize_struct(
        &serde,
        &allocator_name,
        vec![
            ("table".to_string(), quote!(self.storage.table())),
            ("columns".to_string(), quote!(&self.columns())),
        ],
    );

    // Without generics every field type is known here: check each with its
    // own span, so the error points at the field. (With generics, the
    // bounds above are checked where the allocator is used.)
    let field_check = if generics.params.is_empty() {
        let checks = tys
            .iter()
            .map(|ty| quote_spanned!(ty.span()=> __soa_saveable::<#ty>();));
        quote! {
            const _: () = {
                fn __soa_saveable<T>()
                where
                    T: #serde::Serialize + for<'de> #serde::Deserialize<'de>,
                {
                }
                fn __soa_fields() {
                    #(#checks)*
                }
            };
        }
    } else {
        TokenStream::new()
    };

    quote! {
        #krate::__soa_serde! {
            #field_check

            #[automatically_derived]
            impl #impl_generics #serde::Serialize for #id #where_clause {
                fn serialize<__S: #serde::Serializer>(
                    &self,
                    serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    #serde::Serialize::serialize(&#krate::TypedId::to_layout(*self), serializer)
                }
            }

            #[automatically_derived]
            impl #de_impl_generics #serde::Deserialize<#de_lt> for #id #where_clause {
                fn deserialize<__D: #serde::Deserializer<#de_lt>>(
                    deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    <#layout as #serde::Deserialize<#de_lt>>::deserialize(deserializer)
                        .map(<Self as #krate::TypedId>::from_layout)
                }
            }

            #[automatically_derived]
            impl #lt_impl_generics #serde::Serialize for #columns_lt #ser_where {
                #serialize_columns
            }

            #[automatically_derived]
            impl #impl_generics #serde::Serialize for #allocator #ty_generics #ser_where {
                #serialize_allocator
            }

            #[automatically_derived]
            impl #de_impl_generics #serde::Deserialize<#de_lt> for #allocator #ty_generics #de_where {
                fn deserialize<__D: #serde::Deserializer<#de_lt>>(
                    deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    #columns_helper_attrs
                    struct #saved_columns #generics #where_clause {
                        #(#idents: #krate::__private::Vec<#tys>,)*
                    }

                    #saved_helper_attrs
                    struct #saved #generics #where_clause {
                        table: #krate::IdTableParts,
                        columns: #saved_columns #ty_generics,
                    }

                    let __soa_saved = <#saved #ty_generics as #serde::Deserialize>::deserialize(
                        deserializer,
                    )?;
                    let __soa_config = Self::new().storage.table().config();
                    let __soa_table =
                        #krate::IdTable::<#id>::from_parts(&__soa_saved.table, __soa_config)
                            .map_err(<__D::Error as #serde::de::Error>::custom)?;
                    #krate::PartsError::check_columns(
                        &[#((#keys, __soa_saved.columns.#idents.len())),*],
                        __soa_table.len(),
                    )
                    .map_err(<__D::Error as #serde::de::Error>::custom)?;
                    let #saved_columns { #(#idents: #locals,)* } = __soa_saved.columns;
                    let __soa_rows = #rows;
                    #krate::SoaStorage::from_table_and_rows(__soa_table, __soa_rows)
                        .map(|storage| Self { storage })
                        .map_err(<__D::Error as #serde::de::Error>::custom)
                }
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

/// `a.into_iter().zip(b).zip(c)` over the column vectors.
fn zip_rows(locals: &[syn::Ident]) -> TokenStream {
    let (first, rest) = locals.split_first().expect("at least one column");
    quote!(::core::iter::IntoIterator::into_iter(#first) #(.zip(#rest))*)
}

/// `((a, b), c)`: the item pattern of [`zip_rows`].
fn zip_pattern(locals: &[syn::Ident]) -> TokenStream {
    let mut iter = locals.iter();
    let first = iter.next().expect("at least one column");
    iter.fold(quote!(#first), |acc, next| quote!((#acc, #next)))
}
