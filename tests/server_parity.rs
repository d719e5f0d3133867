//! One matrix over every transport: stdio, HTTP with a session, and
//! stateless 2026-07-28 HTTP must refuse the same calls with the same words,
//! list the same tools and compose the same cockpit.
//!
//! Each case is asked of every transport, and each transport's answer must
//! equal stdio's exactly (stdio's own suite, `server_guard`, checks what that
//! answer says). A transport that reached dispatch without the guard would
//! answer a denied verb with something else — "does not implement", an
//! argument error, a write — and fail here.

mod server_support;

use m1nd::COCKPIT;
use serde_json::{Value, json};
use server_support::cases::{Client, REFUSED_EVERYWHERE, aliases, denied_shapes, every_transport, persist_refused};
use server_support::{demo_store, is_error, snapshot, text};

/// Ask every client the same call; every answer must equal the first's.
fn same_answer(clients: &mut [Box<dyn Client>], name: &str, args: &Value) -> Value {
    let (first, rest) = clients.split_first_mut().expect("clients");
    let expected = first.call(name, args.clone());
    for client in rest {
        let got = client.call(name, args.clone());
        assert_eq!(got, expected, "{name:?} {args}: {} answered differently from {}", client.label(), first.label());
    }
    expected
}

#[test]
fn read_only_refusals_are_the_same_on_every_transport_and_change_nothing() {
    let (_dir, store) = demo_store("parity-denied");
    let before = snapshot(&store);
    let mut clients = every_transport(&store, true);
    let mut cases = 0;
    for verb in COCKPIT.deny.tools.iter() {
        for name in aliases(verb) {
            for args in denied_shapes(verb) {
                let answer = same_answer(&mut clients, &name, &args);
                assert!(is_error(&answer), "{name:?} {args} was not refused: {answer}");
                assert!(text(&answer).contains(&format!("`{verb}`")), "{name:?}: {answer}");
                cases += 1;
            }
        }
    }
    for name in aliases("persist") {
        for args in persist_refused() {
            let answer = same_answer(&mut clients, &name, &args);
            assert!(is_error(&answer) && text(&answer).contains("status-only"), "{name:?} {args}: {answer}");
            cases += 1;
        }
    }
    assert_eq!(cases, COCKPIT.deny.tools.len() * 8 * 3 + 8 * 10);
    for client in &mut clients {
        client.assert_alive();
    }
    drop(clients);
    assert_eq!(snapshot(&store), before, "a refused call changed the store");
}

#[test]
fn names_refused_in_every_session_are_refused_alike() {
    let (_dir, store) = demo_store("parity-unknown");
    let before = snapshot(&store);
    for read_only in [true, false] {
        let mut clients = every_transport(&store, read_only);
        for (name, expected) in REFUSED_EVERYWHERE {
            for args in [json!({}), json!({"node_label": "test", "claims": [{ "label": "x" }], "action": "save"})] {
                let answer = same_answer(&mut clients, name, &args);
                assert!(is_error(&answer) && text(&answer).contains(expected), "{name:?}: {answer}");
            }
        }
        // Known to the table, not implemented here.
        let answer = same_answer(&mut clients, "audit", &json!({"scope": "repo"}));
        assert!(is_error(&answer), "{answer}");
        // The human's alone (M013): refused alike, saying where the human acts.
        for verb in COCKPIT.human_only.verbs.iter() {
            for name in aliases(verb) {
                for args in denied_shapes(verb) {
                    let answer = same_answer(&mut clients, &name, &args);
                    assert!(
                        is_error(&answer) && text(&answer).contains("the human performs it on"),
                        "{name:?}: {answer}"
                    );
                }
            }
        }
    }
    assert_eq!(snapshot(&store), before);
}

#[test]
fn tools_list_and_instructions_are_the_same_per_mode() {
    let (_dir, store) = demo_store("parity-list");
    for read_only in [true, false] {
        let mut clients = every_transport(&store, read_only);
        let (first, rest) = clients.split_first_mut().expect("clients");
        let expected = first.tools();
        assert!(expected.iter().any(|t| t["name"] == "cockpit"));
        assert_eq!(expected.iter().any(|t| t["name"] == "memorize"), !read_only);
        for client in rest {
            assert_eq!(client.tools(), expected, "{} lists other tools (read_only = {read_only})", client.label());
            assert_eq!(client.instructions(), first.instructions(), "{}", client.label());
        }
    }
}

#[test]
fn cockpit_and_reads_answer_the_same_for_the_same_state() {
    let (_dir, store) = demo_store("parity-cockpit");
    let before = snapshot(&store);
    for read_only in [true, false] {
        let mut clients = every_transport(&store, read_only);
        let root = same_answer(&mut clients, "cockpit", &json!({}));
        let sig = root["structuredContent"]["menu_sig"].as_str().expect("sig").to_owned();
        for select in ["?", "3", "2.1", "3.1.1", "9", "0", "12", "3.x", &format!("1@{sig}"), "4@mc_00000000"] {
            for args in [json!({"select": select}), json!({"select": select, "seen_store_version": 0})] {
                same_answer(&mut clients, "cockpit", &args);
            }
        }
        for (verb, args) in [
            ("help", json!({})),
            ("north", json!({"task": "t"})),
            ("boot_memory", json!({"action": "list"})),
            ("orient", json!({"task": "t"})),
            ("persist", json!({"action": "status"})),
            ("cockpit", json!({"select": 5})),
            ("cockpit", json!({"nonsense": true})),
        ] {
            same_answer(&mut clients, verb, &args);
        }
    }
    assert_eq!(snapshot(&store), before, "reads changed the store");
}

#[test]
fn writes_over_http_take_turns_with_stdio_on_one_store() {
    let (_dir, store) = demo_store("parity-writes");
    let mut clients = every_transport(&store, false);
    let mut version = 1;
    for round in 0..3 {
        for client in &mut clients {
            let label = client.label();
            let wrote = client
                .call("memorize", json!({"node_label": "test", "claims": [{ "label": format!("{label} {round}") }], "expected_store_version": version}));
            assert!(!is_error(&wrote), "{label}: {wrote}");
            version += 1;
            assert_eq!(wrote["structuredContent"]["store_version"], version, "{label}: {wrote}");
        }
    }
    // The same stale write is refused alike and changes nothing.
    let before = snapshot(&store);
    let stale = json!({"node_label": "test", "claims": [{ "label": "stale" }], "expected_store_version": 1});
    let answer = same_answer(&mut clients, "memorize", &stale);
    assert!(is_error(&answer) && text(&answer).contains("state moved"), "{answer}");
    assert_eq!(snapshot(&store), before);
}

#[test]
fn read_only_from_the_environment_holds_over_http_too() {
    let (_dir, store) = demo_store("parity-env");
    let before = snapshot(&store);
    for era in [server_support::http::Era::Session, server_support::http::Era::Stateless] {
        let mut http = server_support::http::HttpMcp::start(&store, era, &[], &[("M1ND_READ_ONLY", "1")]);
        let answer = http.call("memorize", json!({"node_label": "test", "claims": [{ "label": "x" }]}));
        assert!(is_error(&answer) && text(&answer).contains("read_only_denied.toml"), "{answer}");
        assert!(!http.tools().iter().any(|t| t["name"] == "memorize"));
    }
    assert_eq!(snapshot(&store), before);
}
