//! The public API of a parsed crate, one line per item, member or impl, in a
//! fixed order: what another crate can reach through a chain of `pub mod`s
//! and `pub use`s from the root, each item under every path it is reachable by.
//!
//! `#[doc(hidden)]` items are listed, prefixed `#[doc(hidden)]`, not dropped:
//! the macros' expansions call them, so a change to one must ship with
//! matching macros, and review should see it. docs/semver.md puts them
//! outside the semver promise; the prefix keeps that visible.
//!
//! Trait impls read `impl Trait for Path`, without the impl's generics and
//! bounds, so a derive and the same impl by hand list alike. What a macro
//! call writes is not seen; the call is listed instead.

use std::collections::HashMap;

use super::attrs::{self, Marks};
use super::crate_tree::{Crate, ModId, item_attrs};
use super::render;
use super::resolve::Target;

/// One line of the listing, ordered by path (by segment, so `A::x` stays
/// under `A`, before `AB`), then item before impls before impl members.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Line {
    key: Vec<String>,
    rank: u8,
    text: String,
}

const ITEM: u8 = 0;
const TRAIT_IMPL: u8 = 1;
const INHERENT: u8 = 2;

/// An item: (module, index into its items).
type ItemId = (ModId, usize);

/// The crate's public API as text, one line each, sorted.
pub fn list(krate: &Crate) -> String {
    let lister = Lister { krate, impls: index_impls(krate) };
    let mut lines = Vec::new();
    let root = vec![krate.name.clone()];
    lister.walk(0, &root, &Marks::default(), &mut vec![0], &mut lines);
    lines.sort();
    lines.dedup();
    lines.into_iter().map(|line| line.text + "\n").collect()
}

/// The impl blocks of the crate (outside `#[cfg(test)]`), by what they apply to.
struct Impls {
    /// By the type they are for, when this crate defines it.
    by_type: HashMap<ItemId, Vec<ItemId>>,
    /// Impls of this crate's traits for types defined elsewhere, by trait.
    by_trait: HashMap<ItemId, Vec<ItemId>>,
}

fn index_impls(krate: &Crate) -> Impls {
    let mut impls = Impls { by_type: HashMap::new(), by_trait: HashMap::new() };
    for (m, module) in krate.modules.iter().enumerate() {
        for (i, item) in module.items.iter().enumerate() {
            let syn::Item::Impl(imp) = item else { continue };
            let self_path = match imp.self_ty.as_ref() {
                syn::Type::Path(p) if p.qself.is_none() => Some(&p.path),
                _ => None,
            };
            if let Some(target) = self_path.and_then(|p| defined(krate, m, p)) {
                impls.by_type.entry(target).or_default().push((m, i));
            } else if let Some(target) = imp.trait_.as_ref().and_then(|(p, _)| defined(krate, m, p)) {
                impls.by_trait.entry(target).or_default().push((m, i));
            }
        }
    }
    impls
}

/// The type or trait of this crate that `path` names from module `from`, if
/// any (a function of the same name lives in the other namespace).
fn defined(krate: &Crate, from: ModId, path: &syn::Path) -> Option<ItemId> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    krate.resolve(from, &segments, path.leading_colon.is_some()).into_iter().find_map(|t| match t {
        Target::Item(m, i) => matches!(
            krate.modules[m].items[i],
            syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_) | syn::Item::Type(_) | syn::Item::Trait(_)
        )
        .then_some((m, i)),
        _ => None,
    })
}

struct Lister<'a> {
    krate: &'a Crate,
    impls: Impls,
}

