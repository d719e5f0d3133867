//! m1nd as published, as facts this repository can check against.
//!
//! m1nd classifies its MCP tools by what they do, not by name: the crate
//! `m1nd-control` publishes an effect catalog (schema
//! `m1nd-action-catalog-v1`) that gives every semantic action its complete
//! effects, a risk class and an authority floor, and `m1nd-mcp` routes each
//! MCP tool (some by an argument's value) to those actions. Both are checked
//! in, produced by code, never typed:
//!
//! - `policy/catalog.json`: [`catalog_json`], the catalog `m1nd-control`
//!   builds, with the digest it carries, where the policy compiler reads it
//!   (laws M019, M020, M021 and M022); `tests/regenerate.rs` fails when the checked-in file
//!   is not what this crate produces now.
//! - `policy/routes.toml`: [`routes_toml`], `routes.json` in the policy's
//!   form, checked the same way.
//! - `m1nd-<version>/routes.json`: for each MCP tool, the actions it can select, written by
//!   `extract/`, which compiles upstream's own routing module
//!   (`src/action_routes.rs` of `m1nd-mcp`, read from cargo's registry cache,
//!   not built with the rest of that crate), and, for the tools that choose
//!   by an argument, which value selects which action. `tests/regenerate.rs`
//!   checks it against the catalog.
//! - `schemas.json`: each tool's `inputSchema` as m1nd-mcp's own server
//!   lists it (`tools_list.py`, one run of the built server), with
//!   upstream's description prose left out: names, types, enums, bounds,
//!   defaults and `required` are facts.
//!
//! Moving to another release is one command: `m1nd-upstream/regenerate.sh`
//! after changing the two pinned versions.

/// The release of `m1nd-mcp` whose facts are checked in.
pub const MCP_VERSION: &str = "1.6.5";

/// How many MCP tools that release registers.
pub const MCP_TOOLS: usize = 147;

/// The directory, under this crate, that holds that release's facts.
pub const FACTS_DIR: &str = "m1nd-1.6.5";

mod routes;
pub use routes::routes_toml;

/// The policy directory the compiler reads the catalog and routes from.
pub fn policy_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy")
}

/// The checked-in `routes.json` of [`FACTS_DIR`].
pub fn routes_json_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FACTS_DIR).join("routes.json")
}

/// The catalog `m1nd-control` builds, as checked in: pretty JSON with a
/// final newline, fields in the order `m1nd-control` declares them.
pub fn catalog_json() -> Result<String, m1nd_control::ActionCatalogError> {
    let catalog = m1nd_control::m1nd10_action_catalog()?;
    let mut text = serde_json::to_string_pretty(&catalog).expect("the catalog serialises");
    text.push('\n');
    Ok(text)
}
