//! Checks that need the whole model. Each mistake is one error, on the
//! token to change; the model is then set as if the mistaken option were
//! not there, so the expansion goes on and adds no error of its own.

use syn::{GenericParam, Type};

use crate::ast::{Field, Input, Shape};
use crate::attr::Role;
use crate::names::Names;

/// Decides each field's [`Shape`] from its options and its type.
pub fn resolve_shapes(input: &mut Input, errors: &mut Vec<syn::Error>) {
    let type_params: Vec<String> = input
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    for field in &mut input.fields {
        field.shape = shape_of(field, &type_params, errors);
    }
}

fn shape_of<'a>(
    field: &Field<'a>,
    type_params: &[String],
    errors: &mut Vec<syn::Error>,
) -> Shape<'a> {
    let ty = peel(field.ty);
    let name = field.ident;
    match (field.attrs.split, field.attrs.nested) {
        (None, None) => Shape::Plain,
        (Some(_), Some(nested)) => {
            errors.push(syn::Error::new(
                nested,
                format!(
                    "`split` and `nested` exclude each other on `{name}`: keep `split` for an \
                     array of values (one column per element), `nested` for a derived struct \
                     (its fields' columns)"
                ),
            ));
            match ty {
                Type::Array(array) => Shape::Split {
                    elem: &array.elem,
                    len: &array.len,
                },
                Type::Path(_) => Shape::Nested,
                _ => Shape::Plain,
            }
        }
        (Some(split), None) => match ty {
            Type::Array(array) => Shape::Split {
                elem: &array.elem,
                len: &array.len,
            },
            _ => {
                errors.push(syn::Error::new(
                    split,
                    format!(
                        "`split` takes an array field, `{name}: [T; N]` (one column per \
                         element): remove `#[soa(split)]`, or write `#[soa(nested)]` for a \
                         derived struct"
                    ),
                ));
                Shape::Plain
            }
        },
        (None, Some(nested)) => match ty {
            Type::Path(path)
                if path.qself.is_none()
                    && path
                        .path
                        .get_ident()
                        .is_some_and(|i| type_params.contains(&i.to_string())) =>
            {
                errors.push(syn::Error::new(
                    nested,
                    format!(
                        "`nested` needs the struct's type itself, not a type parameter: \
                         write `{name}: MyStruct` (a struct with `#[derive(SoaAllocator)]`), \
                         or remove `#[soa(nested)]` to store `{name}` in one column"
                    ),
                ));
                Shape::Plain
            }
            Type::Path(_) => Shape::Nested,
            Type::Array(_) => {
                errors.push(syn::Error::new(
                    nested,
                    format!(
                        "`nested` takes a struct with `#[derive(SoaAllocator)]`, and `{name}` \
                         is an array: write `#[soa(split)]` for one column per element"
                    ),
                ));
                Shape::Plain
            }
            _ => {
                errors.push(syn::Error::new(
                    nested,
                    format!(
                        "`nested` takes a struct with `#[derive(SoaAllocator)]`, named by its \
                         path: remove `#[soa(nested)]` to store `{name}` in one column"
                    ),
                ));
                Shape::Plain
            }
        },
    }
}

/// The type inside any invisible groups and parentheses.
fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => peel(&group.elem),
        Type::Paren(paren) => peel(&paren.elem),
        other => other,
    }
}

/// Every generated item is bounded by `for<'x> V: Record` for each nested
/// field type `V` that names none of the struct's parameters: where `V` is
/// not a component (no derive, no `PlainValue`), the items then do not
/// apply instead of each failing, and the one error is the derive's own
/// check of `V` (`expand/record.rs`), which names the fix. (A bound on a
/// type that names a parameter would hide the impl that normalizes its
/// views; those are left unbounded.)
pub fn gate_nested(input: &mut Input, krate: &proc_macro2::TokenStream) {
    let gates: Vec<syn::WherePredicate> = input
        .fields
        .iter()
        .filter(|f| matches!(f.shape, Shape::Nested))
        .filter(|f| !names_parameter(input, f.ty))
        .map(|f| {
            let ty = f.ty;
            syn::parse_quote!(for<'__soa_x> #ty: #krate::Record)
        })
        .collect();
    if !gates.is_empty() {
        input.generics.make_where_clause().predicates.extend(gates);
    }
}

/// Whether `ty` mentions a generic parameter of the struct by name.
pub fn names_parameter(input: &Input, ty: &Type) -> bool {
    let names: Vec<String> = input
        .generics
        .params
        .iter()
        .map(|p| match p {
            GenericParam::Type(t) => t.ident.to_string(),
            GenericParam::Const(c) => c.ident.to_string(),
            GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
        })
        .collect();
    fn walk(tokens: proc_macro2::TokenStream, names: &[String]) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    walk(quote::quote!(#ty), &names)
}

/// `#[soa(parts_only)]` generates no allocator and no id: the options that
/// configure them, and `soa_attr`s for those types, are mistakes. Clears
/// them after reporting.
pub fn check_parts_only(input: &mut Input, errors: &mut Vec<syn::Error>) {
    if !input.parts_only() {
        return;
    }
    for (key, span) in input.attrs.allocator_keys.drain(..) {
        errors.push(syn::Error::new(
            span,
            format!(
                "`{key}` configures the allocator or its id, and `#[soa(parts_only)]` \
                 generates neither: remove `{key} = ..`, or remove `parts_only`"
            ),
        ));
    }
    input.attrs.type_attrs.retain(|(role, span, _)| {
        let name = match role {
            Role::Id => "Id",
            Role::Allocator => "Allocator",
            _ => return true,
        };
        errors.push(syn::Error::new(
            *span,
            format!(
                "`#[soa(parts_only)]` generates no `{name}` type: remove this `soa_attr`, \
                 or remove `parts_only`"
            ),
        ));
        false
    });
}

/// Generated names must differ from the struct's and from each other.
/// Pushes an error for each clash and returns whether there was any (the
/// items must then not be emitted).
pub fn find_name_clashes(input: &Input, names: &Names, errors: &mut Vec<syn::Error>) -> bool {
    let mut clash = false;
    let all = names.generated(input.parts_only());
    for (i, name) in all.iter().enumerate() {
        let clash_with_struct = *name == input.ident;
        let clash_with_earlier = all[..i].iter().any(|earlier| earlier == name);
        if clash_with_struct || clash_with_earlier {
            clash = true;
            let other = if clash_with_struct {
                format!("the struct `{}`", input.ident)
            } else {
                "another generated type".to_string()
            };
            errors.push(syn::Error::new(
                name.span(),
                format!(
                    "the generated type `{name}` would have the same name as {other}; \
                     choose another with `#[soa(allocator = ..)]` or `#[soa(id_type = ..)]`"
                ),
            ));
        }
    }
    clash
}