impl Lister<'_> {
    /// The public names of `module`, reached at `path`; `stack` holds the
    /// modules being walked, so a module that re-exports an ancestor ends.
    fn walk(&self, module: ModId, path: &[String], marks: &Marks, stack: &mut Vec<ModId>, out: &mut Vec<Line>) {
        // What a macro call writes is invisible from the source; the call
        // itself is listed, so adding or removing one shows.
        for item in &self.krate.modules[module].items {
            if let syn::Item::Macro(call) = item
                && call.ident.is_none()
            {
                let called: Vec<String> = call.mac.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let text =
                    format!("{}: {}! {{ .. }}  // what it writes is not listed", path.join("::"), called.join("::"));
                out.push(line(path, TRAIT_IMPL, &marks.and(&Marks::of(&call.attrs)), text));
            }
        }
        for export in self.krate.public_names(module) {
            let mut at = path.to_vec();
            at.push(export.name.clone());
            let marks = marks.and(&export.marks);
            let shown = at.join("::");
            match export.target {
                Target::Module(child) => {
                    let marks = marks.and(&self.krate.modules[child].marks);
                    out.push(line(&at, ITEM, &marks, format!("pub mod {shown}")));
                    if !stack.contains(&child) {
                        stack.push(child);
                        self.walk(child, &at, &marks, stack, out);
                        stack.pop();
                    }
                }
                Target::Item(m, i) => {
                    // The defining module's `cfg`s hold wherever the item is
                    // re-exported; its `doc(hidden)` does not (a re-export
                    // from a hidden module is the item's documented path).
                    let cfg = Marks { cfg: self.krate.modules[m].marks.cfg.clone(), hidden: false };
                    self.item((m, i), &at, &marks.and(&cfg), out);
                }
                Target::External(written) => out.push(line(&at, ITEM, &marks, format!("pub use {written} as {shown}"))),
            }
        }
    }

    /// An item at public path `at`, with its members and impls. Names and
    /// attributes are read from the parsed item; what is printed comes from a
    /// fresh copy, which rendering trims.
    fn item(&self, id: ItemId, at: &[String], marks: &Marks, out: &mut Vec<Line>) {
        let original = &self.krate.modules[id.0].items[id.1];
        let marks = marks.and(&Marks::of(item_attrs(original)));
        let path = at.join("::");
        let mut push = |key: &[String], rank: u8, marks: &Marks, text: String| out.push(line(key, rank, marks, text));
        match self.krate.copy(id) {
            syn::Item::Fn(f) => push(at, ITEM, &marks, proc_macro(self.krate, f, &path)),
            syn::Item::Struct(mut s) => {
                let mut notes = Vec::new();
                // A unit or tuple struct is also a constant or a constructor
                // function; turning one into another breaks callers.
                match s.fields {
                    syn::Fields::Unit => notes.push("unit"),
                    syn::Fields::Unnamed(_) => notes.push("tuple"),
                    syn::Fields::Named(_) => {}
                }
                if attrs::has(&s.attrs, "non_exhaustive") {
                    notes.push("#[non_exhaustive]");
                }
                if s.fields.iter().any(|f| !attrs::is_pub(&f.vis)) {
                    notes.push("has private fields");
                }
                let fields = std::mem::replace(&mut s.fields, syn::Fields::Unit);
                push(at, ITEM, &marks, noted(render::struct_header(s, &path), &notes));
                for (n, field) in fields.into_iter().enumerate().filter(|(_, f)| attrs::is_pub(&f.vis)) {
                    let name = field.ident.as_ref().map_or(n.to_string(), ToString::to_string);
                    let marks = marks.and(&Marks::of(&field.attrs));
                    push(&member(at, &name), ITEM, &marks, format!("pub {path}::{name}: {}", render::ty(field.ty)));
                }
            }
            syn::Item::Union(mut u) => {
                let fields = std::mem::take(&mut u.fields.named);
                push(at, ITEM, &marks, render::union_header(u, &path));
                for field in fields.into_iter().filter(|f| attrs::is_pub(&f.vis)) {
                    let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_default();
                    let marks = marks.and(&Marks::of(&field.attrs));
                    push(&member(at, &name), ITEM, &marks, format!("pub {path}::{name}: {}", render::ty(field.ty)));
                }
            }
            syn::Item::Enum(mut e) => {
                let variants = std::mem::take(&mut e.variants);
                push(at, ITEM, &marks, noted(render::enum_header(e, &path), non_exhaustive(item_attrs(original))));
                for v in variants {
                    let key = member(at, &v.ident.to_string());
                    let marks = marks.and(&Marks::of(&v.attrs));
                    let notes = non_exhaustive(&v.attrs);
                    push(&key, ITEM, &marks, noted(format!("pub {path}::{}", render::variant(v)), notes));
                }
            }
            syn::Item::Trait(mut t) => {
                let items = std::mem::take(&mut t.items);
                push(at, ITEM, &marks, render::trait_header(t, &path));
                for trait_item in items {
                    if let Some((name, text, provided)) = render::trait_item(trait_item, &path) {
                        let text = if provided { text + "  // provided" } else { text };
                        push(&member(at, &name), ITEM, &marks, text);
                    }
                }
                for &(m, i) in self.impls.by_trait.get(&id).into_iter().flatten() {
                    let syn::Item::Impl(imp) = self.krate.copy((m, i)) else { continue };
                    let marks = impl_marks(self.krate, &marks, m, &imp);
                    push(at, TRAIT_IMPL, &marks, render::foreign_impl(imp, &path));
                }
            }
            syn::Item::Type(t) => push(at, ITEM, &marks, render::type_alias(t, &path)),
            syn::Item::Const(c) => push(at, ITEM, &marks, format!("pub const {path}: {}", render::ty(*c.ty))),
            syn::Item::Static(s) => {
                let mutable = if matches!(s.mutability, syn::StaticMutability::Mut(_)) { "mut " } else { "" };
                push(at, ITEM, &marks, format!("pub static {mutable}{path}: {}", render::ty(*s.ty)));
            }
            syn::Item::TraitAlias(_) => push(at, ITEM, &marks, format!("pub trait {path} = (trait alias)")),
            syn::Item::Macro(_) => push(at, ITEM, &marks, format!("macro_rules! {path}")),
            _ => {}
        }
        for derived in attrs::derives(item_attrs(original)) {
            out.push(line(at, TRAIT_IMPL, &marks, format!("impl {derived} for {path}")));
        }
        self.impls_of(id, at, &marks, out);
    }

    /// The impl blocks for the type `id`: `impl Trait for P` lines, and one
    /// `impl P { pub fn .. }` line per public member of an inherent impl.
    fn impls_of(&self, id: ItemId, at: &[String], marks: &Marks, out: &mut Vec<Line>) {
        let path = at.join("::");
        for &(m, i) in self.impls.by_type.get(&id).into_iter().flatten() {
            let syn::Item::Impl(mut imp) = self.krate.copy((m, i)) else { continue };
            let marks = impl_marks(self.krate, marks, m, &imp);
            if imp.trait_.is_some() {
                out.push(line(at, TRAIT_IMPL, &marks, render::trait_impl(imp, &path)));
                continue;
            }
            let members = std::mem::take(&mut imp.items);
            let header = render::inherent_impl(imp, &path);
            for member in members {
                let (text, member_attrs) = match member {
                    syn::ImplItem::Fn(f) if attrs::is_pub(&f.vis) => {
                        let name = f.sig.ident.to_string();
                        (render::function(f.vis, f.sig, &name), f.attrs)
                    }
                    syn::ImplItem::Const(c) if attrs::is_pub(&c.vis) => {
                        (format!("pub const {}: {}", c.ident, render::ty(c.ty)), c.attrs)
                    }
                    _ => continue,
                };
                let marks = marks.and(&Marks::of(&member_attrs));
                out.push(line(at, INHERENT, &marks, format!("{header} {{ {text} }}")));
            }
        }
    }
}

