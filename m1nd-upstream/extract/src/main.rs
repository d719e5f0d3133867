//! Print `routes.json` for the `m1nd-mcp` release whose routing module
//! `M1ND_ACTION_ROUTES` names: for each MCP tool upstream registers, in
//! upstream's order, every catalog action it can select, from upstream's own
//! `possible_mcp_actions`. The source's blake3 digest is recorded, so a
//! checked-in file says exactly what it was read from.
//!
//! A tool that can select more than one action also gets `selectors`: which
//! argument picks which action, asked of upstream's own
//! `classify_mcp_action`. The arguments asked are the ones the routing module
//! reads (every `"..."` after `string_field(arguments, `, `bool_field(arguments, `
//! or `nonempty_string(arguments, `) and the values every lower-case string
//! literal in it, `true` and `false`, or any non-empty string; an argument is
//! listed when some value selects other than leaving it out (`absent`), with
//! every value upstream accepts. A value not listed is one upstream refuses
//! (`absent` is `null` when leaving the argument out is refused too). A branch that depends on a
//! fact the owner computes (`TrustedMcpRouteFacts`) is recorded per value of
//! that fact.

/// Upstream's module, compiled as it is published (build.rs copies it).
#[allow(dead_code, unused_imports, clippy::all)]
mod action_routes {
    include!(concat!(env!("OUT_DIR"), "/action_routes.rs"));
}

use std::collections::BTreeSet;

use action_routes::{McpActionRouteError, TrustedMcpRouteFacts, classify_mcp_action};
use serde_json::{Map, Value, json};

/// Every string literal of `source` that follows `prefix`.
fn after(source: &str, prefix: &str) -> BTreeSet<String> {
    source
        .match_indices(prefix)
        .filter_map(|(at, _)| source[at + prefix.len()..].split('"').next().map(str::to_owned))
        .collect()
}

/// Every lower-case identifier-like string literal of `source`: the values
/// a selector may be compared with.
fn values(source: &str) -> BTreeSet<String> {
    source
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|v| !v.is_empty() && v.len() <= 40 && v.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .map(str::to_owned)
        .collect()
}

/// What upstream selects for `tool` called with `arguments`: an action, one
/// per value of the owner's fact it needs, or `null` when it refuses.
fn selected(tool: &str, arguments: &Value) -> Value {
    match classify_mcp_action(tool, arguments, TrustedMcpRouteFacts::default()) {
        Ok(classified) => json!(classified.action.as_str()),
        Err(McpActionRouteError::MissingTrustedFact { fact, .. }) => {
            let mut by_fact = Map::new();
            for known in [false, true] {
                let trusted =
                    TrustedMcpRouteFacts { ingest_changes_roots: Some(known), auto_ingest_changes_roots: Some(known) };
                let action = classify_mcp_action(tool, arguments, trusted).ok().map(|c| c.action.as_str().to_owned());
                by_fact.insert(known.to_string(), json!(action));
            }
            json!({ "fact": fact, "when": by_fact })
        }
        Err(_) => Value::Null,
    }
}

/// Which argument picks which of `tool`'s actions (see the module's doc).
fn selectors(tool: &str, source: &str) -> Value {
    let absent = selected(tool, &json!({}));
    let mut fields = Map::new();
    // An argument matters when some value of it selects other than leaving it out does.
    let matters = |picked: &Map<String, Value>| picked.values().any(|action| *action != absent);
    for field in after(source, "string_field(arguments, \"") {
        let picked: Map<String, Value> = values(source)
            .into_iter()
            .map(|value| {
                let action = selected(tool, &json!({ &field: value }));
                (value, action)
            })
            .filter(|(_, action)| !action.is_null())
            .collect();
        if matters(&picked) {
            fields.insert(field, Value::Object(picked));
        }
    }
    for field in after(source, "nonempty_string(arguments, \"") {
        let picked: Map<String, Value> =
            [("<non-empty>".to_owned(), selected(tool, &json!({ &field: "x" })))].into_iter().collect();
        if matters(&picked) {
            fields.insert(field, Value::Object(picked));
        }
    }
    for field in after(source, "bool_field(arguments, \"") {
        let picked: Map<String, Value> =
            [true, false].into_iter().map(|b| (b.to_string(), selected(tool, &json!({ &field: b })))).collect();
        if matters(&picked) {
            fields.insert(field, Value::Object(picked));
        }
    }
    json!({ "absent": absent, "by": fields })
}

fn main() {
    let source = std::fs::read(env!("M1ND_ACTION_ROUTES")).expect("the routing module the build read");
    let version = std::env::args().nth(1).expect("usage: m1nd-upstream-extract M1ND_MCP_VERSION");
    let text = String::from_utf8_lossy(&source);
    let tools: Vec<Value> = action_routes::MCP_TOOL_ROUTE_NAMES
        .iter()
        .map(|tool| {
            let actions = action_routes::possible_mcp_actions(tool)
                .unwrap_or_else(|| panic!("upstream registers `{tool}` and routes it nowhere"));
            if actions.len() > 1 {
                json!({ "tool": tool, "actions": actions, "selectors": selectors(tool, &text) })
            } else {
                json!({ "tool": tool, "actions": actions })
            }
        })
        .collect();
    let routes = json!({
        "schema": "m1nd-upstream-routes-v1",
        "m1nd_mcp": version,
        "source": "src/action_routes.rs",
        "source_blake3": blake3::hash(&source).to_hex().to_string(),
        "tools": tools,
    });
    println!("{}", serde_json::to_string_pretty(&routes).expect("serialises"));
}
