//! Hostile and broken policy input: every case is a positioned diagnostic,
//! never a panic, and every violation is reported at once.

use m1nd_core::{Law, PolicyFile, PolicySources, compile};

const TOOLS: &str = include_str!("../../tests/ui/policies/base/tools.toml");
const DENY: &str = include_str!("../../tests/ui/policies/base/read_only_denied.toml");
const CARDS: &str = include_str!("../../tests/ui/policies/base/help_cards.toml");
const COCKPIT: &str = include_str!("../../tests/ui/policies/base/cockpit.toml");

fn base(file: PolicyFile) -> &'static str {
    match file {
        PolicyFile::Tools => TOOLS,
        PolicyFile::Deny => DENY,
        PolicyFile::Cards => CARDS,
        PolicyFile::Cockpit => COCKPIT,
        // The base fixture declares no human-only verb, so it has no such file.
        PolicyFile::HumanOnly => "",
    }
}

/// The base policy with one file replaced.
fn with(replaced: PolicyFile, bytes: &[u8]) -> PolicySources {
    PolicySources::from_bytes("p", |f| match f {
        f if f == replaced => Some(bytes),
        f if f.optional() => None,
        f => Some(base(f).as_bytes()),
    })
}

fn laws(sources: &PolicySources) -> Vec<Law> {
    match compile(sources) {
        Ok(_) => Vec::new(),
        Err(problems) => problems.iter().map(|d| d.law).collect(),
    }
}

#[test]
fn the_base_fixture_compiles() {
    assert_eq!(laws(&with(PolicyFile::Tools, TOOLS.as_bytes())), Vec::<Law>::new());
}

#[test]
fn a_ten_megabyte_file_is_refused_quickly_with_its_size() {
    let huge = format!("{}\n# {}\n", TOOLS, "x".repeat(10 << 20));
    let sources = with(PolicyFile::Tools, huge.as_bytes());
    let problems = compile(&sources).unwrap_err();
    assert_eq!(problems.len(), 1);
    let text = problems[0].render(&sources);
    assert!(text.starts_with("[M001] tools.toml cannot be used: the file is"), "{text}");
    assert!(text.contains("at most 4194304"), "{text}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for depth in [100, 10_000, 200_000] {
        let doc = format!("{COCKPIT}\ndeep = {}{}\n", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(laws(&with(PolicyFile::Cockpit, doc.as_bytes())), vec![Law::M001], "depth {depth}");
    }
}

#[test]
fn non_utf8_points_at_the_first_bad_byte() {
    let mut bytes = TOOLS.as_bytes().to_vec();
    let at = TOOLS.find("Plain text search").unwrap();
    bytes[at] = 0xC3;
    bytes[at + 1] = 0x28;
    let sources = with(PolicyFile::Tools, &bytes);
    let problems = compile(&sources).unwrap_err();
    let (line, _) = m1nd_core::policy::line_col(TOOLS, at);
    assert_eq!(
        problems[0].position(&sources),
        format!("p/tools.toml:{line}:{}", TOOLS[..at].rsplit('\n').next().unwrap().chars().count() + 1)
    );
}

#[test]
fn empty_strings_are_refused_where_text_is_required() {
    let cockpit = COCKPIT.replace("door = \"open the tray: the stamp lives there\"", "door = \"\"");
    assert!(laws(&with(PolicyFile::Cockpit, cockpit.as_bytes())).contains(&Law::M006));
    let tools = TOOLS.replace("summary = \"Plain text search\"", "summary = \"\"");
    assert_eq!(laws(&with(PolicyFile::Tools, tools.as_bytes())), vec![Law::M001]);
    let cards = CARDS.replace("title = \"Tray bell\"", "title = \" \"");
    assert_eq!(laws(&with(PolicyFile::Cards, cards.as_bytes())), vec![Law::M001]);
}

#[test]
fn verbs_that_collide_after_folding_are_duplicates() {
    let tools = format!(
        "{TOOLS}\"m1nd_doctor\" = {{ summary = \"again\" }}\n\"d\u{043E}ctor\" = {{ summary = \"look-alike\" }}\n"
    );
    let found = laws(&with(PolicyFile::Tools, tools.as_bytes()));
    assert!(found.iter().filter(|l| **l == Law::M003).count() >= 2, "{found:?}");
}

#[test]
fn unknown_keys_everywhere_are_m001_with_a_suggestion() {
    let cockpit = COCKPIT.replace("pinned = true\ndoor", "pined = true\ndoor");
    let sources = with(PolicyFile::Cockpit, cockpit.as_bytes());
    let problems = compile(&sources).unwrap_err();
    assert_eq!(problems[0].law, Law::M001);
    assert!(problems[0].help.contains("did you mean `pinned`"), "{}", problems[0].help);
}

#[test]
fn a_missing_directory_reports_all_four_files() {
    let dir = std::env::temp_dir().join(format!("m1nd-missing-{}", std::process::id()));
    let sources = PolicySources::read_dir(&dir, "nowhere");
    let problems = compile(&sources).unwrap_err();
    assert_eq!(problems.len(), 4);
    assert!(problems.iter().all(|d| d.law == Law::M001 && d.title.contains("missing")));
}

mod never_panics {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Arbitrary bytes in any file: a result, never a panic.
        #[test]
        fn arbitrary_bytes(which in 0usize..4, bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let sources = with(PolicyFile::ALL[which], &bytes);
            if let Err(problems) = compile(&sources) {
                for d in &problems {
                    let _ = d.render(&sources);
                }
            }
        }

        /// The base policy with one line removed or duplicated: every
        /// outcome is a rendered diagnostic or a table, never a panic.
        #[test]
        fn mutated_lines(which in 0usize..4, line in 0usize..200, duplicate in any::<bool>()) {
            let file = PolicyFile::ALL[which];
            let mut lines: Vec<&str> = base(file).lines().collect();
            let line = line % lines.len();
            if duplicate { lines.insert(line, lines[line]); } else { lines.remove(line); }
            let text = lines.join("\n");
            let sources = with(file, text.as_bytes());
            match compile(&sources) {
                Ok(cockpit) => prop_assert_eq!(cockpit.digest.len(), 64),
                Err(problems) => {
                    prop_assert!(!problems.is_empty());
                    for d in &problems {
                        let text = d.render(&sources);
                        let headline = format!("[{}] ", d.law);
                        prop_assert!(text.starts_with(&headline), "{}", text);
                    }
                }
            }
        }
    }
}

#[test]
fn a_retired_verb_on_the_menu_is_m004_even_when_not_denied() {
    let tools = TOOLS.replace(
        "doctor = { summary = \"Check topology, verification, git and alerts\" }",
        "doctor = { summary = \"Check topology\", retired = true }",
    );
    let sources = with(PolicyFile::Tools, tools.as_bytes());
    let problems = compile(&sources).unwrap_err();
    assert_eq!(problems.iter().map(|d| d.law).collect::<Vec<_>>(), vec![Law::M004]);
    assert!(problems[0].title.contains("retired"), "{}", problems[0].title);
}

#[test]
fn a_status_pin_compares_like_the_guard() {
    let cards = CARDS
        .replace("arguments = { action = \"list\" }", "arguments = { action = \" STATUS \" }")
        .replace("tool = \"boot_memory\"", "tool = \"persist\"");
    assert_eq!(laws(&with(PolicyFile::Cards, cards.as_bytes())), Vec::<Law>::new());
}
