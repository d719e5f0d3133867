//! A small MCP client over the server's stdio, plus temp stores and snapshots.
//!
//! It writes newline-delimited JSON-RPC to `m1nd serve` and matches answers
//! by id (rmcp may answer out of order). Answers without an id (parse errors)
//! are kept apart.

#![allow(dead_code)]

pub mod cases;
pub mod git;
pub mod http;
pub mod pg;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_m1nd");
const TIMEOUT: Duration = Duration::from_secs(60);

pub use tempfile::TempDir;

/// Start the binary as a client or a shell does, by its path, not as
/// `cargo run` does: without the `CARGO` variable `cargo test` passes on,
/// so the commands it suggests are spelled with that path
/// (`m1nd::invocation`). Without `M1ND_STORE` either: every test names its
/// store, and a variable set in the shell that runs the tests must not
/// move it.
pub fn as_a_client_starts_it(command: &mut Command) -> &mut Command {
    command.env_remove("CARGO").env_remove("M1ND_STORE")
}

/// A fresh directory named after the test, removed on drop.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new().prefix(&format!("m1nd-{name}-")).tempdir().expect("create temp dir")
}

/// Each test named, a `fn(&Path)` given a demo store, run twice: on a
/// SQLite store in a directory (`NAME::sqlite`) and on a PostgreSQL store
/// in a schema of its own (`NAME::postgresql`; see [`pg`]).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                let (_dir, store) = $crate::server_support::demo_store(stringify!($name));
                super::$name(&store);
            }

            #[test]
            #[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
            fn postgresql() {
                let (_schema, store) = $crate::server_support::pg::PgSchema::demo("t");
                super::$name(&store);
            }
        }
    )+};
}

/// A temp dir holding a demo store at `<dir>/store`.
pub fn demo_store(name: &str) -> (TempDir, PathBuf) {
    let dir = temp_dir(name);
    let store = dir.path().join("store");
    m1nd::store::Store::init(&store, true).expect("init demo store");
    (dir, store)
}

/// A temp dir holding a store at `<dir>/store` made from the demo seed as
/// `change` edits it, through `m1nd store import`: the way a hostile or odd
/// state reaches a real store.
pub fn edited_demo_store(name: &str, change: impl FnOnce(&mut Value)) -> (TempDir, PathBuf) {
    let dir = temp_dir(name);
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/demo.json");
    let mut state: Value = serde_json::from_slice(&std::fs::read(seed).expect("read the demo seed")).expect("seed");
    change(&mut state);
    let file = dir.path().join(m1nd::store::STATE_JSON);
    std::fs::write(&file, serde_json::to_vec_pretty(&state).expect("encode")).expect("write state");
    let store = dir.path().join("store");
    let out = Command::new(BIN).args(["store", "import"]).arg(&file).arg("--store").arg(&store).output().expect("run");
    assert!(out.status.success(), "m1nd store import: {}", String::from_utf8_lossy(&out.stderr));
    (dir, store)
}

/// Every claim stored, oldest first, read from `store`'s `state.db` with a
/// read-only connection of its own (so it sees what is durable at the path).
pub fn claims(store: &Path) -> Vec<String> {
    if let Some(url) = database(store) {
        return pg::claims(url);
    }
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = rusqlite::Connection::open_with_flags(store.join(m1nd::store::DB_FILE), flags).expect("open state.db");
    db.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
    let mut statement = db.prepare("SELECT claim FROM memories ORDER BY seq").expect("prepare");
    let rows = statement.query_map([], |row| row.get(0)).expect("query");
    rows.collect::<Result<_, _>>().expect("claims")
}

/// The store's `store_version`.
pub fn version(store: &Path) -> u64 {
    let at = match database(store) {
        Some(url) => m1nd::store::Location::from(std::ffi::OsString::from(url)),
        None => m1nd::store::Location::from(store),
    };
    m1nd::store::Store::open_at(&at).and_then(|s| s.version()).expect("store_version")
}

/// The PostgreSQL location a test passes where a store directory goes
/// (`pg::PgSchema::demo`), or `None` for a directory.
pub fn database(store: &Path) -> Option<&str> {
    store.to_str().filter(|s| s.starts_with("postgres://"))
}

