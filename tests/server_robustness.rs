//! Bad input over stdio: each gets an error, and the next request still works.

mod server_support;

use serde_json::{Value, json};
use server_support::{Mcp, demo_store, is_error, snapshot, text};

const TEN_MB: usize = 10 * 1024 * 1024;

/// A valid cockpit call after the bad one: the session still serves.
fn still_serves(mcp: &mut Mcp) {
    let result = mcp.call("cockpit", json!({}));
    assert!(!is_error(&result), "{result}");
    assert!(text(&result).contains("waiting"), "{}", text(&result));
    mcp.assert_alive();
}

#[test]
fn malformed_lines_get_a_parse_error_and_the_session_goes_on() {
    let (_dir, store) = demo_store("robust-malformed");
    let mut mcp = Mcp::writable(&store);
    for line in ["{not json", "{\"jsonrpc\":\"2.0\",\"id\":", "\u{1}\u{2}", "]]]"] {
        mcp.send_line(line);
        let answer = mcp.answer_without_id();
        assert_eq!(answer["error"]["code"], -32700, "{line:?}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap_or_default().contains("not JSON"), "{answer}");
        still_serves(&mut mcp);
    }
    // JSON, but not a message.
    for line in ["42", "[1, 2]", "{\"hello\": \"world\"}"] {
        mcp.send_line(line);
        let answer = mcp.answer_without_id();
        assert_eq!(answer["error"]["code"], -32600, "{line:?}: {answer}");
        still_serves(&mut mcp);
    }
    // A request of the wrong shape is answered under its own id.
    for params in [json!(5), json!({"name": 5}), json!({"name": "cockpit", "arguments": "select=2"})] {
        let id = mcp.id();
        mcp.send_value(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        let answer = mcp.answer(&json!(id));
        let code = answer["error"]["code"].as_i64();
        assert!(matches!(code, Some(-32600 | -32602)), "{params}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("tools/call"), "{answer}");
        still_serves(&mut mcp);
    }
    assert_eq!(mcp.finish(), Some(0));
}

#[test]
fn unknown_methods_are_method_not_found() {
    let (_dir, store) = demo_store("robust-method");
    let mut mcp = Mcp::writable(&store);
    for method in ["foo/bar", "tools/delete", "prompts/list", "resources/subscribe", &"x".repeat(10_000)] {
        let answer = mcp.request(method, json!({}));
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.len() < 300, "{} bytes", message.len());
        still_serves(&mut mcp);
    }
    // An unknown notification is ignored, not answered.
    mcp.send_value(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    still_serves(&mut mcp);
}

#[test]
fn wrong_argument_types_name_the_argument_and_the_type() {
    let (_dir, store) = demo_store("robust-types");
    let before = snapshot(&store);
    let mut mcp = Mcp::writable(&store);
    let cases = [
        ("cockpit", json!({"select": 2.1}), "argument `select` of `cockpit` must be a reference"),
        ("cockpit", json!({"select": 2.1}), "got the number 2.1. Pass the human's reference as `select`"),
        ("cockpit", json!({"select": -2}), "got the integer -2, and a reference is never negative"),
        ("cockpit", json!({"select": ["2"]}), "got an array of 1 item"),
        (
            "cockpit",
            json!({"seen_store_version": "1"}),
            "`seen_store_version` of `cockpit` must be an integer, got the string \"1\"",
        ),
        ("cockpit", json!({"seen_store_version": 1.5}), "must be an integer, got the number 1.5"),
        (
            "cockpit",
            json!({"agent_id": {"name": "a"}}),
            "`agent_id` of `cockpit` must be a short printable string, got an object with 1 key",
        ),
        ("cockpit", json!({"verb": "memorize"}), "`cockpit` has no argument `verb`"),
        (
            "memorize",
            json!({"node_label": "test", "claims": [{ "label": "x" }], "agent_id": "a\u{1b}[2Jb"}),
            "`agent_id` of `memorize` must be a short",
        ),
        ("north", json!({"agent_id": ""}), "`agent_id` of `north` must be a short printable string of 1 to 64"),
        ("memorize", json!({"node_label": "test", "claims": [{ "label": true }]}), "argument `claims` of `memorize`"),
        ("memorize", json!({"node_label": "test", "claims": [{ "text": "t" }]}), "argument `claims` of `memorize`"),
        ("memorize", json!({"node_label": "test"}), "`memorize` requires the argument `claims`"),
        ("memorize", json!({}), "`memorize` requires the argument `node_label`"),
        (
            "memorize",
            json!({"node_label": "test", "claims": [{ "label": "x" }], "expected_store_version": "1"}),
            "must be a non-negative integer",
        ),
        (
            "persist",
            json!({"action": 1}),
            "`action` of `persist` must be one of \"save\", \"load\", \"checkpoint\", \"status\"",
        ),
        ("persist", json!({"action": "explode"}), "`action` of `persist` must be one of"),
        ("impact", json!({}), "`impact` requires the argument `node_id`"),
        ("impact", json!({"node_id": 7}), "`node_id` of `impact` must be a string"),
        ("impact", json!({"node": "crates/graph"}), "`impact` has no argument `node`; it takes node_id, "),
        ("north", json!({"task": "t", "x": 1}), "`north` has no argument `x`; it takes task, "),
        ("north", json!({}), "`north` requires the argument `task`"),
        ("persist", json!({}), "`persist` requires the argument `action`"),
        ("cockpit", json!({"select": "1.2.3.4"}), "valid forms"),
        ("cockpit", json!({"select": "zz"}), "valid forms"),
        ("cockpit", json!({"select": "99"}), "there is no slot 99"),
    ];
    for (verb, args, expected) in cases {
        let result = mcp.call(verb, args.clone());
        assert!(is_error(&result), "{verb} {args}: {result}");
        assert!(text(&result).contains(expected), "{verb} {args}: {}", text(&result));
        still_serves(&mut mcp);
    }
    assert_eq!(mcp.finish(), Some(0));
    assert_eq!(snapshot(&store), before);
}

/// A reference sent as a JSON integer is answered exactly as its decimal
/// string is, at every level a bare number reaches.
#[test]
fn an_integer_select_is_answered_as_its_decimal_string() {
    let (_dir, store) = demo_store("robust-integer-select");
    let before = snapshot(&store);
    let mut mcp = Mcp::writable(&store);
    for n in [0, 2, 3, 99] {
        let as_integer = mcp.call("cockpit", json!({ "select": n }));
        let as_string = mcp.call("cockpit", json!({ "select": n.to_string() }));
        assert_eq!(as_integer, as_string, "select {n}");
    }
    assert!(!is_error(&mcp.call("cockpit", json!({ "select": 3 }))));
    assert_eq!(mcp.finish(), Some(0));
    assert_eq!(snapshot(&store), before);
}

#[test]
fn ten_megabyte_arguments_are_refused_clearly() {
    let (_dir, store) = demo_store("robust-huge");
    let before = snapshot(&store);
    let huge = "x".repeat(TEN_MB);
    for read_only in [false, true] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        let cases: [(&str, Value, &str); 5] = [
            ("cockpit", json!({"select": huge}), "argument `select` of `cockpit` is 10485760 bytes"),
            ("impact", json!({"node_id": huge}), "argument `node_id` of `impact` is 10485760 bytes"),
            (
                "memorize",
                json!({"node_label": huge, "claims": [{ "label": "x" }]}),
                if read_only {
                    "read_only_denied.toml"
                } else {
                    "argument `node_label` of `memorize` is 10485760 bytes"
                },
            ),
            (
                "persist",
                json!({"action": huge}),
                if read_only { "status-only" } else { "argument `action` of `persist` is 10485760 bytes" },
            ),
            (&huge, json!({}), "the name is 10485760 bytes long"),
        ];
        for (verb, args, expected) in cases {
            let result = mcp.call(verb, args);
            assert!(is_error(&result), "{result:.300}");
            let message = text(&result);
            assert!(message.contains(expected), "{message:.300}");
            assert!(message.len() < 1_000, "the error echoes the argument: {} bytes", message.len());
            still_serves(&mut mcp);
        }
        // A line over the transport's limit is skipped with an error.
        mcp.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":999999,"method":"tools/call","params":{{"name":"cockpit","arguments":{{"select":"{}"}}}}}}"#,
            "y".repeat(17 * 1024 * 1024)
        ));
        let answer = mcp.answer_without_id();
        assert_eq!(answer["error"]["code"], -32600, "{answer:.300}");
        still_serves(&mut mcp);
        assert_eq!(mcp.finish(), Some(0));
    }
    assert_eq!(snapshot(&store), before);
}

