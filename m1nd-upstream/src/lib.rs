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
//! From them, the generated half of a policy for m1nd's real surface, in
//! [`UPSTREAM_POLICY`] (`tests/ui/policies/m1nd_1_6_5/`), whose other files
//! (`effects.toml`, `read_only_denied.toml`, `help_cards.toml`,
//! `cockpit.toml`) are written by people:
//!
//! - `tools.toml`: [`tools_toml`], every tool of `schemas.json` with the
//!   type of each argument in the policy's argument-type language, written
//!   exactly: each type takes the values upstream's schema takes, null
//!   included (the kind `null`, `nullable`), and a tool that does not
//!   declare `agent_id` is `common = false`. A schema node the language
//!   cannot write (a null `default` or `const`, which TOML cannot hold,
//!   among them) stops it with an [`Unexpressible`] (see the `tools` module).
//! - `catalog.json` and `routes.toml`: the same bytes as in `policy/`.
//!
//! The three are also written into each of [`UPSTREAM_POLICY_VARIANTS`].
//! `tests/regenerate.rs` fails when any of them differs from what this
//! crate produces now, or a variant differs from the policy in another file
//! than `help_cards.toml`.
//!
//! Moving to another release is one command: `m1nd-upstream/regenerate.sh`
//! after changing the two pinned versions (and [`UPSTREAM_POLICY`], whose
//! hand-written files are then reviewed against the new facts).

/// The release of `m1nd-mcp` whose facts are checked in.
pub const MCP_VERSION: &str = "1.6.5";

/// How many MCP tools that release registers.
pub const MCP_TOOLS: usize = 147;

/// The directory, under this crate, that holds that release's facts.
pub const FACTS_DIR: &str = "m1nd-1.6.5";

/// The policy of that release's real surface, under the repository.
pub const UPSTREAM_POLICY: &str = "tests/ui/policies/m1nd_1_6_5";

/// Policies that are [`UPSTREAM_POLICY`] with one of upstream's help cards
/// as upstream writes it, which its own tool's schema refuses (ui cases that
/// must fail): every file but `help_cards.toml` is the same.
pub const UPSTREAM_POLICY_VARIANTS: [&str; 3] = [
    "tests/ui/policies/m1nd_1_6_5_validate_plan",
    "tests/ui/policies/m1nd_1_6_5_trail_save",
    "tests/ui/policies/m1nd_1_6_5_ingest_adapter",
];

mod routes;
mod tools;
pub use routes::routes_toml;
pub use tools::{Unexpressible, tools_toml};

/// The policy directory the compiler reads the catalog and routes from.
pub fn policy_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy")
}

/// A directory under the repository, such as [`UPSTREAM_POLICY`].
pub fn repository_dir(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// The checked-in `schemas.json` of [`FACTS_DIR`].
pub fn schemas_json_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FACTS_DIR).join("schemas.json")
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
