//! The `outputSchema` of every served verb: the shape of the
//! `structuredContent` its answers carry, declared in `tools/list` so a client
//! can check what it gets.
//!
//! Each schema sits with the code that writes the shape: the cockpit's beside
//! the JSON skin in the core ([`m1nd_policy::runtime::json_schema`]), help's in
//! `help.rs`, and the store verbs' here, beside `call.rs`, which writes them.
//! `mcp/tools.rs` tests that every listed tool declares one, and the e2e
//! suite validates live answers against them with a real validator.

use serde_json::{Value, json};

use super::dispatch::Handler;
use super::help;
use crate::store::{Op, Write};

/// The schema of `verb`'s structured content, served by `handler`.
pub fn output_schema(handler: Handler, verb: &str) -> Value {
    match handler {
        Handler::Cockpit => m1nd_policy::runtime::json_schema::cockpit(),
        Handler::Help => help::output_schema(),
        Handler::Store(Op::Read(_)) => reading(verb),
        Handler::Store(Op::Write(Write::Memorize)) => memorized(),
        Handler::Store(Op::Write(Write::Persist)) => persisted(),
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A read: its numbers and its listed items (sanitised state, field → text).
fn reading(verb: &str) -> Value {
    object(
        json!({
            "verb": { "const": verb },
            "store_version": { "type": "integer", "minimum": 0 },
            "numbers": { "type": "object", "additionalProperties": { "type": "integer" } },
            "items": {
                "type": "array",
                "items": { "type": "object", "additionalProperties": { "type": "string" } }
            },
        }),
        &["verb", "store_version", "numbers", "items"],
    )
}

/// An acknowledged `memorize`: it is durable at `store_version`.
fn memorized() -> Value {
    object(
        json!({
            "verb": { "const": "memorize" },
            "memorized": { "const": true },
            "store_version": { "type": "integer", "minimum": 1 },
        }),
        &["verb", "memorized", "store_version"],
    )
}

/// `persist`: what the action did and the store's counts after it.
fn persisted() -> Value {
    object(
        json!({
            "verb": { "const": "persist" },
            "action": { "type": "string" },
            "store_version": { "type": "integer", "minimum": 0 },
            "wrote": { "type": "boolean" },
            "counts": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 } },
        }),
        &["verb", "action", "store_version", "wrote", "counts"],
    )
}
