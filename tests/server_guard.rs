//! The read-only guard over real MCP sessions, from the table alone.

mod server_support;

use m1nd::COCKPIT;
use m1nd::store::Store;
use serde_json::json;
use server_support::cases::{REFUSED_EVERYWHERE, aliases, denied_shapes, persist_refused};
use server_support::{Mcp, claims, demo_store, is_error, snapshot, text};

#[test]
fn read_only_refuses_every_denied_verb_in_every_alias_form_and_changes_nothing() {
    let (_dir, store) = demo_store("guard-denied");
    let before = snapshot(&store);
    let mut mcp = Mcp::read_only(&store);
    // Upstream's 29, the tray's stamp, and the 57 only the catalog's effects name (M021).
    assert_eq!(COCKPIT.deny.tools.len(), 87, "the deny list follows the effects");
    let mut refused = 0;
    for verb in COCKPIT.deny.tools.iter() {
        for name in aliases(verb) {
            for args in denied_shapes(verb) {
                let result = mcp.call(&name, args.clone());
                assert!(is_error(&result), "{name:?} {args} was not refused: {result}");
                let message = text(&result);
                assert!(
                    message.contains(&format!("`{verb}`")),
                    "{name:?}: the refusal does not name the verb: {message}"
                );
                let rule = if COCKPIT.verb(verb).is_some_and(|v| v.retired) {
                    "retired"
                } else if COCKPIT.human_only.contains(verb) {
                    "the human performs it on"
                } else {
                    "read_only_denied.toml"
                };
                assert!(message.contains(rule), "{name:?}: the refusal does not name the rule: {message}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, COCKPIT.deny.tools.len() * 8 * 3);
    mcp.assert_alive();
    assert_eq!(mcp.finish(), Some(0));
    assert_eq!(snapshot(&store), before, "a refused call changed the store");
}

#[test]
fn read_only_from_the_environment() {
    let (_dir, store) = demo_store("guard-env");
    for value in ["1", "true", "TRUE"] {
        let mut mcp = Mcp::start(&store, &[], &[("M1ND_READ_ONLY", value)]);
        let result = mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": "x" }]}));
        assert!(is_error(&result) && text(&result).contains("read_only_denied.toml"), "{value}: {result}");
        assert!(!mcp.tools().iter().any(|t| t["name"] == "memorize"), "{value}");
    }
    let mut mcp = Mcp::start(&store, &[], &[("M1ND_READ_ONLY", "0")]);
    assert!(mcp.tools().iter().any(|t| t["name"] == "memorize"));
}

#[test]
fn read_only_persist_is_status_only() {
    let (_dir, store) = demo_store("guard-persist");
    let before = snapshot(&store);
    let mut mcp = Mcp::read_only(&store);
    let refused = persist_refused();
    for name in aliases("persist") {
        for args in &refused {
            let result = mcp.call(&name, args.clone());
            assert!(is_error(&result), "{name:?} {args}: {result}");
            let message = text(&result);
            assert!(message.contains("`persist`") && message.contains("status-only"), "{message}");
            assert!(message.len() < 400, "the refusal echoes too much: {} bytes", message.len());
        }
        let result = mcp.call(&name, json!({"action": "status"}));
        assert!(!is_error(&result), "{name:?}: {result}");
        assert_eq!(result["structuredContent"]["wrote"], false);
        assert_eq!(result["structuredContent"]["store_version"], 1);
        // Compared byte for byte, as the gateway compares it: a near miss is
        // refused with the spelling to send.
        for action in [" Status ", "STATUS", "status\u{200B}"] {
            let result = mcp.call(&name, json!({"action": action}));
            assert!(is_error(&result), "{name:?} {action:?}: {result}");
            assert!(text(&result).contains("send exactly `status`"), "{action:?}: {}", text(&result));
        }
    }
    assert_eq!(mcp.finish(), Some(0));
    assert_eq!(snapshot(&store), before);
}

#[test]
fn unknown_look_alike_retired_and_unserved_verbs_are_refused() {
    let (_dir, store) = demo_store("guard-unknown");
    let before = snapshot(&store);
    for read_only in [true, false] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        for (name, expected) in REFUSED_EVERYWHERE {
            let result = mcp.call(name, json!({}));
            assert!(is_error(&result), "{name:?}: {result}");
            assert!(text(&result).contains(expected), "{name:?}: {}", text(&result));
        }
        if !read_only {
            // In the table, but not implemented here: refused, naming what is served.
            let result = mcp.call("audit", json!({"scope": "repo"}));
            assert!(is_error(&result) && text(&result).contains("does not implement"), "{result}");
            assert!(text(&result).contains("cockpit"));
        }
        mcp.assert_alive();
    }
    assert_eq!(snapshot(&store), before);
}

/// M013 at run time: a human-only verb is listed in no session and refused
/// in every one, in every alias form, with the place where the human acts.
#[test]
fn human_only_verbs_are_never_served_over_mcp() {
    assert!(COCKPIT.human_only.contains("mission_stamp") && COCKPIT.human_only.contains("system_blocks_ratify"));
    let (_dir, store) = demo_store("guard-human-only");
    let before = snapshot(&store);
    for read_only in [true, false] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        let tools = mcp.tools();
        for verb in COCKPIT.human_only.verbs.iter() {
            assert!(!tools.iter().any(|t| t["name"] == json!(verb)), "read_only={read_only}: `{verb}` is listed");
            for name in aliases(verb) {
                for args in denied_shapes(verb) {
                    let result = mcp.call(&name, args.clone());
                    assert!(is_error(&result), "{name:?} {args}: {result}");
                    let message = text(&result);
                    assert!(message.contains(&format!("`{verb}`")), "{message}");
                    assert!(message.ends_with(&*COCKPIT.human_only.acts_at), "{message}");
                }
            }
        }
        mcp.assert_alive();
        assert_eq!(mcp.finish(), Some(0));
    }
    assert_eq!(snapshot(&store), before, "a refused human-only call changed the store");
}

#[test]
fn memorize_bumps_the_version_once_and_a_stale_write_changes_nothing() {
    let (_dir, store) = demo_store("guard-write");
    let mut mcp = Mcp::writable(&store);
    let status = mcp.call("persist", json!({"action": "status"}));
    let version = status["structuredContent"]["store_version"].as_u64().expect("version");

    let result =
        mcp.call("m1nd.memorize", json!({"node_label": "test", "claims": [{ "label": "the walk cache is per-graph" }], "expected_store_version": version}));
    assert!(!is_error(&result), "{result}");
    assert_eq!(result["structuredContent"]["store_version"], version + 1);
    assert_eq!(server_support::version(&store), version + 1);
    assert_eq!(claims(&store).last().map(String::as_str), Some("the walk cache is per-graph"));

    let before = snapshot(&store);
    for (verb, args) in [
        (
            "memorize",
            json!({"node_label": "test", "claims": [{ "label": "stale" }], "expected_store_version": version}),
        ),
        ("persist", json!({"action": "save", "expected_store_version": version})),
        ("persist", json!({"action": "checkpoint", "expected_store_version": 0})),
    ] {
        let result = mcp.call(verb, args.clone());
        assert!(is_error(&result), "{verb} {args}: {result}");
        let message = text(&result);
        let stale = args["expected_store_version"].as_u64().expect("stale");
        assert!(message.contains("state moved"), "{message}");
        assert!(message.contains(&format!("expected store_version {stale}")), "{message}");
        assert!(message.contains(&format!("at {}", version + 1)), "{message}");
    }
    assert_eq!(snapshot(&store), before, "a conflicting write changed the store");

    let saved = mcp.call("persist", json!({"action": "save", "expected_store_version": version + 1}));
    assert_eq!(saved["structuredContent"]["store_version"], version + 2, "{saved}");
    assert_eq!(mcp.finish(), Some(0));
}

/// U+0000 in a claim or a source is refused over MCP with a message that
/// says what to do, and the store stays byte for byte as it was: no backend
/// keeps the character (a PostgreSQL `text` cannot), so none accepts it.
#[test]
fn a_nul_character_in_a_claim_or_source_is_refused_and_changes_nothing() {
    let (_dir, store) = demo_store("guard-nul");
    let mut mcp = Mcp::writable(&store);
    let before = snapshot(&store);
    for args in [
        json!({"node_label": "test", "claims": [{ "label": "before\u{0}after" }]}),
        json!({"node_label": "test", "claims": [{ "label": "\u{0}" }]}),
        json!({"node_label": "a source\u{0}", "claims": [{ "label": "fine" }]}),
    ] {
        let result = mcp.call("memorize", args.clone());
        assert!(is_error(&result), "{args}: {result}");
        let message = text(&result);
        assert!(message.contains("U+0000 (NUL)") && message.contains("remove it"), "{args}: {message}");
        assert!(!message.contains('\u{0}'), "the refusal echoes the character: {message:?}");
    }
    assert_eq!(snapshot(&store), before, "a refused NUL write changed the store");
    let kept =
        mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": "the same claim without it" }]}));
    assert!(!is_error(&kept), "{kept}");
    assert_eq!(mcp.finish(), Some(0));
}

/// Two `m1nd serve` processes on one store, writing at once without an
/// expected version: the store's write lock orders them, so no write is lost
/// and the version rises once per write.
#[test]
fn two_servers_writing_at_once_lose_nothing() {
    const EACH: u64 = 20;
    let (_dir, store) = demo_store("guard-race");
    let (version_before, claims_before) = (server_support::version(&store), claims(&store));
    let start = std::sync::Barrier::new(2);
    std::thread::scope(|scope| {
        for server in 0..2 {
            let (store, start) = (&store, &start);
            scope.spawn(move || {
                let mut mcp = Mcp::writable(store);
                start.wait();
                for n in 0..EACH {
                    let result = mcp.call(
                        "memorize",
                        json!({"node_label": "test", "claims": [{ "label": format!("race {server}.{n}") }]}),
                    );
                    assert!(!is_error(&result), "{result}");
                }
                assert_eq!(mcp.finish(), Some(0));
            });
        }
    });
    assert_eq!(server_support::version(&store), version_before + 2 * EACH);
    let after = claims(&store);
    for server in 0..2 {
        for n in 0..EACH {
            let claim = format!("race {server}.{n}");
            assert!(after.contains(&claim), "`{claim}` was lost");
        }
    }
    assert_eq!(after.len(), claims_before.len() + 2 * EACH as usize);
}

#[test]
fn tools_list_is_derived_from_the_table() {
    let (_dir, store) = demo_store("guard-list");
    let mut listed = Vec::new();
    for read_only in [true, false] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        assert!(mcp.instructions.contains(&*COCKPIT.negative_default), "{}", mcp.instructions);
        let tools = mcp.tools();
        let names: Vec<String> = tools.iter().map(|t| t["name"].as_str().expect("name").to_owned()).collect();
        for tool in &tools {
            let name = tool["name"].as_str().expect("name");
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is listed but not in the table"));
            assert!(!verb.retired, "{name}");
            assert_eq!(tool["description"], json!(verb.summary), "{name}");
            let denied = COCKPIT.deny.denies(name);
            let status_only = COCKPIT.deny.status_only(name).is_some();
            if read_only {
                assert!(!denied, "read-only session lists denied `{name}`");
            }
            assert_eq!(tool["annotations"]["readOnlyHint"], json!(!denied && !status_only), "{name}");
            assert_eq!(tool["annotations"]["destructiveHint"], json!(denied || status_only), "{name}");
            let schema = &tool["inputSchema"];
            assert_eq!(schema["additionalProperties"], false, "{name}");
            let properties = schema["properties"].as_object().expect("properties");
            let declared: Vec<&str> = COCKPIT.takes(verb).map(|t| t.name).collect();
            for common in COCKPIT.common.iter() {
                assert!(properties.contains_key(&**common), "{name}: the common `{common}` is not listed");
            }
            assert_eq!(
                properties.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
                declared.iter().copied().collect()
            );
        }
        for expected in ["cockpit", "help", "north", "orient", "impact", "persist"] {
            assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
        }
        assert_eq!(names.iter().any(|n| n == "memorize"), !read_only);
        if read_only {
            let persist = tools.iter().find(|t| t["name"] == "persist").expect("persist");
            assert_eq!(persist["inputSchema"]["properties"]["action"]["enum"], json!(["status"]));
            assert_eq!(persist["inputSchema"]["required"], json!(["action"]));
        }
        listed.push(names);
    }
    let (read_only, writable) = (&listed[0], &listed[1]);
    let hidden: Vec<&String> = writable.iter().filter(|n| !read_only.contains(n)).collect();
    assert!(hidden.iter().all(|n| COCKPIT.deny.denies(n)), "{hidden:?}");
}

/// `help` offers only cards this session can call here: each card's tool is
/// in the session's tools/list, calling it as the card says is neither refused
/// nor unserved, and a read-only session gets no card that writes (`persist`
/// stays, pinned to its status value).
#[test]
fn help_lists_only_cards_the_session_may_call_here() {
    let (_dir, store) = demo_store("guard-help");
    for read_only in [false, true] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        let names: Vec<String> = mcp.tools().iter().map(|t| t["name"].as_str().expect("name").to_owned()).collect();
        let result = mcp.call("help", json!({}));
        assert!(!is_error(&result), "{result}");
        let cards = result["structuredContent"]["cards"].as_array().expect("cards");
        assert!(!cards.is_empty());
        for card in cards {
            let tool = card["tool"].as_str().expect("tool");
            assert!(names.iter().any(|n| n == tool), "help offers `{tool}`, which is not in tools/list: {names:?}");
            if read_only {
                assert!(!COCKPIT.deny.denies(tool), "help offers `{tool}` to a read-only session");
                if let Some(rule) = COCKPIT.deny.status_only(tool) {
                    let pinned = card["arguments"][&*rule.argument].as_str().unwrap_or_default();
                    assert!(rule.permits(pinned), "{card}");
                }
            }
            let called = mcp.call(tool, card["arguments"].clone());
            let message = if is_error(&called) { text(&called) } else { "" };
            assert!(
                !message.contains("does not implement") && !message.contains("read_only_denied.toml"),
                "card {}: {called}",
                card["id"]
            );
        }
        let ids: Vec<&str> = cards.iter().filter_map(|c| c["id"].as_str()).collect();
        assert!(ids.contains(&"store_status"), "{ids:?}");
    }
}

