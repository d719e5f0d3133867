//! The start check: a server whose tools and policy disagree does not start,
//! and the error names each tool and tools.toml.

use super::notes::{Notes, POLICY, bare_tool};
use m1nd_guard::{GuardError, Guarded, Mismatch, check_tool_names, check_tools};

fn mismatches(checked: Result<(), GuardError>) -> (Vec<Mismatch>, String) {
    match checked {
        Err(GuardError::Tools(found)) => {
            let said = found.to_string();
            (found.mismatches, said)
        }
        other => panic!("expected a tools mismatch, got {other:?}"),
    }
}

#[test]
fn the_servers_router_matches_its_policy() {
    check_tools(&POLICY, &Notes::tool_router()).expect("every tool declared, every declared tool there");
    check_tool_names(&POLICY, ["read_note", "write_note", "list_notes"]).expect("by name alone too");
}

#[test]
fn a_misspelled_tool_is_named_with_the_declared_one_it_is_near() {
    let (found, said) = mismatches(check_tool_names(&POLICY, ["read_note", "wirte_note", "list_notes"]));
    assert_eq!(
        found,
        [
            Mismatch::Undeclared { tool: "wirte_note".into(), suggestion: Some("write_note".into()) },
            Mismatch::Missing { verb: "write_note".into() },
        ]
    );
    for part in [
        "the server's tools and its policy (tests/policy/tools.toml) disagree:",
        "the server has a tool `wirte_note` that tools.toml does not declare; did you mean `write_note`?",
        "tools.toml declares `write_note` (`[verbs.write_note]`) but the server has no such tool",
    ] {
        assert!(said.contains(part), "{part:?} missing from {said}");
    }
}

#[test]
fn an_extra_tool_and_a_missing_one_stop_the_guard_at_start() {
    let mut tools = Notes::tool_router().list_all();
    tools.retain(|t| t.name != "list_notes");
    tools.push(bare_tool("drop_everything"));
    let refused = Guarded::new(Notes::default(), &POLICY, &tools).err().expect("does not start");
    let said = refused.to_string();
    for part in [
        "the server has a tool `drop_everything` that tools.toml does not declare; declare it as \
         `[verbs.drop_everything]` in tools.toml, or remove it from the server",
        "tools.toml declares `list_notes` (`[verbs.list_notes]`) but the server has no such tool",
    ] {
        assert!(said.contains(part), "{part:?} missing from {said}");
    }
}

#[test]
fn a_look_alike_is_named_with_the_views_reason() {
    let (found, said) = mismatches(check_tool_names(&POLICY, ["read_note", "write_n\u{043E}te", "list_notes"]));
    assert!(matches!(&found[0], Mismatch::Hidden { .. }), "{found:?}");
    assert!(said.contains("look-alike of `write_note`"), "{said}");
}
