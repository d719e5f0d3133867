//! What the lister reads from attributes: whether an item exists only in tests,
//! the `cfg`s and `#[doc(hidden)]` that qualify it, `#[path]`, and derives.

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Lit, Meta, Visibility};

/// The conditions an item is listed under: the `cfg`s of every module on its
/// path and its own, and whether it or anything above it is `#[doc(hidden)]`.
///
/// They are kept, not dropped: an item behind a feature is still API for the
/// crates that enable the feature, and a hidden item is still reachable, so a
/// change to either shows in the snapshot, marked for what it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub cfg: Vec<String>,
    pub hidden: bool,
}

impl Marks {
    /// The marks of `attrs`.
    pub fn of(attrs: &[Attribute]) -> Self {
        let mut marks = Marks::default();
        for attr in attrs {
            if let Some(predicate) = list_args(attr, "cfg") {
                marks.cfg.push(predicate);
            } else if list_args(attr, "doc").as_deref() == Some("hidden") {
                marks.hidden = true;
            }
        }
        marks
    }

    /// These marks, narrowed further by `inner` (an item inside them).
    pub fn and(&self, inner: &Marks) -> Self {
        let mut cfg = self.cfg.clone();
        cfg.extend(inner.cfg.iter().filter(|c| !self.cfg.contains(c)).cloned());
        Marks { cfg, hidden: self.hidden || inner.hidden }
    }

    /// `#[cfg(..)] #[doc(hidden)] ` before a line, so the condition is read
    /// with the item it qualifies.
    pub fn prefix(&self) -> String {
        let mut out: String = self.cfg.iter().map(|c| format!("#[cfg({c})] ")).collect();
        if self.hidden {
            out.push_str("#[doc(hidden)] ");
        }
        out
    }
}

/// `#[cfg(test)]`: compiled only into the crate's own unit tests.
pub fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| list_args(attr, "cfg").as_deref() == Some("test"))
}

/// Whether `attrs` hold a bare or parameterised attribute called `name`.
pub fn has(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident(name))
}

/// `#[path = "..."]`, which moves a module's file.
pub fn path(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

/// The traits named in `#[derive(..)]`, by their last segment, so that
/// `serde::Serialize` and an imported `Serialize` read the same.
pub fn derives(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("derive")) {
        let paths = attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated);
        for path in paths.into_iter().flatten() {
            if let Some(last) = path.segments.last() {
                out.push(last.ident.to_string());
            }
        }
    }
    out
}

/// The first argument of `#[proc_macro_derive(Name, ..)]`.
pub fn derive_macro_name(attrs: &[Attribute]) -> Option<String> {
    let attr = attrs.iter().find(|attr| attr.path().is_ident("proc_macro_derive"))?;
    let names = attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated).ok()?;
    names.first().and_then(|p| p.get_ident()).map(ToString::to_string)
}

/// Plain `pub`: the only visibility another crate can see. `pub(crate)` and
/// `pub(in ..)` are as private as no `pub` at all, seen from outside.
pub fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// The tokens of `#[name(tokens)]`, as text.
fn list_args(attr: &Attribute, name: &str) -> Option<String> {
    match &attr.meta {
        Meta::List(list) if list.path.is_ident(name) => Some(list.tokens.to_string()),
        _ => None,
    }
}