#[test]
fn unknown_verbs_are_tool_errors_and_the_session_goes_on() {
    let (_dir, store) = demo_store("robust-unknown");
    let mut mcp = Mcp::writable(&store);
    for name in ["nope", "m1nd.nope", "cockpit2", "drop_database", "\u{0}", "cockpit\u{200b}"] {
        let result = mcp.call(name, json!({}));
        assert!(is_error(&result), "{name:?}: {result}");
        assert!(text(&result).contains("unknown tool") || text(&result).contains("look-alike"), "{}", text(&result));
        still_serves(&mut mcp);
    }
}

#[test]
fn a_missing_store_is_refused_at_start_naming_the_command_that_creates_it() {
    let dir = server_support::temp_dir("robust-missing");
    let store = dir.path().join("nowhere");
    let mut command = std::process::Command::new(server_support::BIN);
    command.args(["serve", "--read-only", "--store"]).arg(&store);
    let out = server_support::as_a_client_starts_it(&mut command)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run m1nd serve");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(out.stdout.is_empty(), "it answered before refusing: {}", String::from_utf8_lossy(&out.stdout));
    assert!(said.contains(&format!("no m1nd store at {}", store.join("state.db").display())), "{said}");
    assert!(said.contains(&format!("init --store {}", store.display())), "the advice spells --store: {said}");
    assert!(!store.exists(), "a refused start created a store");
}

#[test]
fn a_store_path_that_is_a_file_is_refused_at_start() {
    let dir = server_support::temp_dir("robust-file");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a store").expect("write");
    for argv in [&["serve", "--store"][..], &["serve", "--http", "127.0.0.1:0", "--store"], &["cockpit", "--store"]] {
        let mut command = std::process::Command::new(server_support::BIN);
        command.args(argv).arg(&file);
        let out = server_support::as_a_client_starts_it(&mut command)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run m1nd");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {said}");
        assert!(said.contains("is a file, not a directory") && said.contains("init --store NEW_DIR"), "{said}");
        assert_eq!(std::fs::read(&file).expect("read"), b"not a store", "the file was touched");
    }
}
