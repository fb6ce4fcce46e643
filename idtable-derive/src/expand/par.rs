//! `par_iter()` / `par_iter_mut()`: emitted inside `__soa_rayon!`, so they
//! exist exactly when the facade's `rayon` feature is on.
//!
//! Each method is bounded on its fields (`Sync` to share rows between
//! threads, `Send` to hand rows to them), like rayon's slice iterators, and
//! so is the matching `IntoParallelIterator` impl for `&FooAllocator` /
//! `&mut FooAllocator`. The bounds take the form `Ctx::bound` gives them:
//! on a struct without generics a plain `Cell<u8>: Sync` would be rejected
//! as trivially false, while the higher-ranked form just leaves the method
//! out.

use proc_macro2::TokenStream;
use quote::quote;

use super::Ctx;

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

    let mut sync_bounds = ctx.fields_bound(quote!(::core::marker::Sync));
    let mut send_bounds = ctx.fields_bound(quote!(::core::marker::Send));
    // A nested field's view holds references to its own fields, which its
    // type's `Sync` or `Send` does not tell: the views are bounded too.
    if ctx
        .input
        .fields
        .iter()
        .any(|f| matches!(f.shape, crate::ast::Shape::Nested))
    {
        let x = quote!('__soa_x);
        let (refs, muts) = (ctx.view_ty(&names.refs, &x), ctx.view_ty(&names.muts, &x));
        sync_bounds.extend(quote!(for<'__soa_x> #refs: ::core::marker::Send,));
        send_bounds.extend(quote!(for<'__soa_x> #muts: ::core::marker::Send,));
    }
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
                pub fn par_iter(&self) -> #par::ParIter<'_, #id, #record_ty>
                where
                    #sync_bounds
                {
                    self.storage.par_iter()
                }

                #[doc = #doc_par_iter_mut]
                #[inline]
                pub fn par_iter_mut(&mut self) -> #par::ParIterMut<'_, #id, #record_ty>
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
