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
//! - `type: [T, "null"]` is `nullable = true`; a union of types without
//!   null, or a `oneOf` alone, is `{ one_of = [...] }`; `{}` is `"any"`; a
//!   node with only `enum` or only `const` is text.
//! - `agent_id`, a string every tool but a few takes, is declared once under
//!   `[common]` and left out of each verb's own arguments and `requires`; a
//!   tool whose schema does not declare it gets a comment saying so.
//! - A tool whose schema is a top-level `oneOf` of object schemas gets a
//!   verb-level `one_of`, one argument set per branch.
//! - A top-level `additionalProperties: false` is not written: this server
//!   refuses arguments a tool does not declare, always.
//!
//! Properties are written in name order (the order `schemas.json` keeps
//! them in), so the output does not depend on how `serde_json` orders maps.
//!
//! TOML cannot write null. [`policy_tools_toml`], what the checked-in file
//! is, first applies [`refuse_unwritable_nulls`]: where upstream takes a null
//! the language cannot write, the argument is written without it and a
//! comment above the verb says so.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use serde_json::{Map, Value};

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
    render(&parse(schemas_json)?, &BTreeMap::new())
}

/// The checked-in `tools.toml`: [`tools_toml`] after
/// [`refuse_unwritable_nulls`], with each rewrite said in a comment above its
/// verb.
pub fn policy_tools_toml(schemas_json: &str) -> Result<String, Unexpressible> {
    let mut schemas = parse(schemas_json)?;
    let mut notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for rewrite in refuse_unwritable_nulls(&mut schemas) {
        notes.entry(rewrite.tool).or_default().push(format!("at {}: {}", rewrite.path, rewrite.note));
    }
    render(&schemas, &notes)
}

/// A place where upstream's schema takes a null that TOML cannot write, and
/// how [`refuse_unwritable_nulls`] rewrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NullRewrite {
    pub tool: String,
    /// The node, as in [`Unexpressible::path`].
    pub path: String,
    /// What upstream takes and what the rewritten node takes, in a sentence.
    pub note: String,
}

/// Rewrite, in every tool's `inputSchema`, the three shapes by which
/// upstream's schemas take a null the language cannot write, and return what
/// was rewritten. Each rewrite takes the same values or fewer, never more:
///
/// - `oneOf: [{type: "null"}, S]`, where `S` has one non-null `type` `T`
///   and no `enum` or `const` (which would refuse null beside it), becomes
///   `S` with `type: [T, "null"]`: the same values, since null and `T` never
///   overlap.
/// - `enum` with a null member under `type: [T, "null"]` loses the null and
///   becomes `type: T`: null is refused.
/// - an optional member `{type: "null"}` of a closed object
///   (`additionalProperties: false`) is removed: the object refuses it, null
///   included.
///
/// Any other null is left as it is, for [`tools_toml`] to refuse.
pub fn refuse_unwritable_nulls(schemas: &mut Value) -> Vec<NullRewrite> {
    let mut rewrites = Vec::new();
    let Some(tools) = schemas.get_mut("tools").and_then(Value::as_array_mut) else { return rewrites };
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or_default().to_owned();
        if let Some(schema) = tool.get_mut("inputSchema") {
            rewrite_nulls(schema, &name, "#", &mut rewrites);
        }
    }
    rewrites
}

