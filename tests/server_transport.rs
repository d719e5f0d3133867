//! The stdio transport under a peer that misbehaves: pipelined requests that
//! share an id, floods of junk lines, and a client that leaves while a call
//! is stuck. Each test talks raw newline-delimited JSON-RPC, so that every
//! line the server writes is seen, duplicates included.

mod server_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server_support::{BIN, demo_store};

use m1nd::transport::stdio::{ERROR_BURST, ERRORS_PER_SECOND};

struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Raw {
    fn start(store: &std::path::Path) -> Raw {
        let mut child = Command::new(BIN)
            .args(["serve", "--store"])
            .arg(store)
            .env_remove("M1ND_READ_ONLY")
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
                let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("non-JSON {e}: {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut raw = Raw { stdin: child.stdin.take(), child, lines };
        raw.write(&[json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string()]);
        let init = raw.next(Duration::from_secs(30)).expect("initialize answered");
        assert_eq!(init["id"], 0, "{init}");
        raw.write(&[json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()]);
        raw
    }

    /// Write `lines` in one go, as a pipelining client does.
    fn write(&mut self, lines: &[String]) {
        let mut bytes = Vec::new();
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&bytes).expect("write");
        stdin.flush().expect("flush");
    }

    fn next(&self, wait: Duration) -> Option<Value> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Everything written until `done` says so (or `wait` passes).
    fn collect_until(&self, wait: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while !done(&seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) => seen.push(v),
                Err(_) => break,
            }
        }
        seen
    }

    /// Close stdin; the seconds until the process exits (panics after `limit`).
    fn close_and_wait(&mut self, limit: Duration) -> f64 {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if self.child.try_wait().expect("wait").is_some() {
                return start.elapsed().as_secs_f64();
            }
            assert!(start.elapsed() < limit, "the server did not exit within {limit:?} of stdin closing");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

fn store_version(answer: &Value) -> u64 {
    answer["result"]["structuredContent"]["store_version"]
        .as_u64()
        .unwrap_or_else(|| panic!("no store_version: {answer}"))
}

/// rmcp keeps one answer slot per id: without the transport's check, every
/// write of a pipelined batch sharing an id commits and only one is answered.
/// Now each line gets exactly one answer, and the store moved exactly once per
/// answer that says it wrote.
#[test]
fn pipelined_requests_sharing_an_id_each_get_one_answer_and_nothing_commits_unanswered() {
    let (_dir, store) = demo_store("transport-dup-ids");
    let mut raw = Raw::start(&store);
    raw.write(&[call(1, "north", json!({"task": "t"}))]);
    let before = store_version(&raw.next(Duration::from_secs(30)).expect("north answered"));

    let lines: Vec<String> = (0..4)
        .map(|k| call(7, "memorize", json!({"node_label": "test", "claims": [{ "label": format!("claim {k}") }]})))
        .collect();
    raw.write(&lines);
    let answers = raw.collect_until(Duration::from_secs(10), |seen| seen.len() == lines.len());
    assert_eq!(answers.len(), lines.len(), "one answer per line: {answers:?}");
    assert!(answers.iter().all(|a| a["id"] == 7), "{answers:?}");
    let wrote = answers.iter().filter(|a| a["result"]["structuredContent"]["memorized"] == true).count();
    let refused: Vec<&Value> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(wrote + refused.len(), lines.len(), "{answers:?}");
    assert!(wrote >= 1, "{answers:?}");
    for error in &refused {
        assert_eq!(error["error"]["code"], -32600, "{error}");
        let message = error["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("request id 7 is already in flight"), "{message}");
    }

    raw.write(&[call(8, "north", json!({"task": "t"}))]);
    let after = store_version(&raw.next(Duration::from_secs(30)).expect("north answered"));
    assert_eq!(after - before, wrote as u64, "the store moved once per answered write, and no more");
    // The id is free again once answered.
    raw.write(&[call(7, "north", json!({"task": "t"}))]);
    assert_eq!(raw.next(Duration::from_secs(30)).expect("answered")["id"], 7);
}

/// 20,000 junk lines: every one is answered or counted, the answers stay
/// within the bucket, and the session still serves right after.
#[test]
fn a_flood_of_junk_is_answered_within_the_bucket_and_summarised() {
    let (_dir, store) = demo_store("transport-flood");
    let mut raw = Raw::start(&store);
    const JUNK: u64 = 20_000;
    let start = Instant::now();
    let mut lines: Vec<String> = (0..JUNK).map(|k| format!("{{junk {k}")).collect();
    lines.push(json!({"jsonrpc": "2.0", "id": 99, "method": "ping"}).to_string());
    raw.write(&lines);
    let mut seen = raw.collect_until(Duration::from_secs(60), |seen| seen.iter().any(|v| v["id"] == 99));
    let elapsed = start.elapsed().as_secs_f64();
    assert!(seen.iter().any(|v| v["id"] == 99 && v["result"] == json!({})), "the ping after the flood was answered");
    raw.close_and_wait(Duration::from_secs(30));
    while let Some(v) = raw.next(Duration::from_millis(200)) {
        seen.push(v);
    }

    let errors: Vec<&Value> = seen.iter().filter(|v| v.get("error").is_some()).collect();
    let summaries: Vec<u64> = errors
        .iter()
        .filter_map(|v| v["error"]["message"].as_str())
        .filter_map(|m| m.split_once(" more bad lines were not answered").map(|(n, _)| n.parse::<u64>().expect(m)))
        .collect();
    let answered = (errors.len() - summaries.len()) as u64;
    assert!(!summaries.is_empty(), "the unanswered lines were summarised");
    assert_eq!(answered + summaries.iter().sum::<u64>(), JUNK, "every junk line was answered or counted");
    let allowed = ERROR_BURST as u64 + (f64::from(ERRORS_PER_SECOND) * (elapsed + 1.0)) as u64;
    assert!(
        (errors.len() as u64) <= allowed,
        "{} error answers in {elapsed:.2}s; the bucket allows {allowed}",
        errors.len()
    );
    // Each junk line is a parse error; a summary is an invalid request without an id.
    for error in errors {
        let summary = error["error"]["message"].as_str().is_some_and(|m| m.contains("more bad lines"));
        assert_eq!(error["error"]["code"], if summary { -32600 } else { -32700 }, "{error}");
    }
}

/// A store file that is a FIFO nobody writes must neither hang a call nor
/// keep the server alive once the client has gone.
#[cfg(unix)]
#[test]
fn serve_exits_when_stdin_closes_even_while_a_call_is_stuck() {
    // The store is checked at start, so the FIFO takes its place once the session is up.
    let (_dir, store) = demo_store("transport-fifo");
    let mut raw = Raw::start(&store);
    let fifo = store.join(m1nd::store::DB_FILE);
    std::fs::remove_file(&fifo).expect("remove the store's file");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    raw.write(&[call(1, "north", json!({"task": "t"}))]);
    // Whether or not the call ever answers, the session ends with stdin.
    let _ = raw.next(Duration::from_millis(500));
    let seconds = raw.close_and_wait(Duration::from_secs(20));
    assert!(seconds < 20.0);
}

/// Far more pipelined requests than the window holds: every one is answered.
#[test]
fn a_pipelined_backlog_past_the_window_is_answered_in_full() {
    let (_dir, store) = demo_store("transport-window");
    let mut raw = Raw::start(&store);
    let n = 2_000u64;
    let mut lines: Vec<String> =
        (1..=n).map(|k| json!({"jsonrpc": "2.0", "id": k, "method": "ping"}).to_string()).collect();
    lines.push(call(n + 1, "north", json!({"task": "t"})));
    raw.write(&lines);
    let answers = raw.collect_until(Duration::from_secs(60), |seen| seen.len() as u64 == n + 1);
    assert_eq!(answers.len() as u64, n + 1);
    let mut ids: Vec<u64> = answers.iter().map(|a| a["id"].as_u64().expect("id")).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=n + 1).collect::<Vec<_>>());
    assert!(answers.iter().all(|a| a.get("error").is_none()), "no request refused");
    raw.close_and_wait(Duration::from_secs(30));
}

