//! The review tools on a gateway policy: `policy check`, `diff`, `digest`,
//! `expand` and the CI formats, with the kind recognised from the files,
//! run as the binary on copies of tests/gateway/policies/filesystem (and
//! real git history, a scratch repository per test).

mod server_support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use server_support::git::git;

const BIN: &str = env!("CARGO_BIN_EXE_m1nd");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const FILESYSTEM: &str = "tests/gateway/policies/filesystem";

fn m1nd_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("M1ND_READ_ONLY")
        .stdin(Stdio::null())
        .output()
        .expect("run m1nd")
}

fn m1nd(args: &[&str]) -> Output {
    m1nd_in(Path::new(ROOT), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("m1nd-{name}-")).tempdir().expect("create temp dir")
}

/// A copy of the filesystem gateway policy at `<dir>/<name>`.
fn copy_filesystem(dir: &Path, name: &str) -> std::path::PathBuf {
    let to = dir.join(name);
    std::fs::create_dir(&to).unwrap();
    for file in ["tools.toml", "read_only_denied.toml"] {
        std::fs::copy(Path::new(ROOT).join(FILESYSTEM).join(file), to.join(file)).unwrap();
    }
    to
}

fn edit(file: &Path, from: &str, to: &str) {
    let before = std::fs::read_to_string(file).unwrap();
    assert!(before.contains(from), "{from:?} not in {}", file.display());
    std::fs::write(file, before.replacen(from, to, 1)).unwrap();
}

#[test]
fn check_recognises_a_gateway_policy_without_a_flag() {
    let plain = m1nd(&["policy", "check", FILESYSTEM]);
    assert_eq!(plain.status.code(), Some(0), "{}{}", text(&plain.stdout), text(&plain.stderr));
    let summary = text(&plain.stdout);
    assert!(
        summary.starts_with(&format!(
            "{FILESYSTEM}: ok, a gateway policy (14 tools, 4 denied, 0 pins, 14 definitions pinned; digest "
        )),
        "{summary}"
    );
    let asserted = m1nd(&["policy", "check", "--gateway", FILESYSTEM]);
    assert_eq!(text(&asserted.stdout), summary, "--gateway asserts the kind; the check is the same");
    let digest = text(&m1nd(&["policy", "digest", FILESYSTEM]).stdout);
    assert_eq!(digest.trim().len(), 64, "{digest}");
    assert!(summary.contains(&format!("digest {})", &digest[..12])), "{summary} vs {digest}");
    // m1nd's own policy is still recognised as such.
    let own = text(&m1nd(&["policy", "check", "policy"]).stdout);
    assert!(own.starts_with("policy: ok ("), "{own}");
}

#[test]
fn the_ci_formats_report_a_broken_gateway_policy_without_a_flag() {
    let broken = "tests/ui/policies/gateway_m014";
    let sarif = m1nd(&["policy", "check", broken, "--format", "sarif"]);
    assert_eq!(sarif.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["ruleId"] == "M014"), "{results:?}");
    let github = m1nd(&["policy", "check", broken, "--format", "github"]);
    assert_eq!(github.status.code(), Some(1));
    assert!(
        text(&github.stdout).starts_with("::error file=tests/ui/policies/gateway_m014/tools.toml"),
        "{}",
        text(&github.stdout)
    );
    let json = m1nd(&["policy", "check", broken, "--format", "json"]);
    let diagnostics: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(diagnostics[0]["law"], "M014");
}

