//! `m1nd policy diff`, `policy digest`, `serve --expect-digest` and the CI
//! formats of `policy check`, run as the binary on real files and real git
//! history (a scratch repository per test).

mod server_support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use m1nd::COCKPIT;
use serde_json::Value;
use server_support::git::git;
use server_support::{BIN, Mcp, TempDir, demo_store, temp_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn m1nd_in(dir: &Path, args: &[&str]) -> Output {
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

/// A live verb on the deny list of the real policy.
/// `learn`, a live denied verb that reaches one catalog action: taking it off
/// the deny list is a real loosening once its action is allowed by name (M021).
fn live_denied() -> &'static str {
    let learn = COCKPIT.deny.tools.iter().find(|t| **t == "learn").expect("learn is denied");
    assert!(COCKPIT.verb(learn).is_some_and(|v| !v.retired));
    learn
}

/// A scratch repository whose history is: the real policy, then the same
/// policy with one live verb taken off the deny list (a real loosening).
fn loosening_history() -> (TempDir, &'static str) {
    let dir = temp_dir("policy-diff");
    let repo = dir.path();
    std::fs::create_dir(repo.join("policy")).unwrap();
    for entry in std::fs::read_dir(Path::new(ROOT).join("policy")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, repo.join("policy").join(path.file_name().unwrap())).unwrap();
    }
    git(repo, &["init", "--quiet"]);
    git(repo, &["add", "policy"]);
    git(repo, &["commit", "--quiet", "-m", "the policy"]);
    let verb = live_denied();
    let deny = repo.join("policy/read_only_denied.toml");
    let before = std::fs::read_to_string(&deny).unwrap();
    let line = format!("  \"{verb}\",\n");
    assert!(before.contains(&line), "{line:?} not in read_only_denied.toml");
    std::fs::write(&deny, before.replacen(&line, "", 1)).unwrap();
    let effects = repo.join("policy/effects.toml");
    let modes = std::fs::read_to_string(&effects).unwrap();
    let allowed = "[mode.read_only.also]\n\"graph.learn\" = \"a reviewer allowed it\"\n";
    std::fs::write(&effects, modes.replacen("[mode.read_only.also]\n", allowed, 1)).unwrap();
    git(repo, &["commit", "--quiet", "-am", "let read-only sessions call it"]);
    (dir, verb)
}

