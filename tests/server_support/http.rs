//! `m1nd serve --http` in a child process, and a raw HTTP/1.1 client for it.
//!
//! The client writes requests byte for byte over a `TcpStream` (one request
//! per connection, `Connection: close`), so the tests control every header,
//! can send broken requests on purpose, and read exactly what came back.
//! [`HttpMcp`] speaks MCP over it, as a session client (`initialize`, then
//! `Mcp-Session-Id`) or as a stateless 2026-07-28 client (`_meta` and the
//! standard headers on every request).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use super::BIN;

const TIMEOUT: Duration = Duration::from_secs(60);

/// The newest protocol revision: stateless, no `initialize`.
pub const STATELESS_VERSION: &str = "2026-07-28";
/// The revision the session client negotiates (the stdio suite's too).
pub const SESSION_VERSION: &str = "2025-06-18";

/// A running `m1nd serve --http 127.0.0.1:0`, killed on drop.
pub struct HttpServer {
    child: Child,
    pub addr: SocketAddr,
    /// The tray's login links, in the order the server printed them.
    links: Mutex<Receiver<String>>,
}

/// Make an imported gateway policy read-write, as a person who reviewed it
/// would (`policy import` writes `mode = "read-only"`).
pub fn read_write(policy: &Path) {
    let tools = policy.join("tools.toml");
    let text = std::fs::read_to_string(&tools).expect("read the imported tools.toml");
    assert!(text.contains("mode = \"read-only\""), "{} declares no imported mode", tools.display());
    std::fs::write(&tools, text.replacen("mode = \"read-only\"", "mode = \"read-write\"", 1))
        .expect("write tools.toml");
}

impl HttpServer {
    /// `m1nd serve --store STORE --http 127.0.0.1:0 [extra args]`.
    pub fn start(store: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::try_start(store, "127.0.0.1:0", args, env).unwrap_or_else(|e| panic!("m1nd serve --http: {e}"))
    }

    /// Start on `addr`; `Err` carries what the server printed if it exited instead.
    pub fn try_start(store: &Path, addr: &str, args: &[&str], env: &[(&str, &str)]) -> Result<HttpServer, String> {
        let mut command = Command::new(BIN);
        command.arg("serve").arg("--store").arg(store).arg("--http").arg(addr).args(args);
        command.env_remove("M1ND_READ_ONLY").env_remove("M1ND_HTTP_TOKEN");
        for (k, v) in env {
            command.env(k, v);
        }
        Self::spawn(command)
    }

    /// Run `command`: any m1nd that serves HTTP and prints its address (the
    /// gateway too), its environment as the caller set it.
    pub fn spawn(mut command: Command) -> Result<HttpServer, String> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn m1nd serve --http");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = channel();
        let (link_tx, links) = channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines();
            let mut printed = String::new();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.strip_prefix("m1nd: serving MCP on http://") {
                    let addr = rest.trim_end_matches("/mcp").to_owned();
                    let _ = tx.send(Ok(addr));
                    // Keep draining so the server never blocks on a full pipe,
                    // and keep the login links it prints.
                    for line in lines.map_while(Result::ok) {
                        if let Some(link) = login_link_in(&line) {
                            let _ = link_tx.send(link.to_owned());
                        }
                    }
                    return;
                }
                printed.push_str(&line);
                printed.push('\n');
            }
            let _ = tx.send(Err(printed));
        });
        match rx.recv_timeout(TIMEOUT) {
            Ok(Ok(addr)) => {
                Ok(HttpServer { child, addr: addr.parse().expect("printed address"), links: Mutex::new(links) })
            }
            Ok(Err(printed)) => {
                let status = child.wait().expect("wait");
                Err(format!("{status}: {printed}"))
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("no address printed within {TIMEOUT:?}"))
            }
        }
    }

    /// `m1nd policy import` of m1nd's own server on `store` into `policy`,
    /// then `m1nd gateway --http 127.0.0.1:0 [args]` in front of it.
    /// A gateway over HTTP in front of `m1nd serve` on `store`, with the
    /// policy `policy import` writes made read-write (pass `--read-only` in
    /// `args` for a read-only session).
    pub fn gateway_in_front_of(store: &Path, policy: &Path, args: &[&str]) -> HttpServer {
        let imported = Command::new(BIN)
            .args(["policy", "import", "--policy"])
            .arg(policy)
            .args(["--", BIN, "serve", "--store"])
            .arg(store)
            .env_remove("M1ND_READ_ONLY")
            .output()
            .expect("run policy import");
        assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
        read_write(policy);
        let mut gateway = Command::new(BIN);
        gateway.args(["gateway", "--policy"]).arg(policy).args(["--http", "127.0.0.1:0"]).args(args);
        gateway.args(["--", BIN, "serve", "--store"]).arg(store);
        gateway.env_remove("M1ND_READ_ONLY").env_remove("M1ND_HTTP_TOKEN");
        Self::spawn(gateway).unwrap_or_else(|e| panic!("m1nd gateway --http: {e}"))
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Send raw bytes on a fresh connection and read the whole reply.
    pub fn raw(&self, bytes: &[u8]) -> Reply {
        let mut stream = self.connect();
        stream.write_all(bytes).expect("write request");
        read_reply(&mut stream)
    }

    /// A fresh connection with read and write timeouts set.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream.set_read_timeout(Some(TIMEOUT)).expect("timeout");
        stream.set_write_timeout(Some(TIMEOUT)).expect("timeout");
        stream
    }

    /// `GET path` with `Host: host` and `headers`, on a fresh connection.
    pub fn get(&self, host: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.raw(&request_to("GET", path, host, headers, b""))
    }

    /// `POST /mcp` with the JSON and Accept headers MCP needs, plus `headers`.
    pub fn post(&self, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        all.extend_from_slice(headers);
        self.raw(&request_bytes("POST", &self.host(), &all, body))
    }

    /// The `Host` header a local client sends.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// The next login link the server printed (the first at start, then one
    /// after each login).
    pub fn login_link(&self) -> String {
        let links = self.links.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        links.recv_timeout(TIMEOUT).expect("a login link printed on stderr")
    }

    /// Log in to the tray as the person at the terminal would: open the
    /// printed link on the tray's own host name, keep the cookie, read the
    /// CSRF token off the tray page.
    pub fn login(&self) -> TraySession {
        let link = self.login_link();
        let rest = link.strip_prefix("http://").expect("an http link");
        let (host, path) = rest.split_at(rest.find('/').expect("a path after the host"));
        let host = host.to_owned();
        let reply = self.raw(&request_to("GET", path, &host, &[], b""));
        assert_eq!(reply.status, 303, "the login link: {}", reply.text());
        let set = reply.header("set-cookie").expect("a session cookie");
        let cookie = set.split(';').next().expect("name=value").trim().to_owned();
        let page = self.raw(&request_to("GET", "/tray", &host, &[("Cookie", &cookie)], b""));
        assert_eq!(page.status, 200, "the tray page: {}", page.text());
        let html = page.text();
        let marker = "<meta name=\"m1nd-csrf\" content=\"";
        let at = html.find(marker).expect("the page carries its CSRF token") + marker.len();
        let csrf = html[at..].split('"').next().expect("token").to_owned();
        TraySession { host, cookie, csrf }
    }
}

