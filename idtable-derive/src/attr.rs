//! The `#[soa(...)]` options of the struct and of its fields, and the
//! `#[soa_attr(Role, ...)]` attributes for the generated types, parsed once.

use proc_macro2::{Span, TokenStream};
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitInt, LitStr, Path, Token, Type};

/// The attribute that holds the options.
pub const SOA: &str = "soa";
/// The attribute that puts the user's attributes on a generated type.
pub const SOA_ATTR: &str = "soa_attr";

/// The largest `align = N` (the runtime's `columns::MAX_ALIGN` on 32- and
/// 64-bit targets; Rust's largest `#[repr(align)]`).
const MAX_ALIGN: u64 = 1 << 29;

/// One `#[soa(...)]` option: its key, how it is written, what it does by
/// default, and how its value is read. Adding an option is one row of
/// [`OPTIONS`] or [`FIELD_OPTIONS`] plus its effect in `expand/`; the error
/// messages list the keys from here, and a test checks that the facade's
/// `SoaAllocator` docs show every key.
pub struct Opt<A> {
    /// The key, as the user writes it.
    pub key: &'static str,
    /// `true` for a flag written without a value (`#[soa(serde)]`).
    pub flag: bool,
    /// Reads the value (nothing, for a flag) into the options; the span is
    /// the key's.
    parse: fn(ParseStream, Span, &mut A) -> syn::Result<()>,
}

/// Every struct option, in the order the error messages list them.
pub const OPTIONS: &[Opt<Attrs>] = &[
    Opt {
        key: "id",
        flag: false,
        parse: |input, span, out| {
            let ty = input.parse::<Type>().map_err(|e| {
                with_hint(e, "expected an id layout type, e.g. `id = idtable::Id24_8`")
            })?;
            out.id = Some(ty);
            out.allocator_keys.push(("id", span));
            Ok(())
        },
    },
    Opt {
        key: "min_free",
        flag: false,
        parse: |input, span, out| {
            out.min_free = Some(parse_min_free(input)?);
            out.allocator_keys.push(("min_free", span));
            Ok(())
        },
    },
    Opt {
        key: "on_exhausted",
        flag: false,
        parse: |input, span, out| {
            out.on_exhausted = Some(parse_exhaustion(input)?);
            out.allocator_keys.push(("on_exhausted", span));
            Ok(())
        },
    },
    Opt {
        key: "allocator",
        flag: false,
        parse: |input, span, out| {
            out.allocator = Some(parse_ident(input, "allocator")?);
            out.allocator_keys.push(("allocator", span));
            Ok(())
        },
    },
    Opt {
        key: "id_type",
        flag: false,
        parse: |input, span, out| {
            out.id_type = Some(parse_ident(input, "id_type")?);
            out.allocator_keys.push(("id_type", span));
            Ok(())
        },
    },
    Opt {
        key: "crate",
        flag: false,
        parse: |input, _, out| {
            out.krate = Some(parse_crate(input)?);
            Ok(())
        },
    },
    Opt {
        key: "serde",
        flag: true,
        parse: |_, _, out| {
            out.serde = true;
            Ok(())
        },
    },
    Opt {
        key: "align",
        flag: false,
        parse: |input, _, out| {
            out.align = Some(parse_align(input)?);
            Ok(())
        },
    },
    Opt {
        key: "parts_only",
        flag: true,
        parse: |_, span, out| {
            out.parts_only = Some(span);
            Ok(())
        },
    },
];

