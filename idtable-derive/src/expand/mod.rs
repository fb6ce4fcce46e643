//! Code generation only: no parsing, no validation.

mod allocator;
mod id;
mod record;
mod serde;

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DeriveInput, GenericParam, Generics, Lifetime, LifetimeParam, Type};

use crate::ast::{Field, Input, NotModeled, Shape};
use crate::attr::{Exhaustion, Role};
use crate::names::Names;
use crate::valid;

/// The four view families of a record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `FooRef`: a shared reference per field.
    Ref,
    /// `FooMut`: a mutable reference per field.
    Mut,
    /// `FooColumns`: a shared slice per field.
    Columns,
    /// `FooColumnsMut`: a mutable slice per field.
    ColumnsMut,
}

impl ViewKind {
    /// The name of the matching associated type of `Record`.
    pub fn assoc(self) -> Ident {
        let name = match self {
            ViewKind::Ref => "Ref",
            ViewKind::Mut => "Mut",
            ViewKind::Columns => "Columns",
            ViewKind::ColumnsMut => "ColumnsMut",
        };
        Ident::new(name, Span::call_site())
    }

    /// The role a `soa_attr` names this view by.
    pub fn role(self) -> Role {
        match self {
            ViewKind::Ref => Role::Ref,
            ViewKind::Mut => Role::Mut,
            ViewKind::Columns => Role::Columns,
            ViewKind::ColumnsMut => Role::ColumnsMut,
        }
    }

