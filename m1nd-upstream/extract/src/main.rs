//! Print `routes.json` for the `m1nd-mcp` release whose routing module
//! `M1ND_ACTION_ROUTES` names: for each MCP tool upstream registers, in
//! upstream's order, every catalog action it can select, from upstream's own
//! `possible_mcp_actions`. The source's blake3 digest is recorded, so a
//! checked-in file says exactly what it was read from.

/// Upstream's module, compiled as it is published (build.rs copies it).
#[allow(dead_code, unused_imports, clippy::all)]
mod action_routes {
    include!(concat!(env!("OUT_DIR"), "/action_routes.rs"));
}

use serde_json::{Value, json};

fn main() {
    let source = std::fs::read(env!("M1ND_ACTION_ROUTES")).expect("the routing module the build read");
    let version = std::env::args().nth(1).expect("usage: m1nd-upstream-extract M1ND_MCP_VERSION");
    let tools: Vec<Value> = action_routes::MCP_TOOL_ROUTE_NAMES
        .iter()
        .map(|tool| {
            let actions = action_routes::possible_mcp_actions(tool)
                .unwrap_or_else(|| panic!("upstream registers `{tool}` and routes it nowhere"));
            json!({ "tool": tool, "actions": actions })
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
