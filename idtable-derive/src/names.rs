//! Every identifier the derive generates, in one place.

use proc_macro2::Span;
use syn::{GenericParam, Ident, Lifetime};

use crate::ast::Input;

/// The generated names for one struct `Foo`.
pub struct Names {
    /// `FooId`, or `#[soa(id_type = ..)]`.
    pub id: Ident,
    /// `FooAllocator`, or `#[soa(allocator = ..)]`.
    pub allocator: Ident,
    /// `FooRef`.
    pub refs: Ident,
    /// `FooMut`.
    pub muts: Ident,
    /// `FooColumns`.
    pub columns: Ident,
    /// `FooColumnsMut`.
    pub columns_mut: Ident,
    /// The borrow lifetime of the reference types: `'a`, unless the struct
    /// already has a lifetime of that name.
    pub lifetime: Lifetime,
}

impl Names {
    pub fn new(input: &Input) -> Names {
        let base = input.ident;
        let suffixed = |suffix: &str| {
            let name = syn::ext::IdentExt::unraw(base).to_string();
            Ident::new(&format!("{name}{suffix}"), base.span())
        };
        let taken = |name: &str| {
            input.generics.params.iter().any(|p| match p {
                GenericParam::Lifetime(l) => l.lifetime.ident == name,
                GenericParam::Type(t) => t.ident == name,
                GenericParam::Const(c) => c.ident == name,
            })
        };
        let free_name = |wanted: &str| {
            let mut name = String::from(wanted);
            while taken(&name) {
                name.insert(0, '_');
            }
            name
        };
        let lifetime_name = free_name("a");
        Names {
            id: input
                .attrs
                .id_type
                .clone()
                .unwrap_or_else(|| suffixed("Id")),
            allocator: input
                .attrs
                .allocator
                .clone()
                .unwrap_or_else(|| suffixed("Allocator")),
            refs: suffixed("Ref"),
            muts: suffixed("Mut"),
            columns: suffixed("Columns"),
            columns_mut: suffixed("ColumnsMut"),
            lifetime: Lifetime::new(&format!("'{lifetime_name}"), Span::call_site()),
        }
    }

    /// Every generated type name, in a fixed order: the views', and the
    /// id's and the allocator's unless `parts_only`.
    pub fn generated(&self, parts_only: bool) -> Vec<&Ident> {
        let views = [&self.refs, &self.muts, &self.columns, &self.columns_mut];
        if parts_only {
            views.to_vec()
        } else {
            [&self.id, &self.allocator]
                .into_iter()
                .chain(views)
                .collect()
        }
    }
}

/// The local that carries field `index` in generated code (`__f0`, ...):
/// it cannot clash with a user's name.
pub fn field_local(index: usize) -> Ident {
    Ident::new(&format!("__f{index}"), Span::call_site())
}