#[test]
fn one_kind_given_where_the_other_is_expected_is_a_usage_error_that_says_what_to_run() {
    let check = m1nd(&["policy", "check", "--gateway", "policy"]);
    assert_eq!(check.status.code(), Some(2));
    let message = text(&check.stderr);
    assert!(
        message.contains(
            "`policy` is m1nd's own policy, not a gateway policy: it has help_cards.toml and cockpit.toml, \
             the menu only m1nd's own policy has"
        ),
        "{message}"
    );
    assert!(message.contains("check it without --gateway: m1nd policy check policy"), "{message}");

    let gateway = m1nd(&["gateway", "--policy", "policy", "--", "true"]);
    assert_eq!(gateway.status.code(), Some(2));
    let message = text(&gateway.stderr);
    assert!(message.contains("`policy` is m1nd's own policy, not a gateway policy"), "{message}");
    assert!(message.contains("give --policy a gateway policy directory"), "{message}");

    let mixed = m1nd(&["policy", "diff", "policy", FILESYSTEM]);
    assert_eq!(mixed.status.code(), Some(2));
    let message = text(&mixed.stderr);
    assert!(message.contains("`policy` is m1nd's own policy (it has"), "{message}");
    assert!(
        message.contains(&format!("but `{FILESYSTEM}` is a gateway policy (it has tools.toml and no menu")),
        "{message}"
    );
    assert!(mixed.stdout.is_empty(), "nothing is diffed across kinds");
}

