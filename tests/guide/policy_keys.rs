//! "Writing a policy" lists every key of every policy file, derived here from
//! the parser's own types: `m1nd-core/src/policy/raw.rs`, read with syn.
//!
//! A key path is the field names from the file's top down, joined with `.`;
//! a map whose keys the policy chooses (`[verbs.NAME]`) adds `*`; an array of
//! tables (`[[slot]]`) adds nothing. The file a struct parses is named by the
//! first line of its doc comment (`` /// `tools.toml` ``).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use m1nd_policy::{Facet, PolicyFile};
use syn::{Expr, GenericArgument, Item, Lit, Meta, PathArguments, Type};

use super::support::read;

const RAW: &str = "m1nd-core/src/policy/raw.rs";
/// Every file of the parser's shapes: the spanned table every file is read into, the TOML files,
/// the effect files, upstream's catalog.
const SHAPES: [&str; 4] = [
    "m1nd-core/src/policy/spanned.rs",
    RAW,
    "m1nd-core/src/policy/effects/raw.rs",
    "m1nd-core/src/policy/effects/catalog.rs",
];
const PAGE: &str = "docs/guide/src/writing-a-policy.md";

/// The parser's structs and type aliases.
struct Raw {
    structs: HashMap<String, syn::ItemStruct>,
    aliases: HashMap<String, syn::ItemType>,
}

/// What a field's type holds once wrappers are peeled off.
enum Shape {
    /// A value: text, a number, a flag, a list of names, anything ignored.
    Leaf,
    /// A struct of the parser: its keys follow.
    Struct(String),
    /// A map whose keys the policy chooses, of this shape.
    Map(Box<Shape>),
}

impl Raw {
    fn parse() -> Self {
        let mut raw = Raw { structs: HashMap::new(), aliases: HashMap::new() };
        for path in SHAPES {
            raw.read(path);
        }
        raw
    }

    fn read(&mut self, path: &str) {
        let source = read(path);
        for attribute in ["rename", "flatten", "alias"] {
            assert!(
                !source.contains(attribute),
                "{path} uses serde's `{attribute}`: teach tests/guide/policy_keys.rs to read it, \
                 or the keys derived here would differ from the keys the parser accepts"
            );
        }
        let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("parse {path}: {e}"));
        let raw = self;
        for item in file.items {
            match item {
                Item::Struct(s) => {
                    raw.structs.insert(s.ident.to_string(), s);
                }
                Item::Type(t) => {
                    raw.aliases.insert(t.ident.to_string(), t);
                }
                _ => {}
            }
        }
    }

    /// File name → the struct that parses it, from the doc comments.
    fn files(&self) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        for (name, item) in &self.structs {
            let Some(first) = item.attrs.iter().find_map(doc_line) else { continue };
            let first = first.trim();
            if let Some(file) = first.strip_prefix('`').and_then(|s| s.split('`').next())
                && (file.ends_with(".toml") || file.ends_with(".json"))
            {
                assert!(files.insert(file.to_owned(), name.clone()).is_none(), "two structs parse {file}");
            }
        }
        files
    }

    /// Every key path under `prefix` of the struct `name`.
    fn keys(&self, name: &str, prefix: &str, out: &mut BTreeSet<String>) {
        let item = &self.structs[name];
        let syn::Fields::Named(fields) = &item.fields else { panic!("{RAW}: {name} has unnamed fields") };
        for field in &fields.named {
            let key = field.ident.as_ref().expect("a named field").to_string();
            let path = if prefix.is_empty() { key } else { format!("{prefix}.{key}") };
            out.insert(path.clone());
            self.below(&self.shape(&field.ty, &HashMap::new()), &path, out);
        }
    }

    fn below(&self, shape: &Shape, path: &str, out: &mut BTreeSet<String>) {
        match shape {
            Shape::Leaf => {}
            Shape::Struct(name) => self.keys(name, path, out),
            Shape::Map(inner) => match **inner {
                Shape::Leaf => {}
                _ => self.below(inner, &format!("{path}.*"), out),
            },
        }
    }

    /// Peel `Option`, `Spanned`, `Vec` and `Box`, expand the file's aliases,
    /// and say what is left. `params` binds an alias's generic parameters.
    fn shape<'a>(&'a self, ty: &'a Type, params: &HashMap<String, &'a Type>) -> Shape {
        let Type::Path(path) = ty else { return Shape::Leaf };
        let segment = path.path.segments.last().expect("a path has a segment");
        let name = segment.ident.to_string();
        let args: Vec<&Type> = match &segment.arguments {
            PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|arg| match arg {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if let Some(bound) = params.get(&name) {
            return self.shape(bound, &HashMap::new());
        }
        match name.as_str() {
            "Option" | "Spanned" | "Vec" | "Box" => self.shape(args[0], params),
            "BTreeMap" | "HashMap" => Shape::Map(Box::new(self.shape(args[1], params))),
            _ if self.structs.contains_key(&name) => Shape::Struct(name),
            _ => match self.aliases.get(&name) {
                Some(alias) => {
                    let names = alias.generics.params.iter().filter_map(|p| match p {
                        syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                        _ => None,
                    });
                    let bound: HashMap<String, &Type> = names.zip(args).collect();
                    self.shape(&alias.ty, &bound)
                }
                None => Shape::Leaf,
            },
        }
    }
}

fn doc_line(attr: &syn::Attribute) -> Option<String> {
    let Meta::NameValue(nv) = &attr.meta else { return None };
    if !nv.path.is_ident("doc") {
        return None;
    }
    match &nv.value {
        Expr::Lit(e) => match &e.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The keys the page documents, by file: the first cell of each row of the
/// tables whose header starts `| key |`, under each `` ## `FILE` `` heading.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let (mut file, mut in_keys) = (None::<String>, false);
    for line in read(PAGE).lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            file = heading.strip_prefix('`').and_then(|h| h.strip_suffix('`')).map(str::to_owned);
            in_keys = false;
            continue;
        }
        if !line.starts_with('|') {
            in_keys = false;
            continue;
        }
        if line.starts_with("| key |") {
            in_keys = true;
            continue;
        }
        if !in_keys || line.starts_with("|---") {
            continue;
        }
        let cell = line.split('|').nth(1).expect("a table row has cells").trim();
        let key = cell.strip_prefix('`').and_then(|c| c.strip_suffix('`')).unwrap_or(cell);
        let file =
            file.clone().unwrap_or_else(|| panic!("{PAGE}: the key `{key}` is under no `## \\`FILE\\`` heading"));
        assert!(
            out.entry(file.clone()).or_default().insert(key.to_owned()),
            "{PAGE}: `{key}` of {file} is listed twice"
        );
    }
    out
}

