//! `FooRef`, `FooMut`, `FooColumns`, `FooColumnsMut` and `impl Record for Foo`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::Ctx;
use crate::names::field_local;

/// How one family of view types wraps a field type.
struct View<'c> {
    name: &'c Ident,
    doc: String,
    field_doc: &'static str,
    wrap: &'c dyn Fn(&syn::Type) -> TokenStream,
    copy: bool,
}

pub fn expand(ctx: &Ctx) -> TokenStream {
    let names = ctx.names;
    let lt = &names.lifetime;
    let record = ctx.record_link();
    let allocator = &names.allocator;
    let alloc = format!("[`{allocator}`]");
    let views = [
        View {
            name: &names.refs,
            doc: format!(
                "One {record} of a {alloc}: a reference per field, named like the struct's."
            ),
            field_doc: "Reference to",
            wrap: &|ty| quote!(&#lt #ty),
            copy: true,
        },
        View {
            name: &names.muts,
            doc: format!("One {record} of a {alloc}: a mutable reference per field."),
            field_doc: "Mutable reference to",
            wrap: &|ty| quote!(&#lt mut #ty),
            copy: false,
        },
        View {
            name: &names.columns,
            doc: format!("The columns of a {alloc}, parallel to [`{allocator}::ids`]."),
            field_doc: "Column of",
            wrap: &|ty| quote!(&#lt [#ty]),
            copy: true,
        },
        View {
            name: &names.columns_mut,
            doc: format!("The columns of a {alloc}, mutably: the place for hot loops."),
            field_doc: "Mutable column of",
            wrap: &|ty| quote!(&#lt mut [#ty]),
            copy: false,
        },
    ];
    let types = views.iter().map(|v| view_type(ctx, v));
    let to_owned = ref_to_owned(ctx);
    let record_impl = record_impl(ctx);
    quote! {
        #(#types)*
        #to_owned
        #record_impl
    }
}

fn view_type(ctx: &Ctx, view: &View) -> TokenStream {
    let vis = ctx.input.vis;
    let name = view.name;
    let doc = &view.doc;
    let generics = ctx.generics_with_lifetime();
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let struct_ident = ctx.input.ident;
    let fields = ctx.input.fields.iter().map(|f| {
        let (ident, fvis) = (f.ident, f.vis);
        let ty = (view.wrap)(f.ty);
        let fdoc = format!(
            "{} [`{struct_ident}::{}`].",
            view.field_doc,
            syn::ext::IdentExt::unraw(ident)
        );
        quote!(#[doc = #fdoc] #fvis #ident: #ty)
    });
    // Debug output can be read from any crate, so it shows the `pub` fields
    // only; a struct with other fields prints `..` for them, whatever its
    // own `Debug` shows.
    let shown: Vec<_> = ctx.input.fields.iter().filter(|f| f.is_pub()).collect();
    let idents: Vec<_> = shown.iter().map(|f| f.ident).collect();
    let labels: Vec<String> = idents
        .iter()
        .map(|i| syn::ext::IdentExt::unraw(*i).to_string())
        .collect();
    let finish = if shown.len() == ctx.input.fields.len() {
        quote!(finish)
    } else {
        quote!(finish_non_exhaustive)
    };
    let label = name.to_string();
    let debug_bounds = ctx.pub_fields_bound(quote!(::core::fmt::Debug));
    let where_debug = ctx.where_with(&debug_bounds);
    let copy = view.copy.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::clone::Clone for #name #ty_generics #where_clause {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
            #[automatically_derived]
            impl #impl_generics ::core::marker::Copy for #name #ty_generics #where_clause {}
        }
    });
    // Without fields the borrow lifetime would be unused.
    let marker = ctx.input.fields.is_empty().then(|| {
        let lt = &ctx.names.lifetime;
        quote!(__soa_lifetime: ::core::marker::PhantomData<&#lt ()>,)
    });
    quote! {
        #[doc = #doc]
        // A view whose field the user never reads is not dead user code.
        #[allow(dead_code)]
        #vis struct #name #impl_generics #where_clause {
            #(#fields,)*
            #marker
        }

        #copy

        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #name #ty_generics #where_debug {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#label)
                    #(.field(#labels, &self.#idents))*
                    .#finish()
            }
        }
    }
}

