//! A crate's modules and what each one names: every `.rs` file under a
//! crate's `src/`, tokenised (so comments and string literals never count),
//! and every path that starts with `crate::`, `super::`, `self::` or the
//! crate's own name resolved to the deepest module it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// A module's path inside its crate: `[]` is the crate root, `["store", "pg"]` is `store::pg`.
pub type ModPath = Vec<String>;

/// One crate's modules, the file each lives in, and what each names.
pub struct Crate {
    /// Every module defined by a file, with that file.
    pub files: BTreeMap<ModPath, PathBuf>,
    /// For each module (by file), the modules its paths reach.
    pub names: BTreeMap<ModPath, BTreeSet<ModPath>>,
}

impl Crate {
    /// Read `src` (a crate's source directory). `own_names` are the names the
    /// crate's paths may start with besides `crate` (the binary names its
    /// library `m1nd`).
    pub fn read(src: &Path, own_names: &[&str]) -> Crate {
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        let known: BTreeSet<ModPath> = files.keys().cloned().collect();
        let mut names = BTreeMap::new();
        for (module, file) in &files {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let tokens = TokenStream::from_str(&text).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
            let mut reached = BTreeSet::new();
            scan(tokens, module, own_names, &known, &mut reached);
            reached.remove(module);
            names.insert(module.clone(), reached);
        }
        Crate { files, names }
    }
}

/// Every `.rs` file under `dir`, by the module it defines (a `#[path]`
/// file, as `no_fast_path.rs`, counts as the module its directory names).
fn collect(src: &Path, dir: &Path, files: &mut BTreeMap<ModPath, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("a source directory").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(src, &path, files);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || is_test_file(&path) {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src");
        let mut module: ModPath = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let last = module.pop().expect("a file name");
        match last.as_str() {
            "lib.rs" | "main.rs" if module.is_empty() => {}
            "mod.rs" => {}
            _ => module.push(last.trim_end_matches(".rs").to_owned()),
        }
        // lib.rs and main.rs are both the root; the first keeps the name, the
        // second's paths are read under the same module.
        files.entry(module.clone()).or_insert(path.clone());
        if last == "main.rs" && files[&module] != path {
            files.insert(vec!["<main>".into()], path);
        }
    }
}

/// A file of tests (`tests.rs`, `store_tests.rs`, `test_dir.rs`): tests
/// reach across the modules they test, so they are no part of the house's
/// structure, and neither are inline `mod tests` blocks.
fn is_test_file(path: &Path) -> bool {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    stem.ends_with("tests") || stem.starts_with("test_")
}

/// Walk `tokens` (of the module `base`, or of an inline module inside it),
/// adding every module a path reaches.
fn scan(tokens: TokenStream, base: &ModPath, own: &[&str], known: &BTreeSet<ModPath>, reached: &mut BTreeSet<ModPath>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            // `mod name { ... }`: its `super` is this module.
            TokenTree::Ident(word) if word == "mod" => {
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(body))) =
                    (trees.get(i + 1), trees.get(i + 2))
                    && body.delimiter() == Delimiter::Brace
                {
                    if name == "tests" {
                        i += 3;
                        continue;
                    }
                    let mut inner = base.clone();
                    inner.push(name.to_string());
                    scan_inline(body.stream(), &inner, own, known, reached);
                    i += 3;
                    continue;
                }
            }
            TokenTree::Ident(word) if starts_path(&word.to_string(), own) && !follows_colons(&trees, i) => {
                let (segments, group) = path_at(&trees, i);
                if let Some(start) = resolve_start(&segments, base, own) {
                    reach(&start, &segments, known, reached);
                    if let Some(group) = group {
                        for branch in branches(group) {
                            let mut full = segments.clone();
                            full.extend(branch);
                            if let Some(start) = resolve_start(&full, base, own) {
                                reach(&start, &full, known, reached);
                            }
                        }
                    }
                }
            }
            TokenTree::Group(group) => scan(group.stream(), base, own, known, reached),
            _ => {}
        }
        i += 1;
    }
}

/// An inline module's tokens: what it names counts for the file's module,
/// but its `super` is the file's module itself.
fn scan_inline(
    tokens: TokenStream,
    inline: &ModPath,
    own: &[&str],
    known: &BTreeSet<ModPath>,
    reached: &mut BTreeSet<ModPath>,
) {
    let mut found = BTreeSet::new();
    scan(tokens, inline, own, known, &mut found);
    reached.extend(found.into_iter().filter(|m| m != inline));
}

fn starts_path(word: &str, own: &[&str]) -> bool {
    matches!(word, "crate" | "super" | "self") || own.contains(&word)
}

/// Whether the ident at `i` is itself inside a path (`a::crate` never
/// happens, but `x::super` neither; `m1nd` after `::` is a field of another path).
fn follows_colons(trees: &[TokenTree], i: usize) -> bool {
    i >= 2 && is_colon(&trees[i - 1]) && is_colon(&trees[i - 2])
}

fn is_colon(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == ':')
}

/// The path's segments from `i` (`crate`, `store`, `pg`, ...) and the brace
/// group that ends a `use` tree, if any.
fn path_at(trees: &[TokenTree], i: usize) -> (Vec<String>, Option<TokenStream>) {
    let mut segments = vec![trees[i].to_string()];
    let mut j = i + 1;
    while trees.get(j).is_some_and(is_colon) && trees.get(j + 1).is_some_and(is_colon) {
        match trees.get(j + 2) {
            Some(TokenTree::Ident(next)) => segments.push(next.to_string()),
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => {
                return (segments, Some(group.stream()));
            }
            _ => break,
        }
        j += 3;
    }
    (segments, None)
}

/// The paths inside a `use` tree's braces, each as its segments (`{a::b, c}` → `[a, b]`, `[c]`).
fn branches(group: TokenStream) -> Vec<Vec<String>> {
    let trees: Vec<TokenTree> = group.into_iter().collect();
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(word) if word != "as" && (current.is_empty() || follows_colons(&trees, i)) => {
                current.push(word.to_string());
            }
            TokenTree::Group(inner) if inner.delimiter() == Delimiter::Brace => {
                for nested in branches(inner.stream()) {
                    let mut full = current.clone();
                    full.extend(nested);
                    out.push(full);
                }
                current.clear();
            }
            TokenTree::Punct(p) if p.as_char() == ',' && !current.is_empty() => {
                out.push(std::mem::take(&mut current));
            }
            _ => {}
        }
        i += 1;
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Where a path starts (the crate root for `crate` and the crate's own
/// name, the parent for each `super`, the module for `self`) and how many
/// of its segments that took.
fn resolve_start(segments: &[String], base: &ModPath, own: &[&str]) -> Option<(ModPath, usize)> {
    let first = segments.first()?.as_str();
    match first {
        "crate" => Some((Vec::new(), 1)),
        "self" => Some((base.clone(), 1)),
        "super" => {
            let mut at = base.clone();
            let ups = segments.iter().take_while(|s| *s == "super").count();
            for _ in 0..ups {
                at.pop()?;
            }
            Some((at, ups))
        }
        word if own.contains(&word) => Some((Vec::new(), 1)),
        _ => None,
    }
}

/// Add the deepest known module the path reaches.
fn reach(start: &(ModPath, usize), segments: &[String], known: &BTreeSet<ModPath>, reached: &mut BTreeSet<ModPath>) {
    let (mut at, taken) = start.clone();
    let mut deepest = at.clone();
    for segment in &segments[taken..] {
        at.push(segment.clone());
        if !known.contains(&at) {
            break;
        }
        deepest = at.clone();
    }
    reached.insert(deepest);
}