#[test]
fn a_write_moves_the_cockpit_and_reads_never_go_stale() {
    let (_dir, store) = demo_store("guard-moves");
    let mut mcp = Mcp::writable(&store);
    let root = mcp.call("cockpit", json!({"agent_id": "tester"}));
    assert!(!is_error(&root), "{root}");
    assert_eq!(root["structuredContent"]["store_version"], 1);
    let sig = root["structuredContent"]["menu_sig"].as_str().expect("sig").to_owned();
    assert!(text(&root).contains(&sig), "the card carries the sig");

    let wrote = mcp.call(
        "memorize",
        json!({"node_label": "test", "claims": [{ "label": "moves the memories facet" }], "expected_store_version": 1}),
    );
    assert_eq!(wrote["structuredContent"]["store_version"], 2, "{wrote}");
    let moved = mcp.call("cockpit", json!({"select": format!("6@{sig}"), "seen_store_version": 1}));
    assert!(!is_error(&moved), "{moved}");
    assert_eq!(moved["structuredContent"]["state_moved"], true, "{moved}");
    assert!(moved["structuredContent"]["note"].as_str().unwrap_or_default().starts_with("state moved"), "{moved}");

    // A write by another process is seen by the next read.
    let mut other = Store::open(&store).expect("open");
    other.memorize("written elsewhere", "test", None, Some(2)).expect("memorize");
    let again = mcp.call("cockpit", json!({}));
    assert_eq!(again["structuredContent"]["store_version"], 3, "{again}");
    let memories = mcp.call("boot_memory", json!({"action": "list"}));
    assert_eq!(memories["structuredContent"]["numbers"]["memories"], 9, "{memories}");
    assert_eq!(memories["structuredContent"]["items"][0]["claim"], "written elsewhere");
}
