//! The `#[soa(...)]` container options, parsed once.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitInt, LitStr, Path, Token, Type};

/// One `#[soa(...)]` option: its key, how it is written, and how its value
/// is read into [`Attrs`]. Adding an option is one row of [`OPTIONS`] plus
/// its effect in `expand/`; the error messages list the keys from here, and a
/// test checks that the facade's `SoaAllocator` docs show every key.
pub struct Opt {
    /// The key, as the user writes it.
    pub key: &'static str,
    /// `true` for a flag written without a value (`#[soa(serde)]`).
    pub flag: bool,
    /// Reads the value (nothing, for a flag) into the options.
    parse: fn(ParseStream, &mut Attrs) -> syn::Result<()>,
}

/// Every option, in the order the error messages list them.
pub const OPTIONS: &[Opt] = &[
    Opt {
        key: "id",
        flag: false,
        parse: |input, out| {
            let ty = input.parse::<Type>().map_err(|e| {
                with_hint(e, "expected an id layout type, e.g. `id = idtable::Id24_8`")
            })?;
            out.id = Some(ty);
            Ok(())
        },
    },
    Opt {
        key: "min_free",
        flag: false,
        parse: |input, out| {
            out.min_free = Some(parse_min_free(input)?);
            Ok(())
        },
    },
    Opt {
        key: "on_exhausted",
        flag: false,
        parse: |input, out| {
            out.on_exhausted = Some(parse_exhaustion(input)?);
            Ok(())
        },
    },
    Opt {
        key: "allocator",
        flag: false,
        parse: |input, out| {
            out.allocator = Some(parse_ident(input, "allocator")?);
            Ok(())
        },
    },
    Opt {
        key: "id_type",
        flag: false,
        parse: |input, out| {
            out.id_type = Some(parse_ident(input, "id_type")?);
            Ok(())
        },
    },
    Opt {
        key: "crate",
        flag: false,
        parse: |input, out| {
            out.krate = Some(parse_crate(input)?);
            Ok(())
        },
    },
    Opt {
        key: "serde",
        flag: true,
        parse: |_, out| {
            out.serde = true;
            Ok(())
        },
    },
];

/// `on_exhausted = retire | wrap`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Exhaustion {
    Retire,
    Wrap,
}

/// The parsed options; `None` where the user gave none (or a bad one).
#[derive(Default)]
pub struct Attrs {
    pub id: Option<Type>,
    pub min_free: Option<(usize, Span)>,
    pub on_exhausted: Option<Exhaustion>,
    pub allocator: Option<Ident>,
    pub id_type: Option<Ident>,
    pub krate: Option<Path>,
    /// `#[soa(serde)]`: generate `Serialize`/`Deserialize`.
    pub serde: bool,
}

impl Attrs {
    /// Parses every `#[soa(...)]`, pushing one error per mistake and
    /// keeping what parsed.
    pub fn parse(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Attrs {
        let mut out = Attrs::default();
        let mut seen: Vec<String> = Vec::new();
        for attr in attrs.iter().filter(|a| a.path().is_ident("soa")) {
            let result = attr.parse_nested_meta(|meta| {
                let key_ident = meta.path.get_ident().cloned();
                let Some(key_ident) = key_ident else {
                    return Err(meta.error(unknown_key_message()));
                };
                let key = key_ident.to_string();
                let Some(opt) = OPTIONS.iter().find(|o| o.key == key) else {
                    errors.push(syn::Error::new(
                        key_ident.span(),
                        format!("unknown soa option `{key}`; {}", expected_keys()),
                    ));
                    if meta.input.peek(Token![=]) {
                        meta.value().and_then(skip_value)?;
                    }
                    return Ok(());
                };
                if seen.contains(&key) {
                    // Consume the value so parsing goes on after the error.
                    let _ = meta.value().and_then(skip_value);
                    errors.push(syn::Error::new(
                        key_ident.span(),
                        format!("duplicate soa option `{key}`: give it once"),
                    ));
                    return Ok(());
                }
                seen.push(key.clone());
                if opt.flag {
                    if meta.input.peek(Token![=]) {
                        let _ = meta.value().and_then(skip_value);
                        errors.push(syn::Error::new(
                            key_ident.span(),
                            format!("`{key}` takes no value: write `#[soa({key})]`"),
                        ));
                    } else if let Err(e) = (opt.parse)(meta.input, &mut out) {
                        errors.push(e);
                    }
                    return Ok(());
                }
                let value = meta.value()?;
                if let Err(e) = (opt.parse)(value, &mut out) {
                    errors.push(e);
                    let _ = skip_value(value);
                }
                Ok(())
            });
            if let Err(e) = result {
                errors.push(e);
            }
        }
        out
    }
}

fn expected_keys() -> String {
    let list: Vec<String> = OPTIONS.iter().map(|o| format!("`{}`", o.key)).collect();
    format!("expected one of {}", list.join(", "))
}

fn unknown_key_message() -> String {
    format!("unknown soa option; {}", expected_keys())
}

fn with_hint(e: syn::Error, hint: &str) -> syn::Error {
    syn::Error::new(e.span(), hint)
}

/// Skips tokens up to the next top-level `,` so one bad value does not hide
/// the options after it.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

fn parse_min_free(input: ParseStream) -> syn::Result<(usize, Span)> {
    let hint = "expected a whole number, e.g. `min_free = 1024`";
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        let value = lit
            .base10_parse::<usize>()
            .map_err(|_| syn::Error::new(lit.span(), hint))?;
        Ok((value, lit.span()))
    } else {
        Err(input.error(hint))
    }
}

fn parse_exhaustion(input: ParseStream) -> syn::Result<Exhaustion> {
    let hint = "expected `retire` (never reissue a worn-out slot) or `wrap` \
                (restart its generation at 1)";
    let ident: Ident = input.parse().map_err(|e| with_hint(e, hint))?;
    match ident.to_string().as_str() {
        "retire" => Ok(Exhaustion::Retire),
        "wrap" => Ok(Exhaustion::Wrap),
        other => Err(syn::Error::new(
            ident.span(),
            format!("unknown on_exhausted policy `{other}`; {hint}"),
        )),
    }
}

fn parse_ident(input: ParseStream, key: &str) -> syn::Result<Ident> {
    input
        .parse::<Ident>()
        .map_err(|e| with_hint(e, &format!("expected a type name, e.g. `{key} = MyName`")))
}

fn parse_crate(input: ParseStream) -> syn::Result<Path> {
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        lit.parse::<Path>()
    } else {
        input.call(Path::parse_mod_style).map_err(|e| {
            with_hint(
                e,
                "expected a path to the idtable crate, e.g. `crate = ::idtable`",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::OPTIONS;

    /// The facade documents every option in one place, the example on its
    /// `SoaAllocator` re-export: each key of the table must appear there.
    #[test]
    fn every_option_is_documented_on_the_facade_derive() {
        let facade = include_str!("../../src/lib.rs");
        let start = facade
            .find("/// The options of `#[soa(...)]`")
            .expect("the option list on the SoaAllocator re-export");
        let end = start
            + facade[start..]
                .find("pub use idtable_derive::SoaAllocator;")
                .expect("the re-export after its docs");
        let docs = &facade[start..end];
        for opt in OPTIONS {
            let written = if opt.flag {
                format!("soa({})", opt.key)
            } else {
                format!("///     {} = ", opt.key)
            };
            assert!(
                docs.contains(&written),
                "`{}` is not shown in the SoaAllocator docs (looked for `{written}`)",
                opt.key
            );
        }
    }
}