/// The issue's pull request: a write leaves the deny list. The diff says so
/// first, and `--fail-on loosened` fails CI, as for m1nd's own policy.
#[test]
fn diff_of_a_gateway_loosening_in_git_history_says_so_first_and_fails_ci() {
    let dir = temp_dir("gateway-diff");
    let repo = dir.path();
    copy_filesystem(repo, "fs");
    git(repo, &["init", "--quiet"]);
    git(repo, &["add", "fs"]);
    git(repo, &["commit", "--quiet", "-m", "the reviewed policy"]);
    edit(&repo.join("fs/read_only_denied.toml"), "  \"write_file\",\n", "");
    git(repo, &["commit", "--quiet", "-am", "let read-only sessions write files"]);

    let out = m1nd_in(repo, &["policy", "diff", "HEAD~1:fs", "HEAD:fs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.starts_with("policy diff HEAD~1:fs → HEAD:fs\n\nloosened: a session can now reach more (1)\n"),
        "{report}"
    );
    let first_change = report.lines().find(|l| l.starts_with("  ")).unwrap_or_default();
    assert_eq!(first_change, "  ! write_file: left read_only_denied.toml: a read-only session may now call it");
    assert!(!report.contains("budget bound"), "a gateway has no menu budget: {report}");

    let failing = m1nd_in(repo, &["policy", "diff", "HEAD~1:fs", "fs", "--fail-on", "loosened"]);
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing.stderr));
    assert!(
        text(&failing.stderr).contains("fs loosens the guard in 1 place (--fail-on loosened)"),
        "{}",
        text(&failing.stderr)
    );
    let reverse = m1nd_in(repo, &["policy", "diff", "HEAD", "HEAD~1", "--fail-on", "loosened"]);
    assert_eq!(reverse.status.code(), Some(2), "a bare REV means `policy/`, which this repository lacks");
    let reverse = m1nd_in(repo, &["policy", "diff", "HEAD:fs", "HEAD~1:fs", "--fail-on", "loosened"]);
    assert_eq!(reverse.status.code(), Some(0), "tightening is not loosening: {}", text(&reverse.stdout));
    assert!(
        text(&reverse.stdout).contains("  - write_file: joined read_only_denied.toml"),
        "{}",
        text(&reverse.stdout)
    );

    let json = m1nd_in(repo, &["policy", "diff", "HEAD~1:fs", "HEAD:fs", "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(json["loosened"][0]["subject"], "write_file");
    assert_eq!(json["tightened"], Value::Array(Vec::new()));
    assert_eq!(json["budget"], Value::Null);
    let digest = text(&m1nd(&["policy", "digest", FILESYSTEM]).stdout);
    assert_eq!(json["digest"]["old"], digest.trim(), "HEAD~1 is the reviewed policy");

    let markdown = text(&m1nd_in(repo, &["policy", "diff", "HEAD~1:fs", "HEAD:fs", "--format", "markdown"]).stdout);
    assert!(markdown.contains("> [!WARNING]"), "{markdown}");
    assert!(markdown.contains("- **write_file**: left read_only_denied.toml"), "{markdown}");
}

/// Pins and definitions are part of the plan and of the digest.
#[test]
fn diff_of_directories_shows_pins_and_definitions_and_the_digest_covers_them() {
    let dir = temp_dir("gateway-pins");
    let old = copy_filesystem(dir.path(), "old");
    let new = copy_filesystem(dir.path(), "new");
    let (old_s, new_s) = (old.to_str().unwrap(), new.to_str().unwrap());
    let same = m1nd(&["policy", "diff", old_s, new_s, "--fail-on", "any"]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));
    assert!(text(&same.stdout).contains("no change: both are the same policy"));

    // Pin `read_text_file`'s path under /srv/docs: tightened, and the digest moves.
    let tools = new.join("tools.toml");
    let read_text = "[verbs.read_text_file]\n";
    let at = std::fs::read_to_string(&tools).unwrap();
    let pinned_line = "pins.path = { under = [\"/srv/docs\"] }\n";
    let start = at.find(read_text).expect("read_text_file") + read_text.len();
    std::fs::write(&tools, format!("{}{pinned_line}{}", &at[..start], &at[start..])).unwrap();
    let tightened = m1nd(&["policy", "diff", old_s, new_s, "--format", "json", "--fail-on", "loosened"]);
    assert_eq!(tightened.status.code(), Some(0), "{}", text(&tightened.stderr));
    let json: Value = serde_json::from_slice(&tightened.stdout).expect("json");
    assert_eq!(json["tightened"][0]["subject"], "read_text_file");
    assert_eq!(json["tightened"][0]["detail"], "`path` is now pinned (`under` `/srv/docs`)");
    assert_ne!(json["digest"]["old"], json["digest"]["new"]);
    let check_digest = |dir: &str| text(&m1nd(&["policy", "digest", dir]).stdout).trim().to_owned();
    assert_eq!(json["digest"]["new"], check_digest(new_s));

    // The other way round: the pin is dropped, and CI fails.
    let loosened = m1nd(&["policy", "diff", new_s, old_s, "--fail-on", "loosened"]);
    assert_eq!(loosened.status.code(), Some(1), "{}", text(&loosened.stdout));
    assert!(
        text(&loosened.stdout)
            .contains("  ! read_text_file: `path` is no longer pinned (was `under` `/srv/docs`): any value passes"),
        "{}",
        text(&loosened.stdout)
    );

    // A reviewed definition replaced: listed with both digests; not a loosening.
    std::fs::write(&tools, std::fs::read_to_string(old.join("tools.toml")).unwrap()).unwrap();
    let was = "blake3:9b08295a6093c41c53bed5a061abac746e008f4323a7d9a23a969861ee038c5a";
    let now = format!("blake3:{}", "1".repeat(64));
    edit(&tools, was, &now);
    let redefined = m1nd(&["policy", "diff", old_s, new_s, "--fail-on", "loosened"]);
    assert_eq!(redefined.status.code(), Some(0), "{}", text(&redefined.stderr));
    assert!(
        text(&redefined.stdout).contains(&format!("  - read_file: definition changed: {was} → {now}")),
        "{}",
        text(&redefined.stdout)
    );
    assert_ne!(check_digest(old_s), check_digest(new_s), "a definition alone changes the digest");
    let any = m1nd(&["policy", "diff", old_s, new_s, "--fail-on", "any"]);
    assert_eq!(any.status.code(), Some(1));
}

