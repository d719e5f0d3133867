//! `serve --http` under attack and bad input: each gets a clear status or
//! JSON-RPC error, nothing reaches the store, and the server keeps serving.

mod server_support;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server_support::http::{Era, HttpMcp, HttpServer, STATELESS_VERSION, request_bytes};
use server_support::{demo_store, is_error, snapshot};

const TOKEN: &str = "s3cret-token-for-tests-0123456789";

/// A stateless 2026-07-28 `tools/call`, body and headers, as a client sends it.
fn stateless_call(name: &str, arguments: Value) -> (Vec<u8>, Vec<(&'static str, String)>) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    let headers = vec![
        ("MCP-Protocol-Version", STATELESS_VERSION.to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", name.to_owned()),
    ];
    (body.to_string().into_bytes(), headers)
}

fn post(server: &HttpServer, headers: &[(&str, String)], body: &[u8]) -> server_support::http::Reply {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    server.post(&headers, body)
}

/// A write the attacker would like to land.
fn memorize() -> (Vec<u8>, Vec<(&'static str, String)>) {
    stateless_call("memorize", json!({"node_label": "test", "claims": [{ "label": "planted" }]}))
}

/// The server still answers a well-formed call.
fn assert_serving(server: &HttpServer) {
    let (body, headers) = stateless_call("cockpit", json!({}));
    let reply = post(server, &headers, &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(!is_error(&reply.answer(1)["result"]), "{}", reply.text());
}

#[test]
fn a_foreign_origin_gets_403_and_only_named_origins_pass() {
    let (_dir, store) = demo_store("http-origin");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &["--allow-origin", "http://localhost:5173"], &[]);
    let (body, headers) = memorize();
    for origin in ["http://evil.example", "http://localhost:5174", "https://localhost:5173", "null", "not an origin"] {
        let mut with_origin = headers.clone();
        with_origin.push(("Origin", origin.to_owned()));
        let reply = post(&server, &with_origin, &body);
        assert_eq!(reply.status, 403, "{origin}: {}", reply.text());
        assert!(reply.text().contains("Origin"), "{origin}: {}", reply.text());
    }
    assert_eq!(snapshot(&store), before, "a refused origin reached the store");

    let mut allowed = headers.clone();
    allowed.push(("Origin", "http://localhost:5173".to_owned()));
    let reply = post(&server, &allowed, &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.answer(1)["result"]["structuredContent"]["memorized"], true, "{}", reply.text());
}

#[test]
fn by_default_no_browser_origin_is_admitted() {
    let (_dir, store) = demo_store("http-origin-default");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &[], &[]);
    let (body, mut headers) = memorize();
    let port = server.addr.port();
    for origin in
        ["http://evil.example".to_owned(), format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")]
    {
        headers.push(("Origin", origin.clone()));
        let reply = post(&server, &headers, &body);
        assert_eq!(reply.status, 403, "{origin}: {}", reply.text());
        headers.pop();
    }
    assert_eq!(snapshot(&store), before);
    assert_serving(&server);
}

#[test]
fn a_foreign_host_is_refused_against_dns_rebinding() {
    let (_dir, store) = demo_store("http-host");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &["--allow-host", "m1nd.internal"], &[]);
    let (body, headers) = memorize();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(&headers);
    for host in ["evil.example", "evil.example:1338", "127.0.0.2", "localhost.evil.example", "m1nd.internal.evil"] {
        let reply = server.raw(&request_bytes("POST", host, &all, &body));
        assert_eq!(reply.status, 403, "{host}: {}", reply.text());
        assert!(reply.text().contains("Host"), "{host}: {}", reply.text());
    }
    assert_eq!(snapshot(&store), before, "a foreign Host reached the store");
    let (body, headers) = stateless_call("cockpit", json!({}));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(&headers);
    for host in [format!("localhost:{}", server.addr.port()), "127.0.0.1".to_owned(), "m1nd.internal".to_owned()] {
        let reply = server.raw(&request_bytes("POST", &host, &all, &body));
        assert_eq!(reply.status, 200, "{host}: {}", reply.text());
    }
}

#[test]
fn no_cors_on_mcp() {
    let (_dir, store) = demo_store("http-cors");
    let server = HttpServer::start(&store, &["--allow-origin", "http://localhost:5173"], &[]);
    let preflight = server.raw(&request_bytes(
        "OPTIONS",
        &server.host(),
        &[
            ("Origin", "http://localhost:5173"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type, mcp-method"),
        ],
        b"",
    ));
    assert!(preflight.status >= 400, "a preflight was answered: {preflight:?}");
    let (body, mut headers) = stateless_call("cockpit", json!({}));
    headers.push(("Origin", "http://localhost:5173".to_owned()));
    let reply = post(&server, &headers, &body);
    assert_eq!(reply.status, 200);
    for reply in [&preflight, &reply] {
        let cors: Vec<_> =
            reply.headers.iter().filter(|(n, _)| n.to_ascii_lowercase().starts_with("access-control-")).collect();
        assert!(cors.is_empty(), "CORS headers sent: {cors:?}");
    }
}

#[test]
fn an_oversized_body_gets_413_and_changes_nothing() {
    let (_dir, store) = demo_store("http-body");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &[], &[]);
    let (_, headers) = memorize();
    let huge = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "memorize", "arguments": {"node_label": "test", "claims": [{ "label": "x".repeat(2 * 1024 * 1024) }]}}});
    let reply = post(&server, &headers, huge.to_string().as_bytes());
    assert_eq!(reply.status, 413, "{}", reply.text());

    // The same, with no Content-Length: a chunked body is counted as it arrives.
    let mut stream = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.host()
    );
    stream.write_all(head.as_bytes()).expect("head");
    let chunk = vec![b' '; 256 * 1024];
    for _ in 0..8 {
        if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).is_err()
            || stream.write_all(&chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let reply = server_support::http::read_reply(&mut stream);
    assert_eq!(reply.status, 413, "{}", reply.text());
    assert_eq!(snapshot(&store), before);
    assert_serving(&server);
}

