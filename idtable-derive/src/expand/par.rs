//! `par_iter()` / `par_iter_mut()`: emitted inside `__soa_rayon!`, so they
//! exist exactly when the facade's `rayon` feature is on.
//!
//! Each method is bounded on its fields (`Sync` to share rows between
//! threads, `Send` to hand rows to them), like rayon's slice iterators, and
//! so is the matching `IntoParallelIterator` impl for `&FooAllocator` /
//! `&mut FooAllocator` (see `row_bounds`). The bounds take the form
//! `Ctx::bound` gives them: on a struct without generics a plain
//! `Cell<u8>: Sync` would be rejected as trivially false, while the
//! higher-ranked form just leaves the method out. They are the impl's and
//! the methods' only: the allocator of a struct whose fields are not
//! `Send` or `Sync` is the same with the `rayon` feature as without it.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Ctx, ViewKind};
use crate::ast::Shape;

pub fn expand(ctx: &Ctx) -> TokenStream {
    let krate = &ctx.krate;
    let names = ctx.names;
    let (allocator, id, lt) = (&names.allocator, &ctx.id_ty, &names.lifetime);
    let record_ty = &ctx.record_ty;
    let (impl_generics, ty_generics, where_clause) = ctx.input.generics.split_for_impl();
    let lt_generics = ctx.generics_with_lifetime();
    let (lt_impl_generics, _, _) = lt_generics.split_for_impl();
    let lt_tokens = quote!(#lt);
    let par = quote!(#krate::par);
    let into_par = quote!(#krate::__private::rayon::iter::IntoParallelIterator);

    let sync_bounds = row_bounds(ctx, quote!(::core::marker::Sync), ViewKind::Ref);
    let send_bounds = row_bounds(ctx, quote!(::core::marker::Send), ViewKind::Mut);
    let (where_sync, where_send) = (ctx.where_with(&sync_bounds), ctx.where_with(&send_bounds));
    let ref_lt = ctx.view_ty(&names.refs, &lt_tokens);
    let mut_lt = ctx.view_ty(&names.muts, &lt_tokens);

    let record = ctx.record_link();
    // Generated docs carry no doc tests; the examples live in `idtable::par`.
    let module = format!("{}::par", quote!(#krate).to_string().replace(' ', ""));
    let module = module.trim_start_matches("::");
    let doc_par_iter = format!(
        "`(id, references)` for every object, in dense order, as a rayon parallel \
         iterator. Exists when every field of {record} is `Sync`.\n\n\
         It is indexed: `zip`, `enumerate` and `collect` into a `Vec` keep the dense \
         order, parallel to [`ids`](Self::ids). Loops that need no id can also run \
         rayon's slice iterators over [`columns`](Self::columns). Examples: \
         [`{module}`]({module})."
    );
    let doc_par_iter_mut = format!(
        "`(id, mutable references)` for every object, in dense order, as a rayon \
         parallel iterator; each row goes to one thread. Exists when every field of \
         {record} is `Send`.\n\n\
         It is indexed, like [`par_iter`](Self::par_iter). Loops that need no id can \
         also run rayon's slice iterators over [`columns_mut`](Self::columns_mut). \
         Examples: [`{module}`]({module})."
    );

    quote! {
        #krate::__soa_rayon! {
            #[automatically_derived]
            impl #impl_generics #allocator #ty_generics #where_clause {
                #[doc = #doc_par_iter]
                #[inline]
                pub fn par_iter<#lt>(&#lt self) -> #par::ParIter<#lt, #id, #record_ty>
                where
                    #sync_bounds
                {
                    self.storage.par_iter()
                }

                #[doc = #doc_par_iter_mut]
                #[inline]
                pub fn par_iter_mut<#lt>(&#lt mut self) -> #par::ParIterMut<#lt, #id, #record_ty>
                where
                    #send_bounds
                {
                    self.storage.par_iter_mut()
                }
            }

            #[automatically_derived]
            impl #lt_impl_generics #into_par for &#lt #allocator #ty_generics #where_sync {
                type Item = (#id, #ref_lt);
                type Iter = #par::ParIter<#lt, #id, #record_ty>;
                fn into_par_iter(self) -> Self::Iter {
                    self.storage.par_iter()
                }
            }

            #[automatically_derived]
            impl #lt_impl_generics #into_par for &#lt mut #allocator #ty_generics #where_send {
                type Item = (#id, #mut_lt);
                type Iter = #par::ParIterMut<#lt, #id, #record_ty>;
                fn into_par_iter(self) -> Self::Iter {
                    self.storage.par_iter_mut()
                }
            }
        }
    }
}

/// What the rows of a parallel iterator need to go to other threads, with
/// the borrow lifetime of the impl or method: `bound` (`Sync` for shared
/// rows, `Send` for mutable ones) on each field's type (the values the
/// storage holds), on a split array's element rather than on the array
/// (`[T; N]: Sync` does not tell the compiler that a `&T` can be sent);
/// and, with a nested field, `Send` on the row view `kind` itself, which
/// holds references to the nested type's own fields (its type's bound
/// does not tell them). Nothing on the struct, and nothing higher-ranked
/// over the borrow: `for<'x> FooRef<'x, T>: Send` would ask a nested
/// `H<T>` to outlive every `'x`, that is `T: 'static`.
fn row_bounds(ctx: &Ctx, bound: TokenStream, kind: ViewKind) -> TokenStream {
    let mut bounds = ctx.fields_bound_by_shape(false, &bound, Some(&bound), kind);
    if ctx
        .input
        .fields
        .iter()
        .any(|f| matches!(f.shape, Shape::Nested))
    {
        let lt = &ctx.names.lifetime;
        let view = match kind {
            ViewKind::Ref => &ctx.names.refs,
            _ => &ctx.names.muts,
        };
        let view = ctx.view_ty(view, &quote!(#lt));
        bounds.extend(quote!(#view: ::core::marker::Send,));
    }
    bounds
}
