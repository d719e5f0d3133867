//! Each published library's listing against its checked-in snapshot. On a
//! mismatch the diff is printed; `M1ND_BLESS=1` rewrites the snapshot (the
//! convention of tests/golden.rs).

use std::path::Path;

use super::crate_tree::Crate;
use super::listing;

/// How to accept a reviewed change.
const BLESS: &str = "M1ND_BLESS=1 cargo test --test public_api";

#[test]
fn m1nd_policy() {
    check("m1nd-policy", "m1nd-core");
}

#[test]
fn m1nd_macros() {
    check("m1nd-macros", "m1nd-macros");
}

#[test]
fn m1nd_guard() {
    check("m1nd-guard", "m1nd-guard");
}

/// The listing of `package` (in folder `dir`) matches
/// `tests/public_api/{package}.txt`.
fn check(package: &str, dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let krate = Crate::load(&root.join(dir).join("src/lib.rs"), &package.replace('-', "_"));
    let actual = format!(
        "// The public API of {package}, as tests/public_api.rs lists it. Reviewed, not edited:\n\
         // a change here is an API change (see docs/semver.md); bless it with `{BLESS}`.\n{}",
        listing::list(&krate)
    );
    let shown = format!("tests/public_api/{package}.txt");
    let path = root.join(&shown);
    if std::env::var_os("M1ND_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("write {shown}: {e}"));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        panic!(
            "the public API of {package} changed; if that is intended (docs/semver.md says what a change \
             to each kind of item means), bless it with `{BLESS}`\n{}",
            diff.unified_diff().context_radius(2).header(&shown, "current source")
        );
    }
}