/// Every file under `dir` (relative path → bytes), so any change is visible:
/// for a store, `state.db` and the journal whenever one is there.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read dir").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).expect("read file");
                out.insert(path.strip_prefix(root).expect("under root").to_owned(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    assert!(!out.is_empty(), "snapshot of an empty directory");
    out
}

/// A running `m1nd serve`, initialized.
pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    by_id: HashMap<String, Value>,
    without_id: Vec<Value>,
    next: u64,
    pub instructions: String,
    /// The whole `initialize` result.
    pub init: Value,
}

impl Mcp {
    /// `m1nd serve --store STORE [extra args]` with extra environment.
    pub fn start(store: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut command = Command::new(BIN);
        command.arg("serve").arg("--store").arg(store).args(args);
        for (k, v) in env {
            command.env(k, v);
        }
        Mcp::spawn(command)
    }

    /// Start `command` (which runs `m1nd serve`, perhaps through a wrapper
    /// that execs it) and initialize the session.
    pub fn spawn(mut command: Command) -> Mcp {
        if !command.get_envs().any(|(k, _)| k == "M1ND_READ_ONLY") {
            command.env_remove("M1ND_READ_ONLY");
        }
        as_a_client_starts_it(&mut command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn m1nd serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("server wrote non-JSON: {e}: {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            by_id: HashMap::new(),
            without_id: Vec::new(),
            next: 1,
            instructions: String::new(),
            init: Value::Null,
        };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m1nd-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        mcp.instructions = init["result"]["instructions"].as_str().unwrap_or_default().to_owned();
        mcp.init = init["result"].clone();
        mcp.send_value(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    pub fn read_only(store: &Path) -> Mcp {
        Mcp::start(store, &["--read-only"], &[])
    }

    pub fn writable(store: &Path) -> Mcp {
        Mcp::start(store, &[], &[])
    }

    /// Write one raw line (a newline is added).
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write newline");
        stdin.flush().expect("flush");
    }

    pub fn send_value(&mut self, value: &Value) {
        self.send_line(&value.to_string());
    }

    /// A fresh request id.
    pub fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Send a request and wait for the answer with its id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.id();
        self.send_value(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(&json!(id))
    }

    /// Wait for the answer carrying `id`.
    pub fn answer(&mut self, id: &Value) -> Value {
        let key = id.to_string();
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(v) = self.by_id.remove(&key) {
                return v;
            }
            self.pump(deadline).unwrap_or_else(|| panic!("no answer to id {key} within {TIMEOUT:?}"));
        }
    }

    /// The answer carrying `id`, if the server sent one before its output
    /// ended (for a server that was killed or has exited).
    pub fn try_answer(&mut self, id: &Value) -> Option<Value> {
        let key = id.to_string();
        let deadline = Instant::now() + TIMEOUT;
        while !self.by_id.contains_key(&key) && self.pump(deadline).is_some() {}
        self.by_id.remove(&key)
    }

    /// Send `tools/call` without waiting; returns the request id.
    pub fn send_call(&mut self, name: &str, arguments: Value) -> Value {
        let id = json!(self.id());
        self.send_value(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}));
        id
    }

    /// `kill -9` the server and wait for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Wait for the next answer that carries no id.
    pub fn answer_without_id(&mut self) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if !self.without_id.is_empty() {
                return self.without_id.remove(0);
            }
            self.pump(deadline).unwrap_or_else(|| panic!("no id-less answer within {TIMEOUT:?}"));
        }
    }

    fn pump(&mut self, deadline: Instant) -> Option<()> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(v) => {
                match v.get("id") {
                    Some(id) if !id.is_null() => {
                        self.by_id.insert(id.to_string(), v);
                    }
                    _ => self.without_id.push(v),
                }
                Some(())
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
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

    /// `ping` answers with an empty result: the session is alive.
    pub fn assert_alive(&mut self) {
        let answer = self.request("ping", json!({}));
        assert_eq!(answer["result"], json!({}), "{answer}");
    }

    /// Close stdin and wait for the server to exit; returns its status code.
    pub fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "server did not exit after stdin closed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The text of a tool result's first content block.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

pub fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}
