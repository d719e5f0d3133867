//! Each kind of gateway change, made by one edit of a reviewed gateway
//! policy (tests/gateway/policies/filesystem) or of a small pinned one.

use std::path::Path;

use super::*;
use crate::policy::diff::render;
use crate::{PolicyFile, PolicySources, compile_gateway};

fn filesystem() -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/gateway/policies/filesystem");
    let sources = PolicySources::read_dir(&dir, "filesystem");
    (sources.text(PolicyFile::Tools).to_owned(), sources.text(PolicyFile::Deny).to_owned())
}

fn compiled(tools: &str, deny: &str) -> Gateway {
    let sources = PolicySources::from_bytes("gw", |f| match f {
        PolicyFile::Tools => Some(tools.as_bytes()),
        PolicyFile::Deny => Some(deny.as_bytes()),
        _ => None,
    });
    compile_gateway(&sources)
        .unwrap_or_else(|p| panic!("{}", p.iter().map(|d| d.render(&sources)).collect::<Vec<_>>().join("\n")))
}

fn entries(d: &PolicyDiff, category: Category) -> Vec<(String, String)> {
    d.of(category).map(|c| (c.subject.clone(), c.detail.clone())).collect()
}

#[test]
fn the_same_gateway_policy_has_no_changes() {
    let (tools, deny) = filesystem();
    let g = compiled(&tools, &deny);
    let d = diff_gateway(&g, &g);
    assert!(d.changes.is_empty(), "{:?}", d.changes);
    assert!(d.is_empty());
    assert_eq!(d.bound, None, "a gateway serves no menu, so it has no budget bound");
    assert_eq!(d.digest[0], gateway_digest(&g));
}

/// The pull request the issue names: a write leaves the deny list.
#[test]
fn a_write_dropped_from_the_deny_list_is_loosened() {
    let (tools, deny) = filesystem();
    let dropped = deny.replace("  \"write_file\",\n", "");
    assert_ne!(dropped, deny, "the fixture denies write_file");
    let d = diff_gateway(&compiled(&tools, &deny), &compiled(&tools, &dropped));
    let loosened = entries(&d, Category::Loosened);
    assert_eq!(loosened.len(), 1, "{loosened:?}");
    assert_eq!(loosened[0].0, "write_file");
    assert!(loosened[0].1.contains("a read-only session may now call it"), "{}", loosened[0].1);
    assert!(!d.is_empty());
    // And back: the same edit reversed tightens.
    let back = diff_gateway(&compiled(&tools, &dropped), &compiled(&tools, &deny));
    assert_eq!(entries(&back, Category::Loosened), []);
    assert_eq!(entries(&back, Category::Tightened).len(), 1);
    let text = render::text(&d, "old", "new");
    assert!(text.contains("! write_file: left"), "{text}");
    assert!(!text.contains("budget bound"), "{text}");
}

#[test]
fn declaring_a_tool_loosens_and_says_who_may_call_it_and_dropping_one_tightens() {
    let (tools, deny) = filesystem();
    let extra = "\n[verbs.delete_file]\nsummary = \"Delete a file\"\nrequires = [\"path\"]\n";
    let old = compiled(&tools, &deny);
    let free = diff_gateway(&old, &compiled(&format!("{tools}{extra}"), &deny));
    assert_eq!(
        entries(&free, Category::Loosened),
        [("delete_file".to_owned(), "declared: every session may now call it, read-only ones too".to_owned())]
    );
    let denied_deny = deny.replace("tools = [\n", "tools = [\n  \"delete_file\",\n");
    let denied = diff_gateway(&old, &compiled(&format!("{tools}{extra}"), &denied_deny));
    let loosened = entries(&denied, Category::Loosened);
    assert_eq!(loosened.len(), 1, "{loosened:?}");
    assert!(loosened[0].1.contains("read-write session may now call it; read-only sessions stay denied"));

    let start = tools.find("[verbs.get_file_info]").expect("get_file_info");
    let end = tools[start..].find("\n\n").map(|n| start + n + 2).expect("its end");
    let without = format!("{}{}", &tools[..start], &tools[end..]);
    let dropped = diff_gateway(&old, &compiled(&without, &deny));
    assert_eq!(entries(&dropped, Category::Loosened), []);
    let tightened = entries(&dropped, Category::Tightened);
    assert_eq!(tightened.len(), 1, "{tightened:?}");
    assert_eq!(tightened[0].0, "get_file_info");
}

#[test]
fn a_newly_accepted_argument_loosens() {
    let (tools, deny) = filesystem();
    let wider = tools.replacen("accepts = [\"tail\", \"head\"]", "accepts = [\"tail\", \"head\", \"encoding\"]", 1);
    assert_ne!(wider, tools);
    let d = diff_gateway(&compiled(&tools, &deny), &compiled(&wider, &deny));
    assert_eq!(
        entries(&d, Category::Loosened),
        [("read_file".to_owned(), "now accepts `encoding`: calls with them are no longer refused".to_owned())]
    );
}

