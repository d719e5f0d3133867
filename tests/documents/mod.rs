//! The pages a reader sees: the README and every page of the guide, for the
//! tests that check what they say (`docs_literal.rs`, `figures.rs`).

use std::path::{Path, PathBuf};

/// The README and every page of the guide, sorted.
pub fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs/guide/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
