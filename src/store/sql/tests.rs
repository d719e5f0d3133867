//! Every statement is written in `sql.rs`: a test reads the store's source
//! and fails on a statement written anywhere else.
//!
//! # The rule
//!
//! A string literal in the store's code starts a statement when, after any
//! leading whitespace, its first word is
//! - `SELECT`, `INSERT`, `UPDATE`, `DELETE`, `WITH` or `REPLACE`, in any
//!   case, followed by whitespace (so the word alone, as in `"delete"` or
//!   `"replace"`, is not a statement), or
//! - one of [`OTHER_STATEMENTS`] in capitals, alone or followed by
//!   whitespace or `;` (in lowercase these are ordinary words: `"create"`,
//!   `"commit"`).
//!
//! Such a literal may only be in `sql.rs` (the statements) and `schema.rs`
//! (the frozen migration steps). `concat!` and `format!` pieces are
//! literals like any other, so a statement built from pieces is caught by
//! its first one.
//!
//! # What is not the store's code
//!
//! - **Tests.** An item under `#[cfg(test)]` (a `mod tests { .. }`, a test
//!   helper) and every file of a module declared under it
//!   (`checksum_tests.rs`, `integrity_tests.rs`, `reads/tests.rs`, this
//!   file) write SQL the store never runs: they count rows to check the
//!   tallies, list pages to damage one, plant alerts and edit titles to
//!   build a case, or make a store of an older schema. A test that means a
//!   statement the store runs (to count its prepares) names the constant.
//! - **Doc comments**, which are prose, and the arguments of other
//!   attributes, which hold no SQL.
//! - **`PRAGMA`s**, which are SQLite's connection settings and checks (see
//!   the module doc of `sql.rs`).
//!
//! The files are found by walking the module tree from `store/mod.rs`, the
//! way the compiler does, and the walk must account for every `.rs` file
//! under `src/store/`, so a file is never skipped by mistake.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Token};

use super::super::state::BlockStatus;
use super::{CANDIDATE_BLOCKS, decimal};

/// Statements matched only in capitals: in lowercase they are words.
const OTHER_STATEMENTS: &[&str] = &[
    "CREATE",
    "DROP",
    "ALTER",
    "VACUUM",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "ATTACH",
    "DETACH",
    "REINDEX",
    "ANALYZE",
];

/// Statements matched in any case, when more text follows.
const DML: &[&str] = &["SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE"];

/// The files allowed to hold statements, relative to `src/store/`.
const STATEMENT_FILES: &[&str] = &["sql.rs", "schema.rs"];

/// Whether `text`, a string literal's value, starts a statement.
fn starts_statement(text: &str) -> bool {
    let text = text.trim_start();
    let word = text.split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
    let rest = &text[word.len()..];
    let dml = DML.iter().any(|k| word.eq_ignore_ascii_case(k)) && rest.starts_with(char::is_whitespace);
    let other = OTHER_STATEMENTS.contains(&word) && (rest.is_empty() || rest.starts_with([';', ' ', '\t', '\n']));
    dml || other
}

/// What one file holds: its string literals outside test items and doc
/// comments, and the modules it declares in files of their own.
#[derive(Default, Debug)]
struct Scanned {
    literals: Vec<String>,
    modules: Vec<String>,
    test_modules: Vec<String>,
}

/// Read Rust `source` into [`Scanned`].
fn scan(source: &str) -> Scanned {
    let mut scanned = Scanned::default();
    let parser = |input: ParseStream| tokens(input, &mut scanned);
    parser.parse_str(source).unwrap_or_else(|e| panic!("the source does not lex: {e}"));
    scanned
}

fn tokens(input: ParseStream, out: &mut Scanned) -> syn::Result<()> {
    while !input.is_empty() {
        if input.peek(Token![#]) {
            let attributes =
                if input.peek2(Token![!]) { Attribute::parse_inner(input)? } else { Attribute::parse_outer(input)? };
            if attributes.iter().any(is_cfg_test) {
                skip_item(input, out)?;
            }
        } else if input.peek(Token![mod]) && input.peek2(syn::Ident) && input.peek3(Token![;]) {
            input.parse::<Token![mod]>()?;
            out.modules.push(input.parse::<syn::Ident>()?.to_string());
            input.parse::<Token![;]>()?;
        } else if input.peek(syn::LitStr) {
            out.literals.push(input.parse::<syn::LitStr>()?.value());
        } else if input.peek(syn::token::Brace) {
            let inner;
            syn::braced!(inner in input);
            tokens(&inner, out)?;
        } else if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            tokens(&inner, out)?;
        } else if input.peek(syn::token::Bracket) {
            let inner;
            syn::bracketed!(inner in input);
            tokens(&inner, out)?;
        } else {
            skip_token(input)?;
        }
    }
    Ok(())
}

/// Whether an attribute is exactly `#[cfg(test)]`.
fn is_cfg_test(attribute: &Attribute) -> bool {
    attribute.path().is_ident("cfg") && attribute.parse_args::<syn::Ident>().is_ok_and(|arg| arg == "test")
}

