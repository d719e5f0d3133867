use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::http::Request as HttpRequest;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::super::sessions::{CappedSessions, SessionLimits};
use super::super::{DEFAULT_REQUEST_TIMEOUT, HttpOptions, router};
use super::*;
use crate::mcp::Server;
use crate::service::{Options, Service};
use crate::store::Store;
use crate::transport::http::test_responses::{answer, body_of};

fn options() -> HttpOptions {
    HttpOptions {
        addr: "127.0.0.1:0".parse().expect("addr"),
        allowed_origins: Vec::new(),
        allowed_hosts: Vec::new(),
        token: None,
        identity: None,
        request_timeout: DEFAULT_REQUEST_TIMEOUT,
        session_lifetime: Duration::from_secs(60),
        limits: super::super::slots::Limits::default(),
        event_streams: super::super::human::streams::StreamCaps::default(),
        sessions: SessionLimits::default(),
    }
}

/// `/mcp` over the store at `store`, as `m1nd serve --http` routes it, with
/// this layer when `written` is given and without it otherwise.
fn app(store: &Path, written: Option<Written>) -> Router {
    let service = Service::start(Options::new(store)).expect("service");
    let sessions = Arc::new(CappedSessions::new(SessionLimits::default()));
    let server = Server::new(service);
    match written {
        Some(written) => router(server, &options(), sessions, None, layer(written)),
        None => router(server, &options(), sessions, None, std::convert::identity),
    }
}

/// A stateless request as a 2026-07-28 client sends it; `name` is the tool a
/// `tools/call` names.
fn stateless(id: Value, method: &str, mut params: Value) -> HttpRequest<Body> {
    let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let mut request = HttpRequest::post("/mcp")
        .header(header::HOST, "127.0.0.1")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header("MCP-Protocol-Version", STATELESS_VERSION)
        .header("Mcp-Method", method);
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    request.body(Body::from(body.to_string())).expect("request")
}

/// The requests, in order: calls that compose, keep, refuse, fail and
/// write, and requests that are no call.
fn script() -> Vec<HttpRequest<Body>> {
    let call = |id: Value, name: &str, arguments: Value| {
        stateless(id, "tools/call", json!({ "name": name, "arguments": arguments }))
    };
    vec![
        call(json!(1), "cockpit", json!({})),
        call(json!(2), "cockpit", json!({})),
        call(json!("two-\u{e9}"), "cockpit", json!({ "select": "2" })),
        call(json!(3), "north", json!({ "agent_id": "t", "task": "t" })),
        call(json!(4), "nope", json!({})),
        call(json!(5), "mission_stamp", json!({})),
        call(json!(6), "memorize", json!({ "node_label": "test", "claims": [{ "label": 7 }] })),
        call(
            json!(7),
            "memorize",
            json!({ "node_label": "test", "claims": [{ "label": "kept" }], "expected_store_version": 1 }),
        ),
        call(json!(8), "cockpit", json!({})),
        stateless(json!(9), "tools/list", json!({})),
        stateless(json!(10), "server/discover", json!({})),
    ]
}

/// Status, content type and body of each answer to the script.
async fn answers(app: Router) -> Vec<(StatusCode, Option<String>, Bytes)> {
    let mut out = Vec::new();
    for request in script() {
        let response = app.clone().oneshot(request).await.expect("answered");
        let (status, kind) = (response.status(), media_type(response.headers()));
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        out.push((status, kind, body));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_is_the_one_rmcp_writes() {
    let dir = tempfile::Builder::new().prefix("m1nd-kept-answers-").tempdir().expect("dir");
    let (by_rmcp, by_layer) = (dir.path().join("rmcp"), dir.path().join("layer"));
    Store::init(&by_rmcp, true).expect("init");
    std::fs::create_dir_all(&by_layer).expect("dir");
    std::fs::copy(by_rmcp.join(crate::store::DB_FILE), by_layer.join(crate::store::DB_FILE)).expect("copy");

    let written = Written::default();
    let expected = answers(app(&by_rmcp, None)).await;
    let got = answers(app(&by_layer, Some(written.clone()))).await;
    let calls = script().iter().filter(|r| r.headers()["mcp-method"] == "tools/call").count();
    assert_eq!(written.count(), calls as u64, "every call's answer was written from its bytes");
    for (n, (a, b)) in expected.iter().zip(&got).enumerate() {
        assert_eq!(a.0, b.0, "answer {n}: status");
        assert_eq!(a.1, b.1, "answer {n}: content type");
        assert_eq!(a.2, b.2, "answer {n} differs");
    }
    // The script really did compose, refuse, fail and write.
    let text: String = got.iter().map(|(_, _, body)| String::from_utf8_lossy(body).into_owned()).collect();
    for expected in ["m1nd cockpit", "unknown tool `nope`", "\"isError\":true", "\"memorized\":true", "\"tools\":["] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
}

#[test]
fn the_result_goes_in_rmcp_s_envelope_under_the_same_id() {
    let stand_in = br#"{"jsonrpc":"2.0","id":"a-\u00e9","result":{"resultType":"complete","content":[]}}"#;
    let written = with_result(stand_in, br#"{"content":[{"type":"text","text":"x"}]}"#).expect("a success");
    assert_eq!(
        String::from_utf8(written).expect("utf-8"),
        "{\"jsonrpc\":\"2.0\",\"id\":\"a-\u{e9}\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}}"
    );
    let number = with_result(br#"{"jsonrpc":"2.0","id":12,"result":{}}"#, b"{}").expect("a success");
    assert_eq!(number, br#"{"jsonrpc":"2.0","id":12,"result":{}}"#);
}

#[test]
fn an_error_or_junk_is_no_success_to_rewrite() {
    let error = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"no"}}"#;
    assert_eq!(with_result(error, b"{}"), None);
    assert_eq!(with_result(b"[1, 2", b"{}"), None);
    assert_eq!(with_result(br#"{"jsonrpc":"2.0","result":{}}"#, b"{}"), None, "no id");
}

#[tokio::test]
async fn in_an_event_stream_only_the_result_is_written_again() {
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
    let stand_in = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#;
    let stream =
        format!("id: 0\nretry: 3000\ndata: \n\ndata: {progress}\n\n: keep-alive\n\nid: 7\ndata: {stand_in}\n\n");
    let result = Bytes::from_static(br#"{"content":[{"type":"text","text":"kept"}]}"#);
    let answered = body_of(in_event_stream(answer("text/event-stream", stream), result)).await;
    let expected = format!(
        "id: 0\nretry: 3000\ndata: \n\ndata: {progress}\n\n: keep-alive\n\nid: 7\ndata: {}\n\n",
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"kept"}]}}"#
    );
    assert_eq!(answered, expected);
}

#[tokio::test]
async fn an_answer_that_cannot_be_rewritten_is_a_500_never_the_stand_in() {
    let result = Bytes::from_static(br#"{"content":[]}"#);
    let error = answer("application/json", r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#);
    let refused = in_json(error, &result).await;
    assert_eq!(refused.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert!(body_of(refused).await.contains("send the call again"));
    let huge = answer("application/json", vec![b' '; MAX_STAND_IN_BYTES + 1]);
    assert_eq!(in_json(huge, &result).await.status(), StatusCode::INTERNAL_SERVER_ERROR);
}
