//! The `#[soa(...)]` container options, parsed once.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitInt, LitStr, Path, Token, Type};

/// The option keys, as written by the user.
pub const ID: &str = "id";
pub const MIN_FREE: &str = "min_free";
pub const ON_EXHAUSTED: &str = "on_exhausted";
pub const ALLOCATOR: &str = "allocator";
pub const ID_TYPE: &str = "id_type";
pub const CRATE: &str = "crate";
pub const SERDE: &str = "serde";
const KEYS: &[&str] = &[ID, MIN_FREE, ON_EXHAUSTED, ALLOCATOR, ID_TYPE, CRATE, SERDE];

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
                if !KEYS.contains(&key.as_str()) {
                    errors.push(syn::Error::new(
                        key_ident.span(),
                        format!("unknown soa option `{key}`; {}", expected_keys()),
                    ));
                    if meta.input.peek(Token![=]) {
                        meta.value().and_then(skip_value)?;
                    }
                    return Ok(());
                }
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
                if key == SERDE {
                    // A flag: `#[soa(serde)]`, no value.
                    if meta.input.peek(Token![=]) {
                        let _ = meta.value().and_then(skip_value);
                        errors.push(syn::Error::new(
                            key_ident.span(),
                            "`serde` takes no value: write `#[soa(serde)]`",
                        ));
                    } else {
                        out.serde = true;
                    }
                    return Ok(());
                }
                let value = meta.value()?;
                let parsed = match key.as_str() {
                    ID => value
                        .parse::<Type>()
                        .map(|t| out.id = Some(t))
                        .map_err(|e| {
                            with_hint(e, "expected an id layout type, e.g. `id = idtable::Id24_8`")
                        }),
                    MIN_FREE => parse_min_free(value).map(|v| out.min_free = Some(v)),
                    ON_EXHAUSTED => parse_exhaustion(value).map(|v| out.on_exhausted = Some(v)),
                    ALLOCATOR => parse_ident(value, ALLOCATOR).map(|v| out.allocator = Some(v)),
                    ID_TYPE => parse_ident(value, ID_TYPE).map(|v| out.id_type = Some(v)),
                    CRATE => parse_crate(value).map(|v| out.krate = Some(v)),
                    _ => unreachable!("key checked against KEYS"),
                };
                if let Err(e) = parsed {
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
    let list: Vec<String> = KEYS.iter().map(|k| format!("`{k}`")).collect();
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
