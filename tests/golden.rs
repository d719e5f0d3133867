//! The checked-in expansion of the real policy matches what the generator
//! produces now. On mismatch the diff is printed; `M1ND_BLESS=1` rewrites it.

use std::path::Path;

const GOLDEN: &str = "tests/golden/cockpit.rs";

#[test]
fn golden_expansion_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let actual =
        m1nd::expand::expand_file(&root.join("policy"), "policy", "../../policy").unwrap_or_else(|e| panic!("{e}"));
    let path = root.join(GOLDEN);
    if std::env::var_os("M1ND_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        panic!(
            "{GOLDEN} is stale; review the table change below, then bless it with `M1ND_BLESS=1 cargo test --test golden`\n{}",
            diff.unified_diff().context_radius(3).header(GOLDEN, "generated")
        );
    }
}
