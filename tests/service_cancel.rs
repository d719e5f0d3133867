//! Cancelled means stopped: a `tools/call` its client cancels with
//! `notifications/cancelled` is dropped from the read queue before it runs
//! (or stops at SQLite's next checkpoint), and a flood of cancelled calls
//! leaves the server answering everyone else.
//!
//! The client is rmcp's own, over an in-process pipe, so the test sees the
//! service's counters: what ran, and what was dropped unrun.

use std::time::Duration;

use m1nd::mcp::Server;
use m1nd::service::{Options, QueueCaps, Service};
use m1nd::store::Store;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
use rmcp::service::PeerRequestOptions;
use serde_json::json;

const CANCELLED: u64 = 10_000;

fn trace_call() -> ClientRequest {
    let arguments = json!({ "error_text": "panic in the walker after the graph moved" });
    let mut params = CallToolRequestParams::new("trace");
    params.arguments = arguments.as_object().cloned();
    ClientRequest::CallToolRequest(Request::new(params))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_cancelled_calls_leave_the_server_serving() {
    let dir = tempfile::Builder::new().prefix("m1nd-cancel-").tempdir().expect("dir");
    Store::init(dir.path(), true).expect("init");
    let mut options = Options::new(dir.path());
    // One reader and room for every call: nothing is refused for a full
    // queue, so every call either runs or is dropped because it was cancelled.
    options.readers = 1;
    options.queue = QueueCaps { per_lane: CANCELLED as usize + 8, total: CANCELLED as usize + 8 };
    let service = Service::start(options).expect("service");

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = Server::new(service.clone());
    let serving = tokio::spawn(async move { server.serve(server_io).await.expect("server").waiting().await });
    let client = ().serve(client_io).await.expect("client");

    // Each call is sent and cancelled at once: the cancellation follows the
    // request on the same pipe, so the server sees both in order.
    let flood = async {
        for _ in 0..CANCELLED {
            let handle = client
                .peer()
                .send_cancellable_request(trace_call(), PeerRequestOptions::no_options())
                .await
                .expect("sent");
            handle.cancel(Some("the user moved on".into())).await.expect("cancelled");
        }
    };
    tokio::time::timeout(Duration::from_secs(300), flood).await.expect("the flood was sent within its bound");

    // Someone else's call is answered, after every cancelled one.
    let north = CallToolRequestParams::new("north")
        .with_arguments(json!({ "task": "t" }).as_object().cloned().expect("object"));
    let answer = tokio::time::timeout(Duration::from_secs(60), client.call_tool(north))
        .await
        .expect("north answered within its bound")
        .expect("north");
    assert_ne!(answer.is_error, Some(true), "{answer:?}");

    let stats = service.stats();
    assert!(stats.abandoned > 0, "no cancelled call was dropped unrun: {stats:?}");
    assert!(stats.reads + stats.abandoned <= CANCELLED + 1, "more reads than calls: {stats:?}");
    assert!(stats.reads < CANCELLED, "every cancelled call still ran: {stats:?}");

    client.cancel().await.expect("client closed");
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
}
