//! Turning a written argument type ([`RawType`]) into an [`ArgType`], and
//! saying, as M001, everything about it that cannot hold: an unknown kind, a
//! constraint the kind cannot carry (`minimum` on text), bounds that exclude
//! every value, a pattern that does not compile, a default the type refuses.
//!
//! The same function serves the law (which reports) and lowering (which only
//! runs on a lawful policy), so the type the table holds is the one the law
//! checked.

use toml::Spanned;

use super::diagnostic::{Diagnostic, Law};
use super::help::near_name;
use super::raw_type::{RawType, TypeDef};
use super::source::loc;
use super::source::{Loc, PolicyFile};
use super::spanned::in_source_order;
use crate::arguments::{ArgKind, ArgType, Property};
use crate::primitives::{List, Str};

/// Where a type is written, for messages: `argument \`depth\` of \`impact\``.
pub struct Site<'a> {
    pub file: PolicyFile,
    pub what: &'a str,
}

/// The type `raw` writes, or `None` after pushing every reason it is not one.
pub fn resolve(site: &Site<'_>, raw: &Spanned<RawType>, out: &mut Vec<Diagnostic>) -> Option<ArgType> {
    let before = out.len();
    let ty = match raw.get_ref() {
        RawType::Key(key) => kind(site, raw, key, out).map(ArgType::of),
        RawType::Def(def) => table(site, raw, def, out),
    };
    if out.len() == before { ty } else { None }
}

/// The type, when it is lawful; for code that runs after the laws.
pub fn lawful(raw: &Spanned<RawType>) -> Option<ArgType> {
    resolve(&Site { file: PolicyFile::Tools, what: "" }, raw, &mut Vec::new())
}

fn problem<T>(site: &Site<'_>, at: &Spanned<T>, message: String, help: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Law::M001, loc(site.file, at), message).label("not a type this policy can express").help(help)
}

fn kind<T>(site: &Site<'_>, at: &Spanned<T>, key: &str, out: &mut Vec<Diagnostic>) -> Option<ArgKind> {
    if let Some(kind) = ArgKind::from_key(key) {
        return Some(kind);
    }
    let keys: Vec<&str> = ArgKind::ALL.iter().map(|k| k.key()).collect();
    let help = match key {
        "string" => "a JSON string is `text` here".to_owned(),
        _ => near_name(key, &keys, "types"),
    };
    out.push(problem(site, at, format!("{} has the unknown type `{key}`", site.what), help));
    None
}

/// M001 when the constraint `key`, written at `at`, does not apply to `kind`.
fn applies(site: &Site<'_>, kind: ArgKind, key: &str, at: Option<std::ops::Range<usize>>, out: &mut Vec<Diagnostic>) {
    let Some(span) = at else { return };
    let fits: &[ArgKind] = match key {
        "enum" | "const" | "min_length" | "pattern" => &[ArgKind::Text],
        "minimum" | "maximum" => &[ArgKind::Integer, ArgKind::Number],
        "items" | "min_items" | "max_items" | "unique_items" => &[ArgKind::Array],
        "properties" | "required" | "additional_properties" => &[ArgKind::Object],
        _ => return,
    };
    if !fits.contains(&kind) {
        let names: Vec<&str> = fits.iter().map(|k| k.key()).collect();
        out.push(
            Diagnostic::new(
                Law::M001,
                Loc::new(site.file, span),
                format!("{} is `{}`, which cannot have `{key}`", site.what, kind.key()),
            )
            .label("not a type this policy can express")
            .help(format!("`{key}` belongs to {} types; remove it or change `type`", names.join(" and "))),
        );
    }
}

fn span_of<T>(v: &Option<Spanned<T>>) -> Option<std::ops::Range<usize>> {
    v.as_ref().map(Spanned::span)
}