#[test]
fn diff_of_a_real_loosening_says_so_first_and_fails_ci() {
    let (dir, verb) = loosening_history();
    let repo = dir.path();
    let out = m1nd_in(repo, &["policy", "diff", "HEAD~1", "HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.starts_with("policy diff HEAD~1:policy → HEAD:policy\n"), "{report}");
    let first_change = report.lines().find(|l| l.starts_with("  ")).unwrap_or_default();
    assert_eq!(first_change, format!("  ! {verb}: left read_only_denied.toml: a read-only session may now call it"));

    let failing = m1nd_in(repo, &["policy", "diff", "HEAD~1:policy", "policy", "--fail-on", "loosened"]);
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing.stderr));
    // The verb, and the read-only mode that now allows its action by name.
    assert!(text(&failing.stderr).contains("loosens the guard in 2 places"), "{}", text(&failing.stderr));
    assert!(report.contains("  ! mode read_only: now allows the action graph.learn\n"), "{report}");
    let reverse = m1nd_in(repo, &["policy", "diff", "HEAD", "HEAD~1", "--fail-on", "loosened"]);
    assert_eq!(reverse.status.code(), Some(0), "tightening is not loosening: {}", text(&reverse.stdout));

    let json = m1nd_in(repo, &["policy", "diff", "HEAD~1", "HEAD", "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(json["loosened"][0]["subject"], verb);
    assert_eq!(json["tightened"], Value::Array(Vec::new()));
    assert_ne!(json["digest"]["old"], json["digest"]["new"]);
    assert_eq!(json["digest"]["old"], &*COCKPIT.digest, "HEAD~1 is the repository's policy");
    assert!(json["budget"]["new"]["root_tokens"].as_u64().unwrap() > 0);

    let markdown = text(&m1nd_in(repo, &["policy", "diff", "HEAD~1", "HEAD", "--format", "markdown"]).stdout);
    assert!(markdown.contains("> [!WARNING]"), "{markdown}");
    assert!(markdown.contains(&format!("- **{verb}**: left read_only_denied.toml")), "{markdown}");
}

#[test]
fn diff_of_the_same_policy_is_empty_and_bad_sides_are_usage_errors() {
    let (dir, _) = loosening_history();
    let repo = dir.path();
    let same = m1nd_in(repo, &["policy", "diff", "HEAD", "policy", "--fail-on", "any"]);
    assert_eq!(same.status.code(), Some(0), "{}{}", text(&same.stdout), text(&same.stderr));
    assert!(text(&same.stdout).contains("no change: both are the same policy"));
    let changed = m1nd_in(repo, &["policy", "diff", "HEAD~1", "HEAD", "--fail-on", "any"]);
    assert_eq!(changed.status.code(), Some(1));

    let unknown = m1nd_in(repo, &["policy", "diff", "no-such-rev", "HEAD"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("neither a directory nor a revision"), "{}", text(&unknown.stderr));
    let no_dir = m1nd_in(repo, &["policy", "diff", "HEAD:nowhere", "HEAD"]);
    assert_eq!(no_dir.status.code(), Some(2));
    assert!(text(&no_dir.stderr).contains("no policy files under `nowhere/`"), "{}", text(&no_dir.stderr));
}

#[test]
fn a_broken_side_is_reported_with_its_laws() {
    let (dir, _) = loosening_history();
    let repo = dir.path();
    std::fs::write(repo.join("policy/cockpit.toml"), "schema = ").unwrap();
    git(repo, &["commit", "--quiet", "-am", "break it"]);
    let out = m1nd_in(repo, &["policy", "diff", "HEAD~1", "HEAD"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: HEAD:policy breaks 1 law:\n\nerror: [M001] "), "{err}");
    assert!(err.contains("--> HEAD:policy/cockpit.toml:1:"), "{err}");
}

#[test]
fn policy_digest_is_the_compiled_digest() {
    let out = m1nd_in(Path::new(ROOT), &["policy", "digest"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{}\n", COCKPIT.digest));
    let other = m1nd_in(Path::new(ROOT), &["policy", "digest", "tests/ui/policies/base"]);
    assert_ne!(text(&other.stdout).trim(), &*COCKPIT.digest);
    assert_eq!(text(&other.stdout).trim().len(), 64);
    let broken = m1nd_in(Path::new(ROOT), &["policy", "digest", "tests/ui/policies/m004_slot_card"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(text(&broken.stdout).is_empty());
}

#[test]
fn serve_refuses_a_pin_of_another_policy_before_it_starts() {
    let dir = temp_dir("pin");
    let serve = |pin: &str| {
        let store = dir.path().join("store");
        m1nd_in(dir.path(), &["serve", "--store", store.to_str().unwrap(), "--expect-digest", pin])
    };
    let other = serve(&"ab".repeat(32));
    assert_eq!(other.status.code(), Some(1));
    let err = text(&other.stderr);
    assert!(err.contains(&*COCKPIT.digest) && err.contains(&"ab".repeat(32)), "{err}");
    assert!(other.stdout.is_empty(), "nothing was served");
    let malformed = serve("abc");
    assert_eq!(malformed.status.code(), Some(2));
    assert!(text(&malformed.stderr).contains("64 hex digits"), "{}", text(&malformed.stderr));
    // The right pin (in any case) starts a server that answers.
    let (_store_dir, store) = demo_store("pinned");
    let pin = COCKPIT.digest.to_ascii_uppercase();
    let mut mcp = Mcp::start(&store, &["--expect-digest", &pin], &[]);
    assert_eq!(mcp.init["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest);
    assert!(!mcp.tools().is_empty());
    assert_eq!(mcp.finish(), Some(0));
}

#[test]
fn check_speaks_github_annotations_with_file_line_and_column() {
    let root = Path::new(ROOT);
    let json = m1nd_in(root, &["policy", "check", "tests/ui/policies/many_laws", "--format", "json"]);
    let diagnostics: Vec<Value> = serde_json::from_slice(&json.stdout).expect("json");
    let out = m1nd_in(root, &["policy", "check", "tests/ui/policies/many_laws", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let annotations: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(annotations.len(), diagnostics.len());
    for (line, d) in annotations.iter().zip(&diagnostics) {
        let file = d["file"].as_str().unwrap();
        let mut want = format!("::error file={file}");
        if let (Some(l), Some(c)) = (d["line"].as_u64(), d["column"].as_u64()) {
            want.push_str(&format!(",line={l},col={c},"));
        }
        assert!(line.starts_with(&want), "{line}\nwanted {want}");
        assert!(line.contains(&format!("::[{}] ", d["law"].as_str().unwrap())), "{line}");
    }
    let clean = m1nd_in(root, &["policy", "check", "--format", "github"]);
    assert_eq!(clean.status.code(), Some(0));
    assert!(clean.stdout.is_empty());
}

#[test]
fn initialize_and_discover_attest_the_policy_digest() {
    let (_dir, store) = demo_store("attest");
    let mut mcp = Mcp::read_only(&store);
    assert_eq!(mcp.init["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest, "{}", mcp.init);
    let discover = mcp.request(
        "server/discover",
        serde_json::json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    );
    assert_eq!(discover["result"]["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest, "{discover}");
    assert_eq!(mcp.finish(), Some(0));
}
