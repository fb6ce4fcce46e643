//! The model of the input struct, borrowing from syn's tree so every error
//! can point at the user's tokens.

use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Type, Visibility};

use crate::attr::Attrs;

/// A struct with named fields, ready to expand.
pub struct Input<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub fields: Vec<Field<'a>>,
    pub attrs: Attrs,
}

/// One named field.
pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub vis: &'a Visibility,
}

impl Field<'_> {
    /// Declared `pub`: readable wherever the struct is.
    pub fn is_pub(&self) -> bool {
        matches!(self.vis, Visibility::Public(_))
    }
}

impl<'a> Input<'a> {
    /// Reads `input`. Shape errors (not a struct with named fields) come
    /// back as `Err`; attribute errors are pushed to `errors` and the
    /// model is still built, with defaults in place of the bad options.
    pub fn from_syn(input: &'a DeriveInput, errors: &mut Vec<syn::Error>) -> Result<Self, ()> {
        let attrs = Attrs::parse(&input.attrs, errors);
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => named,
                Fields::Unnamed(unnamed) => {
                    errors.push(syn::Error::new(
                        unnamed.span(),
                        "SoaAllocator needs named fields, one column each: \
                         write `struct Name { field: Type, .. }` instead of a tuple struct",
                    ));
                    return Err(());
                }
                Fields::Unit => {
                    errors.push(syn::Error::new(
                        input.ident.span(),
                        "SoaAllocator needs named fields, one column each: \
                         write `struct Name { field: Type, .. }` instead of a unit struct",
                    ));
                    return Err(());
                }
            },
            Data::Enum(data) => {
                errors.push(syn::Error::new(
                    data.enum_token.span,
                    "SoaAllocator can only be derived for a struct with named fields, \
                     not an enum: store each variant in its own allocator, or make the \
                     variant a field",
                ));
                return Err(());
            }
            Data::Union(data) => {
                errors.push(syn::Error::new(
                    data.union_token.span,
                    "SoaAllocator can only be derived for a struct with named fields, \
                     not a union: each field becomes a column of its own",
                ));
                return Err(());
            }
        };
        let fields = named
            .named
            .iter()
            .map(|f| Field {
                ident: f.ident.as_ref().expect("named field"),
                ty: &f.ty,
                vis: &f.vis,
            })
            .collect();
        Ok(Input {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            fields,
            attrs,
        })
    }
}