/// Errors say what is wrong, under the request's id, and repeat nothing that
/// could forge a line, drive a terminal or hide text.
#[test]
fn errors_are_accurate_carry_the_id_and_echo_nothing_raw() {
    let (_dir, store) = demo_store("transport-errors");
    let mut raw = Raw::start(&store);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{{"name":"north","arguments":{{"x":{}0{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let huge = r#"{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"north","arguments":{"x":1e400}}}"#;
    let forged = "north\r\nerror: forged\u{1b}[2J\u{202e}\u{e0041}";
    raw.write(&[deep, huge.to_owned(), call(23, forged, json!({"action": "x\r\ny\u{1b}]0;t\u{7}"}))]);
    let answers = raw.collect_until(Duration::from_secs(30), |seen| seen.len() == 3);
    let by_id =
        |id: u64| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {answers:?}"));
    assert_eq!(by_id(21)["error"]["code"], -32600);
    assert!(by_id(21)["error"]["message"].as_str().unwrap_or("").contains("more than 128 deep"), "{}", by_id(21));
    assert_eq!(by_id(22)["error"]["code"], -32600);
    assert!(by_id(22)["error"]["message"].as_str().unwrap_or("").contains("64-bit float"), "{}", by_id(22));
    let refusal = by_id(23)["result"]["content"][0]["text"].as_str().expect("a tool error").to_owned();
    assert!(refusal.contains("north error: forged"), "{refusal:?}");
    let hidden =
        |c: char| c.is_control() || ('\u{200B}'..='\u{206F}').contains(&c) || ('\u{E0000}'..='\u{E0FFF}').contains(&c);
    assert!(!refusal.chars().any(hidden), "{refusal:?}");
}