#[test]
fn the_parser_names_every_file_a_policy_may_hold() {
    let raw = Raw::parse();
    let parsed: BTreeSet<String> = raw.files().into_keys().collect();
    let every: BTreeSet<String> = PolicyFile::EVERY.iter().map(|f| f.file_name().to_owned()).collect();
    assert_eq!(parsed, every, "the files {RAW} parses (by doc comment) and PolicyFile::EVERY differ");
    let on_disk: BTreeSet<String> = std::fs::read_dir(super::support::root().join("policy"))
        .expect("policy/ is readable")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(on_disk.is_subset(&every), "policy/ holds a file no parser reads: {:?}", on_disk.difference(&every));
}

#[test]
fn every_policy_key_is_documented_and_every_documented_key_exists() {
    let raw = Raw::parse();
    let documented = documented();
    let mut problems = Vec::new();
    for (file, name) in raw.files() {
        let mut keys = BTreeSet::new();
        raw.keys(&name, "", &mut keys);
        let listed = documented.get(&file).cloned().unwrap_or_default();
        for key in keys.difference(&listed) {
            problems.push(format!("{file}: `{key}` is parsed by {RAW} ({name}) but not documented in {PAGE}"));
        }
        for key in listed.difference(&keys) {
            problems.push(format!("{file}: `{key}` is documented in {PAGE} but {RAW} ({name}) does not parse it"));
        }
    }
    for file in documented.keys().filter(|f| !raw.files().contains_key(*f)) {
        problems.push(format!("{PAGE} documents `{file}`, which no struct of {RAW} parses"));
    }
    assert!(problems.is_empty(), "the policy reference drifted from the parser:\n{}", problems.join("\n"));
}

/// The facet table as the registry gives it.
fn facet_table() -> String {
    let mut table = String::from(
        "| facet | conditions {placeholders} | items: fields | kinds {counted by}, order |\n|---|---|---|---|\n",
    );
    for facet in Facet::ALL {
        let conditions: Vec<String> = facet
            .conditions()
            .iter()
            .map(|c| {
                let numbers: String = c.placeholders.iter().map(|p| format!(" {{{p}}}")).collect();
                format!("`{}`{numbers}", c.name)
            })
            .collect();
        let (items, kinds) = match facet.items() {
            None => ("none".to_owned(), "none".to_owned()),
            Some(items) => {
                let fields: Vec<String> = items.field_names().map(|f| format!("`{f}`")).collect();
                let kinds: Vec<String> = items
                    .kinds
                    .iter()
                    .map(|k| match k.mark {
                        Some(mark) => format!("{} {{{}}} marked `{mark}`", k.name, k.count),
                        None => format!("{} {{{}}}", k.name, k.count),
                    })
                    .collect();
                (format!("`{}`: {}", items.name, fields.join(", ")), format!("{}; {}", kinds.join(", "), items.order))
            }
        };
        table.push_str(&format!("| `{}` | {} | {items} | {kinds} |\n", facet.key(), conditions.join(", ")));
    }
    table
}

#[test]
fn the_facet_table_is_the_registry() {
    let expected = facet_table();
    assert!(
        read(PAGE).contains(&expected),
        "{PAGE}'s facet table differs from the facet registry (m1nd-core/src/facets.rs); it should read:\n\n{expected}"
    );
}
