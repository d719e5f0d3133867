//! `tools.toml` for m1nd's real surface: every MCP tool `schemas.json`
//! lists, in its order, with the type of each of its arguments written in the
//! policy's argument-type language, the closed subset of JSON Schema a policy
//! may write (see "Writing a policy").
//!
//! The mapping is one way and exact: each schema node becomes the type that
//! admits the same values, or the conversion stops with an [`Unexpressible`]
//! naming the tool, the node and the keyword or shape the language has no
//! words for. Nothing is approximated, and no keyword is dropped.
//!
//! - A node with only `type` is the shorthand (`"text"`, `"integer"`, ...);
//!   anything more is an inline table with the keys `type`, `nullable`,
//!   `enum`, `const`, `default`, `minimum`, `maximum`, `min_length`,
//!   `pattern`, `items`, `min_items`, `max_items`, `unique_items`,
//!   `properties`, `required` and `additional_properties`, in that order.
//! - `type: "null"` is the kind `"null"`. A node that also takes null is
//!   written `nullable = true`, which the checker reads before `enum`,
//!   `const` or any bound: so it is written exactly when the node takes
//!   null in JSON Schema, `enum` keeps only its non-null members, and a
//!   nullable type whose `enum` or `const` leaves null out is not nullable.
//! - A union of types, or a `oneOf`, is `{ one_of = [...] }`; a branch
//!   that is only `{type: "null"}` is not written, and the union is
//!   nullable when exactly one branch takes null, as `oneOf` says.
//!   `oneOf: [{type: "null"}, S]` is `S`, nullable unless `S` itself takes
//!   null. `{}` is `"any"`, nullable; a node with only `enum` or only
//!   `const` is text.
//! - `agent_id`, a string every tool but a few takes, is declared once under
//!   `[common]` and left out of each verb's own arguments and `requires`; a
//!   tool whose schema does not declare it is `common = false`.
//! - A tool whose schema is a top-level `oneOf` of object schemas gets a
//!   verb-level `one_of`, one argument set per branch.
//! - A top-level `additionalProperties: false` is not written: this server
//!   refuses arguments a tool does not declare, always.
//!
//! Properties are written in name order (the order `schemas.json` keeps
//! them in), so the output does not depend on how `serde_json` orders maps.
//!
//! TOML cannot write a null value: a `default` or `const` of null stops the
//! conversion like any other node the language cannot write.

use std::fmt::{self, Write};

#[cfg(test)]
mod tests;
mod text;
mod types;
mod verb;

use verb::Verb;

use serde_json::Value;

/// A schema node the argument-type language cannot write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexpressible {
    /// The tool, empty when the file itself is at fault.
    pub tool: String,
    /// Where in the tool's `inputSchema`: a JSON Pointer fragment, `#` for
    /// the schema itself (`#/properties/input/oneOf/1`).
    pub path: String,
    /// The keyword or shape the language has no words for.
    pub what: String,
}

impl fmt::Display for Unexpressible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tool.is_empty() {
            write!(f, "schemas.json: {}", self.what)
        } else {
            write!(f, "`{}` at {}: {} cannot be written in tools.toml", self.tool, self.path, self.what)
        }
    }
}

impl std::error::Error for Unexpressible {}

/// `tools.toml` for the `schemas.json` text, or the first node (in tool
/// order, then depth first) the argument-type language cannot write.
pub fn tools_toml(schemas_json: &str) -> Result<String, Unexpressible> {
    render(&parse(schemas_json)?)
}

fn parse(schemas_json: &str) -> Result<Value, Unexpressible> {
    let file = |what: String| Unexpressible { tool: String::new(), path: String::new(), what };
    let schemas: Value = serde_json::from_str(schemas_json).map_err(|e| file(format!("not JSON: {e}")))?;
    if !schemas["tools"].is_array() {
        return Err(file("no `tools` array".into()));
    }
    if !schemas["m1nd_mcp"].is_string() {
        return Err(file("no `m1nd_mcp` version".into()));
    }
    Ok(schemas)
}

fn render(schemas: &Value) -> Result<String, Unexpressible> {
    let version = schemas["m1nd_mcp"].as_str().unwrap_or_default();
    let list = if agent_id_required(schemas)? { "requires" } else { "accepts" };
    let mut out = String::new();
    writeln!(
        out,
        "# tools.toml: every MCP tool m1nd-mcp {version} lists, in its order, with the type of each argument as\n\
         # its inputSchema gives it (m1nd-upstream/m1nd-{version}/schemas.json), produced by\n\
         # `cargo run -p m1nd-upstream`. Never edit by hand. `agent_id`, a string upstream's tools take,\n\
         # is declared once under [common] and left out of each verb's own arguments and `requires`;\n\
         # a verb whose tool does not declare it takes none of the [common] arguments (`common = false`).\n\
         \n\
         [common]\n\
         {list} = [\"agent_id\"]\n\
         \n\
         [arguments]\n\
         agent_id = \"text\""
    )
    .unwrap();
    for tool in schemas["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().ok_or_else(|| Unexpressible {
            tool: String::new(),
            path: String::new(),
            what: "a tool without a name".into(),
        })?;
        let verb = Verb { tool: name };
        verb.write(&tool["inputSchema"], version, &mut out)?;
    }
    Ok(out)
}

/// Whether every tool (and top-level `oneOf` branch) that declares `agent_id`
/// requires it (then `[common]` requires it), or none does (then `[common]`
/// accepts it). A mix is one [common] list cannot say.
fn agent_id_required(schemas: &Value) -> Result<bool, Unexpressible> {
    let mut seen: Option<(bool, &str)> = None;
    for tool in schemas["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default();
        let schema = &tool["inputSchema"];
        let sets: Vec<&Value> = match schema.get("oneOf").and_then(Value::as_array) {
            Some(branches) => branches.iter().collect(),
            None => vec![schema],
        };
        for set in sets.into_iter().filter(|s| s["properties"].get("agent_id").is_some()) {
            let required = set["required"].as_array().is_some_and(|r| r.iter().any(|n| n == "agent_id"));
            match seen {
                None => seen = Some((required, name)),
                Some((first, _)) if first == required => {}
                Some((first, other)) => {
                    let (requires, accepts) = if first { (other, name) } else { (name, other) };
                    return Err(Unexpressible {
                        tool: name.to_owned(),
                        path: "#/required".into(),
                        what: format!(
                            "`agent_id` required by `{requires}` but optional in `{accepts}` (one [common] list says \
                             for every tool whether it is required)"
                        ),
                    });
                }
            }
        }
    }
    Ok(seen.is_some_and(|(required, _)| required))
}
