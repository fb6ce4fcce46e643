//! `FooRef`, `FooMut`, `FooColumns`, `FooColumnsMut`, their row ranges,
//! and `impl Record for Foo` (with `CloneRow` and `DebugRow`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Ident, Lifetime};

use super::{Ctx, ViewKind, ROWS_FIELD};
use crate::ast::Shape;
use crate::names::field_local;

/// One family of view types.
struct View<'c> {
    kind: ViewKind,
    name: &'c Ident,
    doc: String,
    field_doc: &'static str,
    copy: bool,
}

pub fn expand(ctx: &Ctx) -> TokenStream {
    let names = ctx.names;
    let record = ctx.record_link();
    let ident = ctx.input.ident;
    let (holder, ids) = if ctx.input.parts_only() {
        (
            format!("the containers of {record}s (a `SoaMap`, or an allocator it is nested in)"),
            "keys()".to_string(),
        )
    } else {
        let allocator = &names.allocator;
        (
            format!("a [`{allocator}`]"),
            format!("[`{allocator}::ids`]"),
        )
    };
    let ranges = format!(
        "Cut it into row ranges with `len`, `split_at`, `chunks`, `get(range)` and `row(i)` \
         (see `{}::ranges`).",
        ctx.krate_name()
    );
    let views = [
        View {
            kind: ViewKind::Ref,
            name: &names.refs,
            doc: format!(
                "One {record} of {holder}: a reference per field, named like the struct's."
            ),
            field_doc: "Reference to",
            copy: true,
        },
        View {
            kind: ViewKind::Mut,
            name: &names.muts,
            doc: format!("One {record} of {holder}: a mutable reference per field."),
            field_doc: "Mutable reference to",
            copy: false,
        },
        View {
            kind: ViewKind::Columns,
            name: &names.columns,
            doc: format!(
                "The columns of {holder}, parallel to {ids}: a slice per column of {record}.\n\n\
                 {ranges}"
            ),
            field_doc: "Column of",
            copy: true,
        },
        View {
            kind: ViewKind::ColumnsMut,
            name: &names.columns_mut,
            doc: format!(
                "The columns of {holder}, mutably: the place for hot loops.\n\n{ranges} \
                 The `_mut` forms take the view by value; `reborrow()` keeps it."
            ),
            field_doc: "Mutable column of",
            copy: false,
        },
    ];
    let types = views.iter().map(|v| view_type(ctx, v, ident));
    let clone_row = clone_row(ctx);
    let record_impl = record_impl(ctx);
    let ranges = [ViewKind::Columns, ViewKind::ColumnsMut].map(|kind| row_slices(ctx, kind));
    let methods = range_methods(ctx);
    let align_checks = align_checks(ctx);
    let nested_checks = nested_checks(ctx);
    quote! {
        #nested_checks
        #(#types)*
        #clone_row
        #record_impl
        #(#ranges)*
        #methods
        #align_checks
    }
}