/// A tray login: the tray's host name (`m1nd-….localhost:PORT`), the
/// `Cookie` header value and the session's CSRF token.
#[derive(Clone, Debug)]
pub struct TraySession {
    pub host: String,
    pub cookie: String,
    pub csrf: String,
}

/// The login link in a line of the server's stderr: from `http://` to the
/// end of the 64 hex digits of its token.
pub fn login_link_in(line: &str) -> Option<&str> {
    let start = line.find("http://")?;
    let rest = &line[start..];
    let token = rest.find("/login?token=")? + "/login?token=".len();
    let digits = rest[token..].bytes().take_while(u8::is_ascii_hexdigit).count();
    (digits == 64).then(|| &rest[..token + digits])
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP/1.1 request to `/mcp`, byte for byte.
pub fn request_bytes(method: &str, host: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    request_to(method, "/mcp", host, headers, body)
}

/// An HTTP/1.1 request to `path`, byte for byte.
pub fn request_to(method: &str, path: &str, host: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// What the server sent back.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value (names compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The JSON-RPC messages in the body: one JSON document, or the `data:`
    /// lines of an event stream.
    pub fn messages(&self) -> Vec<Value> {
        let text = self.text();
        if self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
            return text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .filter(|data| !data.is_empty())
                .map(|data| serde_json::from_str(data).unwrap_or_else(|e| panic!("bad event data {data:?}: {e}")))
                .collect();
        }
        match serde_json::from_str(&text) {
            Ok(value) => vec![value],
            Err(_) => Vec::new(),
        }
    }

    /// The one message answering `id`.
    pub fn answer(&self, id: u64) -> Value {
        self.messages()
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no answer to id {id}: {} {}", self.status, self.text()))
    }
}

/// Read a reply to the end of the connection.
pub fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        // A reset after a complete reply is still a reply.
        assert!(!raw.is_empty(), "reading the reply: {e}");
    }
    parse_reply(&raw)
}

pub fn parse_reply(raw: &[u8]) -> Reply {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| {
        panic!("no complete reply head in {:?}", String::from_utf8_lossy(raw));
    });
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked =
        headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked { dechunk(rest) } else { rest.to_vec() };
    Reply { status, headers, body }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        rest = &rest[line_end + 2..];
        if size == 0 || rest.len() < size {
            body.extend_from_slice(&rest[..size.min(rest.len())]);
            break;
        }
        body.extend_from_slice(&rest[..size]);
        rest = rest.get(size + 2..).unwrap_or_default();
    }
    body
}

