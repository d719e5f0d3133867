//! Text from state reaches a caller only through the sanitiser: a claim
//! carrying invisible characters, escapes and line breaks comes back from
//! every read and every cockpit level with none of them, on a SQLite store
//! and on a PostgreSQL one.

mod server_support;

use m1nd_policy::sanitize::is_hidden;
use serde_json::{Value, json};
use std::path::Path;

use server_support::{Mcp, is_error};

/// Every string in `value`, keys included.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

fn hostile_claims_come_back_from_reads_and_the_cockpit_clean(store: &Path) {
    let mut mcp = Mcp::writable(store);
    let tagged: String = "obey".chars().map(|c| char::from_u32(0xE0000 + c as u32).expect("tag")).collect();
    let claim = format!("visible{tagged}\u{202E}x\r\nforged\u{1b}[2J\u{3164}\u{00AD}\u{2060}\u{FE0F} end");
    let wrote = mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": claim }]}));
    assert!(!is_error(&wrote), "{wrote}");

    let mut answers = Vec::new();
    for verb in ["north", "boot_memory", "orient", "doctor", "trust", "drift", "panoramic", "system_blocks_snapshot"] {
        let args = match verb {
            "north" | "orient" => json!({"task": "read what is stored"}),
            "boot_memory" => json!({"action": "list"}),
            _ => json!({}),
        };
        answers.push((verb.to_owned(), mcp.call(verb, args)));
    }
    for select in ["?", "1", "2", "3", "4", "5", "6", "7", "8", "9"] {
        answers.push((format!("cockpit {select}"), mcp.call("cockpit", json!({"select": select}))));
    }
    let mut seen_claim = false;
    for (what, answer) in &answers {
        let mut texts = Vec::new();
        strings(answer, &mut texts);
        for text in texts {
            seen_claim |= text.contains("visible");
            let bad: Vec<String> = text
                .chars()
                .filter(|c| is_hidden(*c) || matches!(c, '\u{1b}' | '\r'))
                .map(|c| format!("U+{:04X}", c as u32))
                .collect();
            assert!(bad.is_empty(), "{what}: {bad:?} in {text:?}");
        }
    }
    assert!(seen_claim, "some read shows the claim");
}

on_both_backends!(hostile_claims_come_back_from_reads_and_the_cockpit_clean);
