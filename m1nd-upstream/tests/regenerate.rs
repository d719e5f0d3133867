//! The facts checked in under `m1nd-<version>/` are what the published
//! crates produce, and agree with each other:
//!
//! 1. `policy/catalog.json` is, byte for byte, the catalog `m1nd-control`
//!    builds now (`regenerate.sh` rewrites it); it parses back as upstream's
//!    own type, which refuses unknown fields, and passes upstream's
//!    validation. `policy/routes.toml` is, byte for byte, `routes.json` in
//!    the policy's form.
//! 2. `routes.json` names each MCP tool once, and every action a tool routes
//!    to is in the catalog and reachable from MCP; where an argument's value
//!    selects the action, the values together select exactly the tool's
//!    actions, no more and none left unreachable.
//! 3. `schemas.json` lists exactly the routed tools, each with an object
//!    `inputSchema` and none of upstream's description text.
//! 4. The policy of m1nd's real surface (`tests/ui/policies/m1nd_1_6_5/`)
//!    holds, byte for byte, the `tools.toml` this crate writes from
//!    `schemas.json` now (every tool, `common = false` exactly for those that
//!    declare no `agent_id`, no node left out or rewritten), and the same `catalog.json` and `routes.toml` as
//!    `policy/`; each of its variants is the same policy but for
//!    `help_cards.toml`.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use m1nd_control::{ActionCatalogV1, Ingress};
use serde_json::Value;

