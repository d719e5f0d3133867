//! `m1nd gateway --http` checks the 2026-07-28 routing headers as `m1nd serve
//! --http` does: a request whose `Mcp-Method` or `Mcp-Name` is missing or
//! disagrees with its body (base64 forms and look-alike names included) is
//! refused with 400 before the gateway's guard runs, and never reaches the
//! upstream. A proxy that routes on the header can then trust that the
//! gateway acts on the same call.
//!
//! The upstream is m1nd itself over stdio, on a demo store whose files are
//! compared byte for byte: a refused write that reached it would change them.

mod server_support;

use std::process::Command;

use base64::Engine;
use serde_json::{Value, json};
use server_support::http::{HttpServer, STATELESS_VERSION, read_write};
use server_support::{BIN, demo_store, is_error, snapshot, temp_dir};

/// A stateless `tools/call` with the standard headers, then `edit` applied to them.
fn call(
    gateway: &HttpServer,
    name: &str,
    arguments: Value,
    edit: impl FnOnce(&mut Vec<(&'static str, String)>),
) -> (u16, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    let mut headers = vec![
        ("MCP-Protocol-Version", STATELESS_VERSION.to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", name.to_owned()),
    ];
    edit(&mut headers);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let reply = gateway.post(&headers, body.to_string().as_bytes());
    (reply.status, reply.answer(1))
}

/// A change to a request's headers.
type Edit = Box<dyn FnOnce(&mut Vec<(&'static str, String)>)>;

fn base64_header(value: &str) -> String {
    format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
}

#[test]
fn mismatched_routing_headers_are_refused_before_the_guard_and_never_reach_the_upstream() {
    let (_dir, store) = demo_store("gateway-headers");
    let policy_dir = temp_dir("gateway-headers-policy");
    let gateway = HttpServer::gateway_in_front_of(&store, &policy_dir.path().join("policy"), &[]);

    // Well-formed: answered through the upstream.
    let (status, answer) = call(&gateway, "north", json!({"task": "t"}), |_| {});
    assert_eq!(status, 200, "{answer}");
    assert!(!is_error(&answer["result"]), "{answer}");
    let before = snapshot(&store);

    let set = |name: &'static str, value: String| {
        move |h: &mut Vec<(&'static str, String)>| {
            h.retain(|(n, _)| *n != name);
            h.push((name, value));
        }
    };
    let drop_header = |name: &'static str| move |h: &mut Vec<(&'static str, String)>| h.retain(|(n, _)| *n != name);
    let write = json!({"node_label": "test", "claims": [{ "label": "planted through a mislabelled request" }], "expected_store_version": 1});
    let cases: Vec<(&str, Edit)> = vec![
        ("no Mcp-Method", Box::new(drop_header("Mcp-Method"))),
        ("Mcp-Method says tools/list", Box::new(set("Mcp-Method", "tools/list".into()))),
        ("no Mcp-Name", Box::new(drop_header("Mcp-Name"))),
        ("Mcp-Name names a read", Box::new(set("Mcp-Name", "north".into()))),
        ("Mcp-Name names a read, base64", Box::new(set("Mcp-Name", base64_header("north")))),
        ("Mcp-Name in capitals", Box::new(set("Mcp-Name", "MEMORIZE".into()))),
        ("Mcp-Name with the m1nd. prefix", Box::new(set("Mcp-Name", "m1nd.memorize".into()))),
        ("Mcp-Name with a Cyrillic o, base64", Box::new(set("Mcp-Name", base64_header("mem\u{43e}rize")))),
        ("Mcp-Name with a zero-width space, base64", Box::new(set("Mcp-Name", base64_header("memo\u{200b}rize")))),
    ];
    for (case, edit) in cases {
        let (status, answer) = call(&gateway, "memorize", write.clone(), edit);
        assert_eq!(status, 400, "{case}: {answer}");
        assert_eq!(answer["error"]["code"], -32020, "{case}: refused by the header check, not later: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("Mcp-"), "{case}: the refusal names the header: {answer}");
    }
    assert_eq!(snapshot(&store), before, "a refused request reached the upstream's store");

    // A read whose Mcp-Name names the write is refused the same way.
    let (status, answer) = call(&gateway, "north", json!({"task": "t"}), set("Mcp-Name", "memorize".into()));
    assert_eq!((status, &answer["error"]["code"]), (400, &json!(-32020)), "{answer}");

    // The gateway still serves a well-formed call; the same write, labelled
    // truly, reaches the upstream (so the byte comparison above could fail).
    let (status, answer) = call(&gateway, "north", json!({"task": "t"}), |_| {});
    assert_eq!(status, 200, "{answer}");
    assert!(!is_error(&answer["result"]), "{answer}");
    let (status, answer) = call(&gateway, "memorize", write, |_| {});
    assert_eq!(status, 200, "{answer}");
    assert!(!is_error(&answer["result"]), "{answer}");
    assert_ne!(snapshot(&store), before, "the well-formed write landed");
}

/// A recording HTTP/1.1 proxy on 127.0.0.1: every request that reaches the
/// upstream through it, head and body, one request per connection.
mod tap {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// One request as it went upstream: its headers (names lowercased) and body.
    pub struct Seen {
        pub headers: Vec<(String, String)>,
        pub body: Vec<u8>,
    }

    impl Seen {
        pub fn header(&self, name: &str) -> Option<&str> {
            self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
        }
    }

    pub type Log = Arc<Mutex<Vec<Seen>>>;

    /// Start the tap in front of `upstream`; returns its address and its log.
    pub fn start(upstream: SocketAddr) -> (SocketAddr, Log) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the tap");
        let addr = listener.local_addr().expect("addr");
        let log: Log = Arc::default();
        let kept = Arc::clone(&log);
        std::thread::spawn(move || {
            for client in listener.incoming().take(10_000).flatten() {
                let log = Arc::clone(&kept);
                std::thread::spawn(move || relay(client, upstream, &log));
            }
        });
        (addr, log)
    }

    fn relay(mut client: TcpStream, upstream: SocketAddr, log: &Log) {
        let _ = client.set_read_timeout(Some(Duration::from_secs(30)));
        let mut raw = Vec::new();
        let mut buf = [0u8; 8192];
        let head_end = loop {
            if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            match client.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) if raw.len() < 1 << 20 => raw.extend_from_slice(&buf[..n]),
                Ok(_) => return,
            }
        };
        let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize =
            headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
        let mut body = raw[head_end + 4..].to_vec();
        while body.len() < length.min(1 << 20) {
            match client.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => body.extend_from_slice(&buf[..n]),
            }
        }
        let mut forwarded = format!("{request_line}\r\n");
        for (name, value) in headers.iter().filter(|(n, _)| n != "connection") {
            forwarded.push_str(&format!("{name}: {value}\r\n"));
        }
        forwarded.push_str("connection: close\r\n\r\n");
        log.lock().expect("log").push(Seen { headers, body: body.clone() });
        let Ok(mut server) = TcpStream::connect(upstream) else { return };
        if server.write_all(forwarded.as_bytes()).and_then(|()| server.write_all(&body)).is_err() {
            return;
        }
        let _ = std::io::copy(&mut server, &mut client);
    }
}