/// Every field option, in the order the error messages list them.
pub const FIELD_OPTIONS: &[Opt<FieldAttrs>] = &[
    Opt {
        key: "split",
        flag: true,
        parse: |_, span, out| {
            out.split = Some(span);
            Ok(())
        },
    },
    Opt {
        key: "nested",
        flag: true,
        parse: |_, span, out| {
            out.nested = Some(span);
            Ok(())
        },
    },
    Opt {
        key: "align",
        flag: false,
        parse: |input, _, out| {
            out.align = Some(parse_align(input)?);
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

/// The generated types a `#[soa_attr(Role, ...)]` can address, by the
/// suffix of their names.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Id,
    Allocator,
    Ref,
    Mut,
    Columns,
    ColumnsMut,
}

impl Role {
    /// Every role, as written in `#[soa_attr(..)]`.
    pub const ALL: [(&'static str, Role); 6] = [
        ("Id", Role::Id),
        ("Allocator", Role::Allocator),
        ("Ref", Role::Ref),
        ("Mut", Role::Mut),
        ("Columns", Role::Columns),
        ("ColumnsMut", Role::ColumnsMut),
    ];
}

/// Why `#[soa_attr(Allocator, ...)]` is refused.
const ALLOCATOR_WITHDRAWN: &str = "`soa_attr(Allocator, ...)` is withdrawn: the allocator is \
     `idtable::SoaStorage<FooId, Foo>` under the name `FooAllocator`, a type of idtable's, which \
     is already `Default`, and `Clone`, `Debug`, `PartialEq`, `Eq` and serde where `Foo` is; \
     for another trait, wrap the allocator in a struct of your own";

/// An alignment as written: its value and the span of its literal.
pub type Align = (u64, Span);

/// The parsed struct options; `None` where the user gave none (or a bad
/// one).
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
    /// `#[soa(align = N)]`: every column at a multiple of `N`.
    pub align: Option<Align>,
    /// `#[soa(parts_only)]`, with its span: no allocator, no id type.
    pub parts_only: Option<Span>,
    /// The keys given that configure the allocator or the id (what
    /// `parts_only` refuses), with their spans.
    pub allocator_keys: Vec<(&'static str, Span)>,
    /// `#[soa_attr(Role, ...)]`: the attribute, for the type of that role,
    /// and the role's span.
    pub type_attrs: Vec<(Role, Span, TokenStream)>,
}

impl Attrs {
    /// The user's attributes for the generated type of `role`.
    pub fn attrs_for(&self, role: Role) -> impl Iterator<Item = &TokenStream> {
        self.type_attrs
            .iter()
            .filter(move |(r, _, _)| *r == role)
            .map(|(_, _, tokens)| tokens)
    }
}

/// The parsed options of one field.
#[derive(Default)]
pub struct FieldAttrs {
    /// `#[soa(split)]`, with its span.
    pub split: Option<Span>,
    /// `#[soa(nested)]`, with its span.
    pub nested: Option<Span>,
    /// `#[soa(align = N)]`.
    pub align: Option<Align>,
}

impl Attrs {
    /// Parses every `#[soa(...)]` and `#[soa_attr(...)]` of the struct,
    /// pushing one error per mistake and keeping what parsed.
    pub fn parse(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Attrs {
        let mut out = parse_options(attrs, OPTIONS, FIELD_OPTIONS, "struct", errors);
        for attr in attrs.iter().filter(|a| a.path().is_ident(SOA_ATTR)) {
            match attr.parse_args_with(parse_type_attr) {
                Ok(parsed) => {
                    for (role, span, _) in &parsed {
                        if *role == Role::Allocator {
                            errors.push(syn::Error::new(*span, ALLOCATOR_WITHDRAWN));
                        }
                    }
                    out.type_attrs.extend(parsed);
                }
                Err(e) => errors.push(e),
            }
        }
        out
    }
}

impl FieldAttrs {
    /// Parses every `#[soa(...)]` of a field, pushing one error per mistake
    /// and keeping what parsed.
    pub fn parse(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> FieldAttrs {
        for attr in attrs.iter().filter(|a| a.path().is_ident(SOA_ATTR)) {
            errors.push(syn::Error::new_spanned(
                attr.path(),
                "`soa_attr` goes on the struct, not on a field: \
                 write `#[soa_attr(Ref, derive(Hash))]` above the struct",
            ));
        }
        parse_options(attrs, FIELD_OPTIONS, OPTIONS, "field", errors)
    }
}

/// Parses the `#[soa(...)]` attributes among `attrs` with the options
/// `known`; `other` are the options of the other place (struct or field),
/// named in the error when one is used in the wrong place.
fn parse_options<A: Default, B>(
    attrs: &[Attribute],
    known: &[Opt<A>],
    other: &[Opt<B>],
    place: &str,
    errors: &mut Vec<syn::Error>,
) -> A {
    let mut out = A::default();
    let mut seen: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(SOA)) {
        let result = attr.parse_nested_meta(|meta| {
            let key_ident = meta.path.get_ident().cloned();
            let Some(key_ident) = key_ident else {
                return Err(meta.error(format!("unknown soa option; {}", expected(known))));
            };
            let key = key_ident.to_string();
            let Some(opt) = known.iter().find(|o| o.key == key) else {
                let message = if other.iter().any(|o| o.key == key) {
                    let there = if place == "struct" { "field" } else { "struct" };
                    format!(
                        "`{key}` is a {there} option: put `#[soa({key}..)]` on the {there}; \
                         on a {place}, {}",
                        expected(known)
                    )
                } else {
                    unknown_key_message(&key, known)
                };
                errors.push(syn::Error::new(key_ident.span(), message));
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
                } else if let Err(e) = (opt.parse)(meta.input, key_ident.span(), &mut out) {
                    errors.push(e);
                }
                return Ok(());
            }
            let value = meta.value()?;
            if let Err(e) = (opt.parse)(value, key_ident.span(), &mut out) {
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

/// `Role, [Role, ..] attribute tokens`: the attribute for each role listed;
/// a bad role is an error on the role.
fn parse_type_attr(input: ParseStream) -> syn::Result<Vec<(Role, Span, TokenStream)>> {
    let roles: Vec<String> = Role::ALL.iter().map(|(n, _)| format!("`{n}`")).collect();
    let hint = format!(
        "expected the generated type's role, one of {}, then the attribute: \
         `#[soa_attr(Ref, derive(Hash))]`",
        roles.join(", ")
    );
    let mut listed = Vec::new();
    loop {
        let role: Ident = input.parse().map_err(|e| with_hint(e, &hint))?;
        match Role::ALL.iter().find(|(name, _)| role == name) {
            Some((_, which)) => listed.push((*which, role.span())),
            None if listed.is_empty() => {
                let name = role.to_string();
                let closest = closest(&name, Role::ALL.iter().map(|(n, _)| *n));
                let message = match closest {
                    Some(c) => {
                        format!("unknown generated type `{name}`: did you mean `{c}`? {hint}")
                    }
                    None => format!("unknown generated type `{name}`; {hint}"),
                };
                return Err(syn::Error::new(role.span(), message));
            }
            // Not a role: the attribute starts here.
            None => return finish_type_attr(&listed, role, input, &hint),
        }
        if input.is_empty() {
            return Err(syn::Error::new(
                role.span(),
                format!("`soa_attr({role})` needs an attribute after the role: {hint}"),
            ));
        }
        input.parse::<Token![,]>()?;
        if !input.peek(Ident) {
            let tokens: TokenStream = input.parse()?;
            return Ok(listed
                .iter()
                .map(|&(r, span)| (r, span, tokens.clone()))
                .collect());
        }
    }
}

/// The attribute of a `soa_attr` whose first token, `first`, is already
/// read, for each of the `listed` roles.
fn finish_type_attr(
    listed: &[(Role, Span)],
    first: Ident,
    input: ParseStream,
    hint: &str,
) -> syn::Result<Vec<(Role, Span, TokenStream)>> {
    let rest: TokenStream = input.parse()?;
    let mut tokens = quote::quote!(#first);
    tokens.extend(rest);
    if tokens.is_empty() {
        return Err(syn::Error::new(first.span(), hint.to_string()));
    }
    Ok(listed
        .iter()
        .map(|&(r, span)| (r, span, tokens.clone()))
        .collect())
}

fn expected<A>(known: &[Opt<A>]) -> String {
    let list: Vec<String> = known.iter().map(|o| format!("`{}`", o.key)).collect();
    format!("expected one of {}", list.join(", "))
}

/// "unknown soa option `splt`: did you mean `split`? expected one of ..".
fn unknown_key_message<A>(key: &str, known: &[Opt<A>]) -> String {
    match closest(key, known.iter().map(|o| o.key)) {
        Some(c) => format!(
            "unknown soa option `{key}`: did you mean `{c}`? {}",
            expected(known)
        ),
        None => format!("unknown soa option `{key}`; {}", expected(known)),
    }
}

/// The candidate closest to `word` by edit distance, if it is close enough
/// to be a typo of it (at most a third of its letters differ).
fn closest<'c>(word: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    let word = word.to_lowercase();
    candidates
        .map(|c| (edit_distance(&word, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
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

/// `align = N`: a power of two, at most [`MAX_ALIGN`].
fn parse_align(input: ParseStream) -> syn::Result<Align> {
    let hint = "expected a power of two, in bytes, e.g. `align = 64`";
    if !input.peek(LitInt) {
        return Err(input.error(hint));
    }
    let lit: LitInt = input.parse()?;
    let value = lit
        .base10_parse::<u64>()
        .map_err(|_| syn::Error::new(lit.span(), hint))?;
    if !value.is_power_of_two() {
        let below: u64 = if value == 0 {
            1
        } else {
            1 << (63 - value.leading_zeros())
        };
        let above = below.saturating_mul(2);
        let fix = if value < 2 {
            "`align = 1` or more".to_string()
        } else {
            format!("`align = {below}` or `align = {above}`")
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("`align = {value}` is not a power of two: write {fix}"),
        ));
    }
    if value > MAX_ALIGN {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`align = {value}` is more than Rust allows: write at most `align = {MAX_ALIGN}`"
            ),
        ));
    }
    Ok((value, lit.span()))
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
    use super::{closest, edit_distance, Opt, FIELD_OPTIONS, OPTIONS};

    /// The docs of the facade's `SoaAllocator` between `start` and the
    /// re-export.
    fn facade_docs(start: &str) -> &'static str {
        let facade = include_str!("../../src/lib.rs");
        let from = facade
            .find(start)
            .unwrap_or_else(|| panic!("`{start}` on the SoaAllocator re-export"));
        let end = from
            + facade[from..]
                .find("pub use idtable_derive::SoaAllocator;")
                .expect("the re-export after its docs");
        &facade[from..end]
    }

    fn check_documented<A>(options: &[Opt<A>], docs: &str, what: &str) {
        for opt in options {
            let written = if opt.flag {
                format!("soa({})", opt.key)
            } else {
                format!("{} = ", opt.key)
            };
            assert!(
                docs.contains(&written),
                "the {what} option `{}` is not shown in the SoaAllocator docs (looked for `{written}`)",
                opt.key
            );
        }
    }

    /// The facade documents every option in one place, the example on its
    /// `SoaAllocator` re-export: each key of the table must appear there.
    #[test]
    fn every_option_is_documented_on_the_facade_derive() {
        let docs = facade_docs("/// The options of `#[soa(...)]`");
        check_documented(OPTIONS, docs, "struct");
    }

    /// The field options have a table of their own, each with its default.
    #[test]
    fn every_field_option_is_in_the_table_with_its_default() {
        let docs = facade_docs("/// The options of a field");
        for opt in FIELD_OPTIONS {
            let row = docs
                .lines()
                .find(|l| l.starts_with(&format!("/// | `#[soa({}", opt.key)))
                .unwrap_or_else(|| panic!("no row for `{}` in the field options table", opt.key));
            assert_eq!(
                row.matches('|').count(),
                4,
                "the row of `{}` has an option, what it does and its default",
                opt.key
            );
        }
        check_documented(FIELD_OPTIONS, docs, "field");
    }

    #[test]
    fn typos_suggest_the_closest_option() {
        let keys = || FIELD_OPTIONS.iter().map(|o| o.key);
        assert_eq!(closest("splt", keys()), Some("split"));
        assert_eq!(closest("nest", keys()), Some("nested"));
        assert_eq!(closest("Nested", keys()), Some("nested"));
        assert_eq!(closest("alignment", keys()), None);
        assert_eq!(closest("colour", keys()), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