#[test]
fn a_changed_definition_is_listed_and_a_dropped_one_loosens() {
    let (tools, deny) = filesystem();
    let old_digest = "blake3:9b08295a6093c41c53bed5a061abac746e008f4323a7d9a23a969861ee038c5a";
    let new_digest = format!("blake3:{}", "0".repeat(64));
    let changed = tools.replacen(old_digest, &new_digest, 1);
    assert_ne!(changed, tools, "the fixture pins read_file's definition");
    let d = diff_gateway(&compiled(&tools, &deny), &compiled(&changed, &deny));
    assert_eq!(entries(&d, Category::Loosened), []);
    assert_eq!(
        entries(&d, Category::Verbs),
        [("read_file".to_owned(), format!("definition changed: {old_digest} → {new_digest}"))]
    );
    assert!(!d.is_empty(), "the gateway digest covers definitions");

    let unpinned = tools.replacen(&format!("definition = \"{old_digest}\"\n"), "", 1);
    let d = diff_gateway(&compiled(&tools, &deny), &compiled(&unpinned, &deny));
    let loosened = entries(&d, Category::Loosened);
    assert_eq!(loosened.len(), 1, "{loosened:?}");
    assert!(loosened[0].1.starts_with("`definition` no longer pinned"), "{}", loosened[0].1);
}

const PINNED: &str = "[verbs.git_status]\nsummary = \"s\"\nrequires = [\"repo_path\"]\nPIN\n\n[verbs.git_branch]\nsummary = \"b\"\naccepts = [\"branch_type\"]\nBRANCH\n";

fn pinned(pin: &str, branch: &str) -> Gateway {
    compiled(&PINNED.replace("PIN", pin).replace("BRANCH", branch), "tools = []\n")
}

#[test]
fn pins_widened_or_dropped_loosen_and_narrowed_or_added_tighten() {
    let under = "pins.repo_path = { under = [\"/srv/a\"] }";
    let allowed = "pins.branch_type = { allowed = [\"local\"] }";
    let base = pinned(under, allowed);
    let cases: [(&str, &str, Category, &str); 7] = [
        (
            "pins.repo_path = { under = [\"/srv/a\", \"/srv/b\"] }",
            allowed,
            Category::Loosened,
            "now also allows paths under `/srv/b`",
        ),
        (
            "pins.repo_path = { under = [\"/srv/a\"], hard_links = true }",
            allowed,
            Category::Loosened,
            "now lets hard-linked files through",
        ),
        ("", allowed, Category::Loosened, "`repo_path` is no longer pinned (was `under` `/srv/a`): any value passes"),
        (
            under,
            "pins.branch_type = { allowed = [\"local\", \"remote\"] }",
            Category::Loosened,
            "now also allows `remote`",
        ),
        (under, "", Category::Loosened, "`branch_type` is no longer pinned"),
        (under, "pins.branch_type = { allowed = [\"remote\"] }", Category::Tightened, "no longer allows `local`"),
        ("pins.repo_path = { under = [\"/srv/a\"] }", "", Category::Loosened, "`branch_type` is no longer pinned"),
    ];
    for (pin, branch, category, detail) in cases {
        let d = diff_gateway(&base, &pinned(pin, branch));
        assert!(
            d.of(category).any(|c| c.detail.contains(detail)),
            "{pin} / {branch}: no {} change containing {detail:?} in {:?}",
            category.key(),
            d.changes
        );
        let back = diff_gateway(&pinned(pin, branch), &base);
        let reversed = if category == Category::Loosened { Category::Tightened } else { Category::Loosened };
        assert!(back.of(reversed).count() > 0, "{pin} / {branch} reversed: {:?}", back.changes);
        assert_ne!(d.digest[0], d.digest[1], "the gateway digest covers pins");
    }
    let narrowed = diff_gateway(
        &pinned("pins.repo_path = { under = [\"/srv/a\", \"/srv/b\"], hard_links = true }", allowed),
        &base,
    );
    let tightened = entries(&narrowed, Category::Tightened);
    assert_eq!(tightened.len(), 2, "{tightened:?}");
    assert_eq!(entries(&narrowed, Category::Loosened), []);
}

/// A pinned directory moved inside itself reaches less: tightened, with
/// nothing loosened; moved beside it or above it, loosened (M014 keeps `..`
/// and a trailing `/` out of a pinned directory).
#[test]
fn a_directory_narrowed_to_one_inside_it_tightens() {
    let at = |dirs: &str| pinned(&format!("pins.repo_path = {{ under = [{dirs}] }}"), "");
    let narrowed = diff_gateway(&at("\"/srv/a\""), &at("\"/srv/a/docs\""));
    assert_eq!(entries(&narrowed, Category::Loosened), [], "{:?}", narrowed.changes);
    let tightened = entries(&narrowed, Category::Tightened);
    assert_eq!(tightened.len(), 2, "{tightened:?}");
    assert!(tightened.iter().any(|(_, d)| d.contains("`/srv/a/docs`, inside what it allowed before")), "{tightened:?}");
    assert!(tightened.iter().any(|(_, d)| d.contains("no longer allows paths under `/srv/a`")), "{tightened:?}");
    for beside in ["\"/srv/a-evil\"", "\"/srv\"", "\"/srv/a/docs\", \"/opt\""] {
        let d = diff_gateway(&at("\"/srv/a\""), &at(beside));
        assert!(
            d.of(Category::Loosened).any(|c| c.detail.contains("now also allows paths under")),
            "{beside}: {:?}",
            d.changes
        );
    }
}