/// The gateway's own requests to a 2026-07-28 upstream carry the routing
/// headers its bodies call for: the upstream is `m1nd serve --http`, which
/// refuses any request whose headers disagree with its body, and a tap in
/// between records what it was sent.
#[test]
fn the_gateway_sends_the_routing_headers_its_upstream_checks() {
    let (_dir, store) = demo_store("gateway-upstream-headers");
    let upstream = HttpServer::start(&store, &[], &[]);
    let (tap_addr, log) = tap::start(upstream.addr);
    let url = format!("http://{tap_addr}/mcp");
    let policy_dir = temp_dir("gateway-upstream-policy");
    let policy = policy_dir.path().join("policy");

    let imported = Command::new(BIN)
        .args(["policy", "import", "--policy"])
        .arg(&policy)
        .args(["--upstream", &url])
        .output()
        .expect("run policy import");
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    read_write(&policy); // the import is read-only and proposes denying every tool
    let mut command = Command::new(BIN);
    command.args(["gateway", "--policy"]).arg(&policy).args(["--http", "127.0.0.1:0", "--upstream", &url]);
    command.env_remove("M1ND_READ_ONLY").env_remove("M1ND_HTTP_TOKEN");
    let gateway = HttpServer::spawn(command).unwrap_or_else(|e| panic!("m1nd gateway --http: {e}"));

    for (name, args) in [("north", json!({"task": "t"})), ("cockpit", json!({}))] {
        let (status, answer) = call(&gateway, name, args, |_| {});
        assert_eq!(status, 200, "{answer}");
        assert!(!is_error(&answer["result"]), "{name} through the gateway: {answer}");
    }

    let seen = log.lock().expect("log");
    let mut stateless_calls = Vec::new();
    for request in seen.iter().filter(|r| !r.body.is_empty()) {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else { continue };
        let Some(method) = body["method"].as_str() else { continue };
        if request.header("mcp-protocol-version") != Some(STATELESS_VERSION) {
            continue;
        }
        assert_eq!(request.header("mcp-method"), Some(method), "Mcp-Method of {body}");
        if method == "tools/call" {
            let name = body["params"]["name"].as_str().expect("a tool name");
            assert_eq!(request.header("mcp-name"), Some(name), "Mcp-Name of {body}");
            stateless_calls.push(name.to_owned());
        }
    }
    assert!(
        stateless_calls.iter().any(|n| n == "north") && stateless_calls.iter().any(|n| n == "cockpit"),
        "the gateway's calls went upstream as 2026-07-28 requests: {stateless_calls:?}"
    );
}
