//! Name resolution, as far as re-exports need it: what a `use` path names
//! (`crate::`, `self::`, `super::`, plain relative paths, groups, renames and
//! globs), and which names a module offers to other crates.
//!
//! A path that leaves the crate, or that this resolver cannot follow (an enum's
//! variant, say), resolves to [`Target::External`] with the path as written, so
//! it still shows in the listing as the `use` line it is.

use super::attrs::{self, Marks};
use super::crate_tree::{Crate, ModId, item_name};

/// Deeper than any real chain of re-exports; stops `use` cycles.
const MAX_DEPTH: usize = 24;

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Module(ModId),
    /// Item `index` of module `module`'s items.
    Item(ModId, usize),
    /// Another crate's item, or a path left unresolved, as written.
    External(String),
}

/// One name a module offers another crate.
pub struct Export {
    pub name: String,
    pub target: Target,
    /// The `cfg`s and `doc(hidden)` of the `pub use` that offers it.
    pub marks: Marks,
}

/// One imported name of a `use` tree, its path flattened.
pub struct Leaf {
    pub leading_colon: bool,
    /// For a glob, the path of the module whose names it imports.
    pub path: Vec<String>,
    /// The name it binds, `None` for a glob. `_` binds nothing.
    pub name: Option<String>,
}

/// The leaves of `use` item `item`.
pub fn leaves(item: &syn::ItemUse) -> Vec<Leaf> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, colon: bool, out: &mut Vec<Leaf>) {
        let mut leaf = |path: Vec<String>, name: Option<String>| out.push(Leaf { leading_colon: colon, path, name });
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, colon, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => named(prefix, &n.ident, &n.ident, &mut leaf),
            syn::UseTree::Rename(r) => named(prefix, &r.ident, &r.rename, &mut leaf),
            syn::UseTree::Glob(_) => leaf(prefix.clone(), None),
            syn::UseTree::Group(g) => g.items.iter().for_each(|tree| walk(tree, prefix, colon, out)),
        }
    }
    /// `a::b` binds `b`; `a::{self}` binds `a`.
    fn named(
        prefix: &[String],
        ident: &syn::Ident,
        name: &syn::Ident,
        leaf: &mut impl FnMut(Vec<String>, Option<String>),
    ) {
        let mut path = prefix.to_vec();
        if ident != "self" {
            path.push(ident.to_string());
        }
        let name = if name == "self" { path.last().cloned().unwrap_or_default() } else { name.to_string() };
        leaf(path, Some(name));
    }
    let mut out = Vec::new();
    walk(&item.tree, &mut Vec::new(), item.leading_colon.is_some(), &mut out);
    out
}

impl Crate {
    /// What `path` names, seen from module `from`.
    pub fn resolve(&self, from: ModId, path: &[String], leading_colon: bool) -> Vec<Target> {
        self.resolve_at(from, path, leading_colon, 0)
    }

    fn resolve_at(&self, from: ModId, path: &[String], leading_colon: bool, depth: usize) -> Vec<Target> {
        let written = || vec![Target::External(path.join("::"))];
        let Some((first, rest)) = path.split_first() else { return Vec::new() };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        if leading_colon {
            return written();
        }
        let mut at = match first.as_str() {
            "crate" => vec![Target::Module(0)],
            "self" => vec![Target::Module(from)],
            "super" => self.modules[from].parent.map(Target::Module).into_iter().collect(),
            name => self.lookup_at(from, name, rest.is_empty(), depth + 1),
        };
        if at.is_empty() {
            // Not a name of this crate: an extern crate (or the prelude).
            return written();
        }
        for (n, segment) in rest.iter().enumerate() {
            let last = n + 1 == rest.len();
            let mut next = Vec::new();
            for target in &at {
                match target {
                    Target::Module(m) => match segment.as_str() {
                        "super" => next.extend(self.modules[*m].parent.map(Target::Module)),
                        "self" => next.push(Target::Module(*m)),
                        name => next.extend(self.lookup_at(*m, name, last, depth + 1)),
                    },
                    Target::External(p) => next.push(Target::External(format!("{p}::{segment}"))),
                    Target::Item(..) => {}
                }
            }
            if next.is_empty() {
                return written();
            }
            at = next;
        }
        dedup(at)
    }

