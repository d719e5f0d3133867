//! Reading the repository's files for the guide's drift tests.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root (the root package's manifest directory).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The guide's sources.
pub fn guide_src() -> PathBuf {
    root().join("docs/guide/src")
}

/// A file of the repository, as text, by its path from the root.
pub fn read(path: impl AsRef<Path>) -> String {
    let path = root().join(path);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Every file under `dir` (from the root) whose name ends with one of
/// `extensions`, as paths from the root, sorted.
pub fn files_under(dir: &str, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, extensions, out);
            } else if extensions.iter().any(|ext| path.to_string_lossy().ends_with(ext)) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), extensions, &mut out);
    let mut out: Vec<PathBuf> =
        out.into_iter().map(|p| p.strip_prefix(root()).expect("under the root").to_path_buf()).collect();
    out.sort();
    out
}

/// The `{{#include PATH}}` directives of a guide page, as paths from the
/// repository's root (an mdBook line range or anchor after `:` is dropped).
pub fn includes(page: &Path) -> Vec<PathBuf> {
    let text = read(page);
    let dir = page.parent().expect("a page is in a directory");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("{{#include ") {
        let after = &rest[start + "{{#include ".len()..];
        let end = after.find("}}").unwrap_or_else(|| panic!("{}: an unclosed {{{{#include", page.display()));
        let target = after[..end].trim();
        let target = target.split(':').next().expect("split yields one item");
        out.push(normalise(&dir.join(target)));
        rest = &after[end..];
    }
    out
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                assert!(out.pop(), "{} climbs out of the repository", path.display());
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