fn ref_to_owned(ctx: &Ctx) -> TokenStream {
    let name = &ctx.names.refs;
    let generics = ctx.generics_with_lifetime();
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let record_ty = &ctx.record_ty;
    let ident = ctx.input.ident;
    let idents = ctx.input.fields.iter().map(|f| f.ident);
    let idents2 = idents.clone();
    let clone = quote!(::core::clone::Clone);
    let record_bound = ctx.record_bound(clone.clone());
    let clone_bounds = ctx.fields_bound(clone);
    let doc = format!(
        "Clones the fields into an owned [`{ident}`], as `#[derive(Clone)]` would. \
         Needs `{ident}: Clone`: a struct that cannot be cloned cannot be copied \
         out of its allocator either."
    );
    quote! {
        #[automatically_derived]
        impl #impl_generics #name #ty_generics #where_clause {
            #[doc = #doc]
            #[inline]
            pub fn to_owned(&self) -> #record_ty
            where
                #record_bound
                #clone_bounds
            {
                #ident {
                    #(#idents: ::core::clone::Clone::clone(self.#idents2),)*
                }
            }
        }
    }
}

fn record_impl(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let names = ctx.names;
    let ident = ctx.input.ident;
    let record_ty = &ctx.record_ty;
    let (impl_generics, _, where_clause) = ctx.input.generics.split_for_impl();
    let lifetime_generics = ctx.generics_with_lifetime();
    let (_, view_generics, _) = lifetime_generics.split_for_impl();
    let lt = &names.lifetime;

    let tys = ctx.field_types();
    let col = quote!(#krate::columns::Col);
    let columns_ty = Ctx::tree_of(&tys, &|ty| quote!(#col<#ty>));
    let values_ty = Ctx::tree_of(&tys, &|ty| quote!(#ty));
    let locals: Vec<Ident> = (0..tys.len()).map(field_local).collect();
    let pattern = Ctx::tree_of(&locals, &|l| quote!(#l));
    let idents: Vec<_> = ctx.input.fields.iter().map(|f| f.ident).collect();
    let marker = ctx
        .input
        .fields
        .is_empty()
        .then(|| quote!(__soa_lifetime: ::core::marker::PhantomData,));
    let build = |ty: &Ident| quote!(#ty { #(#idents: #locals,)* #marker });
    let (refs, muts, columns, columns_mut) =
        (&names.refs, &names.muts, &names.columns, &names.columns_mut);
    let make_ref = build(refs);
    let make_mut = build(muts);
    let make_columns = build(columns);
    let make_columns_mut = build(columns_mut);
    let from_values = quote!(#ident { #(#idents: #locals,)* });
    let cols = quote!(<Self::Tree as #krate::columns::ColumnTree>);
    let token = quote!(_: #krate::RecordToken<Self>);
    // Without fields the values are `()`, returned implicitly.
    let values_tail = (!idents.is_empty()).then(|| pattern.clone());
    // A row prints as its `Ref` view, whose `Debug` needs the pub fields'.
    let where_debug = ctx.where_with(&ctx.pub_fields_bound(quote!(::core::fmt::Debug)));
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::storage::DebugRow for #record_ty #where_debug {
            fn fmt_row<#lt>(row: &Self::Ref<#lt>, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result
            where
                Self: #lt,
            {
                ::core::fmt::Debug::fmt(row, f)
            }
        }


        #[automatically_derived]
        impl #impl_generics #krate::Record for #record_ty #where_clause {
            type Tree = #columns_ty;
            type Values = #values_ty;
            type Ref<#lt> = #refs #view_generics where Self: #lt;
            type Mut<#lt> = #muts #view_generics where Self: #lt;
            type Columns<#lt> = #columns #view_generics where Self: #lt;
            type ColumnsMut<#lt> = #columns_mut #view_generics where Self: #lt;

            #[inline(always)]
            fn into_values(self, #token) -> Self::Values {
                let #ident { #(#idents: #locals,)* } = self;
                #values_tail
            }
            #[inline(always)]
            fn from_values(#pattern: Self::Values, #token) -> Self {
                #from_values
            }
            #[inline(always)]
            fn make_ref<#lt>(#pattern: #cols::Refs<#lt>, #token) -> Self::Ref<#lt>
            where
                Self: #lt,
            {
                #make_ref
            }
            #[inline(always)]
            fn make_mut<#lt>(#pattern: #cols::Muts<#lt>, #token) -> Self::Mut<#lt>
            where
                Self: #lt,
            {
                #make_mut
            }
            #[inline(always)]
            fn make_columns<#lt>(#pattern: #cols::Slices<#lt>, #token) -> Self::Columns<#lt>
            where
                Self: #lt,
            {
                #make_columns
            }
            #[inline(always)]
            fn make_columns_mut<#lt>(#pattern: #cols::SlicesMut<#lt>, #token) -> Self::ColumnsMut<#lt>
            where
                Self: #lt,
            {
                #make_columns_mut
            }
        }
    }
}