/// Pass over the item after `#[cfg(test)]`: its tokens up to its body
/// (`{ .. }`) or its `;`, noting a module it declares in a file of its own.
fn skip_item(input: ParseStream, out: &mut Scanned) -> syn::Result<()> {
    while !input.is_empty() {
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            return Ok(());
        }
        if input.peek(syn::token::Brace) {
            let body;
            syn::braced!(body in input);
            // syn refuses a group left half read.
            while !body.is_empty() {
                skip_token(&body)?;
            }
            return Ok(());
        }
        if input.peek(Token![mod]) && input.peek2(syn::Ident) && input.peek3(Token![;]) {
            input.parse::<Token![mod]>()?;
            out.test_modules.push(input.parse::<syn::Ident>()?.to_string());
            continue;
        }
        skip_token(input)?;
    }
    Ok(())
}

fn skip_token(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| cursor.token_tree().map(|(_, next)| ((), next)).ok_or_else(|| cursor.error("no token")))
}

/// Where the module `name`, declared in `file`, has its source.
fn module_file(file: &Path, name: &str) -> PathBuf {
    let dir = if file.file_name().is_some_and(|f| f == "mod.rs") {
        file.parent().expect("a directory").to_owned()
    } else {
        file.with_extension("")
    };
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() { flat } else { dir.join(name).join("mod.rs") }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("list {}: {e}", dir.display())) {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.insert(path);
        }
    }
}

#[test]
fn sql_lives_in_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut pending = vec![root.join("mod.rs")];
    let (mut store_code, mut test_code) = (BTreeSet::new(), BTreeSet::new());
    let mut stray = Vec::new();
    while let Some(file) = pending.pop() {
        let source = fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let scanned = scan(&source);
        let relative = file.strip_prefix(&root).expect("under src/store").to_string_lossy().into_owned();
        if !STATEMENT_FILES.contains(&relative.as_str()) {
            stray.extend(scanned.literals.iter().filter(|l| starts_statement(l)).map(|l| format!("{relative}: {l:?}")));
        }
        for test_module in scanned.test_modules.iter().map(|m| module_file(&file, m)) {
            // A test module with a directory of its own: all of it is tests.
            if test_module.file_name().is_some_and(|f| f == "mod.rs") {
                rust_files(test_module.parent().expect("a directory"), &mut test_code);
            }
            test_code.insert(test_module);
        }
        pending.extend(scanned.modules.iter().map(|m| module_file(&file, m)));
        store_code.insert(file);
    }
    assert!(
        stray.is_empty(),
        "statements written outside sql.rs; make each a constant in src/store/sql.rs and name it:\n{}",
        stray.join("\n")
    );
    let mut on_disk = BTreeSet::new();
    rust_files(&root, &mut on_disk);
    let unaccounted: Vec<_> = on_disk.difference(&store_code).filter(|f| !test_code.contains(*f)).collect();
    assert!(unaccounted.is_empty(), "files the module walk did not reach; teach it their `mod`: {unaccounted:?}");
    assert!(store_code.len() > STATEMENT_FILES.len(), "the walk read almost nothing: {store_code:?}");
}

/// Every statement the store runs stays prepared on a connection that runs
/// them all: the statement cache holds more than `sql.rs` has, so a compose
/// or a write never parses a statement a second time.
#[test]
fn every_statement_fits_the_statement_cache() {
    let source =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/sql.rs")).expect("read sql.rs");
    let statements = scan(&source).literals.iter().filter(|l| starts_statement(l)).count();
    assert!(statements > 50, "the scan found only {statements} statements in sql.rs");
    assert!(
        statements < super::super::connection::STATEMENT_CACHE,
        "sql.rs has {statements} statements and a connection keeps {} prepared; raise STATEMENT_CACHE",
        super::super::connection::STATEMENT_CACHE
    );
}

/// The scan finds a statement in plain, raw and macro-argument literals,
/// and passes over doc comments, test items and lone words.
#[test]
fn the_scan_finds_statements_and_only_statements() {
    let source = r###"
        //! SELECT in a module doc is prose.
        /// UPDATE in a doc comment too.
        #[error("write the store")]
        fn f() {
            conn.execute("  update t SET x = 1", []);
            let raw = r#"DELETE FROM t"#;
            g(concat!("WITH x AS (", "SELECT 1)"), format!("Insert\ninto {t}"));
            h("delete", "replace", "create", "Commit", "selected", "VACUUM", "BEGIN;");
        }
        #[cfg(test)]
        mod tests {
            fn t() { x("SELECT 1") }
        }
        #[cfg(test)]
        impl S { fn column(&self) { self.q("SELECT 2") } }
        #[cfg(test)]
        mod more_tests;
        mod child;
        pub mod reads;
    "###;
    let scanned = scan(source);
    let statements: Vec<&str> = scanned.literals.iter().map(String::as_str).filter(|l| starts_statement(l)).collect();
    assert_eq!(
        statements,
        ["  update t SET x = 1", "DELETE FROM t", "WITH x AS (", "SELECT 1)", "Insert\ninto {t}", "VACUUM", "BEGIN;"]
    );
    assert_eq!(scanned.modules, ["child", "reads"]);
    assert_eq!(scanned.test_modules, ["more_tests"]);
}

/// The tray's candidate listing writes the status into its text (see the
/// module doc of `sql.rs`); it must be the status the store writes.
#[test]
fn the_candidate_listing_names_the_candidate_status() {
    let status = format!("status = '{}'", BlockStatus::Candidate.as_str());
    assert!(CANDIDATE_BLOCKS.contains(&status), "{CANDIDATE_BLOCKS} does not filter on {status}");
    assert!(CANDIDATE_BLOCKS.ends_with(&format!("LIMIT {}", decimal(tray_listed!()))));
}
