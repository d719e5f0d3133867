//! `serve --http` under load it must not be held by: open tray event
//! streams, slow heads (slowloris), slow bodies. Each has a cap or a timeout
//! of its own, outside the slots that serve `/mcp`, and a refusal that names
//! its flag; an event stream ends when its session or its lifetime does.
//!
//! Every bound asserted here is generous (seconds, not milliseconds): it
//! says whether `/mcp` was answered while the load held on, not how fast.

mod server_support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;
use server_support::http::{HttpServer, Reply, STATELESS_VERSION, TraySession, parse_reply, read_reply, request_to};
use server_support::{demo_store, is_error};

/// How long `/mcp` may take to answer while the load holds on.
const PROMPTLY: Duration = Duration::from_secs(5);

/// The default cap on event streams (`--max-event-streams`).
const DEFAULT_MAX_EVENT_STREAMS: usize = 64;

/// A stateless `tools/call cockpit` answered: the server serves `/mcp`, and
/// did so within [`PROMPTLY`].
fn assert_mcp_answers(server: &HttpServer) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "cockpit", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    .to_string();
    let headers = [("MCP-Protocol-Version", STATELESS_VERSION), ("Mcp-Method", "tools/call"), ("Mcp-Name", "cockpit")];
    let started = Instant::now();
    let reply = server.post(&headers, body.as_bytes());
    let took = started.elapsed();
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(!is_error(&reply.answer(1)["result"]), "{}", reply.text());
    assert!(took < PROMPTLY, "/mcp took {took:?} to answer");
}

/// Open `GET /tray/events` with `session`'s cookie and read the answer's
/// head; the connection stays open for the stream.
fn open_stream(server: &HttpServer, session: &TraySession) -> (TcpStream, Reply) {
    let mut stream = server.connect();
    let request = request_to("GET", "/tray/events", &session.host, &[("Cookie", &session.cookie)], b"");
    stream.write_all(&request).expect("write request");
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => raw.push(byte[0]),
            other => panic!("the stream's head did not arrive: {other:?} after {:?}", String::from_utf8_lossy(&raw)),
        }
    }
    (stream, parse_reply(&raw))
}

/// A refused stream: its status and its whole answer.
fn refused_stream(server: &HttpServer, session: &TraySession) -> Reply {
    let mut stream = server.connect();
    let request = request_to("GET", "/tray/events", &session.host, &[("Cookie", &session.cookie)], b"");
    stream.write_all(&request).expect("write request");
    read_reply(&mut stream)
}

/// Whether the server ends `stream` within `within` (the read sees the end
/// of the connection rather than timing out).
fn ends_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).expect("timeout");
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => false,
        // Reset by the server: ended too.
        Err(_) => true,
    }
}

/// Whether `stream` is still open after `wait` (nothing ended it).
fn still_open(stream: &mut TcpStream, wait: Duration) -> bool {
    !ends_within(stream, wait)
}

