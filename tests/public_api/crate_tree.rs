//! A crate's modules as rustc finds them: from `src/lib.rs`, following each
//! `mod` to its file (`name.rs`, `name/mod.rs`, or `#[path]`) or its inline
//! block. `#[cfg(test)]` modules and items are left out: another crate never
//! sees them.

use std::path::{Path, PathBuf};

use super::attrs::{self, Marks};

/// A module's index in [`Crate::modules`]; the root is 0.
pub type ModId = usize;

/// A parsed crate: every module reachable by `mod` from its root, public or not
/// (a private module's items can still be re-exported).
pub struct Crate {
    /// The library's name as other crates write it (`m1nd_policy`).
    pub name: String,
    pub modules: Vec<Module>,
    /// `#[macro_export]` macros, which live at the crate root wherever they
    /// are written: (module, index into its items).
    pub exported_macros: Vec<(ModId, usize)>,
}

pub struct Module {
    pub parent: Option<ModId>,
    /// The module's items other than `mod` declarations, in source order.
    pub items: Vec<syn::Item>,
    /// Each item printed back to source, to parse afresh (see [`Crate::copy`]).
    texts: Vec<String>,
    pub children: Vec<Child>,
    /// The marks of the module itself and every module above it.
    pub marks: Marks,
}

/// A `mod` declaration.
pub struct Child {
    pub name: String,
    pub id: ModId,
    pub public: bool,
}

/// Where a module's `mod` declarations look for their files.
struct Dirs {
    /// For `mod name;`: `name.rs` or `name/mod.rs` in here.
    children: PathBuf,
    /// For `#[path = ".."] mod name;`: relative to here.
    path_attr: PathBuf,
}

impl Crate {
    /// Parses the crate whose root file is `lib_rs`, naming it `name`.
    pub fn load(lib_rs: &Path, name: &str) -> Crate {
        let mut krate = Crate { name: name.to_owned(), modules: Vec::new(), exported_macros: Vec::new() };
        krate.load_file(lib_rs, None, Marks::default(), true);
        krate
    }

    /// A fresh copy of item `index` of module `module`, for rendering to
    /// trim: syn is built here without its `Clone` impls.
    pub fn copy(&self, (module, index): (ModId, usize)) -> syn::Item {
        let text = &self.modules[module].texts[index];
        syn::parse_str(text).unwrap_or_else(|e| panic!("reparse `{text}`: {e}"))
    }

    /// A module file. A `mod.rs`, the crate root and a `#[path]` file keep
    /// their children beside them; `a/b.rs` keeps them in `a/b/`.
    fn load_file(&mut self, file: &Path, parent: Option<ModId>, marks: Marks, mod_rs: bool) -> ModId {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("parse {}: {e}", file.display()));
        let dir = file.parent().expect("a file has a directory").to_path_buf();
        let dirs = if mod_rs {
            Dirs { children: dir.clone(), path_attr: dir }
        } else {
            let stem = file.file_stem().expect("a module file has a name");
            Dirs { children: dir.join(stem), path_attr: dir }
        };
        let marks = marks.and(&Marks::of(&parsed.attrs));
        self.add_module(parsed.items, parent, marks, &dirs)
    }

    fn add_module(&mut self, items: Vec<syn::Item>, parent: Option<ModId>, marks: Marks, dirs: &Dirs) -> ModId {
        let id = self.modules.len();
        self.modules.push(Module {
            parent,
            items: Vec::new(),
            texts: Vec::new(),
            children: Vec::new(),
            marks: marks.clone(),
        });
        for item in items {
            if attrs::test_only(item_attrs(&item)) {
                continue;
            }
            match item {
                syn::Item::Mod(module) => {
                    let name = module.ident.to_string();
                    let child_marks = marks.and(&Marks::of(&module.attrs));
                    let child = match module.content {
                        Some((_, items)) => {
                            // An inline module's `mod`s and `#[path]`s both
                            // start from a directory named after it.
                            let dir = dirs.children.join(&name);
                            let inner = Dirs { children: dir.clone(), path_attr: dir };
                            self.add_module(items, Some(id), child_marks, &inner)
                        }
                        None => match attrs::path(&module.attrs) {
                            Some(path) => self.load_file(&dirs.path_attr.join(path), Some(id), child_marks, true),
                            None => {
                                let (file, mod_rs) = module_file(&dirs.children, &name);
                                self.load_file(&file, Some(id), child_marks, mod_rs)
                            }
                        },
                    };
                    let public = attrs::is_pub(&module.vis);
                    self.modules[id].children.push(Child { name, id: child, public });
                }
                item => {
                    if let syn::Item::Macro(mac) = &item
                        && attrs::has(&mac.attrs, "macro_export")
                    {
                        self.exported_macros.push((id, self.modules[id].items.len()));
                    }
                    let (item, text) = printed(item);
                    self.modules[id].items.push(item);
                    self.modules[id].texts.push(text);
                }
            }
        }
        id
    }
}

/// `item` and its source, as prettyplease prints it. Tokens syn kept
/// unparsed (`Item::Verbatim`) have no source to give.
fn printed(item: syn::Item) -> (syn::Item, String) {
    if let syn::Item::Verbatim(_) = item {
        return (item, String::new());
    }
    let mut file = syn::parse_file("").expect("an empty file parses");
    file.items.push(item);
    let text = prettyplease::unparse(&file);
    (file.items.pop().expect("the item just pushed"), text)
}

/// `dir/name.rs`, else `dir/name/mod.rs` (and whether it is the latter).
fn module_file(dir: &Path, name: &str) -> (PathBuf, bool) {
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        return (flat, false);
    }
    let nested = dir.join(name).join("mod.rs");
    assert!(nested.is_file(), "`mod {name};` has no file: neither {} nor {}", flat.display(), nested.display());
    (nested, true)
}

/// An item's outer attributes.
pub fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module's namespace, and whether it is
/// plain `pub`. `None` for items that name nothing another path can reach
/// (impls, uses, unexported macros).
pub fn item_name(item: &syn::Item) -> Option<(String, bool)> {
    let (ident, vis) = match item {
        syn::Item::Const(i) => (&i.ident, &i.vis),
        syn::Item::Enum(i) => (&i.ident, &i.vis),
        syn::Item::Fn(i) => (&i.sig.ident, &i.vis),
        syn::Item::Static(i) => (&i.ident, &i.vis),
        syn::Item::Struct(i) => (&i.ident, &i.vis),
        syn::Item::Trait(i) => (&i.ident, &i.vis),
        syn::Item::TraitAlias(i) => (&i.ident, &i.vis),
        syn::Item::Type(i) => (&i.ident, &i.vis),
        syn::Item::Union(i) => (&i.ident, &i.vis),
        _ => return None,
    };
    Some((ident.to_string(), attrs::is_pub(vis)))
}
