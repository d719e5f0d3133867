//! The law registry (`m1nd-core/src/policy/laws/mod.rs`) is the one list of
//! laws. `Law::ALL` and `Law::scope` read it; everything else that names laws
//! is checked against them here, so registering M015 fails these tests until
//! the hook, the README and the guide say so.

use std::path::{Path, PathBuf};

use m1nd_policy::Law;
use m1nd_policy::policy::Scope;

use super::support::{files_under, guide_src, read};

/// Texts that name the laws: what a user or a contributor reads. The
/// changelog is left out on purpose: it records what was true then.
fn texts_naming_laws() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", ".pre-commit-hooks.yaml"].iter().map(PathBuf::from).collect();
    for dir in ["docs", "m1nd-core/src", "m1nd-macros/src", "src", "skills", "policy"] {
        files.extend(files_under(dir, &[".md", ".rs", ".toml", ".yaml"]));
    }
    files
}

fn code_of(index: usize) -> Option<Law> {
    Law::ALL.get(index).copied()
}

fn index_of(code: &str) -> Option<usize> {
    Law::ALL.iter().position(|l| l.code() == code)
}

/// `M001–M014`, `M001-M014`, `M001—M014`, `M001..M014` or `M001 to M014`
/// in `text`: each range's two codes and its line.
fn ranges(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut i = 0;
        while let Some(at) = line[i..].find('M') {
            let start = i + at;
            i = start + 1;
            let Some(first) = law_code(line, start) else { continue };
            let rest = &line[start + 4..];
            let Some(sep) = ["–", "—", "-", "..", " to "].iter().find(|s| rest.starts_with(**s)) else { continue };
            let second_at = start + 4 + sep.len();
            if let Some(second) = law_code(line, second_at) {
                out.push((first.to_owned(), second.to_owned(), n + 1));
            }
        }
    }
    out
}

/// `M` and three digits at `at`, not inside a longer word.
fn law_code(line: &str, at: usize) -> Option<&str> {
    let code = line.get(at..at + 4)?;
    let digits = code.strip_prefix('M')?;
    let boundary_before = at == 0 || !line.as_bytes()[at - 1].is_ascii_alphanumeric();
    let boundary_after = line.as_bytes().get(at + 4).is_none_or(|b| !b.is_ascii_alphanumeric());
    (digits.bytes().all(|b| b.is_ascii_digit()) && boundary_before && boundary_after).then_some(code)
}

/// Whether `first..=last` is a run the registry supports: all the laws, or
/// one whole run of consecutive laws of one scope (as "the laws that do not
/// need a menu (M001–M005, …)" lists them).
fn range_is_registered(first: &str, last: &str) -> Result<(), String> {
    let (Some(a), Some(b)) = (index_of(first), index_of(last)) else {
        return Err(format!("the registry has no law {}", if index_of(first).is_none() { first } else { last }));
    };
    let (first_law, last_law) = (Law::ALL[0], Law::ALL[Law::ALL.len() - 1]);
    if a == 0 && b == Law::ALL.len() - 1 {
        return Ok(());
    }
    let scope = Law::ALL[a].scope();
    let whole_run = Law::ALL[a..=b].iter().all(|l| l.scope() == scope)
        && (a == 0 || code_of(a - 1).is_some_and(|l| l.scope() != scope))
        && code_of(b + 1).is_none_or(|l| l.scope() != scope);
    if whole_run && a < b {
        return Ok(());
    }
    Err(format!(
        "the registry's laws are {first_law}–{last_law}; {first}–{last} is neither all of them nor one whole run of \
         laws of one scope"
    ))
}