#[cfg(feature = "expand")]
#[test]
fn expand_prints_what_gateway_expands_a_gateway_policy_to() {
    let out = m1nd(&["policy", "expand", FILESYSTEM]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = text(&out.stdout);
    assert!(source.contains("pub static GATEWAY: ::m1nd_policy::gateway::Embedded"), "{source}");
    assert!(source.contains(&format!("\"{FILESYSTEM}/tools.toml\"")), "{source}");
    assert!(!source.contains("cockpit.toml"), "{source}");
    let broken = m1nd(&["policy", "expand", "tests/ui/policies/gateway_m014"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(text(&broken.stdout).contains("error: [M014]"), "{}", text(&broken.stdout));
}

/// `--gateway` on a directory with nothing to recognise it by checks it as
/// a gateway policy: the compiler reports the gateway's missing file, not the menu's.
#[test]
fn check_gateway_on_an_incomplete_directory_lists_the_gateways_files() {
    let dir = temp_dir("gateway-incomplete");
    std::fs::write(dir.path().join("read_only_denied.toml"), "tools = []\n").unwrap();
    let out = m1nd(&["policy", "check", "--gateway", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("[M001] tools.toml cannot be used: the file is missing"), "{report}");
    for menu in ["help_cards.toml", "cockpit.toml"] {
        assert!(!report.contains(&format!("{menu} cannot be used")), "{report}");
    }
}

/// The body of the fenced `text` block of the guide that starts with `first`.
fn guide_block(first: &str) -> String {
    let page = std::fs::read_to_string(Path::new(ROOT).join("docs/guide/src/reviewing-in-ci.md")).unwrap();
    let start = page.find(&format!("```text\n{first}\n")).unwrap_or_else(|| panic!("no block opening {first:?}"));
    let body = &page[start + "```text\n".len()..];
    body[..body.find("```").expect("a closed block")].to_owned()
}

/// The guide's gateway examples are this binary's output, not a copy.
#[test]
fn the_guides_gateway_examples_are_what_the_binary_prints() {
    let command = format!("$ m1nd policy check {FILESYSTEM}");
    let out = m1nd(&["policy", "check", FILESYSTEM]);
    assert_eq!(guide_block(&command), format!("{command}\n{}", text(&out.stdout)));

    let dir = temp_dir("gateway-guide");
    copy_filesystem(dir.path(), "old");
    let new = copy_filesystem(dir.path(), "new");
    edit(&new.join("read_only_denied.toml"), "  \"write_file\",\n", "");
    edit(
        &new.join("tools.toml"),
        "[verbs.read_text_file]\n",
        "[verbs.read_text_file]\npins.path = { under = [\"/srv/docs\"] }\n",
    );
    edit(
        &new.join("tools.toml"),
        "blake3:9b08295a6093c41c53bed5a061abac746e008f4323a7d9a23a969861ee038c5a",
        &format!("blake3:{}", "1".repeat(64)),
    );
    let command = "$ m1nd policy diff old new --fail-on loosened";
    let out = m1nd_in(dir.path(), &["policy", "diff", "old", "new", "--fail-on", "loosened"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(guide_block(command), format!("{command}\n{}{}", text(&out.stdout), text(&out.stderr)));
}

/// A fleet (a directory with fleet.toml) is recognised by `policy check`
/// and `digest` with no flag; its M017 is reported in every text format
/// with the place; `diff` and `expand` say to run them per member.
#[test]
fn a_fleet_is_checked_and_digested_and_the_one_policy_tools_say_what_to_run() {
    const FLEET: &str = "tests/gateway/fleets/git-and-files";
    const BROKEN: &str = "tests/ui/policies/fleet_m017";
    let ok = m1nd(&["policy", "check", FLEET]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).starts_with(&format!("{FLEET}: ok, a fleet of 2 upstreams (repo as repo_…")));
    let digest = m1nd(&["policy", "digest", FLEET]);
    assert_eq!(text(&digest.stdout).trim().len(), 64, "{}", text(&digest.stderr));

    let broken = m1nd(&["policy", "check", BROKEN]);
    assert_eq!(broken.status.code(), Some(1));
    let out = text(&broken.stdout);
    assert!(
        out.starts_with("error: [M017] upstreams `app` and `docs` both serve a tool named `repo_git_status`"),
        "{out}"
    );
    assert!(out.contains(&format!("--> {BROKEN}/fleet.toml:9:10")), "{out}");
    assert!(text(&broken.stderr).contains(&format!("the fleet {BROKEN} breaks 1 law")));
    let json: Value =
        serde_json::from_slice(&m1nd(&["policy", "check", BROKEN, "--format", "json"]).stdout).expect("json output");
    assert_eq!(json[0]["law"], "M017");
    assert_eq!(json[0]["position"], format!("{BROKEN}/fleet.toml:9:10"));
    let github = text(&m1nd(&["policy", "check", BROKEN, "--format", "github"]).stdout);
    assert!(
        github.starts_with(&format!("::error file={BROKEN}/fleet.toml,line=9,col=10,title=m1nd policy M017::")),
        "{github}"
    );
    let no_digest = m1nd(&["policy", "digest", BROKEN]);
    assert_eq!(no_digest.status.code(), Some(1));
    assert!(no_digest.stdout.is_empty() && text(&no_digest.stderr).contains("[M017]"));

    for args in [["policy", "diff", FLEET, FLEET], ["policy", "expand", FLEET, "--"]] {
        let args: Vec<&str> = args.into_iter().filter(|a| *a != "--").collect();
        let refused = m1nd(&args);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        assert!(text(&refused.stderr).contains("is a fleet (it has fleet.toml)"), "{}", text(&refused.stderr));
    }
}

/// Law M018 on `definitions.json`: a reviewed definition that hides characters is refused,
/// pointing at the string, naming the field and showing it escaped, until tools.toml allows that
/// field for that tool.
#[test]
fn check_refuses_a_definition_with_hidden_characters_until_its_field_is_allowed() {
    let dir = temp_dir("hidden");
    let definition = serde_json::json!({
        "name": "echo",
        "description": "Echo text.\u{E0049}\u{E0047}\u{200B}",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "Plain."}}},
    });
    let digest = m1nd_policy::gateway::digest(&definition);
    let tools = format!("[verbs.echo]\nsummary = \"Echo text.\"\naccepts = [\"text\"]\ndefinition = \"{digest}\"\n");
    std::fs::write(dir.path().join("tools.toml"), &tools).expect("write");
    std::fs::write(dir.path().join("read_only_denied.toml"), "tools = []\n").expect("write");
    // Written by hand, the characters raw, as a careless edit or another tool would.
    let file = serde_json::to_string_pretty(&[&definition]).expect("encode");
    assert!(file.contains('\u{200B}'));
    std::fs::write(dir.path().join("definitions.json"), &file).expect("write");

    let refused = m1nd_in(dir.path(), &["policy", "check", "--gateway", "."]);
    let out = text(&refused.stdout);
    assert_eq!(refused.status.code(), Some(1), "{out}{}", text(&refused.stderr));
    assert!(
        out.starts_with(
            "error: [M018] tool `echo`'s `description` holds characters a reader cannot see, at /description: \
             \"Echo text.\\u{E0049}\\u{E0047}\\u{200B}\""
        ),
        "{out}"
    );
    let before = &file[..file.find("\"Echo text.").expect("written")];
    let (line, col) = (before.matches('\n').count() + 1, before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1);
    assert!(out.contains(&format!("--> definitions.json:{line}:{col}")), "{out}");
    assert!(out.contains("`allow_invisible = [\"description\"]` in `[verbs.echo]` of tools.toml"), "{out}");
    assert_eq!(out.matches("error: [M018]").count(), 1, "the clean field is not reported: {out}");
    assert!(!m1nd_policy::sanitize::escape::has_unseen(&out, m1nd_policy::sanitize::escape::Layout::Keep), "{out:?}");
    assert!(text(&refused.stderr).contains(". breaks 1 law"), "{}", text(&refused.stderr));

    let allowed = tools.replace("definition =", "allow_invisible = [\"description\"]\ndefinition =");
    std::fs::write(dir.path().join("tools.toml"), allowed).expect("write");
    let checked = m1nd_in(dir.path(), &["policy", "check", "--gateway", "."]);
    assert_eq!(checked.status.code(), Some(0), "{}{}", text(&checked.stdout), text(&checked.stderr));
}
