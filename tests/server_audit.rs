//! `m1nd serve --audit FILE`: every `tools/call` decision is a line in the
//! file before the call runs, on stdio (the fast path included) and over
//! HTTP; a call whose line cannot be written is refused and changes nothing;
//! an audit file that cannot be opened stops the server. These tests try to
//! break exactly that.

mod server_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use m1nd::COCKPIT;
use m1nd::service::dispatch;
use serde_json::{Value, json};
use server_support::http::{Era, HttpMcp};
use server_support::{Mcp, TempDir, claims, demo_store, is_error, snapshot, text};

/// A demo store and the audit file beside it (not yet created).
fn store_and_audit(name: &str) -> (TempDir, PathBuf, PathBuf) {
    let (dir, store) = demo_store(name);
    let audit = dir.path().join("audit.jsonl");
    (dir, store, audit)
}

/// `m1nd serve --store STORE --audit AUDIT [args]` on stdio.
fn serve(store: &Path, audit: &Path, args: &[&str]) -> Mcp {
    let audit = audit.to_str().expect("a UTF-8 temp path");
    Mcp::start(store, &[&["--audit", audit], args].concat(), &[])
}

/// Every line of the audit file, each one JSON object.
fn lines(audit: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(audit).expect("read the audit file");
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {e}: {l}"))).collect()
}