fn count(site: &Site<'_>, key: &str, v: &Option<Spanned<i64>>, out: &mut Vec<Diagnostic>) -> Option<u64> {
    let v = v.as_ref()?;
    match u64::try_from(*v.get_ref()) {
        Ok(n) => Some(n),
        Err(_) => {
            out.push(problem(
                site,
                v,
                format!("{} has `{key} = {}`", site.what, v.get_ref()),
                format!("`{key}` counts, so it is 0 or more"),
            ));
            None
        }
    }
}

fn table(site: &Site<'_>, raw: &Spanned<RawType>, def: &TypeDef, out: &mut Vec<Diagnostic>) -> Option<ArgType> {
    let kind = match (&def.kind, &def.one_of) {
        (Some(key), _) => kind(site, key, key.get_ref(), out)?,
        (None, Some(_)) => ArgKind::Any,
        (None, None) => {
            out.push(problem(
                site,
                raw,
                format!("{} does not say its `type`", site.what),
                "add `type = \"text\"` (or the kind it is), or `one_of = [...]` for a union",
            ));
            return None;
        }
    };
    for (key, at) in [
        ("enum", span_of(&def.choices)),
        ("const", span_of(&def.constant)),
        ("min_length", span_of(&def.min_length)),
        ("pattern", span_of(&def.pattern)),
        ("minimum", span_of(&def.minimum)),
        ("maximum", span_of(&def.maximum)),
        ("items", def.items.as_ref().map(|i| i.span())),
        ("min_items", span_of(&def.min_items)),
        ("max_items", span_of(&def.max_items)),
        ("unique_items", span_of(&def.unique_items)),
        ("properties", span_of(&def.properties)),
        ("required", span_of(&def.required)),
        ("additional_properties", span_of(&def.additional_properties)),
    ] {
        applies(site, kind, key, at, out);
    }
    let mut ty = ArgType::of(kind);
    ty.nullable = def.nullable.as_ref().is_some_and(|n| *n.get_ref());
    if let Some(choices) = &def.choices {
        let mut seen: Vec<Str> = Vec::new();
        for choice in choices.get_ref() {
            match choice.get_ref().as_str() {
                Some(s) if seen.iter().any(|c| c == s) => out.push(problem(
                    site,
                    choice,
                    format!("{} lists the enum value \"{s}\" twice", site.what),
                    "list each value once",
                )),
                Some(s) => seen.push(s.to_owned().into()),
                None => out.push(problem(
                    site,
                    choice,
                    format!("{} has an enum value that is not a string", site.what),
                    "enum values are strings; for another kind, bound it with `minimum`/`maximum`",
                )),
            }
        }
        if seen.is_empty() && choices.get_ref().is_empty() {
            out.push(problem(
                site,
                choices,
                format!("{} has an empty enum, which no value fits", site.what),
                "list at least one value, or remove `enum`",
            ));
        }
        ty.choices = List::Owned(seen);
    }
    if let Some(constant) = &def.constant {
        match constant.get_ref().as_str() {
            Some(s) => ty.constant = Some(s.to_owned().into()),
            None => out.push(problem(
                site,
                constant,
                format!("{} has a `const` that is not a string", site.what),
                "`const` is a string here",
            )),
        }
    }
    ty.minimum = def.minimum.as_ref().map(|m| *m.get_ref());
    ty.maximum = def.maximum.as_ref().map(|m| *m.get_ref());
    if let (Some(lo), Some(hi)) = (&def.minimum, &def.maximum)
        && lo.get_ref() > hi.get_ref()
    {
        out.push(problem(
            site,
            hi,
            format!(
                "{} has `minimum = {}` above `maximum = {}`, which no value fits",
                site.what,
                lo.get_ref(),
                hi.get_ref()
            ),
            "swap the bounds, or remove one",
        ));
    }
    ty.min_length = count(site, "min_length", &def.min_length, out);
    if let Some(pattern) = &def.pattern {
        match regex_lite::Regex::new(pattern.get_ref()) {
            Ok(_) => ty.pattern = Some(pattern.get_ref().clone().into()),
            Err(e) => out.push(problem(
                site,
                pattern,
                format!("{} has a `pattern` that does not compile: {}", site.what, first_line(&e.to_string())),
                "write a regular expression without look-around or back-references",
            )),
        }
    }
    if let Some(items) = &def.items {
        let inner = Site { file: site.file, what: &format!("the item type of {}", site.what) };
        ty.items = List::Owned(resolve(&inner, items, out).into_iter().collect());
    }
    ty.min_items = count(site, "min_items", &def.min_items, out);
    ty.max_items = count(site, "max_items", &def.max_items, out);
    if let (Some(lo), Some(hi), Some(at)) = (ty.min_items, ty.max_items, &def.max_items)
        && lo > hi
    {
        out.push(problem(
            site,
            at,
            format!("{} has `min_items = {lo}` above `max_items = {hi}`, which no array fits", site.what),
            "swap the bounds, or remove one",
        ));
    }
    ty.unique_items = def.unique_items.as_ref().is_some_and(|u| *u.get_ref());
    let mut properties = Vec::new();
    if let Some(declared) = &def.properties {
        for (name, member) in in_source_order(declared.get_ref()) {
            let inner = Site { file: site.file, what: &format!("member `{}` of {}", name.get_ref(), site.what) };
            if let Some(member) = resolve(&inner, member, out) {
                properties.push(Property { name: name.get_ref().clone().into(), ty: member, required: false });
            }
        }
    }
    for name in def.required.iter().flat_map(|r| r.get_ref()) {
        match properties.iter_mut().find(|p| *p.name == **name.get_ref()) {
            Some(p) => p.required = true,
            None => {
                let names: Vec<&str> = properties.iter().map(|p| &*p.name).collect();
                out.push(problem(
                    site,
                    name,
                    format!("{} requires `{}`, which its `properties` do not declare", site.what, name.get_ref()),
                    near_name(name.get_ref(), &names, "members"),
                ));
            }
        }
    }
    ty.properties = List::Owned(properties);
    ty.closed = def.additional_properties.as_ref().is_some_and(|a| !*a.get_ref());
    if let Some(branches) = &def.one_of {
        if kind != ArgKind::Any {
            out.push(problem(
                site,
                branches,
                format!("{} is `{}` and also `one_of`", site.what, kind.key()),
                "leave `type` out beside `one_of`; each branch says its own kind",
            ));
        }
        if branches.get_ref().len() < 2 {
            out.push(problem(
                site,
                branches,
                format!("{} has a `one_of` of {} branch(es)", site.what, branches.get_ref().len()),
                "a union has at least two branches; write the one type directly",
            ));
        }
        let inner = Site { file: site.file, what: &format!("a branch of {}", site.what) };
        ty.one_of = List::Owned(branches.get_ref().iter().filter_map(|b| resolve(&inner, b, out)).collect());
    }
    if let Some(default) = &def.default {
        match serde_json::to_value(default.get_ref()) {
            Ok(value) => match ty.check(&value) {
                Ok(()) => ty.default = Some(value.to_string().into()),
                Err(why) => out.push(problem(
                    site,
                    default,
                    format!("{} has a default that its type refuses: it {why}", site.what),
                    "make the default a value of the type, or remove it",
                )),
            },
            Err(_) => out.push(problem(
                site,
                default,
                format!("{} has a default JSON cannot hold", site.what),
                "write a string, number, boolean, array or table",
            )),
        }
    }
    Some(ty)
}

/// A card's fixed value as the table holds it. For an argument whose type
/// takes strings ([`ArgType::is_textual`]) a string is held as its own text
/// (and a reference's integer as its decimal string, which means the same);
/// for every other type the value is held as compact JSON (`3`, `true`,
/// `["a"]`, `"x"`), so the server sends exactly the value M007 checked.
pub fn fixed_text(ty: Option<&ArgType>, value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) if ty.is_none_or(ArgType::is_textual) => s.clone(),
        other => serde_json::to_value(other).map(|v| v.to_string()).unwrap_or_default(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text).trim()
}