    /// How the view wraps an element type `T`: `&'a T`, `&'a mut T`,
    /// `&'a [T]` or `&'a mut [T]`.
    pub fn wrap(self, lt: &Lifetime, ty: &TokenStream) -> TokenStream {
        match self {
            ViewKind::Ref => quote!(&#lt #ty),
            ViewKind::Mut => quote!(&#lt mut #ty),
            ViewKind::Columns => quote!(&#lt [#ty]),
            ViewKind::ColumnsMut => quote!(&#lt mut [#ty]),
        }
    }
}

/// The name of the hidden column of `()` a record has when none of its
/// fields can tell the number of rows (no fields, or only split arrays):
/// its column views carry it so that `len()` is known.
pub const ROWS_FIELD: &str = "__soa_rows";

/// What every expansion stage needs.
pub struct Ctx<'a> {
    pub input: &'a Input<'a>,
    pub names: &'a Names,
    /// The facade crate: `::idtable`, or `#[soa(crate = ..)]`.
    pub krate: TokenStream,
    /// The raw id layout.
    pub layout: TokenStream,
    /// `Foo<T, ..>` as a type.
    pub record_ty: TokenStream,
    /// `FooId<T, ..>` as a type: the id takes the struct's generics.
    pub id_ty: TokenStream,
}

impl Ctx<'_> {
    /// The struct's generics with the borrow lifetime in front.
    pub fn generics_with_lifetime(&self) -> Generics {
        let mut g = self.input.generics.clone();
        g.params.insert(
            0,
            GenericParam::Lifetime(LifetimeParam::new(self.names.lifetime.clone())),
        );
        g
    }

    /// `V: 'lt,` for each nested field type `V` that names a parameter of
    /// the struct: what a view declaration needs to hold the nested type's
    /// own view, `<V as Record>::Ref<'lt>` (whose `where Self: 'lt` the
    /// compiler does not infer from a field, as it does `T: 'lt` from a
    /// `&'lt T`). The impls of a view take it from its type: it is written
    /// on the declaration only. Spanned on the field's type.
    pub fn nested_outlives(&self) -> TokenStream {
        let lt = &self.names.lifetime;
        let tys = self
            .input
            .fields
            .iter()
            .filter(|f| matches!(f.shape, Shape::Nested))
            .filter(|f| valid::names_parameter(self.input, f.ty))
            .map(|f| f.ty);
        let mut out = TokenStream::new();
        for ty in distinct(tys) {
            out.extend(quote_spanned!(ty.span()=> #ty: #lt,));
        }
        out
    }

    /// `View<'lt, ..struct's generic arguments>`, e.g. `FooRef<'_, T>`.
    pub fn view_ty(&self, view: &syn::Ident, lifetime: &TokenStream) -> TokenStream {
        let args = self.input.generics.params.iter().map(|p| match p {
            GenericParam::Lifetime(l) => {
                let l = &l.lifetime;
                quote!(#l)
            }
            GenericParam::Type(t) => {
                let t = &t.ident;
                quote!(#t)
            }
            GenericParam::Const(c) => {
                let c = &c.ident;
                quote!(#c)
            }
        });
        quote!(#view<#lifetime #(, #args)*>)
    }

    /// `Foo<..>: Trait`: the struct itself implements the trait.
    pub fn record_bound(&self, bound: TokenStream) -> TokenStream {
        self.bound(self.record_ty.clone(), bound)
    }

    /// `ty: bound,` as a where-clause predicate, in the form that holds
    /// exactly when needed and never breaks the derive:
    ///
    /// * A type that names a type or const parameter and no lifetime is
    ///   bounded plainly (`T: Debug`, `Vec<T>: Clone`), as a hand-written
    ///   impl would be.
    /// * A type that names none of the struct's parameters (`f32`, `Foo`
    ///   without generics) is bounded higher-ranked, `for<'__soa_x> f32:
    ///   Debug`: the compiler would reject a plain predicate on it that does
    ///   not hold as "trivially false" instead of leaving the impl out, so a
    ///   field that is not `Debug` would break the derive. The higher-ranked
    ///   form is checked only where the impl is used.
    /// * The struct's lifetimes become higher-ranked ones (`&'a T: Debug` is
    ///   written `for<'__soa_a> &'__soa_a T: Debug`). A
    ///   where clause naming `'a` would make the compiler prefer it for every
    ///   `&'_ T: Debug` it must prove and require that borrow to be `'a`; and
    ///   two of them (`&'a T`, `&'b T`) would be ambiguous.
    pub fn bound(&self, ty: TokenStream, bound: TokenStream) -> TokenStream {
        let mut scan = Scan::default();
        let ty = self.erase_lifetimes(ty, &mut scan);
        if scan.erased.is_empty() {
            if scan.names_param {
                quote!(#ty: #bound,)
            } else {
                quote!(for<'__soa_x> #ty: #bound,)
            }
        } else {
            let erased = scan.erased;
            quote!(for<#(#erased),*> #ty: #bound,)
        }
    }

    /// `tokens` (a type) with every lifetime parameter `'a` of the struct
    /// replaced by `'__soa_a`; `scan` records whether one was replaced and
    /// whether a type or const parameter is named.
    fn erase_lifetimes(&self, tokens: TokenStream, scan: &mut Scan) -> TokenStream {
        let params = &self.input.generics.params;
        let mut after_quote = false;
        tokens
            .into_iter()
            .map(|tree| {
                let was_quote = std::mem::replace(&mut after_quote, false);
                match tree {
                    TokenTree::Group(g) => {
                        let mut inner =
                            Group::new(g.delimiter(), self.erase_lifetimes(g.stream(), scan));
                        inner.set_span(g.span());
                        TokenTree::Group(inner)
                    }
                    TokenTree::Punct(p) => {
                        after_quote = p.as_char() == '\'';
                        TokenTree::Punct(p)
                    }
                    TokenTree::Ident(ident) if was_quote => {
                        let is_param = params.iter().any(
                            |p| matches!(p, GenericParam::Lifetime(l) if l.lifetime.ident == ident),
                        );
                        if is_param {
                            let name = format!("__soa_{}", ident.unraw());
                            let lifetime = Lifetime::new(&format!("'{name}"), ident.span());
                            if !scan.erased.contains(&lifetime) {
                                scan.erased.push(lifetime);
                            }
                            TokenTree::Ident(Ident::new(&name, ident.span()))
                        } else {
                            TokenTree::Ident(ident)
                        }
                    }
                    TokenTree::Ident(ident) => {
                        scan.names_param |= params.iter().any(|p| match p {
                            GenericParam::Type(t) => t.ident == ident,
                            GenericParam::Const(c) => c.ident == ident,
                            GenericParam::Lifetime(_) => false,
                        });
                        TokenTree::Ident(ident)
                    }
                    other => other,
                }
            })
            .collect()
    }

    /// The allocator's `TableConfig` (`min_free`, `on_exhausted`), as an
    /// expression.
    pub fn table_config(&self) -> TokenStream {
        let krate = &self.krate;
        let min_free = self.input.attrs.min_free.map_or(0, |(n, _)| n);
        let policy = match self.input.attrs.on_exhausted {
            Some(Exhaustion::Wrap) => quote!(Wrap),
            _ => quote!(Retire),
        };
        quote! {
            #krate::TableConfig {
                min_free: #min_free,
                on_exhausted: #krate::OnExhausted::#policy,
            }
        }
    }

    /// The struct's where clause with `extra` (predicates, each ending in
    /// `,`) appended. The user's last predicate may lack its comma, so the
    /// predicates are written out one by one.
    pub fn where_with(&self, extra: &TokenStream) -> TokenStream {
        let preds = self
            .input
            .generics
            .where_clause
            .iter()
            .flat_map(|w| w.predicates.iter());
        quote!(where #(#preds,)* #extra)
    }

    /// Nests `items` as the balanced pair tree the runtime's `ColumnTree`
    /// expects: `()`, a leaf, or `(left half, right half)`.
    pub fn tree_of<T: quote::ToTokens>(
        items: &[T],
        leaf: &dyn Fn(&T) -> TokenStream,
    ) -> TokenStream {
        match items.len() {
            0 => quote!(()),
            1 => leaf(&items[0]),
            n => {
                let (l, r) = items.split_at(n / 2);
                let l = Self::tree_of(l, leaf);
                let r = Self::tree_of(r, leaf);
                quote!((#l, #r))
            }
        }
    }

    /// The field types of the struct.
    pub fn field_types(&self) -> Vec<&Type> {
        self.input.fields.iter().map(|f| f.ty).collect()
    }

    /// Whether the record has the hidden column of `()` ([`ROWS_FIELD`]):
    /// when no field's columns tell the number of rows (a split array may
    /// have no element, unless its length is a literal above 0).
    pub fn rows_column(&self) -> bool {
        !self.input.fields.iter().any(|f| match f.shape {
            Shape::Plain | Shape::Nested => true,
            Shape::Split { len, .. } => literal_len(len).is_some_and(|n| n > 0),
        })
    }

    /// The column tree of one field: `Col<T>`, `Split<Col<E>, N>` or
    /// `Nested<T>`, in `Aligned<_, A>` for `#[soa(align = A)]`. Spanned on
    /// the field's type, so that a type that cannot be stored is reported
    /// there.
    pub fn field_tree(&self, field: &Field) -> TokenStream {
        let krate = &self.krate;
        let ty = field.ty;
        let span = ty.span();
        let tree = match field.shape {
            Shape::Plain => quote_spanned!(span=> #krate::columns::Col<#ty>),
            Shape::Split { elem, len } => {
                let len = const_arg(len);
                quote_spanned!(span=> #krate::columns::Split<#krate::columns::Col<#elem>, #len>)
            }
            Shape::Nested => quote_spanned!(span=> #krate::Nested<#ty>),
        };
        match field.align() {
            Some(a) => {
                let a = proc_macro2::Literal::usize_unsuffixed(a as usize);
                quote_spanned!(span=> #krate::columns::Aligned<#tree, #a>)
            }
            None => tree,
        }
    }

    /// The record's whole column tree: the fields' trees (and the hidden
    /// rows column) as balanced pairs, in `Aligned` for a struct's
    /// `#[soa(align = A)]`.
    pub fn tree(&self) -> TokenStream {
        let krate = &self.krate;
        let mut leaves: Vec<TokenStream> = self
            .input
            .fields
            .iter()
            .map(|f| self.field_tree(f))
            .collect();
        if self.rows_column() {
            leaves.push(quote!(#krate::columns::RowCount));
        }
        let tree = Self::tree_of(&leaves, &|leaf| leaf.clone());
        match self.input.attrs.align {
            Some((a, _)) => {
                let a = proc_macro2::Literal::usize_unsuffixed(a as usize);
                quote!(#krate::columns::Aligned<#tree, #a>)
            }
            None => tree,
        }
    }

    /// The type of `field` in the view `kind`, with lifetime `lt`:
    /// `&'a T` (and its kin) for a plain field; for a split one `[&'a E;
    /// N]` in a row view and the runtime's `SplitColumns<'a, E, N>` (or
    /// `SplitColumnsMut`) in a column view; the nested type's own view for
    /// a nested one.
    pub fn view_field_ty(&self, field: &Field, kind: ViewKind, lt: &Lifetime) -> TokenStream {
        let ty = field.ty;
        let krate = &self.krate;
        match field.shape {
            Shape::Plain => kind.wrap(lt, &quote!(#ty)),
            Shape::Split { elem, len } => match kind {
                ViewKind::Ref | ViewKind::Mut => {
                    let one = kind.wrap(lt, &quote!(#elem));
                    quote!([#one; #len])
                }
                ViewKind::Columns => {
                    let len = const_arg(len);
                    quote!(#krate::columns::SplitColumns<#lt, #elem, #len>)
                }
                ViewKind::ColumnsMut => {
                    let len = const_arg(len);
                    quote!(#krate::columns::SplitColumnsMut<#lt, #elem, #len>)
                }
            },
            Shape::Nested => {
                let krate = &self.krate;
                let assoc = kind.assoc();
                quote_spanned!(ty.span()=> <#ty as #krate::Record>::#assoc<#lt>)
            }
        }
    }

    /// `field` asked to implement `bound` in the way its shape needs: the
    /// type for a plain field, the element for a split one; for a nested
    /// field, `nested` (a bound on the whole type, e.g. `CloneRow`), or the
    /// bound on its view of `kind` when `nested` is `None`.
    pub fn field_bound(
        &self,
        field: &Field,
        bound: &TokenStream,
        nested: Option<&TokenStream>,
        kind: ViewKind,
    ) -> TokenStream {
        let span = field.ty.span();
        match field.shape {
            Shape::Plain => {
                let ty = field.ty;
                self.bound(quote_spanned!(span=> #ty), respan(bound.clone(), span))
            }
            Shape::Split { elem, .. } => {
                self.bound(quote_spanned!(span=> #elem), respan(bound.clone(), span))
            }
            Shape::Nested => match nested {
                Some(whole) => {
                    let ty = field.ty;
                    self.bound(quote_spanned!(span=> #ty), respan(whole.clone(), span))
                }
                None => {
                    // The view names the impl's lifetime, so the predicate
                    // is never a global one (see `bound`): written plainly.
                    let view = self.view_field_ty(field, kind, &self.names.lifetime);
                    quote_spanned!(span=> #view: #bound,)
                }
            },
        }
    }

    /// [`field_bound`](Self::field_bound) for every field (or every `pub`
    /// field), each predicate once.
    pub fn fields_bound_by_shape(
        &self,
        pub_only: bool,
        bound: &TokenStream,
        nested: Option<&TokenStream>,
        kind: ViewKind,
    ) -> TokenStream {
        let mut seen = Vec::new();
        let mut out = TokenStream::new();
        for field in &self.input.fields {
            if pub_only && !field.is_pub() {
                continue;
            }
            let pred = self.field_bound(field, bound, nested, kind);
            let key = pred.to_string();
            if !seen.contains(&key) {
                seen.push(key);
                out.extend(pred);
            }
        }
        out
    }

    /// Whether `ty` names a type or const parameter of the struct (so it
    /// cannot be evaluated outside the struct's impls).
    pub fn names_generic(&self, ty: &TokenStream) -> bool {
        let mut scan = Scan::default();
        let _ = self.erase_lifetimes(ty.clone(), &mut scan);
        scan.names_param || !scan.erased.is_empty()
    }

    /// The user's `#[soa_attr(role, ..)]` attributes, as attributes.
    pub fn user_attrs(&self, role: Role) -> TokenStream {
        let attrs = self.input.attrs.attrs_for(role);
        quote!(#(#[#attrs])*)
    }

    /// The layout as the user wrote it, for docs.
    pub fn layout_name(&self) -> String {
        match &self.input.attrs.id {
            Some(ty) => quote!(#ty).to_string().replace(' ', ""),
            None => "Id32_32".to_string(),
        }
    }

    /// The facade's path as written, without the leading `::`, for docs.
    pub fn krate_name(&self) -> String {
        let krate = &self.krate;
        let name = quote!(#krate).to_string().replace(' ', "");
        name.trim_start_matches("::").to_string()
    }

    /// A doc link to the struct.
    pub fn record_link(&self) -> String {
        format!("[`{}`]", self.input.ident)
    }
}

/// A split array's length as a const generic argument: a literal or a
/// name as it is, any other expression in braces.
pub fn const_arg(len: &syn::Expr) -> TokenStream {
    match len {
        syn::Expr::Lit(_) | syn::Expr::Path(_) => quote!(#len),
        _ => quote!({ #len }),
    }
}

/// The length of a split array when it is written as a literal.
pub fn literal_len(len: &syn::Expr) -> Option<u64> {
    match len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        syn::Expr::Group(group) => literal_len(&group.expr),
        _ => None,
    }
}

/// Expands `#[derive(SoaAllocator)]`: the generated items, or the errors
/// (all of them) plus enough items to keep follow-on errors away.
pub fn derive(original: &DeriveInput) -> TokenStream {
    let mut errors = Vec::new();
    let mut input = match Input::from_syn(original, &mut errors) {
        Ok(input) => input,
        Err(NotModeled::Shape) => {
            let stub = stub(original, &errors);
            let errors = to_compile_errors(errors);
            return quote!(#errors #stub);
        }
    };
    let krate = match &input.attrs.krate {
        Some(path) => quote!(#path),
        None => quote!(::idtable),
    };
    valid::resolve_shapes(&mut input, &mut errors);
    valid::check_parts_only(&mut input, &mut errors);
    valid::gate_nested(&mut input, &krate);
    let input = input;
    let names = Names::new(&input);
    if valid::find_name_clashes(&input, &names, &mut errors) {
        // Emitting items whose names clash would only add errors.
        return to_compile_errors(errors);
    }
    let layout = match &input.attrs.id {
        Some(ty) => quote!(#ty),
        None => quote!(#krate::Id32_32),
    };
    let ident = input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let ctx = Ctx {
        input: &input,
        names: &names,
        krate,
        layout,
        record_ty: quote!(#ident #ty_generics),
        id_ty: {
            let id = &names.id;
            quote!(#id #ty_generics)
        },
    };
    let record = record::expand(&ctx);
    let serde = serde::expand(&ctx);
    let (id, allocator) = if input.parts_only() {
        Default::default()
    } else {
        (id::expand(&ctx), allocator::expand(&ctx))
    };
    let errors = to_compile_errors(errors);
    quote! {
        #errors
        #id
        #record
        #allocator
        #serde
    }
}

/// What [`Ctx::erase_lifetimes`] found in a type.
#[derive(Default)]
struct Scan {
    /// The lifetimes that replaced the struct's, once each.
    erased: Vec<Lifetime>,
    /// A type or const parameter is named.
    names_param: bool,
}

/// `tys` with repeats left out (types compared as written).
fn distinct<'t>(tys: impl Iterator<Item = &'t Type>) -> Vec<&'t Type> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for ty in tys {
        let key = quote!(#ty).to_string();
        if !seen.contains(&key) {
            seen.push(key);
            out.push(ty);
        }
    }
    out
}

/// `tokens` with every span set to `span`, so that a diagnostic about them
/// points at the user's token.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// What an enum, a union or a tuple struct gets after its error: it is
/// made a plain value, so the user's containers of it (a `SoaMap<K, Foo>`)
/// add no error of their own.
fn stub(original: &DeriveInput, errors: &[syn::Error]) -> TokenStream {
    let mut ignored = Vec::new();
    let krate = match crate::attr::Attrs::parse(&original.attrs, &mut ignored).krate {
        Some(path) => quote!(#path),
        None => quote!(::idtable),
    };
    debug_assert!(!errors.is_empty());
    let ident = &original.ident;
    let (impl_generics, ty_generics, where_clause) = original.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::PlainValue for #ident #ty_generics #where_clause {}
    }
}

fn to_compile_errors(errors: Vec<syn::Error>) -> TokenStream {
    let mut iter = errors.into_iter();
    let Some(mut first) = iter.next() else {
        return TokenStream::new();
    };
    for e in iter {
        first.combine(e);
    }
    first.to_compile_error()
}