fn rewrite_nulls(node: &mut Value, tool: &str, path: &str, out: &mut Vec<NullRewrite>) {
    let mut note = |note: String| out.push(NullRewrite { tool: tool.to_owned(), path: path.to_owned(), note });
    let null = serde_json::json!({"type": "null"});
    if let Some(obj) = node.as_object()
        && obj.len() == 1
        && let Some(Value::Array(branches)) = obj.get("oneOf")
        && branches.len() == 2
        && let Some(i) = branches.iter().position(|b| *b == null)
        && let Some(Value::String(t)) = branches[1 - i].get("type")
        && t != "null"
        && ["enum", "const"].iter().all(|k| branches[1 - i].get(k).is_none())
    {
        let t = t.clone();
        let mut other = branches[1 - i].clone();
        other["type"] = serde_json::json!([t, "null"]);
        *node = other;
        note(format!(
            "upstream writes `oneOf: [null, {t}]`; written here as a nullable {t}, which takes the same values"
        ));
        // What lies inside sits, in upstream's schema, under the branch that was kept.
        return rewrite_nulls(node, tool, &format!("{path}/oneOf/{}", 1 - i), out);
    }
    let Some(obj) = node.as_object_mut() else { return };
    let nullable_of = |obj: &Map<String, Value>| match obj.get("type") {
        Some(Value::Array(types)) if types.len() == 2 && types.contains(&Value::from("null")) => {
            types.iter().find(|t| t.as_str() != Some("null")).and_then(Value::as_str).map(str::to_owned)
        }
        _ => None,
    };
    if let Some(t) = nullable_of(obj)
        && let Some(Value::Array(members)) = obj.get_mut("enum")
        && members.contains(&Value::Null)
        && members.iter().any(|m| !m.is_null())
    {
        members.retain(|m| !m.is_null());
        obj.insert("type".into(), Value::from(t));
        note(
            "upstream also takes null, a member of its `enum`: TOML cannot write null, so null is refused here".into(),
        );
    }
    let closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
    let required: Vec<String> = match obj.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = obj.get_mut("properties") {
        let mut names: Vec<String> = properties.keys().cloned().collect();
        names.sort();
        for name in &names {
            if closed && properties[name] == null && !required.contains(name) {
                properties.remove(name);
                out.push(NullRewrite {
                    tool: tool.to_owned(),
                    path: format!("{path}/properties/{}", pointer(name)),
                    note: "upstream takes this member only as null: TOML cannot write that type, so it is left \
                           out and the closed object refuses it"
                        .into(),
                });
            }
        }
        for name in &names {
            if let Some(schema) = properties.get_mut(name) {
                rewrite_nulls(schema, tool, &format!("{path}/properties/{}", pointer(name)), out);
            }
        }
    }
    if let Some(items) = obj.get_mut("items") {
        rewrite_nulls(items, tool, &format!("{path}/items"), out);
    }
    if let Some(Value::Array(branches)) = obj.get_mut("oneOf") {
        for (i, branch) in branches.iter_mut().enumerate() {
            rewrite_nulls(branch, tool, &format!("{path}/oneOf/{i}"), out);
        }
    }
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

/// The keywords the language writes, as JSON Schema spells them.
const KEYWORDS: [&str; 16] = [
    "type",
    "enum",
    "const",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "oneOf",
];

/// The keywords a node of each type may carry besides `type`.
fn takes(kind: &str) -> &'static [&'static str] {
    match kind {
        "text" => &["enum", "const", "default", "minLength", "pattern"],
        "integer" | "number" => &["default", "minimum", "maximum"],
        "boolean" => &["default"],
        "array" => &["default", "items", "minItems", "maxItems", "uniqueItems"],
        "object" => &["default", "properties", "required", "additionalProperties"],
        _ => &[],
    }
}

fn render(schemas: &Value, notes: &BTreeMap<String, Vec<String>>) -> Result<String, Unexpressible> {
    let version = schemas["m1nd_mcp"].as_str().unwrap_or_default();
    let mut out = String::new();
    writeln!(
        out,
        "# tools.toml: every MCP tool m1nd-mcp {version} lists, in its order, with the type of each argument as\n\
         # its inputSchema gives it (m1nd-upstream/m1nd-{version}/schemas.json), produced by\n\
         # `cargo run -p m1nd-upstream`. Never edit by hand. `agent_id`, a string upstream's tools take,\n\
         # is declared once under [common] and left out of each verb's own arguments and `requires`.\n\
         \n\
         [common]\n\
         accepts = [\"agent_id\"]\n\
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
        verb.write(&tool["inputSchema"], version, notes.get(name).map_or(&[], Vec::as_slice), &mut out)?;
    }
    Ok(out)
}

/// One tool being written: what every error names.
struct Verb<'a> {
    tool: &'a str,
}

/// One argument set: a tool's, or one branch of its top-level `oneOf`.
struct ArgumentSet {
    requires: Vec<String>,
    arguments: Vec<(String, String)>,
    agent_id: bool,
    closed: bool,
}

