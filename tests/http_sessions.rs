//! `--max-sessions` and `--session-idle`: past the cap an `initialize` gets
//! 503 and a JSON-RPC error naming the flag, while the sessions already open
//! and 2026-07-28 (sessionless) calls go on; a session left unused is closed
//! and its slot freed.

mod server_support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server_support::http::{HttpServer, Reply, SESSION_VERSION, STATELESS_VERSION, request_bytes};
use server_support::{demo_store, is_error, temp_dir};

/// How long a test waits for an idle session to be closed (it takes ~1 s).
const EVICTION_BOUND: Duration = Duration::from_secs(15);

/// A legacy `initialize` with id `id`, then `notifications/initialized` when
/// it got a session. Returns the reply to `initialize`.
fn initialize(server: &HttpServer, id: u64) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": SESSION_VERSION, "capabilities": {},
        "clientInfo": {"name": "m1nd-session-tests", "version": "0"}}});
    let reply = server.post(&[], body.to_string().as_bytes());
    if let Some(session) = reply.header("mcp-session-id") {
        let done = in_session(server, session, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(done.status, 202, "{}", done.text());
    }
    reply
}

/// The session id `initialize` gave, or a panic showing what came instead.
fn session_of(reply: &Reply) -> String {
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.header("mcp-session-id").unwrap_or_else(|| panic!("no session id: {}", reply.text())).to_owned()
}

/// POST `message` in `session`.
fn in_session(server: &HttpServer, session: &str, message: &Value) -> Reply {
    server
        .post(&[("Mcp-Session-Id", session), ("MCP-Protocol-Version", SESSION_VERSION)], message.to_string().as_bytes())
}

/// `tools/call cockpit` in `session` answers with a result.
fn assert_session_serves(server: &HttpServer, session: &str, id: u64) {
    let call =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "cockpit", "arguments": {}}});
    let reply = in_session(server, session, &call);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let answer = reply.answer(id);
    assert!(answer.get("result").is_some_and(|r| !is_error(r)), "{answer}");
}

/// A 2026-07-28 `tools/call cockpit`, which needs no session, answers.
fn assert_stateless_serves(server: &HttpServer) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "cockpit", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [("MCP-Protocol-Version", STATELESS_VERSION), ("Mcp-Method", "tools/call"), ("Mcp-Name", "cockpit")];
    let reply = server.post(&headers, body.to_string().as_bytes());
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(!is_error(&reply.answer(1)["result"]), "{}", reply.text());
}

/// The refusal: 503, JSON, a JSON-RPC error answering `id` that names the cap and the flag.
fn assert_refused_at_cap(reply: &Reply, id: u64, max: usize) {
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert!(reply.header("mcp-session-id").is_none(), "a refused initialize got a session: {reply:?}");
    assert!(reply.header("content-type").is_some_and(|t| t.starts_with("application/json")), "{reply:?}");
    let answer = reply.answer(id);
    let message = answer["error"]["message"].as_str().unwrap_or_else(|| panic!("not an error: {answer}"));
    for needed in [format!("{max} sessions"), "--max-sessions".to_owned(), "2026-07-28".to_owned()] {
        assert!(message.contains(&needed), "{needed:?} missing from {message:?}");
    }
}

fn delete(server: &HttpServer, session: &str) -> Reply {
    server.raw(&request_bytes(
        "DELETE",
        &server.host(),
        &[("Mcp-Session-Id", session), ("MCP-Protocol-Version", SESSION_VERSION)],
        b"",
    ))
}