    /// What `name` means inside module `module` (private names included:
    /// a `pub use` may go through them). Unless `last`, the name is a path's
    /// leading segment and only a module (or another crate's path) will do:
    /// so `mod encode; pub use encode::encode;` finds the module, not the
    /// function the same `use` imports.
    fn lookup_at(&self, module: ModId, name: &str, last: bool, depth: usize) -> Vec<Target> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let m = &self.modules[module];
        let mut out: Vec<Target> = m.children.iter().filter(|c| c.name == name).map(|c| Target::Module(c.id)).collect();
        if !last {
            if out.is_empty() {
                out = self.lookup_at(module, name, true, depth + 1);
                out.retain(|t| !matches!(t, Target::Item(..)));
            }
            return out;
        }
        for (index, item) in m.items.iter().enumerate() {
            match item {
                syn::Item::Use(u) => {
                    for leaf in leaves(u).into_iter().filter(|l| l.name.as_deref() == Some(name)) {
                        if leaf.path.len() == 1 && leaf.path[0] == name && !leaf.leading_colon {
                            // `use serde_json;`: the extern crate itself.
                            out.push(Target::External(name.to_owned()));
                        } else {
                            out.extend(self.resolve_at(module, &leaf.path, leaf.leading_colon, depth + 1));
                        }
                    }
                }
                item if item_name(item).is_some_and(|(n, _)| n == name) => out.push(Target::Item(module, index)),
                _ => {}
            }
        }
        if module == 0 {
            out.extend(
                self.exported_macros
                    .iter()
                    .filter(|(m, i)| macro_name(self, *m, *i) == name)
                    .map(|&(m, i)| Target::Item(m, i)),
            );
        }
        if out.is_empty() {
            for leaf in self.use_leaves(module).filter(|l| l.name.is_none()) {
                for target in self.resolve_at(module, &leaf.path, leaf.leading_colon, depth + 1) {
                    if let Target::Module(source) = target {
                        out.extend(self.lookup_at(source, name, true, depth + 1));
                    }
                }
            }
        }
        dedup(out)
    }

    /// The names module `module` offers other crates: its `pub mod`s, its
    /// `pub` items and its `pub use`s (globs expanded to the public names of
    /// what they import, less the names the module defines itself).
    pub fn public_names(&self, module: ModId) -> Vec<Export> {
        self.public_names_at(module, 0)
    }

    fn public_names_at(&self, module: ModId, depth: usize) -> Vec<Export> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let m = &self.modules[module];
        let mut out: Vec<Export> = m
            .children
            .iter()
            .filter(|c| c.public)
            .map(|c| Export { name: c.name.clone(), target: Target::Module(c.id), marks: Marks::default() })
            .collect();
        let mut globs = Vec::new();
        for (index, item) in m.items.iter().enumerate() {
            match item {
                syn::Item::Use(u) if attrs::is_pub(&u.vis) => {
                    let marks = Marks::of(&u.attrs);
                    for leaf in leaves(u) {
                        match leaf.name {
                            None => globs.push((leaf, marks.clone())),
                            Some(name) if name == "_" => {}
                            Some(name) => {
                                for target in self.resolve_at(module, &leaf.path, leaf.leading_colon, depth + 1) {
                                    out.push(Export { name: name.clone(), target, marks: marks.clone() });
                                }
                            }
                        }
                    }
                }
                syn::Item::ExternCrate(e) if attrs::is_pub(&e.vis) => {
                    let name = e.rename.as_ref().map_or(&e.ident, |(_, r)| r).to_string();
                    let target = Target::External(e.ident.to_string());
                    out.push(Export { name, target, marks: Marks::of(&e.attrs) });
                }
                item => {
                    if let Some((name, true)) = item_name(item) {
                        out.push(Export { name, target: Target::Item(module, index), marks: Marks::default() });
                    }
                }
            }
        }
        if module == 0 {
            for &(m, i) in &self.exported_macros {
                out.push(Export { name: macro_name(self, m, i), target: Target::Item(m, i), marks: Marks::default() });
            }
        }
        let explicit: Vec<String> = out.iter().map(|e| e.name.clone()).collect();
        for (leaf, marks) in globs {
            for target in self.resolve_at(module, &leaf.path, leaf.leading_colon, depth + 1) {
                match target {
                    Target::Module(source) => out.extend(
                        self.public_names_at(source, depth + 1)
                            .into_iter()
                            .filter(|e| !explicit.contains(&e.name))
                            .map(|e| Export { marks: marks.and(&e.marks), ..e }),
                    ),
                    // Another crate's module, or an enum's variants: as written.
                    _ => out.push(Export {
                        name: "*".to_owned(),
                        target: Target::External(format!("{}::*", leaf.path.join("::"))),
                        marks: marks.clone(),
                    }),
                }
            }
        }
        out
    }

    /// Every `use` leaf of a module.
    fn use_leaves(&self, module: ModId) -> impl Iterator<Item = Leaf> + '_ {
        self.modules[module].items.iter().flat_map(|item| match item {
            syn::Item::Use(u) => leaves(u),
            _ => Vec::new(),
        })
    }
}

/// The name of `macro_rules! name`.
fn macro_name(krate: &Crate, module: ModId, index: usize) -> String {
    match &krate.modules[module].items[index] {
        syn::Item::Macro(m) => m.ident.as_ref().map(ToString::to_string).unwrap_or_default(),
        _ => String::new(),
    }
}

fn dedup(targets: Vec<Target>) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in targets {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}
