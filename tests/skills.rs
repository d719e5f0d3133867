//! The three skill files repeat two sentences word for word: the cockpit's
//! on-request-only sentence, taken from the compiled table, and how to send a
//! reference ([`SEND_AS_TYPED`], which the server's instructions and the
//! `select` schema also carry). A change to either that is not carried into
//! every skill fails here and names the file that drifted.

use std::fs;
use std::path::Path;

use m1nd_policy::runtime::SEND_AS_TYPED;

/// The skill files, relative to the package root.
const SKILLS: [&str; 3] =
    ["skills/m1nd-first/SKILL.md", "skills/m1nd-operator/SKILL.md", "skills/m1nd-universal-agent-pack.md"];

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: cannot read the skill file: {e}"))
}

/// Why `text` does not carry `sentence` on a line of its own, if it does not.
fn drift(text: &str, sentence: &str) -> Option<&'static str> {
    if text.lines().any(|line| line.trim_end() == sentence) {
        None
    } else if text.contains(sentence) {
        Some("carries the sentence, but not on a line of its own")
    } else {
        Some("does not carry the sentence word for word")
    }
}

#[test]
fn negative_default_is_not_empty() {
    assert!(!m1nd::COCKPIT.negative_default.trim().is_empty(), "policy/cockpit.toml: negative_default is empty");
}

/// The skill files that do not carry `sentence` on a line of its own, and why.
fn drifted(sentence: &str) -> Vec<String> {
    SKILLS.iter().filter_map(|rel| drift(&read(rel), sentence).map(|why| format!("  {rel}: {why}"))).collect()
}

#[test]
fn every_skill_carries_negative_default_verbatim() {
    let sentence: &str = &m1nd::COCKPIT.negative_default;
    let drifted = drifted(sentence);
    assert!(
        drifted.is_empty(),
        "skill files drifted from negative_default in policy/cockpit.toml:\n{}\nexpected this line, verbatim:\n  {sentence}",
        drifted.join("\n")
    );
}

#[test]
fn every_skill_says_how_to_send_a_reference_verbatim() {
    let drifted = drifted(SEND_AS_TYPED);
    assert!(
        drifted.is_empty(),
        "skill files drifted from SEND_AS_TYPED in m1nd-core/src/arguments.rs:\n{}\nexpected this line, verbatim:\n  {SEND_AS_TYPED}",
        drifted.join("\n")
    );
}

#[test]
fn every_skill_talks_about_the_cockpit() {
    for rel in SKILLS {
        assert!(read(rel).contains("cockpit"), "{rel}: never mentions the `cockpit` verb");
    }
}

#[test]
fn skill_frontmatter_names_the_skill() {
    for rel in &SKILLS[..2] {
        let text = read(rel);
        let dir = Path::new(rel).parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or_default();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("---"), "{rel}: must open with a `---` frontmatter block");
        let front: Vec<&str> = lines.take_while(|l| *l != "---").collect();
        assert!(front.contains(&format!("name: {dir}").as_str()), "{rel}: frontmatter must say `name: {dir}`");
        assert!(
            front.iter().any(|l| l.strip_prefix("description:").is_some_and(|d| !d.trim().is_empty())),
            "{rel}: frontmatter needs a non-empty `description:`"
        );
    }
}

#[test]
fn drift_is_detected() {
    let s = "Serve it only on request.";
    assert_eq!(drift("intro\nServe it only on request.\nmore", s), None);
    assert!(drift("> Serve it only on request.", s).is_some());
    assert!(drift("Serve it only on request!", s).is_some());
}
