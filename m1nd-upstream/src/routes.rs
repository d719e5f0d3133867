//! `routes.toml`, the policy's form of `routes.json`: each MCP tool's worst
//! case (every action it can reach) and, for a tool that chooses by an
//! argument's value, which value reaches which actions. Where upstream
//! decides by a runtime fact as well (`{"fact": …, "when": …}`), a value
//! reaches every action the fact could select: a policy judges before any
//! fact is known.

use std::fmt::Write;

use serde_json::Value;

/// `routes.toml` for the routes.json `text`, or why it cannot be read.
pub fn routes_toml(text: &str) -> Result<String, String> {
    let routes: Value = serde_json::from_str(text).map_err(|e| format!("routes.json: {e}"))?;
    let field = |key: &str| routes[key].as_str().ok_or_else(|| format!("routes.json has no `{key}`"));
    let (version, source, digest) = (field("m1nd_mcp")?, field("source")?, field("source_blake3")?);
    let mut out = String::new();
    out.push_str(
        "# routes.toml: m1nd's MCP tools and the catalog actions each reaches, produced by\n\
         # m1nd-upstream/regenerate.sh from upstream's own routing source. Never edit by hand:\n\
         # a verb this server adds is routed in effects.toml. Where upstream also decides by a\n\
         # runtime fact, a value reaches every action the fact could select.\n",
    );
    writeln!(out, "source = {}", quoted(&format!("m1nd-mcp {version} {source} blake3:{digest}"))).unwrap();
    for tool in routes["tools"].as_array().ok_or("routes.json has no `tools`")? {
        let name = tool["tool"].as_str().ok_or("a route without a tool name")?;
        let actions: Vec<&str> = tool["actions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        writeln!(out, "\n[routes.{}]\nactions = {}", key(name), list(&actions)).unwrap();
        let Some(selectors) = tool.get("selectors") else { continue };
        let absent = selected(&selectors["absent"]);
        if !absent.is_empty() {
            writeln!(out, "absent = {}", list(&absent)).unwrap();
        }
        for (argument, values) in selectors["by"].as_object().into_iter().flatten() {
            writeln!(out, "\n[routes.{}.by.{}]", key(name), key(argument)).unwrap();
            for (value, entry) in values.as_object().into_iter().flatten() {
                writeln!(out, "{} = {}", key(value), list(&selected(entry))).unwrap();
            }
        }
    }
    Ok(out)
}

/// The actions a selector entry names: one action, none (`null`: upstream
/// refuses the call), or every branch of a runtime fact.
fn selected(entry: &Value) -> Vec<&str> {
    match entry {
        Value::String(action) => vec![action.as_str()],
        Value::Object(fact) => fact["when"].as_object().into_iter().flatten().filter_map(|(_, a)| a.as_str()).collect(),
        _ => Vec::new(),
    }
}

fn list(actions: &[&str]) -> String {
    let quoted: Vec<String> = actions.iter().map(|a| quoted(a)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A bare key when TOML allows one, else a quoted one.
fn key(name: &str) -> String {
    let bare = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare { name.to_owned() } else { quoted(name) }
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_reaches_both_branches_and_null_reaches_nothing() {
        let json = r#"{"m1nd_mcp": "1", "source": "s", "source_blake3": "d", "tools": [
            {"tool": "t", "actions": ["a.x", "a.y"], "selectors": {"absent": null,
             "by": {"mode": {"<non-empty>": {"fact": "f", "when": {"false": "a.x", "true": "a.y"}}}}}}]}"#;
        let toml = routes_toml(json).unwrap();
        assert!(toml.contains("[routes.t.by.mode]\n\"<non-empty>\" = [\"a.x\", \"a.y\"]\n"), "{toml}");
        assert!(!toml.contains("absent"), "{toml}");
    }
}