fn view_type(ctx: &Ctx, view: &View, struct_ident: &Ident) -> TokenStream {
    let vis = ctx.input.vis;
    let name = view.name;
    let doc = &view.doc;
    let lt = &ctx.names.lifetime;
    let generics = ctx.generics_with_lifetime();
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let fields = ctx.input.fields.iter().map(|f| {
        let (ident, fvis) = (f.ident, f.vis);
        let ty = ctx.view_field_ty(f, view.kind, lt);
        let unraw = syn::ext::IdentExt::unraw(ident);
        let shape = match f.shape {
            Shape::Plain => String::new(),
            Shape::Split { .. } => " (split: one per element)".to_string(),
            Shape::Nested => {
                let inner = match view.kind {
                    ViewKind::Ref => "Ref",
                    ViewKind::Mut => "Mut",
                    ViewKind::Columns => "Columns",
                    ViewKind::ColumnsMut => "ColumnsMut",
                };
                format!(" (nested: its own `{inner}` view)")
            }
        };
        let fdoc = format!("{} [`{struct_ident}::{unraw}`]{shape}.", view.field_doc);
        quote!(#[doc = #fdoc] #fvis #ident: #ty)
    });
    let rows = ctx.rows_column().then(|| {
        let field = Ident::new(ROWS_FIELD, Span::call_site());
        let ty = view.kind.wrap(lt, &quote!(()));
        quote!(#field: #ty,)
    });
    // Debug output can be read from any crate, so it shows the `pub` fields
    // only; a struct with other fields prints `..` for them, whatever its
    // own `Debug` shows.
    let shown: Vec<_> = ctx.input.fields.iter().filter(|f| f.is_pub()).collect();
    let labels: Vec<String> = shown
        .iter()
        .map(|f| syn::ext::IdentExt::unraw(f.ident).to_string())
        .collect();
    let finish = if shown.len() == ctx.input.fields.len() {
        quote!(finish)
    } else {
        quote!(finish_non_exhaustive)
    };
    let label = name.to_string();
    let krate = &ctx.krate;
    // A nested field of the shared view prints through its type's
    // `DebugRow` (a bound without the view's lifetime).
    let debug_row = quote!(#krate::storage::DebugRow);
    let nested_debug = (view.kind == ViewKind::Ref).then_some(&debug_row);
    let debug_bounds =
        ctx.fields_bound_by_shape(true, &quote!(::core::fmt::Debug), nested_debug, view.kind);
    let shown_values = shown.iter().map(|f| {
        let ident = f.ident;
        match (f.shape, view.kind) {
            (Shape::Nested, ViewKind::Ref) => {
                let ty = f.ty;
                quote!(&#krate::DebugRef::<#ty>(&self.#ident))
            }
            _ => quote!(&self.#ident),
        }
    });
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
    let user_attrs = ctx.user_attrs(view.kind.role());
    let outlives = ctx.nested_outlives();
    let where_decl = if outlives.is_empty() {
        quote!(#where_clause)
    } else {
        ctx.where_with(&outlives)
    };
    quote! {
        #[doc = #doc]
        #user_attrs
        // A view whose field the user never reads is not dead user code.
        #[allow(dead_code)]
        #vis struct #name #impl_generics #where_decl {
            #(#fields,)*
            #rows
        }

        #copy

        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #name #ty_generics #where_debug {
            #[inline]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#label)
                    #(.field(#labels, #shown_values))*
                    .#finish()
            }
        }
    }
}

/// `impl CloneRow for Foo` and `FooRef::to_owned`, which calls it.
fn clone_row(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let names = ctx.names;
    let lt = &names.lifetime;
    let refs = &names.refs;
    let (impl_generics, _, _) = ctx.input.generics.split_for_impl();
    let lt_generics = ctx.generics_with_lifetime();
    let (lt_impl_generics, lt_ty_generics, lt_where) = lt_generics.split_for_impl();
    let record_ty = &ctx.record_ty;
    let ident = ctx.input.ident;
    let ref_lt = ctx.view_ty(refs, &quote!(#lt));
    let clone = quote!(::core::clone::Clone);
    let mut bounds = ctx.record_bound(clone.clone());
    bounds.extend(ctx.fields_bound_by_shape(
        false,
        &clone,
        Some(&quote!(#krate::CloneRow)),
        ViewKind::Ref,
    ));
    let where_clone = ctx.where_with(&bounds);
    let fields = ctx.input.fields.iter().map(|f| {
        let name = f.ident;
        let ty = f.ty;
        let value = match f.shape {
            Shape::Plain => quote!(::core::clone::Clone::clone(row.#name)),
            Shape::Split { .. } => {
                quote!(row.#name.map(|__soa_v| ::core::clone::Clone::clone(__soa_v)))
            }
            Shape::Nested => quote!(<#ty as #krate::CloneRow>::clone_row(&row.#name)),
        };
        quote!(#name: #value)
    });
    let doc = format!(
        "Clones the fields into an owned [`{ident}`], as `#[derive(Clone)]` would. \
         Needs `{ident}: Clone`: a struct that cannot be cloned cannot be copied \
         out of its containers either."
    );
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::CloneRow for #record_ty #where_clone {
            #[inline]
            fn clone_row<#lt>(row: &#ref_lt) -> Self
            where
                Self: #lt,
            {
                #ident { #(#fields,)* }
            }
        }

        #[automatically_derived]
        impl #lt_impl_generics #refs #lt_ty_generics #lt_where {
            #[doc = #doc]
            #[inline]
            pub fn to_owned(&self) -> #record_ty
            where
                #bounds
            {
                <#record_ty as #krate::CloneRow>::clone_row(self)
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

    let rows_column = ctx.rows_column();
    let mut tys: Vec<TokenStream> = ctx.field_types().iter().map(|t| quote!(#t)).collect();
    if rows_column {
        tys.push(quote!(()));
    }
    let columns_ty = ctx.tree();
    let values_ty = Ctx::tree_of(&tys, &|ty| ty.clone());
    let locals: Vec<Ident> = (0..tys.len()).map(field_local).collect();
    let pattern = Ctx::tree_of(&locals, &|l| quote!(#l));
    let idents: Vec<_> = ctx.input.fields.iter().map(|f| f.ident).collect();
    let field_locals = &locals[..idents.len()];
    let (rows_init, rows_value) = if rows_column {
        let field = Ident::new(ROWS_FIELD, Span::call_site());
        let local = &locals[idents.len()];
        (quote!(#field: #local,), quote!(let #local = ();))
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let build = |ty: &Ident| quote!(#ty { #(#idents: #field_locals,)* #rows_init });
    let (refs, muts, columns, columns_mut) =
        (&names.refs, &names.muts, &names.columns, &names.columns_mut);
    let make_ref = build(refs);
    let make_mut = build(muts);
    let make_columns = build(columns);
    let make_columns_mut = build(columns_mut);
    let cols = quote!(<Self::Tree as #krate::columns::ColumnTree>);
    // Shorter-lived views of the mutable columns, field by field: a nested
    // field through its own type's functions.
    let b = Lifetime::new("'__soa_b", Span::call_site());
    let lend = |shared: bool| {
        let mut out: Vec<TokenStream> = ctx
            .input
            .fields
            .iter()
            .map(|f| {
                let name = f.ident;
                let ty = f.ty;
                let value = match (f.shape, shared) {
                    (Shape::Plain, true) => quote!(&*columns.#name),
                    (Shape::Plain, false) => quote!(&mut *columns.#name),
                    (Shape::Split { .. }, true) => {
                        quote!(#krate::columns::SplitColumnsMut::as_columns(&columns.#name))
                    }
                    (Shape::Split { .. }, false) => {
                        quote!(#krate::columns::SplitColumnsMut::reborrow(&mut columns.#name))
                    }
                    (Shape::Nested, true) => {
                        quote!(<#ty as #krate::Record>::shared_columns(&columns.#name))
                    }
                    (Shape::Nested, false) => {
                        quote!(<#ty as #krate::Record>::reborrow_columns(&mut columns.#name))
                    }
                };
                quote!(#name: #value)
            })
            .collect();
        if rows_column {
            let field = Ident::new(ROWS_FIELD, Span::call_site());
            out.push(if shared {
                quote!(#field: &*columns.#field)
            } else {
                quote!(#field: &mut *columns.#field)
            });
        }
        out
    };
    let (shared, reborrowed) = (lend(true), lend(false));
    let token = quote!(_: #krate::RecordToken<Self>);
    // A row prints as its `Ref` view, whose `Debug` needs the pub fields'.
    let where_debug = ctx.where_with(&ctx.fields_bound_by_shape(
        true,
        &quote!(::core::fmt::Debug),
        Some(&quote!(#krate::storage::DebugRow)),
        ViewKind::Ref,
    ));
    // The hidden rows column's value is `()`, never stored in the struct.
    let from_pattern = if rows_column {
        Ctx::tree_of(&locals, &|l| {
            if field_locals.contains(l) {
                quote!(#l)
            } else {
                quote!(())
            }
        })
    } else {
        pattern.clone()
    };
    // A table's configuration is the struct's (`min_free`, `on_exhausted`);
    // a `parts_only` struct has no table of its own and takes none.
    let table_config = if ctx.input.parts_only() {
        TokenStream::new()
    } else {
        let config = ctx.table_config();
        quote!(const TABLE_CONFIG: #krate::TableConfig = #config;)
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::storage::DebugRow for #record_ty #where_debug {
            #[inline]
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
            #table_config

            #[inline(always)]
            fn into_values(self, #token) -> Self::Values {
                let #ident { #(#idents: #field_locals,)* } = self;
                #rows_value
                #pattern
            }
            #[inline(always)]
            fn from_values(#from_pattern: Self::Values, #token) -> Self {
                #ident { #(#idents: #field_locals,)* }
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
            #[inline(always)]
            fn shared_columns<#b, #lt: #b>(columns: &#b Self::ColumnsMut<#lt>) -> Self::Columns<#b>
            where
                Self: #lt,
            {
                #columns { #(#shared,)* }
            }
            #[inline(always)]
            fn reborrow_columns<#b, #lt: #b>(columns: &#b mut Self::ColumnsMut<#lt>) -> Self::ColumnsMut<#b>
            where
                Self: #lt,
            {
                #columns_mut { #(#reborrowed,)* }
            }
        }
    }
}

/// The fields of a view with the hidden rows column, as idents.
fn view_fields(ctx: &Ctx) -> Vec<Ident> {
    let mut fields: Vec<Ident> = ctx.input.fields.iter().map(|f| f.ident.clone()).collect();
    if ctx.rows_column() {
        fields.push(Ident::new(ROWS_FIELD, Span::call_site()));
    }
    fields
}

/// The field whose columns tell the number of rows.
fn length_field(ctx: &Ctx) -> Ident {
    if ctx.rows_column() {
        return Ident::new(ROWS_FIELD, Span::call_site());
    }
    let field = ctx
        .input
        .fields
        .iter()
        .find(|f| match f.shape {
            Shape::Plain | Shape::Nested => true,
            Shape::Split { len, .. } => super::literal_len(len).is_some_and(|n| n > 0),
        })
        .expect("a field that knows the length, or the rows column");
    field.ident.clone()
}

/// `RowSlices` for `FooColumns` (`kind` `Columns`) or `FooColumnsMut`:
/// every field cut at the same row.
fn row_slices(ctx: &Ctx, kind: ViewKind) -> TokenStream {
    let krate = &ctx.krate;
    let names = ctx.names;
    let lt = &names.lifetime;
    let ranges = quote!(#krate::ranges);
    let lt_generics = ctx.generics_with_lifetime();
    let (impl_generics, _, where_clause) = lt_generics.split_for_impl();
    let (view, row) = match kind {
        ViewKind::Columns => (&names.columns, &names.refs),
        _ => (&names.columns_mut, &names.muts),
    };
    let self_ty = ctx.view_ty(view, &quote!(#lt));
    let row_ty = ctx.view_ty(row, &quote!(#lt));
    let fields = view_fields(ctx);
    let len_field = length_field(ctx);
    // The view's fields as nested pairs, `(a, (b, c))`: its `RowParts`.
    let kind_of = match kind {
        ViewKind::Columns => ViewKind::Columns,
        _ => ViewKind::ColumnsMut,
    };
    let mut field_tys: Vec<TokenStream> = ctx
        .input
        .fields
        .iter()
        .map(|f| ctx.view_field_ty(f, kind_of, lt))
        .collect();
    if ctx.rows_column() {
        field_tys.push(kind_of.wrap(lt, &quote!(())));
    }
    let parts_ty = nest_right(&field_tys);
    let parts_value = nest_right(&fields.iter().map(|f| quote!(self.#f)).collect::<Vec<_>>());
    let parts_pattern = nest_right(&fields.iter().map(|f| quote!(#f)).collect::<Vec<_>>());
    let [for_each_row, for_each_row_keyed, loops] =
        row_loops(ctx, kind_of, &fields, &field_tys, &row_ty);
    let left: Vec<Ident> = (0..fields.len())
        .map(|i| Ident::new(&format!("__soa_l{i}"), Span::call_site()))
        .collect();
    let right: Vec<Ident> = (0..fields.len())
        .map(|i| Ident::new(&format!("__soa_r{i}"), Span::call_site()))
        .collect();
    // The view's own loops, for views wider than the runtime's loops.
    let loops = (!loops.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #self_ty #where_clause {
                #loops
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #ranges::RowSlices for #self_ty #where_clause {
            type Row = #row_ty;

            #[inline(always)]
            fn row_count(&self) -> usize {
                #ranges::RowSlices::row_count(&self.#len_field)
            }

            #[inline]
            fn split_rows(self, mid: usize) -> (Self, Self) {
                #(let (#left, #right) = #ranges::RowSlices::split_rows(self.#fields, mid);)*
                (#view { #(#fields: #left,)* }, #view { #(#fields: #right,)* })
            }

            #[inline]
            fn into_row(self, index: usize) -> Self::Row {
                #row { #(#fields: #ranges::RowSlices::into_row(self.#fields, index),)* }
            }

            type RowIter = #ranges::ViewRowIter<Self>;

            #[inline(always)]
            fn into_rows(self) -> Self::RowIter {
                #ranges::ViewRowIter::new(#ranges::RowSlices::into_rows(
                    #ranges::RowParts::into_parts(self),
                ))
            }

            #for_each_row
            #for_each_row_keyed
        }

        #loops

        #[automatically_derived]
        impl #impl_generics #ranges::RowParts for #self_ty #where_clause {
            type Parts = #parts_ty;

            #[inline(always)]
            fn into_parts(self) -> Self::Parts {
                #parts_value
            }

            #[inline(always)]
            fn row_of_parts(
                #parts_pattern: <Self::Parts as #ranges::RowSlices>::Row,
            ) -> Self::Row {
                #row { #(#fields,)* }
            }
        }
    }
}

/// `for_each_row` and `for_each_row_keyed` of a view (`kind` `Columns` or
/// `ColumnsMut`, fields `fields` of types `tys`, rows `row_ty`), and the
/// two loop functions they call (for the view's inherent impl), whose
/// arguments are the view's slices, one each (a split field of a literal
/// length as that many), so that the loop knows that no two overlap.
fn row_loops(
    ctx: &Ctx,
    kind: ViewKind,
    fields: &[Ident],
    tys: &[TokenStream],
    row_ty: &TokenStream,
) -> [TokenStream; 3] {
    let krate = &ctx.krate;
    let ranges = quote!(#krate::ranges);
    let lt = &ctx.names.lifetime;
    let row = match kind {
        ViewKind::Columns => &ctx.names.refs,
        _ => &ctx.names.muts,
    };
    // Per argument (a split field's elements each one): its name and type,
    // how it is taken out of `self`, its row bound in the loop's pattern,
    // and the row's field made of those.
    let mut params = Vec::new();
    let mut unpack = Vec::new();
    let mut items = Vec::new();
    let mut values = Vec::new();
    for (i, (field, ty)) in fields.iter().zip(tys).enumerate() {
        let split = ctx.input.fields.get(i).and_then(|f| match f.shape {
            crate::ast::Shape::Split { elem, len } => {
                super::literal_len(len).map(|n| (elem, n as usize))
            }
            _ => None,
        });
        match split {
            Some((elem, n)) if n > 0 => {
                let one = kind.wrap(lt, &quote!(#elem));
                let names: Vec<Ident> = (0..n)
                    .map(|k| Ident::new(&format!("__soa_a{i}_{k}"), Span::call_site()))
                    .collect();
                params.extend(names.iter().map(|a| quote!(#a: #one)));
                unpack.push(quote!(let [#(#names),*] = self.#field.into_columns();));
                let elems: Vec<Ident> = (0..n)
                    .map(|k| Ident::new(&format!("__soa_i{i}_{k}"), Span::call_site()))
                    .collect();
                values.push(quote!(#field: [#(#elems),*]));
                items.extend(elems.iter().map(|e| quote!(#e)));
            }
            _ => {
                let arg = Ident::new(&format!("__soa_a{i}"), Span::call_site());
                let item = Ident::new(&format!("__soa_i{i}"), Span::call_site());
                params.push(quote!(#arg: #ty));
                unpack.push(quote!(let #arg = self.#field;));
                values.push(quote!(#field: #item));
                items.push(quote!(#item));
            }
        }
    }
    let args: Vec<TokenStream> = params
        .iter()
        .map(|p| {
            let name = p.clone().into_iter().next().expect("a parameter's name");
            quote!(#name)
        })
        .collect();
    let pattern = nest_right(&items);
    let make_row = quote!(#row { #(#values,)* });
    // The loops run in functions of their own, never inlined, whose
    // arguments are the slices: inlined (or in a closure), the compiler may
    // lose what the arguments told it, depending on how it splits the
    // crate into codegen units. One call per loop, not per row. Up to 16
    // arguments, the runtime's loop of that many (nothing to type-check
    // here but the call); more, a loop of the view's own over nested pairs.
    let (plain, keyed, own) = if (1..=16).contains(&args.len()) {
        let n = args.len();
        let rows = Ident::new(&format!("rows{n}"), Span::call_site());
        let keyed = Ident::new(&format!("keyed{n}"), Span::call_site());
        (
            quote!(#ranges::loops::#rows(#(#args,)* |#pattern| f(#make_row));),
            quote!(#ranges::loops::#keyed(keys, #(#args,)* |(key, #pattern)| f((key, #make_row)));),
            quote!(),
        )
    } else {
        // Every argument a part of the nested pairs, whose `RowSlices`
        // (the runtime's, generic) zips their rows.
        let nested = nest_right(&args);
        (
            quote!(Self::__soa_rows_loop(#(#args,)* &mut f);),
            quote!(Self::__soa_rows_loop_keyed(keys, #(#args,)* &mut f);),
            quote! {
                #[doc(hidden)]
                #[inline(never)]
                #[allow(clippy::too_many_arguments)]
                fn __soa_rows_loop<__SoaF: ::core::ops::FnMut(#row_ty)>(
                    #(#params,)*
                    f: &mut __SoaF,
                ) {
                    #ranges::RowSlices::for_each_row(#nested, |#pattern| f(#make_row));
                }

                #[doc(hidden)]
                #[inline(never)]
                #[allow(clippy::too_many_arguments)]
                fn __soa_rows_loop_keyed<'__soa_k, __SoaK, __SoaF: ::core::ops::FnMut((&'__soa_k __SoaK, #row_ty))>(
                    keys: &'__soa_k [__SoaK],
                    #(#params,)*
                    f: &mut __SoaF,
                ) {
                    #ranges::RowSlices::for_each_row_keyed(
                        #nested,
                        keys,
                        |(key, #pattern)| f((key, #make_row)),
                    );
                }
            },
        )
    };
    [
        quote! {
            #[inline(always)]
            fn for_each_row(self, mut f: impl ::core::ops::FnMut(Self::Row)) {
                #(#unpack)*
                #plain
            }
        },
        quote! {
            #[inline(always)]
            fn for_each_row_keyed<'__soa_k, __SoaK>(
                self,
                keys: &'__soa_k [__SoaK],
                mut f: impl ::core::ops::FnMut((&'__soa_k __SoaK, Self::Row)),
            ) {
                #(#unpack)*
                #keyed
            }
        },
        own,
    ]
}

/// `items` nested as pairs from the right: `a`, `(a, b)`, `(a, (b, c))`.
fn nest_right(items: &[TokenStream]) -> TokenStream {
    match items {
        [] => quote!(()),
        [one] => one.clone(),
        [first, rest @ ..] => {
            let rest = nest_right(rest);
            quote!((#first, #rest))
        }
    }
}

/// The inherent row-range methods of `FooColumns` and `FooColumnsMut`,
/// each a call into `idtable::ranges`.
fn range_methods(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let names = ctx.names;
    let lt = &names.lifetime;
    let ranges = quote!(#krate::ranges);
    let lt_generics = ctx.generics_with_lifetime();
    let (impl_generics, ty_generics, where_clause) = lt_generics.split_for_impl();
    let (columns, columns_mut) = (&names.columns, &names.columns_mut);
    let ref_lt = ctx.view_ty(&names.refs, &quote!(#lt));
    let mut_lt = ctx.view_ty(&names.muts, &quote!(#lt));
    let ref_anon = ctx.view_ty(&names.refs, &quote!('_));
    let columns_anon = ctx.view_ty(columns, &quote!('_));
    let columns_mut_anon = ctx.view_ty(columns_mut, &quote!('_));
    let range = quote!(impl ::core::ops::RangeBounds<usize>);
    let option = quote!(::core::option::Option);
    let record_ty = &ctx.record_ty;
    let par = quote! {
        #krate::__soa_rayon! {
            #[automatically_derived]
            impl #impl_generics #columns #ty_generics #where_clause {
                /// [`chunks`](Self::chunks) as a rayon parallel iterator: each range of
                /// rows to one thread. Panics if `size` is 0.
                #[inline]
                #[track_caller]
                pub fn par_chunks(self, size: usize) -> #ranges::ParChunks<Self>
                where
                    Self: ::core::marker::Send,
                {
                    #ranges::par_chunks(self, size)
                }
            }

            #[automatically_derived]
            impl #impl_generics #columns_mut #ty_generics #where_clause {
                /// [`chunks_mut`](Self::chunks_mut) as a rayon parallel iterator: each
                /// range of rows to one thread. Panics if `size` is 0.
                #[inline]
                #[track_caller]
                pub fn par_chunks_mut(self, size: usize) -> #ranges::ParChunks<Self>
                where
                    Self: ::core::marker::Send,
                {
                    #ranges::par_chunks(self, size)
                }
            }
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #columns #ty_generics #where_clause {
            /// The number of rows: the length of every column.
            #[inline]
            pub fn len(&self) -> usize {
                #ranges::RowSlices::row_count(self)
            }

            /// `true` when there is no row.
            #[inline]
            pub fn is_empty(&self) -> bool {
                #ranges::RowSlices::row_count(self) == 0
            }

            /// Rows `..mid` and `mid..` of every column. Panics if `mid > len()`.
            #[inline]
            #[track_caller]
            pub fn split_at(self, mid: usize) -> (Self, Self) {
                #ranges::split_at(self, mid)
            }

            /// Ranges of `size` rows of every column, the last one shorter if
            /// `size` does not divide `len()`. Panics if `size` is 0.
            #[inline]
            #[track_caller]
            pub fn chunks(self, size: usize) -> #ranges::Chunks<Self> {
                #ranges::chunks(self, size)
            }

            /// Rows `range` of every column; `None` if it is out of bounds.
            #[inline]
            pub fn get(self, range: #range) -> #option<Self> {
                #ranges::get(self, range)
            }

            /// The row at dense position `index`. Panics if `index >= len()`.
            #[inline]
            #[track_caller]
            pub fn row(self, index: usize) -> #ref_lt {
                #ranges::row(self, index)
            }

            /// Calls `f` with every row, front to back, each column passed
            /// as an argument of its own (see `idtable::ranges::RowSlices::with_rows`):
            /// the way to write a hot loop over several columns.
            #[inline(always)]
            pub fn for_each(self, f: impl ::core::ops::FnMut(#ref_lt)) {
                #ranges::for_each(self, f)
            }
        }

        #[automatically_derived]
        impl #impl_generics #columns_mut #ty_generics #where_clause {
            /// The number of rows: the length of every column.
            #[inline]
            pub fn len(&self) -> usize {
                #ranges::RowSlices::row_count(self)
            }

            /// `true` when there is no row.
            #[inline]
            pub fn is_empty(&self) -> bool {
                #ranges::RowSlices::row_count(self) == 0
            }

            /// Rows `..mid` and `mid..` of every column, mutably. Panics if
            /// `mid > len()`.
            #[inline]
            #[track_caller]
            pub fn split_at_mut(self, mid: usize) -> (Self, Self) {
                #ranges::split_at(self, mid)
            }

            /// Ranges of `size` rows of every column, mutably, the last one
            /// shorter if `size` does not divide `len()`. Panics if `size` is 0.
            #[inline]
            #[track_caller]
            pub fn chunks_mut(self, size: usize) -> #ranges::Chunks<Self> {
                #ranges::chunks(self, size)
            }

            /// Rows `range` of every column, mutably; `None` if it is out of
            /// bounds.
            #[inline]
            pub fn get_mut(self, range: #range) -> #option<Self> {
                #ranges::get(self, range)
            }

            /// The row at dense position `index`, mutably. Panics if
            /// `index >= len()`.
            #[inline]
            #[track_caller]
            pub fn row_mut(self, index: usize) -> #mut_lt {
                #ranges::row(self, index)
            }

            /// Calls `f` with every row mutably, front to back, each column
            /// passed as an argument of its own (see
            /// `idtable::ranges::RowSlices::with_rows`): the way to write a
            /// hot loop that writes some columns and reads others.
            #[inline(always)]
            pub fn for_each(self, f: impl ::core::ops::FnMut(#mut_lt)) {
                #ranges::for_each(self, f)
            }

            /// The same columns for as long as `self` is borrowed: keeps
            /// the view for after a `_mut` method that takes it by value.
            #[inline]
            pub fn reborrow(&mut self) -> #columns_mut_anon {
                <#record_ty as #krate::Record>::reborrow_columns(self)
            }

            /// The same columns, shared.
            #[inline]
            pub fn as_columns(&self) -> #columns_anon {
                <#record_ty as #krate::Record>::shared_columns(self)
            }

            /// The row at dense position `index`, shared. Panics if
            /// `index >= len()`.
            #[inline]
            #[track_caller]
            pub fn row(&self, index: usize) -> #ref_anon {
                #ranges::row(self.as_columns(), index)
            }
        }

        #par
    }
}

/// A nested field's type must be a component: the one error when it is not
/// (every generated item is bounded by it, see `valid::gate_nested`), on
/// the field's type, with the fix in its message.
fn nested_checks(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    if ctx.input.attrs.serde {
        // The serde checks ask each nested type for `SavedRecord`, which
        // asks `Record`: one check, one error (`expand/serde.rs`).
        return TokenStream::new();
    }
    let checks: Vec<TokenStream> = ctx
        .input
        .fields
        .iter()
        .filter(|f| matches!(f.shape, Shape::Nested))
        .filter(|f| !crate::valid::names_parameter(ctx.input, f.ty))
        .map(|f| {
            let ty = f.ty;
            quote_spanned!(syn::spanned::Spanned::span(ty)=> __soa_component::<#ty>();)
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const _: () = {
            #[inline]
            fn __soa_component<T: #krate::Record>() {}
            #[inline]
            fn __soa_nested() {
                #(#checks)*
            }
        };
    }
}

/// `#[soa(align = N)]` below the alignment of the type it aligns is a
/// mistake: a check, evaluated at compile time, on the `N` written (for a
/// struct's `align`, one check against its every field). Types that name
/// the struct's parameters are left to the runtime, which keeps the larger
/// alignment.
fn align_checks(ctx: &Ctx) -> TokenStream {
    let mut checks = TokenStream::new();
    let aligned_ty = |f: &crate::ast::Field| match f.shape {
        Shape::Split { elem, .. } => quote!(#elem),
        _ => {
            let ty = f.ty;
            quote!(#ty)
        }
    };
    for field in &ctx.input.fields {
        let Some((n, span)) = field.attrs.align else {
            continue;
        };
        let ty = aligned_ty(field);
        if ctx.names_generic(&ty) {
            continue;
        }
        let name = syn::ext::IdentExt::unraw(field.ident);
        let message = format!(
            "`align = {n}` on `{name}` is below the alignment of its type: \
             write `align = N` with N at least `core::mem::align_of` of it, or remove it"
        );
        let n = n as usize;
        checks.extend(quote_spanned! {span=>
            const _: () = ::core::assert!(#n >= ::core::mem::align_of::<#ty>(), #message);
        });
    }
    if let Some((n, span)) = ctx.input.attrs.align {
        let tys: Vec<TokenStream> = ctx
            .input
            .fields
            .iter()
            .map(aligned_ty)
            .filter(|ty| !ctx.names_generic(ty))
            .collect();
        if !tys.is_empty() {
            let message = format!(
                "`align = {n}` is below the alignment of a field's type: \
                 write `align = N` with N at least `core::mem::align_of` of every field, \
                 or align the wider fields alone"
            );
            let n = n as usize;
            checks.extend(quote_spanned! {span=>
                const _: () = {
                    let aligns = [#(::core::mem::align_of::<#tys>()),*];
                    let mut i = 0;
                    while i < aligns.len() {
                        ::core::assert!(#n >= aligns[i], #message);
                        i += 1;
                    }
                };
            });
        }
    }
    checks
}