/// A pin on an argument that was free tightens; the same pin's removal loosens.
#[test]
fn a_new_pin_tightens() {
    let d = diff_gateway(&pinned("", ""), &pinned("pins.repo_path = { under = [\"/srv/a\"] }", ""));
    assert_eq!(
        entries(&d, Category::Tightened),
        [("git_status".to_owned(), "`repo_path` is now pinned (`under` `/srv/a`)".to_owned())]
    );
    assert_eq!(entries(&d, Category::Loosened), []);
}

/// A policy opened for writes loosens what every session started without
/// `--read-only` reaches; closing it again tightens.
#[test]
fn the_session_mode_opened_for_writes_is_loosened() {
    let (tools, deny) = filesystem();
    assert!(tools.contains("mode = \"read-write\""), "the fixture is read-write");
    let closed = tools.replacen("mode = \"read-write\"", "mode = \"read-only\"", 1);
    let d = diff_gateway(&compiled(&closed, &deny), &compiled(&tools, &deny));
    assert_ne!(d.digest[0], d.digest[1], "the mode is part of the digest");
    let loosened = entries(&d, Category::Loosened);
    assert_eq!(loosened.len(), 1, "{loosened:?}");
    assert_eq!(loosened[0].0, "mode");
    assert!(loosened[0].1.contains("read-write"), "{}", loosened[0].1);
    let back = diff_gateway(&compiled(&tools, &deny), &compiled(&closed, &deny));
    assert_eq!(entries(&back, Category::Loosened), []);
    assert_eq!(entries(&back, Category::Tightened).len(), 1);
}

/// Declaring a prompt, a resource or a template reaches more of the
/// upstream; removing one reaches less; a pin is read like a tool's.
#[test]
fn surfaces_declared_and_removed_are_loosened_and_tightened() {
    let (tools, deny) = filesystem();
    let pin = |c: char| format!("blake3:{}", c.to_string().repeat(64));
    let old = format!(
        "{tools}\n[prompts.greet]\ndefinition = \"{}\"\n\n[resources.\"file:///a\"]\ndefinition = \"{}\"\n",
        pin('a'),
        pin('b')
    );
    let new = format!(
        "{tools}\n[prompts.greet]\ndefinition = \"{}\"\n\n[resources.\"file:///a\"]\n\n[templates.\"file:///logs/{{day}}\"]\n",
        pin('c')
    );
    let d = diff_gateway(&compiled(&old, &deny), &compiled(&new, &deny));
    let loosened = entries(&d, Category::Loosened);
    assert!(
        loosened.iter().any(|(s, t)| s == "[templates] file:///logs/{day}" && t.contains("read every URI")),
        "{loosened:?}"
    );
    assert!(
        loosened.iter().any(|(s, t)| s == "[resources] file:///a" && t.contains("no longer pinned")),
        "{loosened:?}"
    );
    let verbs = entries(&d, Category::Verbs);
    assert!(verbs.iter().any(|(s, t)| s == "[prompts] greet" && t.contains("definition changed")), "{verbs:?}");
    let back = diff_gateway(&compiled(&new, &deny), &compiled(&old, &deny));
    let tightened = entries(&back, Category::Tightened);
    assert!(
        tightened.iter().any(|(s, t)| s == "[templates] file:///logs/{day}" && t.contains("no longer declared")),
        "{tightened:?}"
    );
}

/// Offering a client capability upstream lets the upstream reach a
/// session's client: loosened; withdrawing it tightens.
#[test]
fn a_client_capability_offered_is_loosened_and_withdrawn_is_tightened() {
    let (tools, deny) = filesystem();
    let offering = tools.replacen("mode = ", "client_capabilities = [\"roots\", \"sampling\"]\nmode = ", 1);
    assert_ne!(offering, tools, "the fixture declares a mode to put the key before");
    let d = diff_gateway(&compiled(&tools, &deny), &compiled(&offering, &deny));
    assert_ne!(d.digest[0], d.digest[1], "what is offered is part of the digest");
    let loosened = entries(&d, Category::Loosened);
    assert_eq!(
        loosened.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(),
        ["client_capabilities: sampling", "client_capabilities: roots"]
    );
    assert!(loosened[0].1.contains("may send `sampling/createMessage`"), "{}", loosened[0].1);
    let back = diff_gateway(&compiled(&offering, &deny), &compiled(&tools, &deny));
    assert_eq!(entries(&back, Category::Loosened), []);
    assert_eq!(entries(&back, Category::Tightened).len(), 2);
}
