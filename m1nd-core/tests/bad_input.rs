//! Hostile and broken policy input: every case is a positioned diagnostic,
//! never a panic, and every violation is reported at once.

use m1nd_policy::{Law, PolicyFile, PolicySources, compile};

#[path = "support/unicode.rs"]
mod unicode;

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
        // Nor does it judge by effects.
        PolicyFile::HumanOnly | PolicyFile::Effects | PolicyFile::Routes | PolicyFile::Catalog => "",
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
    let (line, _) = m1nd_policy::policy::line_col(TOOLS, at);
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
    let tools = TOOLS.replacen(
        "[verbs]\n",
        "[verbs]\n\"m1nd_doctor\" = { summary = \"again\" }\n\"d\u{043E}ctor\" = { summary = \"look-alike\" }\n",
        1,
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

/// Argument types come from `[arguments]`: an unknown type, an argument
/// without one and a verb repeating a `[common]` argument are each reported,
/// and a typed common argument reaches every verb of the table.
#[test]
fn argument_types_are_declared_once_and_checked() {
    let problems = |tools: &str| compile(&with(PolicyFile::Tools, tools.as_bytes())).unwrap_err();

    let unknown = problems(&TOOLS.replace("scope = \"text\"", "scope = \"txet\""));
    assert_eq!(unknown.iter().map(|d| d.law).collect::<Vec<_>>(), vec![Law::M001]);
    assert!(unknown[0].help.contains("did you mean `text`?"), "{}", unknown[0].help);

    let untyped = problems(&TOOLS.replace("scope = \"text\"\n", ""));
    assert_eq!(untyped.iter().map(|d| d.law).collect::<Vec<_>>(), vec![Law::M002]);
    assert!(untyped[0].title.contains("verb `audit` takes `scope`"), "{}", untyped[0].title);

    let near = problems(&TOOLS.replace("accepts = [\"scope\"]", "accepts = [\"scopes\"]"));
    assert!(near[0].help.contains("did you mean `scope`?"), "{}", near[0].help);

    let common = format!("[common]\naccepts = [\"agent_id\"]\n{TOOLS}agent_id = \"id\"\n");
    let table = compile(&with(PolicyFile::Tools, common.as_bytes())).expect("common arguments compile");
    for verb in table.verbs.iter() {
        assert!(table.takes(verb).any(|t| t.name == "agent_id" && !t.required), "{}", verb.name);
        let kind = table.argument_type(verb, "agent_id").map(|t| t.kind);
        assert_eq!(kind, Some(m1nd_policy::ArgKind::Id), "{}", verb.name);
    }
    let again = common.replace("accepts = [\"scope\"]", "accepts = [\"scope\", \"agent_id\"]");
    let again = problems(&again);
    assert_eq!(again.iter().map(|d| d.law).collect::<Vec<_>>(), vec![Law::M003]);
    assert_eq!(again[0].related.len(), 1, "points back at `[common]`");

    let fixed = problems(&TOOLS.replace("scope = \"text\"", "scope = \"integer\""));
    assert_eq!(fixed.iter().map(|d| d.law).collect::<Vec<_>>(), vec![Law::M007]);
    assert!(fixed[0].title.contains("card `audit_area` fixes `scope`"), "{}", fixed[0].title);
    assert!(compile(&with(PolicyFile::Tools, TOOLS.replace("scope = \"text\"", "scope = \"id\"").as_bytes())).is_ok());

    let bound = problems(&TOOLS.replace("node = \"text\"", "node = \"reference\""));
    assert!(bound.iter().all(|d| d.law == Law::M007 && d.title.contains("binds `node`")), "{bound:?}");

    let untyped_common = problems(&format!("[common]\naccepts = [\"agent_id\"]\n{TOOLS}"));
    assert!(untyped_common[0].title.contains("`[common]` accepts `agent_id`"), "{}", untyped_common[0].title);
}

/// Found by the `policy` fuzz target: a name quoted from the policy (here a
/// card the menu names) kept its tabs, line breaks and invisible characters
/// in the diagnostic, so a policy could forge lines of its own error: the
/// headline promised one line and held many. Every text of a diagnostic now
/// goes through the sanitiser.
#[test]
fn fuzz_policy_diagnostics_quote_the_policy_on_one_line() {
    let forged = COCKPIT.replacen(
        "card = \"map\"",
        "card = \"me\\t\\t\\nerror: [M004] forged\\r\\u2028\\u202emories\\u001b[2J\"",
        1,
    );
    let sources = with(PolicyFile::Cockpit, forged.as_bytes());
    let problems = compile(&sources).expect_err("the menu names no such card");
    for d in &problems {
        for text in
            [d.headline(), d.label.clone(), d.help.clone()].into_iter().chain(d.related.iter().map(|r| r.1.clone()))
        {
            let bad: Vec<String> = text
                .chars()
                .filter(|c| unicode::is_invisible(*c) || unicode::breaks_text(*c))
                .map(|c| format!("U+{:04X}", c as u32))
                .collect();
            assert!(bad.is_empty(), "{bad:?} in {text:?}");
        }
        assert!(!d.render(&sources).lines().any(|l| l.starts_with("error: [M004] forged")), "{}", d.render(&sources));
    }
}