#[test]
fn huge_headers_get_431() {
    let (_dir, store) = demo_store("http-headers");
    let server = HttpServer::start(&store, &[], &[]);
    let (body, mut headers) = stateless_call("cockpit", json!({}));
    headers.push(("X-Padding", "p".repeat(64 * 1024)));
    let reply = post(&server, &headers, &body);
    assert_eq!(reply.status, 431, "{}", reply.text());
    let many: Vec<(&str, String)> = (0..200).map(|_| ("X-Many", "v".to_owned())).collect();
    let reply = post(&server, &many, &body);
    assert_eq!(reply.status, 431, "{}", reply.text());
    assert_serving(&server);
}

/// A client that never finishes its headers is cut off; one that never
/// finishes its body gets 408; others are served meanwhile.
#[test]
fn slow_clients_are_cut_off_and_others_served_meanwhile() {
    let (_dir, store) = demo_store("http-slow");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &["--request-timeout", "1", "--arrival-timeout", "1"], &[]);
    let started = Instant::now();

    let mut no_headers = server.connect();
    no_headers.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl").expect("partial head");

    let (body, headers) = memorize();
    let mut no_body = server.connect();
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", server.host());
    head.push_str("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n");
    for (n, v) in &headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    no_body.write_all(head.as_bytes()).expect("head");
    no_body.write_all(&body[..body.len() / 2]).expect("half a body");

    assert_serving(&server);

    let reply = server_support::http::read_reply(&mut no_body);
    assert_eq!(reply.status, 408, "{}", reply.text());
    // The server closes the connection: the read ends well before this timeout.
    no_headers.set_read_timeout(Some(Duration::from_secs(15))).expect("timeout");
    let mut rest = Vec::new();
    let closed = no_headers.read_to_end(&mut rest);
    assert!(closed.is_ok(), "a client that never sent its headers was kept: {closed:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "slow clients held on for {:?}", started.elapsed());
    assert_eq!(snapshot(&store), before, "half a request reached the store");
    assert_serving(&server);
}

