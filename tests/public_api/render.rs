//! Signatures as one line of text. Each item is trimmed to its API (attributes,
//! bodies and values dropped, its name swapped for a placeholder), printed by
//! prettyplease, folded onto one line, and the placeholder replaced by the
//! item's public path. prettyplease breaks long lines with trailing commas;
//! folding undoes that, so the text does not depend on where it wrapped.
//!
//! Everything here takes syntax by value: this package builds syn without its
//! `Clone` impls, so callers trim a fresh copy ([`Crate::copy`]).
//!
//! [`Crate::copy`]: super::crate_tree::Crate::copy

use syn::punctuated::Punctuated;
use syn::{FnArg, Pat, Type};

/// Stands for the item's name while it is printed.
const PLACEHOLDER: &str = "PUBLIC_API_NAME";

fn placeholder(like: &syn::Ident) -> syn::Ident {
    syn::Ident::new(PLACEHOLDER, like.span())
}

/// Swaps `ident` for the placeholder, returning the name.
fn take_name(ident: &mut syn::Ident) -> syn::Ident {
    let stand_in = placeholder(ident);
    std::mem::replace(ident, stand_in)
}

/// `items`, pretty-printed, on one line.
fn one_line(items: Vec<syn::Item>) -> String {
    let mut file = syn::parse_file("").expect("an empty file parses");
    file.items = items;
    let mut text = prettyplease::unparse(&file).split_whitespace().collect::<Vec<_>>().join(" ");
    // The marks of a wrapped line: a break after an opening delimiter and a
    // trailing comma before the closing one. A one-line print has neither.
    for (wrapped, flat) in [("( ", "("), ("[ ", "["), ("< ", "<"), (", )", ")"), (", ]", "]"), (", >", ">")] {
        text = text.replace(wrapped, flat);
    }
    text
}

/// `text` without a trailing body or `;`, nor the comma a `where` clause
/// leaves before them.
fn strip_body(text: &str) -> String {
    let text = text.trim_end();
    let text = text.strip_suffix("{}").or_else(|| text.strip_suffix(';')).unwrap_or(text);
    text.trim_end().trim_end_matches(',').trim_end().to_owned()
}

/// `text` with its placeholder replaced by `name`.
fn named(text: &str, name: &str) -> String {
    text.replacen(PLACEHOLDER, name, 1)
}

/// The text between the first `{` after `opening` and the last `}`.
fn inside_braces(text: &str, opening: &str) -> String {
    let start = text.find(opening).map_or(0, |i| i + opening.len());
    let body = &text[start..];
    let open = body.find('{').map_or(0, |i| i + 1);
    let close = body.rfind('}').unwrap_or(body.len());
    body[open..close.max(open)].trim().trim_end_matches(',').trim_end_matches(';').trim().to_owned()
}

/// A type.
pub fn ty(t: Type) -> String {
    let mut alias: syn::ItemType = syn::parse_str("type T = ();").expect("an alias parses");
    *alias.ty = t;
    let text = strip_body(&one_line(vec![syn::Item::Type(alias)]));
    text.strip_prefix("type T = ").unwrap_or(&text).to_owned()
}

/// `pub const unsafe fn name<G>(args) -> R where ..`. Argument patterns'
/// `mut` is the body's business, not the caller's, so it is dropped.
pub fn function(vis: syn::Visibility, mut sig: syn::Signature, name: &str) -> String {
    sig.ident = placeholder(&sig.ident);
    for arg in sig.inputs.iter_mut() {
        if let FnArg::Typed(typed) = arg {
            typed.attrs.clear();
            if let Pat::Ident(pat) = typed.pat.as_mut() {
                pat.mutability = None;
            }
        }
    }
    let mut item: syn::ItemFn = syn::parse_str("fn f() {}").expect("a function parses");
    item.vis = vis;
    item.sig = sig;
    named(&strip_body(&one_line(vec![syn::Item::Fn(item)])), name)
}

/// `pub struct P<G> where ..`, without its fields (listed one by one).
pub fn struct_header(mut item: syn::ItemStruct, path: &str) -> String {
    item.attrs.clear();
    item.ident = placeholder(&item.ident);
    item.fields = syn::Fields::Unit;
    item.semi_token = Some(Default::default());
    named(&strip_body(&one_line(vec![syn::Item::Struct(item)])), path)
}

/// `pub union P<G>`, without its fields.
pub fn union_header(mut item: syn::ItemUnion, path: &str) -> String {
    item.attrs.clear();
    item.ident = placeholder(&item.ident);
    item.fields.named.clear();
    named(&strip_body(&one_line(vec![syn::Item::Union(item)])), path)
}

/// `pub enum P<G> where ..`, without its variants.
pub fn enum_header(mut item: syn::ItemEnum, path: &str) -> String {
    item.attrs.clear();
    item.ident = placeholder(&item.ident);
    item.variants.clear();
    named(&strip_body(&one_line(vec![syn::Item::Enum(item)])), path)
}

