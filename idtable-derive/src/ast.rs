//! The model of the input struct, borrowing from syn's tree so every error
//! can point at the user's tokens.

use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, Generics, Ident, Type, Visibility};

use crate::attr::{Attrs, FieldAttrs};

/// A struct with named fields, ready to expand.
pub struct Input<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    /// The struct's generics; `valid.rs` may add predicates to its where
    /// clause (see `valid::gate_nested`), which every generated item
    /// then carries.
    pub generics: Generics,
    pub fields: Vec<Field<'a>>,
    pub attrs: Attrs,
}

/// One named field.
pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub vis: &'a Visibility,
    /// Its `#[soa(...)]` options, as written.
    pub attrs: FieldAttrs,
    /// How its columns are laid out: decided by `valid.rs` from the options
    /// and the type (a mistaken option leaves the field [`Shape::Plain`]).
    pub shape: Shape<'a>,
}

/// How one field becomes columns.
#[derive(Clone, Copy)]
pub enum Shape<'a> {
    /// One column of the field's type.
    Plain,
    /// `#[soa(split)]` on `[elem; len]`: `len` columns of `elem`.
    Split { elem: &'a Type, len: &'a Expr },
    /// `#[soa(nested)]`: the columns of the field's own type.
    Nested,
}

impl Field<'_> {
    /// Declared `pub`: readable wherever the struct is.
    pub fn is_pub(&self) -> bool {
        matches!(self.vis, Visibility::Public(_))
    }

    /// The field's alignment option, once checked (`valid.rs` clears a
    /// mistaken one).
    pub fn align(&self) -> Option<u64> {
        self.attrs.align.map(|(n, _)| n)
    }
}

/// What [`Input::from_syn`] could not model.
pub enum NotModeled {
    /// An enum, union or tuple struct: the derive reports it and emits a
    /// stub instead of the items.
    Shape,
}

impl<'a> Input<'a> {
    /// Reads `input`. Shape errors are pushed to `errors`; a unit struct is
    /// modeled as a struct with no fields (so every item is still emitted
    /// and the user sees one error), other shapes come back as `Err`.
    /// Attribute errors are pushed too, and the model is still built, with
    /// defaults in place of the bad options.
    pub fn from_syn(
        input: &'a DeriveInput,
        errors: &mut Vec<syn::Error>,
    ) -> Result<Self, NotModeled> {
        let attrs = Attrs::parse(&input.attrs, errors);
        let fields = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => named
                    .named
                    .iter()
                    .map(|f| Field {
                        ident: f.ident.as_ref().expect("named field"),
                        ty: &f.ty,
                        vis: &f.vis,
                        attrs: FieldAttrs::parse(&f.attrs, errors),
                        shape: Shape::Plain,
                    })
                    .collect(),
                Fields::Unnamed(unnamed) => {
                    errors.push(syn::Error::new(
                        unnamed.span(),
                        "SoaAllocator needs named fields, one column each: \
                         write `struct Name { field: Type, .. }` instead of a tuple struct \
                         (or, to store it whole as a component, remove the derive and write \
                         `impl idtable::PlainValue for Name {}`)",
                    ));
                    return Err(NotModeled::Shape);
                }
                Fields::Unit => {
                    errors.push(syn::Error::new(
                        input.ident.span(),
                        format!(
                            "SoaAllocator needs named fields, one column each: write \
                             `struct {name} {{ field: Type, .. }}`; for a marker component \
                             (a `SoaMap<Key, {name}>` of the objects that have it), remove the \
                             derive and write `impl idtable::PlainValue for {name} {{}}`, or use \
                             a `SoaMap<Key, ()>`",
                            name = input.ident
                        ),
                    ));
                    Vec::new()
                }
            },
            Data::Enum(data) => {
                errors.push(syn::Error::new(
                    data.enum_token.span,
                    format!(
                        "SoaAllocator can only be derived for a struct with named fields, \
                         not an enum: to store it as a component, remove the derive and \
                         write `impl idtable::PlainValue for {} {{}}`; or store each variant \
                         in its own allocator",
                        input.ident
                    ),
                ));
                return Err(NotModeled::Shape);
            }
            Data::Union(data) => {
                errors.push(syn::Error::new(
                    data.union_token.span,
                    "SoaAllocator can only be derived for a struct with named fields, \
                     not a union: each field becomes a column of its own",
                ));
                return Err(NotModeled::Shape);
            }
        };
        Ok(Input {
            ident: &input.ident,
            vis: &input.vis,
            generics: input.generics.clone(),
            fields,
            attrs,
        })
    }

    /// `#[soa(parts_only)]`: the record and its views only.
    pub fn parts_only(&self) -> bool {
        self.attrs.parts_only.is_some()
    }
}