#[test]
fn at_the_cap_initialize_gets_503_and_open_sessions_and_stateless_calls_go_on() {
    let (_dir, store) = demo_store("sessions-cap");
    let server = HttpServer::start(&store, &["--max-sessions", "2"], &[]);
    let first = session_of(&initialize(&server, 1));
    let second = session_of(&initialize(&server, 2));

    assert_refused_at_cap(&initialize(&server, 3), 3, 2);
    // An `initialize` that names its method in a header is counted the same.
    let body = json!({"jsonrpc": "2.0", "id": "four", "method": "initialize", "params": {
        "protocolVersion": SESSION_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let named = server.post(&[("Mcp-Method", "initialize")], body.to_string().as_bytes());
    assert_eq!(named.status, 503, "{}", named.text());
    assert_eq!(named.messages().first().map(|m| m["id"].clone()), Some(json!("four")), "{}", named.text());

    assert_session_serves(&server, &first, 10);
    assert_session_serves(&server, &second, 11);
    assert_stateless_serves(&server);

    // Closing a session frees its slot.
    assert!(delete(&server, &first).status < 300);
    let third = session_of(&initialize(&server, 5));
    assert_session_serves(&server, &third, 12);
    assert_refused_at_cap(&initialize(&server, 6), 6, 2);
}

#[test]
fn a_session_left_unused_is_closed_and_its_slot_freed() {
    let (_dir, store) = demo_store("sessions-idle");
    let server = HttpServer::start(&store, &["--max-sessions", "1", "--session-idle", "1"], &[]);
    // Before the session's last use, so a slot freed sooner than `idle` after it shows.
    let started = Instant::now();
    let unused = session_of(&initialize(&server, 1));
    assert_refused_at_cap(&initialize(&server, 2), 2, 1);

    let mut id = 3;
    let fresh = loop {
        let reply = initialize(&server, id);
        if reply.status == 200 {
            break session_of(&reply);
        }
        assert_refused_at_cap(&reply, id, 1);
        assert!(started.elapsed() < EVICTION_BOUND, "the unused session still holds its slot after {EVICTION_BOUND:?}");
        std::thread::sleep(Duration::from_millis(200));
        id += 1;
    };
    assert!(started.elapsed() >= Duration::from_secs(1), "a slot was freed before the session was idle for 1 s");
    let gone = in_session(&server, &unused, &json!({"jsonrpc": "2.0", "id": 99, "method": "ping"}));
    assert_eq!(gone.status, 404, "the idle session was not closed: {}", gone.text());
    assert_session_serves(&server, &fresh, 100);
}

#[test]
fn a_session_in_use_is_not_closed_as_idle() {
    let (_dir, store) = demo_store("sessions-busy");
    let server = HttpServer::start(&store, &["--max-sessions", "1", "--session-idle", "1"], &[]);
    let busy = session_of(&initialize(&server, 1));
    // Used every 300 ms for 2.5 s: well past the idle timeout, never idle for it.
    for id in 0..8 {
        std::thread::sleep(Duration::from_millis(300));
        assert_session_serves(&server, &busy, 10 + id);
    }
    assert_refused_at_cap(&initialize(&server, 2), 2, 1);
}

#[test]
fn concurrent_initializes_never_exceed_the_cap_and_all_others_get_503() {
    let (_dir, store) = demo_store("sessions-race");
    let server = HttpServer::start(&store, &["--max-sessions", "3"], &[]);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..12u64)
            .map(|id| {
                scope.spawn({
                    let server = &server;
                    move || initialize(server, id).status
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    let served = statuses.iter().filter(|s| **s == 200).count();
    let refused = statuses.iter().filter(|s| **s == 503).count();
    assert_eq!((served, refused), (3, 9), "{statuses:?}");
}

#[test]
fn the_gateway_over_http_caps_sessions_too() {
    let (_dir, store) = demo_store("sessions-gateway");
    let policy = temp_dir("sessions-gateway-policy");
    let gateway = HttpServer::gateway_in_front_of(&store, &policy.path().join("policy"), &["--max-sessions", "1"]);
    session_of(&initialize(&gateway, 1));
    assert_refused_at_cap(&initialize(&gateway, 2), 2, 1);
}

#[test]
fn limits_that_cannot_be_served_stop_the_server_with_the_flag_named() {
    let (_dir, store) = demo_store("sessions-flags");
    for (args, flag) in [(["--max-sessions", "0"], "--max-sessions"), (["--session-idle", "0"], "--session-idle")] {
        let refused = HttpServer::try_start(&store, "127.0.0.1:0", &args, &[]).err().expect("refused");
        assert!(refused.contains(flag) && refused.contains("exit status: 2"), "{refused}");
    }
}
