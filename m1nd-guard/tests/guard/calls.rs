//! The guard in front of a real rmcp server, driven by rmcp's own client:
//! what is listed, what is refused (and never reaches the server), what is
//! forwarded, and what is attested.

use super::notes::{Notes, POLICY, call, connect, text};
use m1nd_guard::attestation::META_KEY;
use m1nd_guard::neutralise::ESCAPED;
use m1nd_guard::{Guarded, SessionMode};
use rmcp::model::Tool;
use serde_json::{Value, json};

fn guarded(read_only: bool) -> (Guarded<Notes>, Notes) {
    let server = Notes::default();
    let guarded = Guarded::new(server.clone(), &POLICY, &Notes::tool_router()).expect("the tools match the policy");
    (guarded.read_only(read_only), server)
}

fn named<'a>(tools: &'a [Tool], name: &str) -> Option<&'a Tool> {
    tools.iter().find(|t| t.name == name)
}

#[tokio::test]
async fn read_write_lists_every_declared_tool_with_the_policys_annotations_and_schema() {
    let (guarded, _) = guarded(false);
    assert_eq!(guarded.mode(), SessionMode::ReadWrite, "the policy's mode");
    let client = connect(guarded).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["list_notes", "read_note", "write_note"]);

    let write = serde_json::to_value(named(&tools, "write_note").expect("listed")).expect("json");
    assert_eq!(write["annotations"]["readOnlyHint"], false, "the deny list lowers the server's claim: {write}");
    assert_eq!(write["description"], "Writes one note", "unpinned: the policy's summary, not the server's words");
    let read = serde_json::to_value(named(&tools, "read_note").expect("listed")).expect("json");
    assert_eq!(read["annotations"]["readOnlyHint"], true, "a verb that never writes keeps the server's hint");
    let list = serde_json::to_value(named(&tools, "list_notes").expect("listed")).expect("json");
    assert_eq!(list["inputSchema"]["properties"]["folder"]["enum"], json!(["inbox", "archive"]), "{list}");
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn read_only_hides_a_write_and_refuses_it_before_it_reaches_the_server() {
    let (guarded, server) = guarded(true);
    assert_eq!(guarded.mode(), SessionMode::ReadOnly);
    let client = connect(guarded).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(named(&tools, "write_note").is_none(), "hidden in a read-only session");
    assert!(named(&tools, "read_note").is_some());

    for spelled in ["write_note", "Write-Note", "m1nd.write_note"] {
        let refused = client.call_tool(call(spelled, json!({"name": "a", "text": "b"}))).await.expect("answered");
        assert_eq!(refused.is_error, Some(true), "{spelled}");
        let said = text(&refused);
        for part in ["`write_note` is refused", "attached read-only", "read_only_denied.toml lists `write_note`"] {
            assert!(said.contains(part), "{part:?} missing from {said}");
        }
    }
    assert_eq!(server.seen(), [], "no refused call reached the server");

    let read = client.call_tool(call("read_note", json!({"name": "a"}))).await.expect("answered");
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert_eq!(server.seen(), [("read_note".to_owned(), "a".to_owned())]);
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn arguments_are_checked_before_the_server_sees_them() {
    let (guarded, server) = guarded(false);
    let client = connect(guarded).await;
    let cases = [
        (
            "read_note",
            json!({"name": "a", "nmae": "b"}),
            "`read_note` takes no argument `nmae` in tools.toml; did you mean `name`?",
        ),
        ("read_note", json!({}), "`read_note` needs the argument `name`"),
        ("list_notes", json!({"folder": "secrets"}), "`folder` is pinned to `inbox`, `archive`, got `secrets`"),
        ("delete_all", json!({}), "unknown tool `delete_all`"),
    ];
    for (tool, arguments, expected) in cases {
        let refused = client.call_tool(call(tool, arguments.clone())).await.expect("answered");
        assert_eq!(refused.is_error, Some(true), "{tool} {arguments}");
        assert!(text(&refused).contains(expected), "{tool} {arguments}: {}", text(&refused));
    }
    assert_eq!(server.seen(), [], "no refused call reached the server");

    let allowed = client.call_tool(call("List-Notes", json!({"folder": "inbox", "limit": 3}))).await.expect("answered");
    assert_eq!(text(&allowed), "inbox: (empty, limit 3)");
    assert_eq!(server.seen(), [("list_notes".to_owned(), "inbox".to_owned())], "under the server's own name");
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn what_the_server_answers_is_escaped_and_flagged() {
    let (guarded, _) = guarded(false);
    let client = connect(guarded).await;
    let answered = client.call_tool(call("read_note", json!({"name": "a"}))).await.expect("answered");
    assert_eq!(text(&answered), "note a: hello\\u{200B}\\u{001B}[2J");
    let meta = serde_json::to_value(&answered.meta).expect("meta");
    assert_eq!(meta[ESCAPED], 2, "{meta}");
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn initialize_attests_the_policy_the_mode_and_the_definitions() {
    let (guarded, _) = guarded(true);
    let digest = guarded.policy_digest().to_owned();
    assert_eq!(digest.len(), 64, "{digest}");
    let client = connect(guarded).await;
    let info = client.peer_info().expect("initialized").clone();
    let attested: &Value = &info.meta.as_ref().expect("_meta").0[META_KEY];
    assert_eq!(attested["policy"], digest.as_str());
    assert_eq!(attested["mode"], "read-only");
    assert_eq!(attested["definitions"].as_str().map(str::len), Some(64), "{attested}");
    let title = info.server_info.as_ref().and_then(|s| s.title.as_deref());
    assert!(title.is_some_and(|t| t.ends_with("(read-only)")), "{title:?}");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("Mode: read-only (asked for by the server;"), "{instructions}");
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn surfaces_the_policy_does_not_declare_are_refused() {
    let (guarded, _) = guarded(false);
    let client = connect(guarded).await;
    let refused = client.list_prompts(None).await.expect_err("no prompts declared");
    assert!(refused.to_string().contains("declares no prompts"), "{refused}");
    assert!(client.peer_info().expect("initialized").capabilities.prompts.is_none(), "not announced");
    client.cancel().await.expect("closes");
}