#[test]
fn event_streams_hold_no_serving_slot_and_the_one_over_their_cap_is_refused() {
    let (_dir, store) = demo_store("limits-streams");
    // Fewer serving slots than streams: were a stream to hold one, /mcp
    // would be refused.
    let server = HttpServer::start(&store, &["--max-requests", "4", "--max-event-streams", "8"], &[]);
    let session = server.login();
    let mut streams = Vec::new();
    for i in 0..8 {
        let (stream, head) = open_stream(&server, &session);
        assert_eq!(head.status, 200, "stream {i}");
        assert!(head.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")), "{head:?}");
        streams.push(stream);
    }
    let over = refused_stream(&server, &session);
    assert_eq!(over.status, 503, "{}", over.text());
    assert!(over.text().contains("--max-event-streams"), "the refusal names its flag: {}", over.text());
    for _ in 0..8 {
        assert_mcp_answers(&server);
    }
    // A stream whose client went away gives its place back (noticed at the
    // latest when its keep-alive comment cannot be written, every 15 s).
    drop(streams.pop());
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let mut stream = server.connect();
        let request = request_to("GET", "/tray/events", &session.host, &[("Cookie", &session.cookie)], b"");
        stream.write_all(&request).expect("write request");
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).expect("status line");
        if &head == b"HTTP/1.1 200" {
            break;
        }
        assert!(Instant::now() < deadline, "a closed stream kept its place under the cap");
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn with_the_default_caps_a_thousand_streams_leave_mcp_answering() {
    let (_dir, store) = demo_store("limits-many-streams");
    let server = HttpServer::start(&store, &[], &[]);
    let session = server.login();
    let mut open = Vec::new();
    let mut refused = 0;
    for i in 0..1000 {
        if open.len() < DEFAULT_MAX_EVENT_STREAMS {
            let (stream, head) = open_stream(&server, &session);
            assert_eq!(head.status, 200, "stream {i}");
            open.push(stream);
        } else {
            let reply = refused_stream(&server, &session);
            assert_eq!(reply.status, 503, "stream {i}: {}", reply.text());
            assert!(reply.text().contains("--max-event-streams"), "{}", reply.text());
            refused += 1;
        }
    }
    assert_eq!((open.len(), refused), (DEFAULT_MAX_EVENT_STREAMS, 1000 - DEFAULT_MAX_EVENT_STREAMS));
    for _ in 0..5 {
        assert_mcp_answers(&server);
    }
    assert!(still_open(&mut open[0], Duration::from_millis(200)), "the streams under the cap stay open");
}

/// The store versions a stream has sent, reading on until it has sent
/// `count` of them (or failing after a generous wait).
fn versions_until(stream: &mut TcpStream, seen: &mut Vec<u8>, count: usize) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(15);
    stream.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
    loop {
        let text = String::from_utf8_lossy(seen).into_owned();
        let versions: Vec<u64> = text
            .split("event: store\n")
            .skip(1)
            .filter_map(|event| event.strip_prefix("data: ")?.split('\n').next()?.trim().parse().ok())
            .collect();
        if versions.len() >= count {
            return versions;
        }
        assert!(Instant::now() < deadline, "{count} store events did not arrive: {text:?}");
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => panic!("the stream ended early: {text:?}"),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => panic!("reading the stream: {e}"),
        }
    }
}

#[test]
fn a_stream_delivers_new_versions_and_ends_when_its_session_logs_out_and_no_other_does() {
    let (_dir, store) = demo_store("limits-logout");
    let server = HttpServer::start(&store, &[], &[]);
    let leaving = server.login();
    let staying = server.login();
    let (mut ended, head) = open_stream(&server, &leaving);
    assert_eq!(head.status, 200);
    let (mut other, head) = open_stream(&server, &staying);
    assert_eq!(head.status, 200);
    let (mut ended_seen, mut other_seen) = (Vec::new(), Vec::new());
    let first = versions_until(&mut ended, &mut ended_seen, 1)[0];
    assert_eq!(versions_until(&mut other, &mut other_seen, 1), [first], "both streams start at the current version");

    // A write moves the store: both streams say so.
    let mut mcp = server_support::http::HttpMcp::over(server, server_support::http::Era::Stateless, Vec::new());
    let wrote = mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": "the store moved" }]}));
    assert!(!is_error(&wrote), "{wrote}");
    let server = &mcp.server;
    let moved = versions_until(&mut ended, &mut ended_seen, 2)[1];
    assert!(moved > first, "{first} → {moved}");
    assert_eq!(versions_until(&mut other, &mut other_seen, 2)[1], moved);

    let origin = format!("http://{}", leaving.host);
    let logout = request_to(
        "POST",
        "/logout",
        &leaving.host,
        &[("Cookie", &leaving.cookie), ("Origin", &origin), ("X-M1nd-Csrf", &leaving.csrf)],
        b"",
    );
    let reply = server.raw(&logout);
    assert_eq!(reply.status, 200, "logout: {}", reply.text());

    assert!(ends_within(&mut ended, Duration::from_secs(10)), "the stream kept going after its human logged out");
    assert!(still_open(&mut other, Duration::from_secs(2)), "another session's stream was ended too");
    let again = refused_stream(server, &leaving);
    assert_eq!(again.status, 401, "a reconnect after logout: {}", again.text());
}

#[test]
fn a_stream_ends_when_its_session_expires() {
    let (_dir, store) = demo_store("limits-expiry");
    let server = HttpServer::start(&store, &["--tray-session", "2"], &[]);
    let session = server.login();
    let (mut stream, head) = open_stream(&server, &session);
    assert_eq!(head.status, 200);
    assert!(ends_within(&mut stream, Duration::from_secs(15)), "the stream outlived its session");
    assert_eq!(refused_stream(&server, &session).status, 401);
}

