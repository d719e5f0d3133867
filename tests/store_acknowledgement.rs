//! What a client can rely on when a write's answer is lost (see "What an
//! answer means" in `src/store/writes.rs`): the write landed once or not at
//! all, and retrying it with the `expected_store_version` it was based on
//! is always safe: it lands if the first did not, and is refused as a
//! conflict if the first did. Never twice. Each case runs on a SQLite store
//! and on a PostgreSQL one.

mod server_support;

use std::path::Path;

use serde_json::{Value, json};
use server_support::{Mcp, claims, is_error, text, version};

/// The retry a client makes when it does not know whether `claim` landed.
fn retry(store: &Path, claim: &str, based_on: u64) -> Value {
    let mut mcp = Mcp::writable(store);
    let result = mcp.call(
        "memorize",
        json!({ "node_label": "test", "claims": [{ "label": claim }], "expected_store_version": based_on }),
    );
    assert_eq!(mcp.finish(), Some(0));
    result
}

/// After the retry: the claim is stored exactly once, the version moved by
/// one, and the retry's answer says which of the two happened.
fn landed_once(store: &Path, claim: &str, based_on: u64, retried: &Value) {
    let stored = claims(store).iter().filter(|c| *c == claim).count();
    assert_eq!(stored, 1, "`{claim}` is stored {stored} times");
    assert_eq!(version(store), based_on + 1);
    if is_error(retried) {
        let message = text(retried);
        assert!(message.contains(&format!("expected store_version {based_on}")), "{message}");
        assert!(message.contains(&format!("at {}", based_on + 1)), "{message}");
    } else {
        assert_eq!(retried["structuredContent"]["store_version"], based_on + 1, "{retried}");
    }
}

fn a_cancelled_write_retried_with_its_version_lands_once(store: &Path) {
    let based_on = version(store);
    let claim = "sent, then cancelled";
    let mut mcp = Mcp::writable(store);
    let id = mcp.send_call(
        "memorize",
        json!({ "node_label": "test", "claims": [{ "label": claim }], "expected_store_version": based_on }),
    );
    mcp.send_value(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": "the user changed their mind" }
    }));
    mcp.assert_alive();
    assert_eq!(mcp.finish(), Some(0));
    landed_once(store, claim, based_on, &retry(store, claim, based_on));
}

fn a_write_whose_client_died_retried_with_its_version_lands_once(store: &Path) {
    let based_on = version(store);
    let claim = "sent by a client that died";
    let mut mcp = Mcp::writable(store);
    mcp.send_call(
        "memorize",
        json!({ "node_label": "test", "claims": [{ "label": claim }], "expected_store_version": based_on }),
    );
    // The client goes away without reading the answer: its end of stdin
    // closes and nothing reads the server's output.
    drop(mcp);
    landed_once(store, claim, based_on, &retry(store, claim, based_on));
}

/// Two writes in flight under one request id (a client that reused an id):
/// whatever the answers, the store holds the claim once, because both carry
/// the same `expected_store_version` and only one can commit.
fn duplicate_ids_in_flight_with_one_version_land_once(store: &Path) {
    let based_on = version(store);
    let claim = "sent twice under one id";
    let mut mcp = Mcp::writable(store);
    let request = json!({
        "jsonrpc": "2.0",
        "id": 4242,
        "method": "tools/call",
        "params": { "name": "memorize", "arguments": { "node_label": "test", "claims": [{ "label": claim }], "expected_store_version": based_on } }
    });
    mcp.send_value(&request);
    mcp.send_value(&request);
    let first = mcp.answer(&json!(4242));
    assert!(first.get("result").is_some() || first.get("error").is_some(), "{first}");
    mcp.assert_alive();
    assert_eq!(mcp.finish(), Some(0));
    landed_once(store, claim, based_on, &retry(store, claim, based_on));
}

/// The plain case the others rely on: an answered write, retried with the
/// same version, is refused and names both versions.
fn an_answered_write_retried_with_its_version_is_refused(store: &Path) {
    let based_on = version(store);
    let claim = "answered the first time";
    let mut mcp = Mcp::writable(store);
    let first = mcp.call(
        "memorize",
        json!({ "node_label": "test", "claims": [{ "label": claim }], "expected_store_version": based_on }),
    );
    assert!(!is_error(&first), "{first}");
    assert_eq!(mcp.finish(), Some(0));
    let retried = retry(store, claim, based_on);
    assert!(is_error(&retried), "{retried}");
    landed_once(store, claim, based_on, &retried);
}

on_both_backends!(
    a_cancelled_write_retried_with_its_version_lands_once,
    a_write_whose_client_died_retried_with_its_version_lands_once,
    duplicate_ids_in_flight_with_one_version_land_once,
    an_answered_write_retried_with_its_version_is_refused,
);