impl Verb<'_> {
    fn fail(&self, path: &str, what: impl Into<String>) -> Unexpressible {
        Unexpressible { tool: self.tool.to_owned(), path: path.to_owned(), what: what.into() }
    }

    fn write(&self, schema: &Value, version: &str, notes: &[String], out: &mut String) -> Result<(), Unexpressible> {
        let obj = schema.as_object().ok_or_else(|| self.fail("#", "an inputSchema that is not a JSON object"))?;
        let top = ["type", "properties", "required", "additionalProperties", "oneOf"];
        if let Some((key, _)) = sorted(obj).into_iter().find(|(k, _)| !top.contains(&k.as_str())) {
            return Err(self.fail("#", format!("the top-level keyword `{key}`")));
        }
        if obj.get("type") != Some(&Value::from("object")) {
            return Err(self.fail("#", "a top-level `type` other than `object`"));
        }
        if obj.get("additionalProperties").is_some_and(|a| *a != Value::Bool(false)) {
            return Err(self.fail(
                "#",
                "a top-level `additionalProperties` other than `false` (this server refuses arguments a tool does not declare)",
            ));
        }
        let sets = match obj.get("oneOf") {
            None => vec![self.argument_set(obj, "#")?],
            Some(_) if obj.contains_key("properties") || obj.contains_key("required") => {
                return Err(self.fail("#", "a top-level `oneOf` beside top-level `properties` or `required`"));
            }
            Some(Value::Array(branches)) if !branches.is_empty() => branches
                .iter()
                .enumerate()
                .map(|(i, branch)| {
                    let path = format!("#/oneOf/{i}");
                    let plain = branch.as_object().filter(|b| {
                        b.get("type") == Some(&Value::from("object"))
                            && b.keys().all(|k| {
                                ["type", "properties", "required", "additionalProperties"].contains(&k.as_str())
                            })
                            && b.get("additionalProperties").is_none_or(|a| *a == Value::Bool(false))
                    });
                    let branch = plain.ok_or_else(|| {
                        self.fail(&path, "a top-level `oneOf` branch that is not a plain object schema")
                    })?;
                    self.argument_set(branch, &path)
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err(self.fail("#", "a top-level `oneOf` that is not a non-empty array")),
        };
        let top_closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
        let with_agent = sets.iter().filter(|s| s.agent_id).count();
        let name = key(self.tool);
        out.push('\n');
        for note in notes {
            writeln!(out, "# {note}").unwrap();
        }
        if with_agent < sets.len() {
            let which =
                if with_agent == 0 { "declares no `agent_id`" } else { "declares `agent_id` in only some branches" };
            let refuses = if top_closed || sets.iter().all(|s| s.closed) {
                " (and takes no argument it does not declare)"
            } else {
                ""
            };
            writeln!(out, "# upstream's schema {which}{refuses}; [common] accepts it here all the same").unwrap();
        }
        writeln!(out, "[verbs.{name}]\nsummary = {}", quoted(&format!("m1nd {version} tool `{}`", self.tool))).unwrap();
        if obj.contains_key("oneOf") {
            out.push_str("one_of = [\n");
            for set in &sets {
                let mut fields = Vec::new();
                if !set.requires.is_empty() {
                    fields.push(("requires".to_owned(), strings(&set.requires)));
                }
                fields.push(("arguments".to_owned(), inline(&set.arguments)));
                writeln!(out, "  {},", inline(&fields)).unwrap();
            }
            out.push_str("]\n");
            return Ok(());
        }
        let set = &sets[0];
        if !set.requires.is_empty() {
            writeln!(out, "requires = {}", strings(&set.requires)).unwrap();
        }
        if !set.arguments.is_empty() {
            writeln!(out, "\n[verbs.{name}.arguments]").unwrap();
            for (argument, ty) in &set.arguments {
                writeln!(out, "{argument} = {ty}").unwrap();
            }
        }
        Ok(())
    }

    /// The arguments of an object schema (the tool's, or a branch's), without `agent_id`.
    fn argument_set(&self, obj: &Map<String, Value>, path: &str) -> Result<ArgumentSet, Unexpressible> {
        let empty = Map::new();
        let properties = match obj.get("properties") {
            None => &empty,
            Some(Value::Object(properties)) => properties,
            Some(_) => return Err(self.fail(path, "`properties` that is not an object")),
        };
        let agent_id = match properties.get("agent_id") {
            None => false,
            Some(schema) if *schema == serde_json::json!({"type": "string"}) => true,
            Some(_) => {
                return Err(self.fail(
                    &format!("{path}/properties/agent_id"),
                    "an `agent_id` that is not a plain string (`[arguments] agent_id = \"text\"` types it for every verb)",
                ));
            }
        };
        let requires = self.required(obj, properties, path)?.into_iter().filter(|r| r != "agent_id").collect();
        let mut arguments = Vec::new();
        for (name, schema) in sorted(properties) {
            if name != "agent_id" {
                arguments.push((key(name), self.ty(schema, &format!("{path}/properties/{}", pointer(name)))?));
            }
        }
        let closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
        Ok(ArgumentSet { requires, arguments, agent_id, closed })
    }

    /// `required`, in upstream's order, each a declared property.
    fn required(
        &self,
        obj: &Map<String, Value>,
        properties: &Map<String, Value>,
        path: &str,
    ) -> Result<Vec<String>, Unexpressible> {
        let Some(required) = obj.get("required") else { return Ok(Vec::new()) };
        let names = required.as_array().ok_or_else(|| self.fail(path, "`required` that is not an array"))?;
        names
            .iter()
            .map(|name| match name.as_str() {
                Some(name) if properties.contains_key(name) => Ok(name.to_owned()),
                Some(name) => {
                    Err(self.fail(path, format!("`required` naming `{name}`, which `properties` does not declare")))
                }
                None => Err(self.fail(path, "`required` with a member that is not a string")),
            })
            .collect()
    }

    /// One schema node as a type: the shorthand when it has only `type`.
    fn ty(&self, node: &Value, path: &str) -> Result<String, Unexpressible> {
        let obj = node.as_object().ok_or_else(|| self.fail(path, "a schema that is not a JSON object"))?;
        if let Some((key, _)) = sorted(obj).into_iter().find(|(k, _)| !KEYWORDS.contains(&k.as_str())) {
            return Err(self.fail(path, format!("the keyword `{key}`")));
        }
        let (kind, nullable) = match obj.get("type") {
            None => return self.untyped(obj, path),
            Some(Value::Array(types)) => {
                let named: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
                let nullable = named.len() < types.len();
                match named.as_slice() {
                    [one] if nullable && types.len() == 2 => (self.kind(one, path)?, true),
                    [_, _, ..] if !nullable && obj.len() == 1 => {
                        let mut kinds = Vec::new();
                        for t in &named {
                            let kind = self.kind(t, path)?;
                            if kinds.contains(&kind) {
                                return Err(self.fail(
                                    path,
                                    format!("`type: {node}`, which names a type twice", node = obj["type"]),
                                ));
                            }
                            kinds.push(kind);
                        }
                        let branches: Vec<String> = kinds.iter().map(|k| quoted(k)).collect();
                        return Ok(format!("{{ one_of = [{}] }}", branches.join(", ")));
                    }
                    [_, _, ..] if !nullable => {
                        return Err(self.fail(path, "a union of types (`type: [...]`) beside other keywords"));
                    }
                    _ => return Err(self.fail(path, format!("`type: {}`", obj["type"]))),
                }
            }
            Some(name) => (self.kind(name, path)?, false),
        };
        if let Some((key, _)) =
            sorted(obj).into_iter().find(|(k, _)| *k != "type" && !takes(kind).contains(&k.as_str()))
        {
            return Err(self.fail(path, format!("`{key}` on a `{}` argument", obj["type"])));
        }
        let mut fields = vec![("type".to_owned(), quoted(kind))];
        if nullable {
            fields.push(("nullable".into(), "true".into()));
        }
        for (keyword, field) in [
            ("enum", "enum"),
            ("const", "const"),
            ("default", "default"),
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("minLength", "min_length"),
            ("pattern", "pattern"),
            ("items", "items"),
            ("minItems", "min_items"),
            ("maxItems", "max_items"),
            ("uniqueItems", "unique_items"),
            ("properties", "properties"),
            ("required", "required"),
            ("additionalProperties", "additional_properties"),
        ] {
            let Some(value) = obj.get(keyword) else { continue };
            let written = match keyword {
                "enum" => self.choices(value, path)?,
                "const" => self.constant(value, path)?,
                "default" => self.value(value, path, "default")?,
                "minimum" | "maximum" => match value.as_i64() {
                    Some(n) => n.to_string(),
                    None => return Err(self.fail(path, format!("`{keyword}: {value}`, not an integer"))),
                },
                "minLength" | "minItems" | "maxItems" => match value.as_i64().filter(|n| *n >= 0) {
                    Some(n) => n.to_string(),
                    None => return Err(self.fail(path, format!("`{keyword}: {value}`, not a non-negative integer"))),
                },
                "pattern" => match value.as_str() {
                    Some(pattern) => quoted(pattern),
                    None => return Err(self.fail(path, "a `pattern` that is not a string")),
                },
                "items" => self.ty(value, &format!("{path}/items"))?,
                "uniqueItems" | "additionalProperties" => match value {
                    Value::Bool(true) if keyword == "uniqueItems" => "true".into(),
                    Value::Bool(false) if keyword == "additionalProperties" => "false".into(),
                    _ => return Err(self.fail(path, format!("`{keyword}: {value}`"))),
                },
                "properties" => {
                    let properties =
                        value.as_object().ok_or_else(|| self.fail(path, "`properties` that is not an object"))?;
                    let mut members = Vec::new();
                    for (name, schema) in sorted(properties) {
                        members.push((key(name), self.ty(schema, &format!("{path}/properties/{}", pointer(name)))?));
                    }
                    inline(&members)
                }
                "required" => {
                    let empty = Map::new();
                    let properties = obj.get("properties").and_then(Value::as_object).unwrap_or(&empty);
                    strings(&self.required(obj, properties, path)?)
                }
                _ => unreachable!("every keyword of the list is written"),
            };
            fields.push((field.into(), written));
        }
        Ok(if fields.len() == 1 { fields.remove(0).1 } else { inline(&fields) })
    }

    /// A node without `type`: `{}`, or only `enum`, `const` or `oneOf`.
    fn untyped(&self, obj: &Map<String, Value>, path: &str) -> Result<String, Unexpressible> {
        let keys: Vec<&str> = sorted(obj).into_iter().map(|(k, _)| k.as_str()).collect();
        let text = quoted("text");
        match keys.as_slice() {
            [] => Ok(quoted("any")),
            ["enum"] => Ok(inline(&[("type".into(), text), ("enum".into(), self.choices(&obj["enum"], path)?)])),
            ["const"] => Ok(inline(&[("type".into(), text), ("const".into(), self.constant(&obj["const"], path)?)])),
            ["oneOf"] => {
                let branches = obj["oneOf"].as_array().filter(|b| !b.is_empty());
                let branches = branches.ok_or_else(|| self.fail(path, "a `oneOf` that is not a non-empty array"))?;
                let mut written = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    written.push(self.ty(branch, &format!("{path}/oneOf/{i}"))?);
                }
                Ok(format!("{{ one_of = [{}] }}", written.join(", ")))
            }
            _ if keys.contains(&"oneOf") => Err(self.fail(path, "`oneOf` beside other keywords")),
            _ => Err(self.fail(path, format!("`{}` without a `type`", keys.join("`, `")))),
        }
    }

    fn kind(&self, name: &Value, path: &str) -> Result<&'static str, Unexpressible> {
        match name.as_str() {
            Some("string") => Ok("text"),
            Some("integer") => Ok("integer"),
            Some("number") => Ok("number"),
            Some("boolean") => Ok("boolean"),
            Some("array") => Ok("array"),
            Some("object") => Ok("object"),
            Some("null") => Err(self.fail(path, "`type: \"null\"` (the language has no type for null alone)")),
            _ => Err(self.fail(path, format!("`type: {name}`"))),
        }
    }

    /// An `enum`: strings only (TOML cannot write null), at least one.
    fn choices(&self, value: &Value, path: &str) -> Result<String, Unexpressible> {
        let members = value.as_array().filter(|m| !m.is_empty());
        let members = members.ok_or_else(|| self.fail(path, "an `enum` that is not a non-empty array"))?;
        if members.iter().any(Value::is_null) {
            return Err(self.fail(path, "a null member of `enum` (TOML cannot write null)"));
        }
        let names: Option<Vec<String>> = members.iter().map(|m| m.as_str().map(str::to_owned)).collect();
        names.map(|n| strings(&n)).ok_or_else(|| self.fail(path, "an `enum` member that is not a string"))
    }

    fn constant(&self, value: &Value, path: &str) -> Result<String, Unexpressible> {
        match value {
            Value::String(s) => Ok(quoted(s)),
            Value::Null => Err(self.fail(path, "`const: null` (TOML cannot write null)")),
            _ => Err(self.fail(path, format!("`const: {value}`, not a string"))),
        }
    }

    /// A JSON value as TOML: every JSON value but null, and integers TOML can hold.
    fn value(&self, value: &Value, path: &str, keyword: &str) -> Result<String, Unexpressible> {
        Ok(match value {
            Value::Null => return Err(self.fail(path, format!("a null in `{keyword}` (TOML cannot write null)"))),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => match n.as_i64() {
                Some(i) => i.to_string(),
                None if n.is_u64() => {
                    return Err(self.fail(path, format!("`{keyword}: {n}`, an integer beyond TOML's range")));
                }
                None => {
                    let text = n.to_string();
                    if text.contains(['.', 'e', 'E']) { text } else { format!("{text}.0") }
                }
            },
            Value::String(s) => quoted(s),
            Value::Array(items) => {
                let items: Result<Vec<String>, _> = items.iter().map(|v| self.value(v, path, keyword)).collect();
                format!("[{}]", items?.join(", "))
            }
            Value::Object(members) => {
                let mut written = Vec::new();
                for (name, v) in sorted(members) {
                    written.push((key(name), self.value(v, path, keyword)?));
                }
                inline(&written)
            }
        })
    }
}