#[test]
fn every_range_of_laws_written_anywhere_is_the_registry() {
    let mut problems = Vec::new();
    for file in texts_naming_laws() {
        let text = read(&file);
        for (first, last, line) in ranges(&text) {
            if let Err(why) = range_is_registered(&first, &last) {
                problems.push(format!("{}:{line}: {first}–{last}: {why}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "a text names a range of laws the registry does not have:\n{}", problems.join("\n"));
}

#[test]
fn the_pre_commit_hook_names_every_law() {
    let (first, last) = (Law::ALL[0], Law::ALL[Law::ALL.len() - 1]);
    let hook = read(".pre-commit-hooks.yaml");
    assert!(
        hook.contains(&format!("the laws {first}–{last}")),
        ".pre-commit-hooks.yaml's description should say it checks the laws {first}–{last}, as the registry holds"
    );
}

#[test]
fn the_readmes_law_table_has_a_row_per_registered_law() {
    let readme = read("README.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(' ').next())
        .filter(|c| law_code(c, 0).is_some())
        .collect();
    let registry: Vec<&str> = Law::ALL.iter().map(|l| l.code()).collect();
    assert_eq!(rows, registry, "README.md's table of laws should have one row per registered law, in order");
}

fn page_of(law: Law) -> PathBuf {
    Path::new("docs/guide/src/laws").join(format!("{}.md", law.code().to_lowercase()))
}

fn governs(law: Law) -> &'static str {
    match law.scope() {
        Scope::Every => "every policy",
        Scope::Menu => "a policy with a menu",
        Scope::Gateway => "a gateway policy",
        Scope::Fleet => "a fleet: several gateway policies behind one gateway",
    }
}

#[test]
fn the_guide_has_one_page_per_law_listed_in_its_contents() {
    let summary = read(guide_src().join("SUMMARY.md"));
    let listed: Vec<String> =
        summary.lines().filter_map(|l| l.trim_start().strip_prefix("- [M")).map(|l| format!("M{}", &l[..3])).collect();
    let registry: Vec<String> = Law::ALL.iter().map(|l| l.code().to_owned()).collect();
    assert_eq!(listed, registry, "docs/guide/src/SUMMARY.md should list one page per registered law, in order");

    let pages: Vec<PathBuf> = files_under("docs/guide/src/laws", &[".md"])
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "index.md"))
        .collect();
    let expected: Vec<PathBuf> = Law::ALL.iter().map(|l| page_of(*l)).collect();
    assert_eq!(pages, expected, "docs/guide/src/laws/ should hold a page per registered law and no other");

    for law in Law::ALL {
        let page = read(page_of(law));
        let path = page_of(law);
        let title = summary
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(&format!("- [{}: ", law.code())))
            .and_then(|l| l.split(']').next())
            .expect("listed above");
        assert!(
            page.starts_with(&format!("# {}: {title}\n", law.code())),
            "{} should open with `# {}: {title}`, its title in SUMMARY.md",
            path.display(),
            law.code()
        );
        for line in [format!("> {}", law.summary()), format!("**Governs:** {}", governs(law))] {
            assert!(page.contains(&line), "{} should say `{line}` (from the registry)", path.display());
        }
    }
}

#[test]
fn the_guides_table_of_laws_is_the_registry() {
    let mut table = String::from("| law | in one line | governs |\n|---|---|---|\n");
    for law in Law::ALL {
        let code = law.code();
        table.push_str(&format!("| [{code}]({}.md) | {} | {} |\n", code.to_lowercase(), law.summary(), governs(law)));
    }
    assert!(
        read(guide_src().join("laws/index.md")).contains(&table),
        "docs/guide/src/laws/index.md's table should be the registry's:\n\n{table}"
    );
}

#[test]
fn the_range_finder_sees_every_spelling() {
    let text = "the laws M001–M014, M001-M013\nand M008..M012 or M002 to M003; XM001–M002 is not one";
    let found: Vec<(String, String, usize)> = ranges(text);
    let expected = [("M001", "M014", 1), ("M001", "M013", 1), ("M008", "M012", 2), ("M002", "M003", 2)];
    assert_eq!(found, expected.iter().map(|(a, b, n)| ((*a).to_owned(), (*b).to_owned(), *n)).collect::<Vec<_>>());
}
