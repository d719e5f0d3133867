//! The stdio fast path answers exactly as rmcp does.
//!
//! One scripted session (initialize, then calls that read, compose, refuse,
//! fail and write) runs twice over the stdio transport, on two copies of one
//! store: once with every call left to rmcp, once with `tools/call` answered
//! by the transport from the service's bytes (and `ping` by the transport).
//! Every line written must be the same, byte for byte, and the fast path must
//! have answered the calls and the pings.

use std::sync::atomic::Ordering;

use m1nd::mcp::Server;
use m1nd::service::{Options, Service};
use m1nd::store::Store;
use m1nd::transport::stdio::Stdio;
use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The client's requests, in order; each is answered before the next is sent.
fn script() -> Vec<Value> {
    let call = |id: u64, name: &str, arguments: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } });
    vec![
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }),
        call(2, "cockpit", json!({})),
        call(3, "cockpit", json!({})),
        call(4, "cockpit", json!({ "select": "2" })),
        call(5, "m1nd.COCKPIT", json!({ "select": "2.1" })),
        call(6, "cockpit", json!({ "select": "9.9.9.9" })),
        call(7, "cockpit", json!({ "select": 3 })),
        call(8, "help", json!({})),
        call(9, "north", json!({ "agent_id": "t", "task": "t" })),
        call(10, "trace", json!({ "error_text": "timeout in the graph" })),
        call(11, "impact", json!({ "node_id": "  " })),
        call(12, "learn", json!({})),
        call(13, "nope", json!({})),
        call(14, "mission_stamp", json!({})),
        call(15, "memorize", json!({ "node_label": "test", "claims": [{ "label": 7 }]})),
        call(
            16,
            "memorize",
            json!({ "node_label": "test", "claims": [{ "label": "kept" }], "expected_store_version": 99 }),
        ),
        json!({ "jsonrpc": "2.0", "id": "s-\u{e9}", "method": "tools/call",
                "params": { "name": "persist", "arguments": { "action": "status" }, "_meta": { "progressToken": 5 } } }),
        call(
            17,
            "memorize",
            json!({ "node_label": "test", "claims": [{ "label": "the fast path writes once" }], "expected_store_version": 1 }),
        ),
        call(18, "persist", json!({ "action": "checkpoint" })),
        call(19, "cockpit", json!({})),
        json!({ "jsonrpc": "2.0", "id": 20, "method": "tools/list" }),
        json!({ "jsonrpc": "2.0", "id": 21, "method": "ping" }),
        json!({ "jsonrpc": "2.0", "id": "p", "method": "ping", "params": {} }),
    ]
}

/// Run the script against a server over the stdio transport; the lines it wrote.
async fn session(store: &std::path::Path, fast: bool) -> (Vec<String>, u64) {
    let server = Server::new(Service::start(Options::new(store)).expect("service"));
    let (client_in, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, client_out) = tokio::io::duplex(1 << 20);
    let mut transport = Stdio::over(server_in, server_out);
    if fast {
        transport = transport.answering(server.service().clone());
    }
    let calls = transport.fast_path_calls();
    let running = tokio::spawn(async move {
        let service = server.serve(transport).await.expect("serve");
        let _ = service.waiting().await;
    });
    let (mut input, mut output) = (client_in, BufReader::new(client_out).lines());
    let mut lines = Vec::new();
    for (n, request) in script().into_iter().enumerate() {
        input.write_all(format!("{request}\n").as_bytes()).await.expect("write");
        if n == 0 {
            input.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await.expect("write");
        }
        lines.push(output.next_line().await.expect("read").expect("an answer"));
    }
    drop(input);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), running).await;
    (lines, calls.map_or(0, |c| c.load(Ordering::Relaxed)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fast_path_writes_what_rmcp_writes() {
    let dir = tempfile::Builder::new().prefix("m1nd-fast-path-").tempdir().expect("dir");
    let (slow, quick) = (dir.path().join("rmcp"), dir.path().join("fast"));
    Store::init(&slow, true).expect("init");
    std::fs::create_dir_all(&quick).expect("dir");
    std::fs::copy(slow.join(m1nd::store::DB_FILE), quick.join(m1nd::store::DB_FILE)).expect("copy");

    let (by_rmcp, none) = session(&slow, false).await;
    let (by_transport, answered_here) = session(&quick, true).await;
    assert_eq!(none, 0);
    let calls = script().iter().filter(|r| r["method"] == "tools/call" || r["method"] == "ping").count() as u64;
    assert_eq!(answered_here, calls, "every tools/call and ping after initialize took the fast path");
    assert_eq!(by_rmcp.len(), by_transport.len());
    for (n, (a, b)) in by_rmcp.iter().zip(&by_transport).enumerate() {
        assert_eq!(a, b, "answer {n} differs");
    }
    // The session really did compose, refuse, fail and write.
    let text = by_transport.join("\n");
    for expected in ["state moved", "unknown tool `nope`", "\"isError\":true", "\"memorized\":true", "menu_sig"] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
}