/// A map's members in name order.
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<_> = map.iter().collect();
    members.sort_by(|a, b| a.0.cmp(b.0));
    members
}

/// `{ a = 1, b = "x" }`, or `{}`.
fn inline(fields: &[(String, String)]) -> String {
    if fields.is_empty() {
        return "{}".into();
    }
    let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("{{ {} }}", fields.join(", "))
}

fn strings(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A bare key when TOML allows one, else a quoted one.
fn key(name: &str) -> String {
    let bare = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare { name.to_owned() } else { quoted(name) }
}

/// A TOML basic string: `"` and `\` escaped, and every control character.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A property name as a JSON Pointer token.
fn pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schemas.json of one tool.
    fn one(name: &str, schema: Value) -> String {
        serde_json::json!({"m1nd_mcp": "1.6.5", "tools": [{"name": name, "inputSchema": schema}]}).to_string()
    }

    /// The lines after the header and `[arguments]`.
    fn verbs(toml: &str) -> &str {
        let common = "\n[arguments]\nagent_id = \"text\"\n\n";
        &toml[toml.find(common).expect("the common argument") + common.len()..]
    }

    #[test]
    fn plain_arguments_take_the_shorthand_and_constraints_an_inline_table() {
        let schema = serde_json::json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["agent_id", "node_id"],
            "properties": {
                "agent_id": {"type": "string"},
                "node_id": {"type": "string"},
                "depth": {"type": "integer", "default": 3, "minimum": 1, "maximum": 8},
                "weight": {"type": "number", "default": 24.0},
                "mode": {"type": "string", "enum": ["forward", "reverse"], "default": "forward"},
                "digest": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$\\b\"", "minLength": 1},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 4, "uniqueItems": true, "default": []},
                "value": {},
                "kind": {"enum": ["a", "b"]},
                "schema": {"const": "m1nd-x-v1"},
                "event": {"type": ["object", "string"]},
                "budget": {"type": "object", "properties": {"tokens": {"type": "integer", "default": 2000}}, "default": {"tokens": 1}},
                "parent": {"type": ["object", "null"], "additionalProperties": false, "required": ["id"], "properties": {"id": {"type": "string"}, "weird key": {"type": "boolean"}}},
            }
        });
        let toml = tools_toml(&one("impact", schema)).unwrap();
        assert!(toml.contains("[common]\naccepts = [\"agent_id\"]\n\n[arguments]\nagent_id = \"text\"\n"), "{toml}");
        assert_eq!(
            verbs(&toml),
            r#"[verbs.impact]
summary = "m1nd 1.6.5 tool `impact`"
requires = ["node_id"]

[verbs.impact.arguments]
budget = { type = "object", default = { tokens = 1 }, properties = { tokens = { type = "integer", default = 2000 } } }
depth = { type = "integer", default = 3, minimum = 1, maximum = 8 }
digest = { type = "text", nullable = true, min_length = 1, pattern = "^[0-9a-f]{64}$\\b\"" }
event = { one_of = ["object", "text"] }
kind = { type = "text", enum = ["a", "b"] }
mode = { type = "text", enum = ["forward", "reverse"], default = "forward" }
node_id = "text"
parent = { type = "object", nullable = true, properties = { id = "text", "weird key" = "boolean" }, required = ["id"], additional_properties = false }
schema = { type = "text", const = "m1nd-x-v1" }
tags = { type = "array", default = [], items = { type = "text", min_length = 1 }, min_items = 1, max_items = 4, unique_items = true }
value = "any"
weight = { type = "number", default = 24.0 }
"#
        );
        toml.parse::<toml::Table>().expect("the output is TOML");
    }

    #[test]
    fn a_top_level_one_of_is_one_argument_set_per_branch() {
        let schema = serde_json::json!({"type": "object", "oneOf": [
            {"type": "object", "additionalProperties": false, "required": ["action", "id"],
             "properties": {"action": {"const": "land"}, "id": {"type": "string", "minLength": 1}}},
            {"type": "object", "required": ["action"], "properties": {"action": {"const": "status"}}},
        ]});
        let toml = tools_toml(&one("mission_service", schema)).unwrap();
        assert_eq!(
            verbs(&toml),
            "# upstream's schema declares no `agent_id`; [common] accepts it here all the same\n\
             [verbs.mission_service]\n\
             summary = \"m1nd 1.6.5 tool `mission_service`\"\n\
             one_of = [\n  \
             { requires = [\"action\", \"id\"], arguments = { action = { type = \"text\", const = \"land\" }, id = { type = \"text\", min_length = 1 } } },\n  \
             { requires = [\"action\"], arguments = { action = { type = \"text\", const = \"status\" } } },\n\
             ]\n"
        );
        toml.parse::<toml::Table>().expect("the output is TOML");
    }

    #[test]
    fn a_tool_without_agent_id_and_closed_is_said_so() {
        let schema = serde_json::json!({"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}});
        let toml = tools_toml(&one("evidence_query", schema)).unwrap();
        assert!(
            verbs(&toml).starts_with(
                "# upstream's schema declares no `agent_id` (and takes no argument it does not declare); \
                 [common] accepts it here all the same\n[verbs.evidence_query]\n"
            ),
            "{toml}"
        );
    }

    fn refused(schema: Value) -> Unexpressible {
        tools_toml(&one("t", schema)).unwrap_err()
    }

    fn with(name: &str, property: Value) -> Value {
        serde_json::json!({"type": "object", "properties": {"agent_id": {"type": "string"}, name: property}})
    }

    #[test]
    fn what_the_language_has_no_words_for_is_named_with_its_place() {
        let err = refused(with("limit", serde_json::json!({"type": "integer", "exclusiveMinimum": 0})));
        assert_eq!(
            err,
            Unexpressible {
                tool: "t".into(),
                path: "#/properties/limit".into(),
                what: "the keyword `exclusiveMinimum`".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "`t` at #/properties/limit: the keyword `exclusiveMinimum` cannot be written in tools.toml"
        );
        let nested = with(
            "a",
            serde_json::json!({"type": "array", "items": {"type": "object", "properties": {"x/y": {"type": "string", "format": "uri"}}}}),
        );
        assert_eq!(refused(nested).path, "#/properties/a/items/properties/x~1y");
        let cases = [
            (serde_json::json!({"type": "string", "default": null}), "a null in `default` (TOML cannot write null)"),
            (
                serde_json::json!({"type": ["string", "null"], "enum": [null, "A0"]}),
                "a null member of `enum` (TOML cannot write null)",
            ),
            (serde_json::json!({"type": "null"}), "`type: \"null\"` (the language has no type for null alone)"),
            (
                serde_json::json!({"oneOf": [{"type": "null"}, {"type": "object"}]}),
                "`type: \"null\"` (the language has no type for null alone)",
            ),
            (serde_json::json!({"type": "integer", "minLength": 1}), "`minLength` on a `\"integer\"` argument"),
            (serde_json::json!({"type": "integer", "enum": [1, 2]}), "`enum` on a `\"integer\"` argument"),
            (serde_json::json!({"enum": ["a", 1]}), "an `enum` member that is not a string"),
            (serde_json::json!({"type": "number", "minimum": 0.5}), "`minimum: 0.5`, not an integer"),
            (
                serde_json::json!({"type": ["string", "number"], "minLength": 1}),
                "a union of types (`type: [...]`) beside other keywords",
            ),
            (serde_json::json!({"type": ["string", "number", "null"]}), "`type: [\"string\",\"number\",\"null\"]`"),
            (
                serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}}),
                "`additionalProperties: {\"type\":\"string\"}`",
            ),
            (serde_json::json!({"type": "array", "uniqueItems": false}), "`uniqueItems: false`"),
            (serde_json::json!({"type": "string", "oneOf": [{"const": "a"}]}), "`oneOf` on a `\"string\"` argument"),
            (serde_json::json!({"minLength": 1}), "`minLength` without a `type`"),
            (
                serde_json::json!({"type": "object", "required": ["x"]}),
                "`required` naming `x`, which `properties` does not declare",
            ),
        ];
        for (schema, what) in cases {
            assert_eq!(refused(with("a", schema.clone())).what, what, "{schema}");
        }
        assert_eq!(refused(with("a", serde_json::json!({"oneOf": [{"type": "null"}]}))).path, "#/properties/a/oneOf/0");
    }

    #[test]
    fn top_level_shapes_outside_the_language_are_refused() {
        let agent =
            serde_json::json!({"type": "object", "properties": {"agent_id": {"type": "string", "minLength": 1}}});
        assert_eq!(refused(agent).path, "#/properties/agent_id");
        let open = serde_json::json!({"type": "object", "additionalProperties": true});
        assert!(refused(open).what.contains("additionalProperties"));
        let branch = serde_json::json!({"type": "object", "oneOf": [{"type": "object", "minProperties": 1}]});
        assert_eq!(
            refused(branch),
            Unexpressible {
                tool: "t".into(),
                path: "#/oneOf/0".into(),
                what: "a top-level `oneOf` branch that is not a plain object schema".into()
            }
        );
        let both = serde_json::json!({"type": "object", "properties": {}, "oneOf": [{"type": "object"}]});
        assert_eq!(refused(both).path, "#");
        assert_eq!(refused(serde_json::json!({"type": "object", "anyOf": []})).what, "the top-level keyword `anyOf`");
        let missing = serde_json::json!({"type": "object", "required": ["agent_id"]});
        assert_eq!(refused(missing).what, "`required` naming `agent_id`, which `properties` does not declare");
    }

    #[test]
    fn the_null_rewrites_take_the_same_values_or_fewer_and_say_where() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "agent_id": {"type": "string"},
            "evidence": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {
                "id": {"type": "string"},
                "inner": {"type": ["string", "null"], "enum": ["x", null]},
            }}]},
            "tier": {"type": ["string", "null"], "enum": [null, "A0", "A1"]},
            "request": {"type": "object", "additionalProperties": false, "required": ["id"],
                        "properties": {"id": {"type": "string"}, "parent": {"type": "null"}}},
            "open": {"type": "object", "properties": {"parent": {"type": "null"}}},
        }});
        let raw = one("authority_authorize", schema);
        assert_eq!(tools_toml(&raw).unwrap_err().path, "#/properties/evidence/oneOf/0");
        let mut schemas: Value = serde_json::from_str(&raw).unwrap();
        let rewrites = refuse_unwritable_nulls(&mut schemas);
        let at: Vec<&str> = rewrites.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            at,
            [
                "#/properties/evidence",
                "#/properties/evidence/oneOf/1/properties/inner",
                "#/properties/request/properties/parent",
                "#/properties/tier"
            ]
        );
        let mut kept = serde_json::json!({"tools": [{"name": "t", "inputSchema": with("a", serde_json::json!(
            {"oneOf": [{"type": "null"}, {"type": "string", "enum": ["x"]}]}
        ))}]});
        assert_eq!(
            refuse_unwritable_nulls(&mut kept),
            [],
            "an enum beside null would refuse null: not the same values"
        );
        // The open object's null member is not rewritten: leaving it out would let anything through.
        assert_eq!(policy_tools_toml(&raw).unwrap_err().path, "#/properties/open/properties/parent");
        let mut schema = serde_json::from_str::<Value>(&raw).unwrap()["tools"][0]["inputSchema"].clone();
        schema["properties"].as_object_mut().unwrap().remove("open");
        let toml = policy_tools_toml(&one("authority_authorize", schema)).unwrap();
        assert!(toml.contains("\n# at #/properties/evidence: upstream writes `oneOf: [null, object]`; "), "{toml}");
        let evidence = "evidence = { type = \"object\", nullable = true, properties = { id = \"text\", inner = { type = \"text\", enum = [\"x\"] } } }\n";
        assert!(toml.contains(evidence), "{toml}");
        assert!(toml.contains("request = { type = \"object\", properties = { id = \"text\" }, required = [\"id\"], additional_properties = false }\n"));
        assert!(toml.contains("tier = { type = \"text\", enum = [\"A0\", \"A1\"] }\n"));
        toml.parse::<toml::Table>().expect("the output is TOML");
    }

    #[test]
    fn strings_are_escaped_for_toml() {
        assert_eq!(quoted("a\"b\\c\u{7f}\u{1}\n"), r#""a\"b\\c\u007F\u0001\n""#);
        assert_eq!(key("top_k"), "top_k");
        assert_eq!(key("a.b"), "\"a.b\"");
    }
}