/// A served verb that writes and that a read-only session is denied outright.
fn denied_write() -> &'static str {
    dispatch::registry()
        .find(|(name, handler)| handler.writes() && COCKPIT.deny.denies(name))
        .map(|(name, _)| name)
        .expect("a served write on the deny list")
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn is_utc_second(time: &str) -> bool {
    let digits = [0..4, 5..7, 8..10, 11..13, 14..16, 17..19];
    time.len() == 20
        && time.ends_with('Z')
        && digits.into_iter().all(|r| time[r].bytes().all(|b| b.is_ascii_digit()))
        && [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')].iter().all(|&(i, c)| time.as_bytes()[i] == c)
}

#[test]
fn a_read_and_a_write_are_admitted_then_answered_with_every_field() {
    let (_dir, store, audit) = store_and_audit("audit-fields");
    let write = denied_write();
    let mut mcp = serve(&store, &audit, &[]);
    let policy = mcp.init["_meta"]["io.m1nd/attestation"]["policy"].clone();
    assert_eq!(policy, json!(&*COCKPIT.digest), "the attested digest is the compiled one");
    let read = mcp.call("Cockpit", json!({"agent_id": "tester"}));
    assert!(!is_error(&read), "{read}");
    let spelling = format!("m1nd.{}", write.to_uppercase());
    let wrote =
        mcp.call(&spelling, json!({"node_label": "test", "claims": [{ "label": "the audit sees this write" }]}));
    assert!(!is_error(&wrote), "{wrote}");
    assert_eq!(mcp.finish(), Some(0));

    let lines = lines(&audit);
    let decisions: Vec<&Value> = lines.iter().map(|l| &l["decision"]).collect();
    assert_eq!(decisions, ["admitted", "answered", "admitted", "answered"], "{lines:#?}");
    for (line, (name, verb)) in
        lines.iter().zip([("Cockpit", "cockpit"), (spelling.as_str(), write)].iter().flat_map(|p| [p, p]))
    {
        assert_eq!(line["name"], *name, "the client's spelling: {line}");
        assert_eq!(line["verb"], *verb, "the resolved verb: {line}");
        assert_eq!(line["session"], "stdio", "{line}");
        assert_eq!(line["policy"], policy, "{line}");
        assert!(is_utc_second(line["time"].as_str().unwrap_or_default()), "{line}");
        assert!(line.get("arguments").is_none() && line.get("code").is_none(), "{line}");
    }
    for answered in [&lines[1], &lines[3]] {
        assert!(answered["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{answered}");
        assert_eq!(answered["is_error"], false, "{answered}");
    }
    for admitted in [&lines[0], &lines[2]] {
        assert!(admitted.get("latency_ms").is_none() && admitted.get("is_error").is_none(), "{admitted}");
    }
    let written = std::fs::read_to_string(&audit).expect("read");
    assert!(!written.contains("tester") && !written.contains("sees this write"), "no value without asking: {written}");
}

#[test]
fn refused_calls_get_refused_lines_with_their_code_and_never_an_admitted_one() {
    let (_dir, store, audit) = store_and_audit("audit-refused");
    let write = denied_write();
    let human = &*COCKPIT.human_only.verbs[0];
    let before = claims(&store);
    let mut read_only = serve(&store, &audit, &["--read-only"]);
    for (name, arguments) in [
        ("cockpitt", json!({})),
        (write, json!({"node_label": "test", "claims": [{ "label": "must not land" }]})),
        (human, json!({})),
        ("cockpit", json!({"api_key": "x"})),
    ] {
        let refused = read_only.call(name, arguments);
        assert!(is_error(&refused), "{name}: {refused}");
    }
    assert_eq!(read_only.finish(), Some(0));
    assert_eq!(claims(&store), before, "a refused write changed nothing");

    let lines = lines(&audit);
    let codes: Vec<(&Value, &Value, &Value)> =
        lines.iter().map(|l| (&l["decision"], &l["code"], l.get("verb").unwrap_or(&Value::Null))).collect();
    assert_eq!(
        codes,
        [
            (&json!("refused"), &json!("unknown"), &Value::Null),
            (&json!("refused"), &json!("read-only-denied"), &Value::Null),
            (&json!("refused"), &json!("M013"), &Value::Null),
            (&json!("refused"), &json!("undeclared-argument"), &json!("cockpit")),
        ],
        "{lines:#?}"
    );
    let reasons: Vec<&str> = lines.iter().map(|l| l["reason"].as_str().unwrap_or_default()).collect();
    assert!(reasons[0].contains("did you mean `cockpit`"), "{}", reasons[0]);
    assert!(reasons[1].contains(write) && reasons[1].contains("read-only"), "{}", reasons[1]);
    assert!(reasons[2].contains(human), "{}", reasons[2]);
    assert!(reasons[3].contains("api_key"), "{}", reasons[3]);
    assert!(lines.iter().all(|l| l.get("latency_ms").is_none()), "{lines:#?}");
}

#[test]
fn an_audit_file_that_takes_no_line_refuses_every_call_and_the_store_is_byte_identical() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: this system has no /dev/full");
        return;
    }
    let (dir, store, audit) = store_and_audit("audit-full");
    let write = denied_write();
    let before = snapshot(&store);
    let mut mcp = serve(&store, full, &[]);
    let wrote = mcp.call(write, json!({"node_label": "test", "claims": [{ "label": "must not land" }]}));
    assert!(is_error(&wrote), "{wrote}");
    let told = text(&wrote);
    for words in ["/dev/full", "audit trail", "did not run", "nothing changed", write] {
        assert!(told.contains(words), "{words:?} missing from: {told}");
    }
    let read = mcp.call("cockpit", json!({}));
    assert!(is_error(&read) && text(&read).contains("/dev/full"), "{read}");
    let unknown = mcp.call("cockpitt", json!({}));
    assert!(is_error(&unknown), "{unknown}");
    assert!(text(&unknown).contains("could not be recorded") && text(&unknown).contains("unknown tool"), "{unknown}");
    assert_eq!(mcp.finish(), Some(0));
    assert!(snapshot(&store) == before, "the store's files changed although no call could be recorded");

    // The same write with an audit file that takes lines does change the
    // files: the comparison above can see a write.
    let mut recorded = serve(&store, &audit, &[]);
    assert!(!is_error(&recorded.call(write, json!({"node_label": "test", "claims": [{ "label": "lands" }]}))));
    assert_eq!(recorded.finish(), Some(0));
    assert!(snapshot(&store) != before, "a write changed no file under {}", dir.path().display());
}

