//! A gateway policy tightened by hand passes review: deleting a
//! declaration, narrowing a pin or adding a deny keeps `policy check`
//! green, shows as tightened in `policy diff`, and leaves `--fail-on
//! loosened` passing; a loosening still fails. Run as the binary on a small
//! pinned policy with its `definitions.json`, written here with the digests
//! the gateway computes. (`policy import --update --apply` on such a policy
//! runs against a real upstream in tests/gateway/test_update.py.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use m1nd_policy::gateway::digest;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_m1nd");

fn m1nd(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("M1ND_READ_ONLY")
        .stdin(Stdio::null())
        .output()
        .expect("run m1nd")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Two tools as an upstream lists them: one reads a file, one writes one.
fn definitions() -> Vec<Value> {
    let path = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    vec![
        json!({"name": "read_file", "description": "Reads a file.", "inputSchema": path}),
        json!({"name": "write_file", "description": "Writes a file.", "inputSchema": path}),
    ]
}

/// The reviewed policy at `<dir>/<name>`: both tools declared and pinned,
/// nothing denied, read-write, with the definitions its pins match.
fn reviewed(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::create_dir(&to).unwrap();
    let defs = definitions();
    let tools = format!(
        "mode = \"read-write\"\n\n\
         [verbs.read_file]\nsummary = \"Reads a file.\"\nrequires = [\"path\"]\ndefinition = \"{}\"\n\n\
         [verbs.write_file]\nsummary = \"Writes a file.\"\nrequires = [\"path\"]\ndefinition = \"{}\"\n",
        digest(&defs[0]),
        digest(&defs[1])
    );
    std::fs::write(to.join("tools.toml"), tools).unwrap();
    std::fs::write(to.join("read_only_denied.toml"), "tools = [\n]\n").unwrap();
    std::fs::write(to.join("definitions.json"), serde_json::to_string_pretty(&defs).unwrap()).unwrap();
    to
}

fn edit(file: &Path, from: &str, to: &str) {
    let before = std::fs::read_to_string(file).unwrap();
    assert!(before.contains(from), "{from:?} not in {}", file.display());
    std::fs::write(file, before.replacen(from, to, 1)).unwrap();
}

/// `policy check new` passes, and `policy diff old new --fail-on loosened`
/// passes with `tightened` naming `subject`; the check's stderr.
fn passes_review_as_tightened(dir: &Path, subject: &str) -> String {
    let check = m1nd(dir, &["policy", "check", "new"]);
    assert_eq!(check.status.code(), Some(0), "{}{}", text(&check.stdout), text(&check.stderr));
    assert!(text(&check.stdout).starts_with("new: ok, a gateway policy"), "{}", text(&check.stdout));
    let diff = m1nd(dir, &["policy", "diff", "old", "new", "--format", "json", "--fail-on", "loosened"]);
    assert_eq!(diff.status.code(), Some(0), "{}{}", text(&diff.stdout), text(&diff.stderr));
    let json: Value = serde_json::from_slice(&diff.stdout).expect("json");
    assert_eq!(json["loosened"], json!([]), "{json}");
    assert!(
        json["tightened"].as_array().expect("tightened").iter().any(|c| c["subject"] == subject),
        "{subject} is not tightened: {json}"
    );
    text(&check.stderr)
}

#[test]
fn deleting_a_declaration_passes_review_and_the_stale_definition_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    reviewed(dir.path(), "old");
    let new = reviewed(dir.path(), "new");
    let tools = new.join("tools.toml");
    let all = std::fs::read_to_string(&tools).unwrap();
    let kept = &all[..all.find("[verbs.write_file]").expect("write_file")];
    std::fs::write(&tools, kept).unwrap();

    let note = passes_review_as_tightened(dir.path(), "write_file");
    assert!(
        note.contains(
            "note: new/definitions.json still holds the reviewed definition of `write_file`, which tools.toml no \
             longer declares: the entry is stale and ignored"
        ),
        "{note}"
    );
    assert!(note.contains("policy import --update --apply --policy new` drops it from the file"), "{note}");
    // Every format stays green: the note is on stderr, never in the report.
    for format in ["json", "sarif", "github"] {
        let out = m1nd(dir.path(), &["policy", "check", "new", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", text(&out.stderr));
        assert!(!text(&out.stdout).contains("stale"), "{format}: {}", text(&out.stdout));
    }
}

#[test]
fn narrowing_a_pin_passes_review() {
    let dir = tempfile::tempdir().unwrap();
    let old = reviewed(dir.path(), "old");
    edit(
        &old.join("tools.toml"),
        "requires = [\"path\"]\n",
        "requires = [\"path\"]\npins.path = { under = [\"/srv\"] }\n",
    );
    let new = reviewed(dir.path(), "new");
    let pin = "requires = [\"path\"]\npins.path = { under = [\"/srv/docs\"] }\n";
    edit(&new.join("tools.toml"), "requires = [\"path\"]\n", pin);
    let note = passes_review_as_tightened(dir.path(), "read_file");
    assert!(note.is_empty(), "{note}");
}

#[test]
fn adding_a_deny_passes_review() {
    let dir = tempfile::tempdir().unwrap();
    reviewed(dir.path(), "old");
    let new = reviewed(dir.path(), "new");
    edit(&new.join("read_only_denied.toml"), "tools = [\n", "tools = [\n  \"write_file\",\n");
    let note = passes_review_as_tightened(dir.path(), "write_file");
    assert!(note.is_empty(), "{note}");
}

/// The other way round is still caught: an entry declared again loosens,
/// and a `definition` pin dropped both loosens and fails `policy check`
/// (the stored definition no longer matches what is enforced).
#[test]
fn a_loosening_still_fails_review() {
    let dir = tempfile::tempdir().unwrap();
    let old = reviewed(dir.path(), "old");
    edit(&old.join("read_only_denied.toml"), "tools = [\n", "tools = [\n  \"write_file\",\n");
    reviewed(dir.path(), "new");
    let diff = m1nd(dir.path(), &["policy", "diff", "old", "new", "--fail-on", "loosened"]);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stdout));
    assert!(text(&diff.stdout).contains("  ! write_file: left read_only_denied.toml"), "{}", text(&diff.stdout));

    let unpinned = reviewed(dir.path(), "unpinned");
    let pin = format!("definition = \"{}\"\n", digest(&definitions()[1]));
    edit(&unpinned.join("tools.toml"), &pin, "");
    let check = m1nd(dir.path(), &["policy", "check", "unpinned"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
    assert!(
        text(&check.stderr)
            .contains("entry 2 (`write_file`) is stored, but `[verbs.write_file]` of tools.toml pins no definition"),
        "{}",
        text(&check.stderr)
    );
    let diff = m1nd(dir.path(), &["policy", "diff", "new", "unpinned", "--fail-on", "loosened"]);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stdout));
}