/// A variant with its fields and discriminant: `V(A, B)`, `V { a: A }`, `V = 3`.
pub fn variant(mut variant: syn::Variant) -> String {
    variant.attrs.clear();
    variant.fields.iter_mut().for_each(|f| f.attrs.clear());
    let mut wrapper: syn::ItemEnum = syn::parse_str("enum E {}").expect("an enum parses");
    wrapper.variants.push(variant);
    inside_braces(&one_line(vec![syn::Item::Enum(wrapper)]), "enum E")
}

/// `pub trait P<G>: Supertraits where ..`, without its items.
pub fn trait_header(mut item: syn::ItemTrait, path: &str) -> String {
    item.attrs.clear();
    item.ident = placeholder(&item.ident);
    item.items.clear();
    named(&strip_body(&one_line(vec![syn::Item::Trait(item)])), path)
}

/// A trait's item under the trait's path, without defaults: `fn P::f(&self)`,
/// `type P::T: Bound`, `const P::C: u8`; with its name, and whether it has a
/// default.
pub fn trait_item(mut item: syn::TraitItem, trait_path: &str) -> Option<(String, String, bool)> {
    let (ident, provided) = match &mut item {
        syn::TraitItem::Fn(f) => {
            f.attrs.clear();
            f.semi_token = Some(Default::default());
            let ident = take_name(&mut f.sig.ident);
            (ident, f.default.take().is_some())
        }
        syn::TraitItem::Const(c) => {
            c.attrs.clear();
            let ident = take_name(&mut c.ident);
            (ident, c.default.take().is_some())
        }
        syn::TraitItem::Type(t) => {
            t.attrs.clear();
            let ident = take_name(&mut t.ident);
            (ident, t.default.take().is_some())
        }
        _ => return None,
    };
    let mut wrapper: syn::ItemTrait = syn::parse_str("trait T {}").expect("a trait parses");
    wrapper.items.push(item);
    let text = inside_braces(&one_line(vec![syn::Item::Trait(wrapper)]), "trait T");
    Some((ident.to_string(), named(&text, &format!("{trait_path}::{ident}")), provided))
}

/// `pub type P<G> = T`.
pub fn type_alias(mut item: syn::ItemType, path: &str) -> String {
    item.attrs.clear();
    item.ident = placeholder(&item.ident);
    named(&strip_body(&one_line(vec![syn::Item::Type(item)])), path)
}

/// The header of an inherent impl, `impl<G> P<A> where ..`, its self type
/// written as the public path `path`.
pub fn inherent_impl(mut item: syn::ItemImpl, path: &str) -> String {
    item.attrs.clear();
    item.items.clear();
    rename_self(&mut item.self_ty);
    named(&strip_body(&one_line(vec![syn::Item::Impl(item)])), path)
}

/// `impl Trait<A> for P`, plus any associated types it sets. The trait is
/// named by its last segment (as derives are, see `attrs::derives`), so a
/// derive and the same impl written by hand read alike.
pub fn trait_impl(item: syn::ItemImpl, self_path: &str) -> String {
    let unsafety = if item.unsafety.is_some() { "unsafe " } else { "" };
    let negative = if item.modifiers.polarity.is_some() { "!" } else { "" };
    let Some((trait_path, _)) = item.trait_ else { return String::new() };
    let types: Vec<String> = item
        .items
        .into_iter()
        .filter_map(|i| match i {
            syn::ImplItem::Type(t) => Some(format!("type {} = {};", t.ident, ty(t.ty))),
            _ => None,
        })
        .collect();
    let body = if types.is_empty() { String::new() } else { format!(" {{ {} }}", types.join(" ")) };
    format!("{unsafety}impl {negative}{} for {self_path}{body}", last_segment(trait_path, None))
}

/// `impl P<A> for T`: an impl of this crate's trait, public at `trait_path`,
/// for a type this crate does not define.
pub fn foreign_impl(item: syn::ItemImpl, trait_path: &str) -> String {
    let unsafety = if item.unsafety.is_some() { "unsafe " } else { "" };
    let Some((path, _)) = item.trait_ else { return String::new() };
    format!("{unsafety}impl {} for {}", last_segment(path, Some(trait_path)), ty(*item.self_ty))
}

/// A path's last segment with its generic arguments, renamed to `name` if given.
fn last_segment(mut path: syn::Path, name: Option<&str>) -> String {
    let Some(last) = path.segments.pop() else { return String::new() };
    let mut segment = last;
    if name.is_some() {
        segment.ident = placeholder(&segment.ident);
    }
    let mut t: Type = syn::parse_str("T").expect("a type parses");
    if let Type::Path(p) = &mut t {
        p.path.segments = Punctuated::from_iter([segment]);
    }
    let text = ty(t);
    name.map_or(text.clone(), |name| named(&text, name))
}

/// A self type reduced to its last segment, renamed to the placeholder, so
/// `crate::table::Card<'a>` prints as the public path with `<'a>`.
fn rename_self(self_ty: &mut Type) {
    if let Type::Path(p) = self_ty
        && let Some(last) = p.path.segments.pop()
    {
        let mut last = last;
        last.ident = placeholder(&last.ident);
        p.path.leading_colon = None;
        p.path.segments = Punctuated::from_iter([last]);
    }
}