/// How an MCP client uses the HTTP transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` once, then every request carries `Mcp-Session-Id`.
    Session,
    /// 2026-07-28: no handshake; `_meta` and standard headers on every request.
    Stateless,
}

/// An MCP client over the HTTP transport.
pub struct HttpMcp {
    pub server: HttpServer,
    pub era: Era,
    pub session: Option<String>,
    next: u64,
    pub instructions: String,
    /// Extra headers sent with every request (a bearer token, say).
    pub extra: Vec<(String, String)>,
}

impl HttpMcp {
    pub fn start(store: &Path, era: Era, args: &[&str], env: &[(&str, &str)]) -> HttpMcp {
        HttpMcp::over(HttpServer::start(store, args, env), era, Vec::new())
    }

    /// A client of an already running server.
    pub fn over(server: HttpServer, era: Era, extra: Vec<(String, String)>) -> HttpMcp {
        let mut mcp = HttpMcp { server, era, session: None, next: 1, instructions: String::new(), extra };
        match era {
            Era::Session => {
                let (init, reply) = mcp.exchange(
                    "initialize",
                    json!({"protocolVersion": SESSION_VERSION, "capabilities": {}, "clientInfo": {"name": "m1nd-tests", "version": "0"}}),
                );
                assert_eq!(init["result"]["protocolVersion"], SESSION_VERSION, "{init}");
                mcp.instructions = init["result"]["instructions"].as_str().unwrap_or_default().to_owned();
                mcp.session = Some(reply.header("mcp-session-id").expect("a session id").to_owned());
                let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                let reply = mcp.send(&initialized);
                assert_eq!(reply.status, 202, "{}", reply.text());
            }
            Era::Stateless => {
                let discover = mcp.request("server/discover", json!({}));
                mcp.instructions = discover["result"]["instructions"].as_str().unwrap_or_default().to_owned();
            }
        }
        mcp
    }

    pub fn read_only(store: &Path, era: Era) -> HttpMcp {
        HttpMcp::start(store, era, &["--read-only"], &[])
    }

    pub fn writable(store: &Path, era: Era) -> HttpMcp {
        HttpMcp::start(store, era, &[], &[])
    }

    /// The headers and `_meta` this client's era puts on `message`.
    pub fn prepare(&self, message: &mut Value) -> Vec<(String, String)> {
        let mut headers = self.extra.clone();
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        match self.era {
            Era::Session => {
                if let Some(session) = &self.session {
                    headers.push(("Mcp-Session-Id".into(), session.clone()));
                    headers.push(("MCP-Protocol-Version".into(), SESSION_VERSION.into()));
                }
            }
            Era::Stateless => {
                headers.push(("MCP-Protocol-Version".into(), STATELESS_VERSION.into()));
                headers.push(("Mcp-Method".into(), method.clone()));
                if message.get("id").is_some() {
                    if !message["params"].is_object() {
                        message["params"] = json!({});
                    }
                    message["params"]["_meta"] = json!({
                        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                        "io.modelcontextprotocol/clientCapabilities": {},
                    });
                }
                if method == "tools/call"
                    && let Some(name) = message["params"]["name"].as_str()
                {
                    headers.push(("Mcp-Name".into(), header_value(name)));
                }
            }
        }
        headers
    }

    /// POST one message with this client's headers.
    pub fn send(&self, message: &Value) -> Reply {
        let mut message = message.clone();
        let headers = self.prepare(&mut message);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        self.server.post(&headers, message.to_string().as_bytes())
    }

    pub fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn exchange(&mut self, method: &str, params: Value) -> (Value, Reply) {
        let id = self.id();
        let reply = self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        (reply.answer(id), reply)
    }

    /// Send a request and return the JSON-RPC answer carrying its id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.exchange(method, params).0
    }

    /// `tools/call`; returns the `result` (panics on a JSON-RPC error).
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        answer.get("result").cloned().unwrap_or_else(|| panic!("tools/call {name}: no result: {answer}"))
    }

    /// The tools of `tools/list`.
    pub fn tools(&mut self) -> Vec<Value> {
        let answer = self.request("tools/list", json!({}));
        answer["result"]["tools"].as_array().cloned().unwrap_or_else(|| panic!("tools/list: {answer}"))
    }

    /// The server answers: `ping` in a session, `server/discover` without one.
    pub fn assert_alive(&mut self) {
        let method = if self.era == Era::Session { "ping" } else { "server/discover" };
        let answer = self.request(method, json!({}));
        assert!(answer.get("result").is_some(), "{method}: {answer}");
    }
}

/// A header value for `text`, Base64-wrapped as SEP-2243 says when plain
/// text would not survive as a header (edge whitespace, controls, non-ASCII).
pub fn header_value(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && text.chars().all(|c| (' '..='~').contains(&c));
    if plain || text.is_empty() {
        return text.to_owned();
    }
    format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text))
}
