//! Each law's page shows a policy that breaks the law and what rustc prints
//! for it, both taken from the ui suite rather than copied:
//!
//! - the error text is the blessed `.stderr` file itself, `{{#include}}`d, and
//!   that file must report the page's law;
//! - the broken policy is shown as its change from the base test policy, a
//!   diff this test computes from the fixture's files and compares with the
//!   one the page includes (`M1ND_BLESS=1` rewrites it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use m1nd_policy::{Law, PolicyFile};
use similar::TextDiff;

use super::support::{files_under, guide_src, includes, read, root};

const BASE: &str = "tests/ui/policies/base";
const EFFECTS_BASE: &str = "tests/ui/policies/effects_base";
const EXAMPLES: &str = "docs/guide/src/laws/examples";

fn pages() -> Vec<PathBuf> {
    files_under("docs/guide/src", &[".md"])
}

#[test]
fn every_include_in_the_guide_resolves() {
    let mut missing = Vec::new();
    for page in pages() {
        for target in includes(&page) {
            if !root().join(&target).is_file() {
                missing.push(format!("{} includes {}, which is not a file", page.display(), target.display()));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The `.stderr` files a page includes.
fn stderr_includes(page: &Path) -> Vec<PathBuf> {
    includes(page)
        .into_iter()
        .filter(|p| p.starts_with("tests/ui/fail") && p.extension() == Some("stderr".as_ref()))
        .collect()
}

#[test]
fn each_law_page_quotes_the_ui_suites_blessed_error_for_its_law() {
    for law in Law::ALL {
        let page = Path::new("docs/guide/src/laws").join(format!("{}.md", law.code().to_lowercase()));
        let quoted = stderr_includes(&page);
        let first = quoted.first().unwrap_or_else(|| {
            panic!(
                "{} includes no tests/ui/fail/*.stderr; its example must be the compiler's real output",
                page.display()
            )
        });
        let stderr = read(first);
        assert!(
            stderr.contains(&format!("error: [{}]", law.code())),
            "{}'s first quoted error, {}, does not report {law}",
            page.display(),
            first.display()
        );
    }
}

#[test]
fn each_law_page_names_every_ui_case_of_its_law() {
    let stderrs = files_under("tests/ui/fail", &[".stderr"]);
    for law in Law::ALL {
        let cases: Vec<String> = stderrs
            .iter()
            .filter(|f| read(f).contains(&format!("error: [{}]", law.code())))
            .map(|f| format!("`{}`", f.file_stem().expect("a file name").to_string_lossy()))
            .collect();
        let line = format!("The ui suite's cases that break this law: {}.", cases.join(", "));
        let page = Path::new("docs/guide/src/laws").join(format!("{}.md", law.code().to_lowercase()));
        assert!(read(&page).contains(&line), "{} should list its law's ui cases:\n{line}", page.display());
    }
}

/// The fixture's change from the base policy, file by file, as a unified diff
/// with paths from the repository's root.
fn change_from_base(fixture: &str) -> String {
    let dir = format!("tests/ui/policies/{fixture}");
    assert!(root().join(&dir).is_dir(), "{dir} is not a ui fixture policy");
    // A policy judged by effects is shown as its change from the base that has them.
    let base = if root().join(&dir).join("effects.toml").is_file() { EFFECTS_BASE } else { BASE };
    let mut out = String::new();
    for file in PolicyFile::EVERY.map(PolicyFile::file_name) {
        let (old_path, new_path) = (format!("{base}/{file}"), format!("{dir}/{file}"));
        let text = |p: &str| std::fs::read_to_string(root().join(p)).ok();
        let (old, new) = (text(&old_path), text(&new_path));
        if old == new {
            continue;
        }
        let old_name = if old.is_some() { old_path.as_str() } else { "/dev/null" };
        let new_name = if new.is_some() { new_path.as_str() } else { "/dev/null" };
        let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
        out.push_str(&TextDiff::from_lines(&old, &new).unified_diff().header(old_name, new_name).to_string());
    }
    assert!(!out.is_empty(), "{dir} does not differ from {base}");
    out
}

#[test]
fn each_example_diff_is_its_fixtures_change_from_the_base_policy() {
    let bless = std::env::var_os("M1ND_BLESS").is_some();
    let mut included = BTreeSet::new();
    for page in pages() {
        for target in includes(&page).into_iter().filter(|t| t.starts_with(EXAMPLES)) {
            let fixture = target.file_stem().expect("a file name").to_string_lossy().into_owned();
            let expected = change_from_base(&fixture);
            if bless {
                std::fs::write(root().join(&target), &expected).expect("write the example diff");
            } else {
                let shown = std::fs::read_to_string(root().join(&target)).unwrap_or_default();
                assert!(
                    shown == expected,
                    "{} is not {fixture}'s change from its base policy; bless with `M1ND_BLESS=1 cargo test --test guide` \
                     and read the diff. It should be:\n{expected}",
                    target.display()
                );
            }
            included.insert(target);
        }
    }
    let on_disk: BTreeSet<PathBuf> = files_under(EXAMPLES, &[".diff"]).into_iter().collect();
    let orphans: Vec<_> = on_disk.difference(&included).collect();
    assert!(orphans.is_empty(), "example diffs no page includes (remove them): {orphans:?}");
}

#[test]
fn the_quick_start_is_the_readmes_two_commands() {
    fn first_sh_block(text: &str) -> String {
        let start = text.find("```sh\n").expect("a ```sh block") + "```sh\n".len();
        let end = text[start..].find("```").expect("a closed block");
        text[start..start + end].to_owned()
    }
    assert_eq!(
        first_sh_block(&read(guide_src().join("quick-start.md"))),
        first_sh_block(&read("README.md")),
        "the guide's quick start should run the README's two commands"
    );
}