/// The marks of an impl block in module `module`, under an item's `marks`.
fn impl_marks(krate: &Crate, marks: &Marks, module: ModId, imp: &syn::ItemImpl) -> Marks {
    let cfg = Marks { cfg: krate.modules[module].marks.cfg.clone(), hidden: false };
    marks.and(&cfg).and(&Marks::of(&imp.attrs))
}

/// A function, or the macro it defines if it is a `#[proc_macro*]`.
fn proc_macro(krate: &Crate, f: syn::ItemFn, path: &str) -> String {
    if attrs::has(&f.attrs, "proc_macro") {
        format!("proc-macro {path}!")
    } else if attrs::has(&f.attrs, "proc_macro_attribute") {
        format!("proc-macro-attribute #[{path}]")
    } else if let Some(name) = attrs::derive_macro_name(&f.attrs) {
        format!("proc-macro-derive {}::{name} (fn {path})", krate.name)
    } else {
        render::function(f.vis, f.sig, path)
    }
}

/// The note for `#[non_exhaustive]`, if `attrs` hold it.
fn non_exhaustive(attrs: &[syn::Attribute]) -> &'static [&'static str] {
    if attrs::has(attrs, "non_exhaustive") { &["#[non_exhaustive]"] } else { &[] }
}

fn member(at: &[String], name: &str) -> Vec<String> {
    let mut key = at.to_vec();
    key.push(name.to_owned());
    key
}

fn noted(text: String, notes: &[&str]) -> String {
    if notes.is_empty() { text } else { format!("{text}  // {}", notes.join(", ")) }
}

fn line(key: &[String], rank: u8, marks: &Marks, text: String) -> Line {
    Line { key: key.to_vec(), rank, text: marks.prefix() + &text }
}