#[test]
fn malformed_requests_get_clear_errors_and_the_server_keeps_serving() {
    let (_dir, store) = demo_store("http-bad");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &[], &[]);
    let (body, headers) = memorize();

    // Not JSON, and JSON that is not a message: JSON-RPC errors, as on stdio.
    for (bad, code, id) in [
        (&b"{not json"[..], -32700, Value::Null),
        (b"[1, 2", -32700, Value::Null),
        (b"", -32700, Value::Null),
        (b"42", -32600, Value::Null),
        (br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#, -32600, json!(7)),
        (br#"{"jsonrpc":"2.0","id":"x"}"#, -32600, json!("x")),
    ] {
        let reply = post(&server, &headers, bad);
        let shown = String::from_utf8_lossy(bad);
        assert_eq!(reply.status, 400, "{shown}: {}", reply.text());
        let answer = reply.messages().pop().unwrap_or_else(|| panic!("{shown}: not JSON-RPC: {}", reply.text()));
        assert_eq!((answer["error"]["code"].clone(), answer["id"].clone()), (json!(code), id), "{shown}: {answer}");
    }
    // Who may talk is still decided first.
    let mut evil = headers.clone();
    evil.push(("Origin", "http://evil.example".to_owned()));
    assert_eq!(post(&server, &evil, b"{not json").status, 403);
    let reply = server.raw(&request_bytes(
        "POST",
        "evil.example",
        &[("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")],
        b"{not json",
    ));
    assert_eq!(reply.status, 403);

    // The wrong content type.
    let reply = server.raw(&request_bytes(
        "POST",
        &server.host(),
        &[("Content-Type", "text/plain"), ("Accept", "application/json, text/event-stream")],
        &body,
    ));
    assert_eq!(reply.status, 415, "{}", reply.text());

    // A missing or mismatched Mcp-Method or Mcp-Name, in 2026-07-28.
    let without = |name: &str| headers.iter().filter(|(n, _)| *n != name).cloned().collect::<Vec<_>>();
    let with = |name: &'static str, value: &str| {
        let mut h = without(name);
        h.push((name, value.to_owned()));
        h
    };
    for (case, bad_headers) in [
        ("no Mcp-Method", without("Mcp-Method")),
        ("Mcp-Method says tools/list", with("Mcp-Method", "tools/list")),
        ("no Mcp-Name", without("Mcp-Name")),
        ("Mcp-Name says cockpit", with("Mcp-Name", "cockpit")),
    ] {
        let reply = post(&server, &bad_headers, &body);
        assert_eq!(reply.status, 400, "{case}: {}", reply.text());
        let answer = reply.answer(1);
        assert_eq!(answer["error"]["code"], -32020, "{case}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap_or_default().contains("Mcp-"), "{case}: {answer}");
    }
    assert_eq!(snapshot(&store), before, "a refused request reached the store");
    assert_serving(&server);
}

#[test]
fn unknown_and_deleted_sessions_get_404() {
    let (_dir, store) = demo_store("http-session");
    let mut mcp = HttpMcp::start(&store, Era::Session, &[], &[]);
    mcp.assert_alive();
    let session = mcp.session.clone().expect("session");

    mcp.session = Some("no-such-session".to_owned());
    let reply = mcp.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
    assert_eq!(reply.status, 404, "{}", reply.text());

    let delete = mcp.server.raw(&request_bytes(
        "DELETE",
        &mcp.server.host(),
        &[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-06-18")],
        b"",
    ));
    // 200: the Python SDK accepts 200 or 204 only (it logs a failure on rmcp's 202).
    assert_eq!(delete.status, 200, "{delete:?}");
    mcp.session = Some(session);
    let reply = mcp.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}));
    assert_eq!(reply.status, 404, "after DELETE: {}", reply.text());

    // A new session works.
    let mut fresh = HttpMcp::over(mcp.server, Era::Session, Vec::new());
    fresh.assert_alive();
}

#[test]
fn a_non_loopback_bind_needs_a_token() {
    let (_dir, store) = demo_store("http-bind");
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let refused = HttpServer::try_start(&store, addr, &[], &[]).err().expect("refused");
        assert!(refused.contains("M1ND_HTTP_TOKEN") && refused.contains("not a loopback"), "{refused}");
        assert!(refused.contains("exit status: 2"), "{refused}");
    }
    let short = HttpServer::try_start(&store, "127.0.0.1:0", &[], &[("M1ND_HTTP_TOKEN", "short")]).err();
    assert!(short.is_some_and(|e| e.contains("at least 16")));
}

#[test]
fn with_a_token_every_request_needs_it() {
    let (_dir, store) = demo_store("http-token");
    let before = snapshot(&store);
    let server = HttpServer::start(&store, &[], &[("M1ND_HTTP_TOKEN", TOKEN)]);
    let (body, headers) = memorize();
    for auth in [
        None,
        Some("Bearer wrong-token-of-the-same-len".to_owned()),
        Some(format!("Basic {TOKEN}")),
        Some(format!("Bearer {TOKEN}x")),
    ] {
        let mut h = headers.clone();
        if let Some(auth) = &auth {
            h.push(("Authorization", auth.clone()));
        }
        let reply = post(&server, &h, &body);
        assert_eq!(reply.status, 401, "{auth:?}: {}", reply.text());
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    }
    assert_eq!(snapshot(&store), before);
    let mut mcp = HttpMcp::over(server, Era::Session, vec![("Authorization".into(), format!("Bearer {TOKEN}"))]);
    let wrote = mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": "with the token" }]}));
    assert!(!is_error(&wrote), "{wrote}");
}