fn facts(file: &str) -> String {
    let dir = match file {
        "catalog.json" | "routes.toml" => m1nd_upstream::policy_dir(),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(m1nd_upstream::FACTS_DIR),
    };
    read(&dir.join(file))
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_catalog_is_what_m1nd_control_builds() {
    let built = m1nd_upstream::catalog_json().expect("m1nd-control's catalog validates");
    assert!(
        built == facts("catalog.json"),
        "policy/catalog.json is not what the pinned m1nd-control builds: run m1nd-upstream/regenerate.sh and review the diff"
    );
    let routes = m1nd_upstream::routes_toml(&facts("routes.json")).expect("routes.json converts");
    assert!(
        routes == facts("routes.toml"),
        "policy/routes.toml is not routes.json in the policy's form: run `cargo run -p m1nd-upstream` and review the diff"
    );
    let parsed: ActionCatalogV1 = serde_json::from_str(&built).expect("upstream's type reads it back");
    parsed.validate().expect("upstream's validation");
    assert_eq!(parsed.compute_catalog_digest().expect("digest"), parsed.catalog_digest, "the digest it carries");
}

#[test]
fn every_route_leads_to_an_mcp_action_of_the_catalog() {
    let catalog: ActionCatalogV1 = serde_json::from_str(&facts("catalog.json")).expect("catalog.json");
    let by_action: HashMap<&str, _> = catalog.entries.iter().map(|e| (e.action.as_str(), e)).collect();
    let routes: Value = serde_json::from_str(&facts("routes.json")).expect("routes.json is JSON");
    assert_eq!(routes["schema"], "m1nd-upstream-routes-v1");
    assert_eq!(routes["m1nd_mcp"], m1nd_upstream::MCP_VERSION);
    let tools = routes["tools"].as_array().expect("tools");
    let mut names = BTreeSet::new();
    for tool in tools {
        let name = tool["tool"].as_str().expect("a tool name");
        assert!(names.insert(name), "`{name}` is routed twice");
        let actions = tool["actions"].as_array().expect("actions");
        assert!(!actions.is_empty(), "`{name}` routes nowhere");
        let mut listed = BTreeSet::new();
        for action in actions {
            let action = action.as_str().expect("an action id");
            let entry =
                by_action.get(action).unwrap_or_else(|| panic!("`{name}` routes to `{action}`, not in the catalog"));
            assert!(entry.ingresses.contains(&Ingress::Mcp), "`{name}` routes to `{action}`, not reachable from MCP");
            listed.insert(action);
        }
        match tool.get("selectors") {
            None => assert_eq!(listed.len(), 1, "`{name}` selects among {listed:?} by no argument"),
            Some(selectors) => {
                let mut selected = selected_by(&selectors["absent"]);
                for values in selectors["by"].as_object().expect("by").values() {
                    for action in values.as_object().expect("values").values() {
                        selected.extend(selected_by(action));
                    }
                }
                assert_eq!(selected, listed, "`{name}`: what its arguments select is not what it can select");
            }
        }
    }
    assert_eq!(names.len(), m1nd_upstream::MCP_TOOLS, "m1nd-mcp {} registers that many", m1nd_upstream::MCP_VERSION);
}

#[test]
fn every_routed_tool_has_its_schema_and_no_prose() {
    let routes: Value = serde_json::from_str(&facts("routes.json")).expect("routes.json");
    let schemas: Value = serde_json::from_str(&facts("schemas.json")).expect("schemas.json");
    assert_eq!(schemas["schema"], "m1nd-upstream-schemas-v1");
    assert_eq!(schemas["server_info"]["version"], m1nd_upstream::MCP_VERSION, "listed by the release it names");
    let names = |tools: &Value, key: &str| -> BTreeSet<String> {
        tools.as_array().expect("tools").iter().map(|t| t[key].as_str().expect("a name").to_owned()).collect()
    };
    assert_eq!(names(&schemas["tools"], "name"), names(&routes["tools"], "tool"), "listed and routed tools");
    for tool in schemas["tools"].as_array().expect("tools") {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        assert!(!has_prose(&tool["inputSchema"]), "`{}` keeps upstream's description text", tool["name"]);
    }
}

#[test]
fn the_real_surface_policy_holds_what_this_crate_writes_now() {
    let dir = m1nd_upstream::repository_dir(m1nd_upstream::UPSTREAM_POLICY);
    let tools = m1nd_upstream::tools_toml(&facts("schemas.json")).unwrap_or_else(|e| panic!("{e}"));
    let written = [
        ("tools.toml", tools),
        ("catalog.json", m1nd_upstream::catalog_json().expect("m1nd-control's catalog validates")),
        ("routes.toml", m1nd_upstream::routes_toml(&facts("routes.json")).expect("routes.json converts")),
    ];
    for (name, text) in written {
        assert!(
            read(&dir.join(name)) == text,
            "{}/{name} is not what m1nd-upstream writes now: run `cargo run -p m1nd-upstream` and review the diff",
            m1nd_upstream::UPSTREAM_POLICY
        );
    }
}

#[test]
fn every_tool_is_written_and_only_those_without_agent_id_leave_common_out() {
    let json = facts("schemas.json");
    let tools = m1nd_upstream::tools_toml(&json).unwrap_or_else(|e| panic!("{e}"));
    let table: toml::Table = tools.parse().expect("tools.toml is TOML");
    let verbs = table["verbs"].as_table().expect("[verbs]");
    assert_eq!(verbs.len(), m1nd_upstream::MCP_TOOLS, "one verb per tool");
    let schemas: Value = serde_json::from_str(&json).expect("schemas.json");
    let mut last = 0;
    for tool in schemas["tools"].as_array().expect("tools") {
        let name = tool["name"].as_str().expect("a name");
        assert!(verbs.contains_key(name), "`{name}` is written");
        let at = tools.find(&format!("\n[verbs.{name}]\n")).expect("its table");
        assert!(at > last, "`{name}` is written in schemas.json's order");
        last = at;
        let schema = &tool["inputSchema"];
        let branches = schema["oneOf"].as_array().cloned().unwrap_or_else(|| vec![schema.clone()]);
        let declares = branches.iter().any(|b| b["properties"].get("agent_id").is_some());
        let common = verbs[name].get("common").map(|c| c.as_bool().expect("`common` is a boolean"));
        assert_eq!(
            common,
            (!declares).then_some(false),
            "`{name}`: `common = false` exactly when it declares no `agent_id`"
        );
    }
    // Nothing is rewritten, so nothing is said below the header.
    let header = tools.find("\n[common]\n").expect("[common]");
    assert!(!tools[header..].contains("\n#"), "a comment below the header");
}

#[test]
fn each_variant_is_the_real_surface_policy_but_for_its_help_cards() {
    let files = |dir: &std::path::Path| -> BTreeSet<String> {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        entries.map(|e| e.expect("an entry").file_name().into_string().expect("a UTF-8 name")).collect()
    };
    let policy = m1nd_upstream::repository_dir(m1nd_upstream::UPSTREAM_POLICY);
    for variant in m1nd_upstream::UPSTREAM_POLICY_VARIANTS {
        let dir = m1nd_upstream::repository_dir(variant);
        assert_eq!(files(&dir), files(&policy), "{variant} holds the policy's files");
        for name in files(&policy) {
            let same = read(&dir.join(&name)) == read(&policy.join(&name));
            assert_eq!(same, name != "help_cards.toml", "{variant}/{name}: only help_cards.toml differs");
        }
    }
}

/// Whether a schema holds a `description` text anywhere (a property named
/// `description` has a schema as its value, and is not prose).
fn has_prose(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.iter().any(|(key, value)| (key == "description" && value.is_string()) || has_prose(value))
        }
        Value::Array(items) => items.iter().any(has_prose),
        _ => false,
    }
}

/// The actions one selector entry names: an action, `null` (refused), or
/// `{"fact": F, "when": {"false": A, "true": B}}`.
fn selected_by(entry: &Value) -> BTreeSet<&str> {
    match entry {
        Value::String(action) => [action.as_str()].into(),
        Value::Object(by_fact) => {
            by_fact["when"].as_object().expect("when").values().filter_map(Value::as_str).collect()
        }
        _ => BTreeSet::new(),
    }
}
