//! Checks that need the whole model.

use crate::ast::Input;
use crate::names::Names;

/// Generated names must differ from the struct's and from each other.
/// Pushes an error for each clash and returns whether there was any (the
/// items must then not be emitted).
pub fn find_name_clashes(input: &Input, names: &Names, errors: &mut Vec<syn::Error>) -> bool {
    let mut clash = false;
    let all = names.all();
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
