//! Code generation for `calls!`: each verb's arguments as a Rust type.
//!
//! The policy's argument types become Rust types the way a JSON Schema code
//! generator would write them: a struct per verb (a field per argument,
//! `Option` when the argument may be left out and has no default), an enum
//! per text enum, a struct per object with declared members, an untagged
//! enum per verb with argument sets, and `Call`, the enum of every verb's
//! arguments with [`parse`](#parse), which reads a checked argument object
//! into it. The server checks a call first (with messages that name the
//! argument), then parses it once into its `Call`; handlers take that value.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::arguments::{ArgKind, ArgType};
use crate::codegen::{Includes, Runtime};
use crate::table::{Cockpit, Verb};

/// The items `calls!` emits for a lawful table.
///
/// Every path they name goes through the runtime (`runtime`, imported once
/// as `__m1nd_policy`), serde and serde_json included, so the caller needs no
/// dependency of its own for them.
pub fn items(cockpit: &Cockpit, includes: &Includes, runtime: &Runtime) -> TokenStream {
    let alias = runtime.alias();
    let tracked = tracked(includes);
    let mut out = Items::default();
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for verb in cockpit.verbs.iter() {
        let name = pascal(&verb.name);
        out.verb(cockpit, verb, &name);
        let (wire, ident) = (&*verb.name, format_ident!("{name}"));
        variants.push(quote! { #ident(#ident) });
        arms.push(quote! { #wire => __m1nd_policy::__private::serde_json::from_value(args).map(Call::#ident) });
    }
    let types = out.tokens;
    quote! {
        #alias
        #(#tracked)*
        #(#types)*

        /// One verb's arguments, typed as the policy declares them.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Call {
            #(#variants),*
        }

        impl Call {
            /// Read the arguments of a call of `verb` (a canonical verb name)
            /// into its type. `None` for a verb the policy does not declare.
            pub fn parse(verb: &str, args: __m1nd_policy::__private::serde_json::Value) -> ::core::option::Option<::core::result::Result<Call, __m1nd_policy::__private::serde_json::Error>> {
                ::core::option::Option::Some(match verb {
                    #(#arms,)*
                    _ => return ::core::option::Option::None,
                })
            }
        }
    }
}

/// What `calls!` emits next to compile errors: the errors alone.
pub fn stub(includes: &Includes, errors: TokenStream) -> TokenStream {
    let tracked = tracked(includes);
    quote! { #(#tracked)* #errors }
}

fn tracked(includes: &Includes) -> impl Iterator<Item = TokenStream> + '_ {
    includes.0.iter().map(|path| quote! { const _: &[u8] = ::core::include_bytes!(#path); })
}

#[derive(Default)]
struct Items {
    tokens: Vec<TokenStream>,
    /// Type names already emitted, so that two arguments never share one.
    names: BTreeSet<String>,
}

impl Items {
    /// A fresh type name from `wanted`, numbered when it is taken.
    fn name(&mut self, wanted: String) -> Ident {
        let mut name = wanted.clone();
        let mut n = 2;
        while !self.names.insert(name.clone()) {
            name = format!("{wanted}{n}");
            n += 1;
        }
        format_ident!("{name}")
    }

    fn verb(&mut self, cockpit: &Cockpit, verb: &Verb, name: &str) {
        if verb.one_of.is_empty() {
            let takes: Vec<_> = cockpit.takes(verb).collect();
            let fields = takes.iter().map(|t| (t.name, t.ty, t.required)).collect::<Vec<_>>();
            let ident = self.name(name.to_owned());
            self.record(&ident, name, &fields, true, &format!("The arguments of `{}`.", verb.name));
            return;
        }
        let ident = self.name(name.to_owned());
        let mut sets = Vec::new();
        for (k, set) in verb.one_of.iter().enumerate() {
            let takes: Vec<_> = cockpit.takes_in(verb, set).collect();
            let fields = takes.iter().map(|t| (t.name, t.ty, t.required)).collect::<Vec<_>>();
            let set_name = format!("{name}Set{}", k + 1);
            let set_ident = self.name(set_name.clone());
            let doc = format!("Argument set {} of `{}`.", k + 1, verb.name);
            self.record(&set_ident, &set_name, &fields, true, &doc);
            sets.push(quote! { #set_ident(#set_ident) });
        }
        let doc = format!("The arguments of `{}`: exactly one of its argument sets.", verb.name);
        self.tokens.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq, __m1nd_policy::__private::serde::Deserialize)]
            #[serde(crate = "__m1nd_policy::__private::serde")]
            #[serde(untagged)]
            pub enum #ident { #(#sets),* }
        });
    }

    /// A struct of named members; `closed` refuses members it does not declare.
    fn record(
        &mut self,
        ident: &Ident,
        prefix: &str,
        fields: &[(&str, Option<&ArgType>, bool)],
        closed: bool,
        doc: &str,
    ) {
        let mut members = Vec::new();
        for (wire, ty, required) in fields {
            let field = field_ident(wire);
            let hint = format!("{prefix}{}", pascal(wire));
            let (rust, defaulted) = match ty {
                Some(ty) => (self.rust_type(ty, &hint), ty.default.is_some()),
                None => (quote! { __m1nd_policy::__private::serde_json::Value }, false),
            };
            let member = if *required {
                quote! { #[serde(rename = #wire)] pub #field: #rust }
            } else if defaulted && let Some(default) = ty.and_then(|t| scalar_default(t, &rust)) {
                let function = format_ident!("default_{}_{}", snake(prefix), snake(wire));
                self.tokens.push(quote! { fn #function() -> #rust { #default } });
                let path = function.to_string();
                quote! { #[serde(rename = #wire, default = #path)] pub #field: #rust }
            } else {
                quote! { #[serde(rename = #wire, default)] pub #field: ::core::option::Option<#rust> }
            };
            members.push(member);
        }
        let deny = closed.then(|| quote! { #[serde(deny_unknown_fields)] });
        self.tokens.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq, __m1nd_policy::__private::serde::Deserialize)]
            #[serde(crate = "__m1nd_policy::__private::serde")]
            #deny
            pub struct #ident { #(#members),* }
        });
    }

    /// The Rust type of `ty`, emitting the enums and structs it needs.
    fn rust_type(&mut self, ty: &ArgType, hint: &str) -> TokenStream {
        let inner = match ty.kind {
            _ if !ty.one_of.is_empty() => quote! { __m1nd_policy::__private::serde_json::Value },
            ArgKind::Text if !ty.choices.is_empty() => {
                let ident = self.name(hint.to_owned());
                let variants = variants(&ty.choices);
                let doc = format!("The values of `{hint}`.");
                self.tokens.push(quote! {
                        #[doc = #doc]
                        #[derive(Clone, Copy, Debug, PartialEq, Eq, __m1nd_policy::__private::serde::Deserialize)]
                #[serde(crate = "__m1nd_policy::__private::serde")]
                        pub enum #ident { #(#variants),* }
                    });
                quote! { #ident }
            }
            ArgKind::Text | ArgKind::Reference | ArgKind::Id => quote! { ::std::string::String },
            ArgKind::Integer if ty.minimum.is_some_and(|m| m >= 0) => quote! { u64 },
            ArgKind::Integer => quote! { i64 },
            ArgKind::Number => quote! { f64 },
            ArgKind::Boolean => quote! { bool },
            ArgKind::Array => {
                let item = match ty.item() {
                    Some(item) => self.rust_type(item, &format!("{hint}Item")),
                    None => quote! { __m1nd_policy::__private::serde_json::Value },
                };
                quote! { ::std::vec::Vec<#item> }
            }
            ArgKind::Object if !ty.properties.is_empty() => {
                let ident = self.name(hint.to_owned());
                let fields: Vec<_> = ty.properties.iter().map(|p| (&*p.name, Some(&p.ty), p.required)).collect();
                let doc = format!("The members of `{hint}`.");
                self.record(&ident, hint, &fields, ty.closed, &doc);
                quote! { #ident }
            }
            ArgKind::Object => {
                quote! { __m1nd_policy::__private::serde_json::Map<::std::string::String, __m1nd_policy::__private::serde_json::Value> }
            }
            ArgKind::Any | ArgKind::Null => quote! { __m1nd_policy::__private::serde_json::Value },
        };
        if ty.nullable && !matches!(ty.kind, ArgKind::Any | ArgKind::Null) {
            quote! { ::core::option::Option<#inner> }
        } else {
            inner
        }
    }
}

/// A default the generated code can write as a literal: a boolean, an
/// integer, a number or a string of a plain text type.
fn scalar_default(ty: &ArgType, rust: &TokenStream) -> Option<TokenStream> {
    let unsigned = ty.minimum.is_some_and(|m| m >= 0);
    let value: serde_json::Value = serde_json::from_str(ty.default.as_deref()?).ok()?;
    if ty.nullable {
        return None;
    }
    match (ty.kind, &value) {
        (ArgKind::Boolean, serde_json::Value::Bool(b)) => Some(quote! { #b }),
        (ArgKind::Integer, serde_json::Value::Number(n)) if unsigned => n.as_u64().map(|n| quote! { #n }),
        (ArgKind::Integer, serde_json::Value::Number(n)) => n.as_i64().map(|n| quote! { #n }),
        (ArgKind::Number, serde_json::Value::Number(n)) => n.as_f64().map(|n| quote! { #n }),
        (ArgKind::Text, serde_json::Value::String(s)) if ty.choices.is_empty() => {
            Some(quote! { ::std::string::String::from(#s) })
        }
        (ArgKind::Text, serde_json::Value::String(s)) => {
            let k = ty.choices.iter().position(|c| c == s)?;
            let variant = variant_names(&ty.choices).swap_remove(k);
            let variant = format_ident!("{variant}");
            Some(quote! { #rust::#variant })
        }
        _ => None,
    }
}

/// `#[serde(rename = "all-brains")] AllBrains`, one per choice.
fn variants(choices: &[crate::primitives::Str]) -> Vec<TokenStream> {
    choices
        .iter()
        .zip(variant_names(choices))
        .map(|(wire, name)| {
            let (wire, ident) = (&**wire, format_ident!("{name}"));
            quote! { #[serde(rename = #wire)] #ident }
        })
        .collect()
}

/// Distinct variant names for `choices`: each in PascalCase, numbered when
/// two spell the same (`project+medulla` and `project_medulla`).
fn variant_names(choices: &[crate::primitives::Str]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    choices
        .iter()
        .map(|c| {
            let base = pascal(c);
            let base = if base.is_empty() || base.starts_with(|ch: char| ch.is_ascii_digit()) {
                format!("V{base}")
            } else {
                base
            };
            let mut name = base.clone();
            let mut n = 2;
            while !seen.insert(name.clone()) {
                name = format!("{base}{n}");
                n += 1;
            }
            name
        })
        .collect()
}

/// `system_blocks_snapshot` → `SystemBlocksSnapshot`; any character that is
/// not an ASCII letter or digit separates words.
fn pascal(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// `MissionService` → `mission_service`, for generated function names.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A field named as the argument, made a Rust identifier: other characters
/// become `_`, a leading digit gets `_`, and a keyword is written raw.
fn field_ident(wire: &str) -> Ident {
    let mut name: String = wire
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    match name.as_str() {
        "self" | "Self" | "super" | "crate" | "_" => format_ident!("{name}_"),
        _ if KEYWORDS.contains(&name.as_str()) => Ident::new_raw(&name, Span::call_site()),
        _ => format_ident!("{name}"),
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct",
    "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_rust_identifiers() {
        assert_eq!(pascal("system_blocks_snapshot"), "SystemBlocksSnapshot");
        assert_eq!(pascal("project+medulla"), "ProjectMedulla");
        assert_eq!(snake("MissionServiceSet1"), "mission_service_set1");
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("dryRun").to_string(), "dryrun");
        assert_eq!(field_ident("9lives").to_string(), "_9lives");
        let choices: Vec<crate::primitives::Str> = vec!["all-brains".into(), "all_brains".into(), "1".into()];
        assert_eq!(variant_names(&choices), ["AllBrains", "AllBrains2", "V1"]);
    }
}