#[test]
fn a_stream_ends_at_its_lifetime_and_the_page_may_reconnect() {
    let (_dir, store) = demo_store("limits-lifetime");
    let server = HttpServer::start(&store, &["--event-stream-lifetime", "2"], &[]);
    let session = server.login();
    let started = Instant::now();
    let (mut stream, head) = open_stream(&server, &session);
    assert_eq!(head.status, 200);
    assert!(ends_within(&mut stream, Duration::from_secs(15)), "the stream outlived its lifetime");
    assert!(started.elapsed() >= Duration::from_millis(1500), "it ended at once, not at its lifetime");
    let (_again, head) = open_stream(&server, &session);
    assert_eq!(head.status, 200, "the session lives on, so the page reconnects");
}

/// A connection that sends a request head a byte at a time.
fn slowloris(server: &HttpServer) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    stream.set_write_timeout(Some(Duration::from_secs(5))).expect("timeout");
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").expect("start of a head");
    stream
}

#[test]
fn slowloris_above_the_serving_slots_does_not_hold_mcp() {
    let (_dir, store) = demo_store("limits-slowloris");
    // The heads are allowed a minute, so they are all still arriving while
    // /mcp is asked: what keeps it answering is that they hold no slot.
    let server = HttpServer::start(&store, &["--arrival-timeout", "60"], &[]);
    let mut slow: Vec<TcpStream> = (0..300).map(|_| slowloris(&server)).collect();
    for round in 0..4 {
        for (i, stream) in slow.iter_mut().enumerate() {
            stream.write_all(b"X").unwrap_or_else(|e| panic!("round {round}: slow connection {i} was closed: {e}"));
        }
        assert_mcp_answers(&server);
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
fn a_slow_body_holds_no_serving_slot_and_gets_408() {
    let (_dir, store) = demo_store("limits-slow-body");
    let server = HttpServer::start(&store, &["--max-requests", "1", "--arrival-timeout", "3"], &[]);
    let mut slow = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, \
         text/event-stream\r\nConnection: close\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        server.host()
    );
    slow.write_all(head.as_bytes()).expect("head and a little body");
    // The one serving slot is free for others while the body trickles.
    assert_mcp_answers(&server);
    let reply = read_reply(&mut slow);
    assert_eq!(reply.status, 408, "{}", reply.text());
    assert!(reply.text().contains("--arrival-timeout"), "the refusal names its flag: {}", reply.text());
}

#[test]
fn past_the_connection_cap_a_new_connection_is_told_which_cap() {
    let (_dir, store) = demo_store("limits-connections");
    let server = HttpServer::start(&store, &["--max-connections", "4", "--arrival-timeout", "30"], &[]);
    let held: Vec<TcpStream> = (0..4).map(|_| slowloris(&server)).collect();
    let reply = server.raw(&request_to("GET", "/mcp", &server.host(), &[], b""));
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert!(reply.text().contains("--max-connections"), "the refusal names its flag: {}", reply.text());
    drop(held);
    // The places come back once those connections close.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = server.raw(&request_to("GET", "/mcp", &server.host(), &[], b""));
        if reply.status != 503 {
            break;
        }
        assert!(Instant::now() < deadline, "closed connections kept their places: {}", reply.text());
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_mcp_answers(&server);
}

#[test]
fn past_the_serving_slots_a_request_is_told_which_cap() {
    let (_dir, store) = demo_store("limits-requests");
    let server = HttpServer::start(&store, &["--max-requests", "1"], &[]);
    // A session's standing GET stream is a request being served for as long
    // as it is open: it holds the one slot.
    let mut mcp = server_support::http::HttpMcp::over(server, server_support::http::Era::Session, Vec::new());
    let session_id = mcp.session.clone().expect("a session");
    let mut standing = mcp.server.connect();
    let request = request_to(
        "GET",
        "/mcp",
        &mcp.server.host(),
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session_id),
            ("MCP-Protocol-Version", server_support::http::SESSION_VERSION),
        ],
        b"",
    );
    standing.write_all(&request).expect("write");
    let mut status = [0u8; 12];
    standing.read_exact(&mut status).expect("status line");
    assert_eq!(&status, b"HTTP/1.1 200", "the standing stream opened");
    let reply = mcp.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert!(reply.text().contains("--max-requests"), "the refusal names its flag: {}", reply.text());
    drop(standing);
    let deadline = Instant::now() + Duration::from_secs(40);
    while mcp.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})).status == 503 {
        assert!(Instant::now() < deadline, "a closed request kept its slot");
        std::thread::sleep(Duration::from_millis(200));
    }
    mcp.assert_alive();
}