/// The login link names a host of this server's own under `.localhost`;
/// the human's pages answer there alone. On `127.0.0.1` and `localhost`
/// (which every local server shares, cookies having no port) they say where
/// the tray lives, never set a cookie, never read one, and never spend a
/// token; `/mcp` answers on every admitted name as before.
#[test]
fn the_tray_lives_on_a_host_name_of_its_own() {
    let (_dir, store) = demo_store("http-tray-host");
    let server = HttpServer::start(&store, &[], &[]);
    let port = server.addr.port();
    let link = server.login_link();
    let rest = link.strip_prefix("http://").expect("an http link");
    let (host, path) = rest.split_at(rest.find('/').expect("a path"));
    let name = host.strip_suffix(&format!(":{port}")).expect("the bound port");
    let label = name.strip_suffix(".localhost").expect("a name under .localhost");
    let digits = label.strip_prefix("m1nd-").expect("the m1nd- prefix");
    assert!(digits.len() == 32 && digits.bytes().all(|b| b.is_ascii_hexdigit()), "{label}");
    assert!(path.starts_with("/login?token="), "{link}");

    let page = "text/html,application/xhtml+xml,*/*;q=0.8";
    for shared in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), "127.0.0.1".to_owned()] {
        for (target, accept) in [(path, page), (path, "application/json"), ("/tray", page), ("/tray/state.json", "*/*")]
        {
            let reply = server.get(&shared, target, &[("Accept", accept)]);
            assert_eq!(reply.status, 421, "{shared}{target}: {}", reply.text());
            assert!(reply.header("set-cookie").is_none(), "{shared}{target} set a cookie");
            assert!(!reply.text().contains(name), "{shared}{target} told the instance host");
            if accept == page {
                assert!(reply.text().contains(".localhost") && !reply.text().contains("<script"), "{}", reply.text());
            } else {
                let answer: Value = serde_json::from_slice(&reply.body).expect("JSON");
                assert_eq!(answer["code"], "tray_host", "{answer}");
            }
        }
    }
    // Another label under .localhost is a name this server does not answer to.
    let guess = format!("m1nd-{}.localhost:{port}", "0".repeat(32));
    assert_eq!(server.get(&guess, "/tray", &[]).status, 403);

    // The token the shared names saw is still unspent: it logs in on the instance host.
    let login = server.get(host, path, &[("Accept", page)]);
    assert_eq!(login.status, 303, "{}", login.text());
    assert_eq!(login.header("location"), Some("/tray"));
    let set = login.header("set-cookie").expect("a session cookie");
    let attributes: Vec<String> = set.split(';').map(|a| a.trim().to_ascii_lowercase()).collect();
    assert!(attributes[0].starts_with("m1nd_tray=") && attributes[0].len() == "m1nd_tray=".len() + 64, "{set}");
    for wanted in ["httponly", "samesite=strict", "path=/"] {
        assert!(attributes.iter().any(|a| a == wanted), "{set} lacks {wanted}");
    }
    assert!(!attributes.iter().any(|a| a.starts_with("domain")), "{set} is not host-only");
    let cookie = set.split(';').next().expect("name=value");
    let state = server.get(host, "/tray/state.json", &[("Cookie", cookie)]);
    assert_eq!(state.status, 200, "{}", state.text());
    let replayed = server.get(&format!("127.0.0.1:{port}"), "/tray/state.json", &[("Cookie", cookie)]);
    assert_eq!(replayed.status, 421, "the session was read on 127.0.0.1: {}", replayed.text());
    assert_eq!(server.get(host, path, &[]).status, 401, "a spent token logged in twice");
    assert!(server.login_link().starts_with(&format!("http://{host}/login?token=")), "the next link, same host");

    let (body, headers) = stateless_call("cockpit", json!({}));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(&headers);
    for mcp_host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), host.to_owned()] {
        let reply = server.raw(&request_bytes("POST", &mcp_host, &all, &body));
        assert_eq!(reply.status, 200, "/mcp on {mcp_host}: {}", reply.text());
    }
}