#[test]
fn an_audit_file_that_cannot_be_opened_stops_serve_at_start() {
    let (dir, store, _) = store_and_audit("audit-unopenable");
    let missing = dir.path().join("no-such-dir").join("audit.jsonl");
    for transport in [&[][..], &["--http", "127.0.0.1:0"][..]] {
        let out = Command::new(server_support::BIN)
            .arg("serve")
            .arg("--store")
            .arg(&store)
            .arg("--audit")
            .arg(&missing)
            .args(transport)
            .env_remove("M1ND_READ_ONLY")
            .stdin(Stdio::null())
            .output()
            .expect("run m1nd serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{transport:?}: {stderr}");
        assert!(stderr.contains(&missing.display().to_string()), "names the file: {stderr}");
        assert!(stderr.contains("does not start without its audit trail"), "says why: {stderr}");
        assert!(stderr.contains("a directory that exists"), "says what to do: {stderr}");
        assert!(out.stdout.is_empty(), "served nothing: {}", String::from_utf8_lossy(&out.stdout));
    }
    assert!(!missing.parent().expect("parent").exists());
}

#[test]
fn arguments_are_omitted_hashed_or_plain_and_a_refusal_echoing_one_follows_suit() {
    let arguments = json!({"agent_id": "s3cret-agent"});
    let status_only = json!({"action": "s3cret-action"});
    let modes: [(&[&str], &str); 3] =
        [(&[], "omitted"), (&["--audit-arguments"], "hashed"), (&["--audit-arguments", "plain"], "plain")];
    for (flags, mode) in modes {
        let (_dir, store, audit) = store_and_audit(&format!("audit-args-{mode}"));
        let mut mcp = serve(&store, &audit, &[&["--read-only"], flags].concat());
        assert!(!is_error(&mcp.call("cockpit", arguments.clone())), "{mode}");
        assert!(is_error(&mcp.call("persist", status_only.clone())), "{mode}: status-only refuses");
        assert_eq!(mcp.finish(), Some(0));
        let lines = lines(&audit);
        let written = std::fs::read_to_string(&audit).expect("read");
        assert_eq!(lines.len(), 3, "{mode}: {lines:#?}");
        let refused = &lines[2];
        assert_eq!((&refused["decision"], &refused["code"]), (&json!("refused"), &json!("status-only")));
        match mode {
            "omitted" | "hashed" => {
                assert!(!written.contains("s3cret"), "{mode}: {written}");
                assert!(refused.get("reason").is_none(), "{mode}: the refusal echoes the value: {refused}");
            }
            _ => assert_eq!(refused["reason"].as_str().map(|r| r.contains("s3cret-action")), Some(true), "{refused}"),
        }
        for (line, sent) in lines.iter().zip([&arguments, &arguments, &status_only]) {
            let expected = match mode {
                "omitted" => None,
                "hashed" => Some(json!(format!("blake3:{}", blake3::hash(sent.to_string().as_bytes()).to_hex()))),
                _ => Some(sent.clone()),
            };
            assert_eq!(line.get("arguments").cloned(), expected, "{mode}: {line}");
        }
    }
}

#[test]
fn over_http_a_session_is_written_as_a_digest_never_its_id() {
    let (_dir, store, audit) = store_and_audit("audit-http");
    let path = audit.to_str().expect("a UTF-8 temp path");
    let mut session = HttpMcp::start(&store, Era::Session, &["--audit", path], &[]);
    assert!(!is_error(&session.call("cockpit", json!({}))));
    assert!(is_error(&session.call("cockpitt", json!({}))));
    let id = session.session.clone().expect("a session id");
    let mut stateless = HttpMcp::over(
        server_support::http::HttpServer::start(&store, &["--audit", path], &[]),
        Era::Stateless,
        Vec::new(),
    );
    assert!(!is_error(&stateless.call("cockpit", json!({}))));
    drop((session, stateless));

    let written = std::fs::read_to_string(&audit).expect("read");
    assert!(!written.contains(&id), "the raw session id is in the audit file: {written}");
    let lines = lines(&audit);
    let sessions: Vec<&str> = lines.iter().map(|l| l["session"].as_str().unwrap_or_default()).collect();
    let digest = format!("http:{}", &blake3::hash(id.as_bytes()).to_hex()[..16]);
    assert_eq!(sessions, [digest.as_str(), &digest, &digest, "http", "http"], "{lines:#?}");
    let decisions: Vec<&Value> = lines.iter().map(|l| &l["decision"]).collect();
    assert_eq!(decisions, ["admitted", "answered", "refused", "admitted", "answered"], "{lines:#?}");
}
