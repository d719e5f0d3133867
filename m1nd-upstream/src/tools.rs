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
        // Only to say that a null `default` cannot be written.
        "null" => &["default"],
        _ => &[],
    }
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

/// One tool being written: what every error names.
struct Verb<'a> {
    tool: &'a str,
}

/// One argument set: a tool's, or one branch of its top-level `oneOf`.
struct ArgumentSet {
    requires: Vec<String>,
    arguments: Vec<(String, String)>,
    agent_id: bool,
}

impl Verb<'_> {
    fn fail(&self, path: &str, what: impl Into<String>) -> Unexpressible {
        Unexpressible { tool: self.tool.to_owned(), path: path.to_owned(), what: what.into() }
    }

    fn write(&self, schema: &Value, version: &str, out: &mut String) -> Result<(), Unexpressible> {
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
        let common = match sets.iter().filter(|s| s.agent_id).count() {
            0 => false,
            n if n == sets.len() => true,
            _ => {
                return Err(self.fail(
                    "#",
                    "`agent_id` in only some top-level `oneOf` branches (a verb takes the [common] arguments in \
                     every argument set or in none)",
                ));
            }
        };
        let name = key(self.tool);
        writeln!(out, "\n[verbs.{name}]\nsummary = {}", quoted(&format!("m1nd {version} tool `{}`", self.tool)))
            .unwrap();
        if !common {
            out.push_str("common = false\n");
        }
        // A `oneOf` of one branch is that branch: the verb's own arguments.
        if sets.len() > 1 {
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
        Ok(ArgumentSet { requires, arguments, agent_id })
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
        self.ty_as(node, path, takes_null(node))
    }

    /// One schema node as a type that takes null exactly when `nullable`
    /// says: what the node itself says ([`takes_null`]), or what the `oneOf`
    /// it is the one non-null branch of says.
    fn ty_as(&self, node: &Value, path: &str, nullable: bool) -> Result<String, Unexpressible> {
        let obj = node.as_object().ok_or_else(|| self.fail(path, "a schema that is not a JSON object"))?;
        if let Some((key, _)) = sorted(obj).into_iter().find(|(k, _)| !KEYWORDS.contains(&k.as_str())) {
            return Err(self.fail(path, format!("the keyword `{key}`")));
        }
        let kind = match obj.get("type") {
            None => return self.untyped(obj, path, nullable),
            Some(Value::Array(types)) => {
                let mut kinds = Vec::new();
                for t in types {
                    let kind = self.kind(t, path)?;
                    if kinds.contains(&kind) {
                        return Err(
                            self.fail(path, format!("`type: {node}`, which names a type twice", node = obj["type"]))
                        );
                    }
                    kinds.push(kind);
                }
                kinds.retain(|k| *k != "null");
                match kinds.as_slice() {
                    [] if types.is_empty() => return Err(self.fail(path, "an empty `type: []`")),
                    [] => "null",
                    [one] => one,
                    [_, _, ..] if obj.len() == 1 => {
                        let branches: Vec<String> = kinds.iter().map(|k| quoted(k)).collect();
                        return Ok(union(&branches, nullable));
                    }
                    [_, _, ..] => {
                        return Err(self.fail(path, "a union of types (`type: [...]`) beside other keywords"));
                    }
                }
            }
            Some(name) => self.kind(name, path)?,
        };
        if let Some((key, _)) =
            sorted(obj).into_iter().find(|(k, _)| *k != "type" && !takes(kind).contains(&k.as_str()))
        {
            return Err(self.fail(path, format!("`{key}` on a `{}` argument", obj["type"])));
        }
        let mut fields = vec![("type".to_owned(), quoted(kind))];
        if nullable && kind != "null" {
            fields.push(("nullable".into(), "true".into()));
        }
        if kind == "null" && !nullable {
            return Err(self.fail(path, "`type: \"null\"` where null is refused, which no value fits"));
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
    fn untyped(&self, obj: &Map<String, Value>, path: &str, nullable: bool) -> Result<String, Unexpressible> {
        let keys: Vec<&str> = sorted(obj).into_iter().map(|(k, _)| k.as_str()).collect();
        let text = quoted("text");
        let fields = |kind: String, rest: Option<(&str, String)>| {
            let mut fields = vec![("type".to_owned(), kind)];
            if nullable {
                fields.push(("nullable".into(), "true".into()));
            }
            fields.extend(rest.map(|(k, v)| (k.to_owned(), v)));
            inline(&fields)
        };
        match keys.as_slice() {
            [] if nullable => Ok(fields(quoted("any"), None)),
            [] => Ok(quoted("any")),
            ["enum"] => Ok(fields(text, Some(("enum", self.choices(&obj["enum"], path)?)))),
            ["const"] => Ok(fields(text, Some(("const", self.constant(&obj["const"], path)?)))),
            ["oneOf"] => {
                let branches = obj["oneOf"].as_array().filter(|b| !b.is_empty());
                let branches = branches.ok_or_else(|| self.fail(path, "a `oneOf` that is not a non-empty array"))?;
                // A branch that is only null says nothing `nullable` does not.
                let only_null = |b: &Value| {
                    b.as_object().is_some_and(|b| b.len() == 1) && matches!(&b["type"], Value::String(t) if t == "null")
                };
                let others: Vec<(usize, &Value)> = branches.iter().enumerate().filter(|(_, b)| !only_null(b)).collect();
                match others.as_slice() {
                    [] if nullable => Ok(quoted("null")),
                    [] => Err(self.fail(path, "a `oneOf` of null branches that refuses null, which no value fits")),
                    [(i, branch)] => self.ty_as(branch, &format!("{path}/oneOf/{i}"), nullable),
                    _ => {
                        let mut written = Vec::new();
                        for (i, branch) in &others {
                            written.push(self.ty(branch, &format!("{path}/oneOf/{i}"))?);
                        }
                        Ok(union(&written, nullable))
                    }
                }
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
            Some("null") => Ok("null"),
            _ => Err(self.fail(path, format!("`type: {name}`"))),
        }
    }

    /// An `enum`'s strings: null, when a member, is said by `nullable`
    /// (where the node's `type` lets it through), and is not written.
    fn choices(&self, value: &Value, path: &str) -> Result<String, Unexpressible> {
        let members = value.as_array().filter(|m| !m.is_empty());
        let members = members.ok_or_else(|| self.fail(path, "an `enum` that is not a non-empty array"))?;
        let members: Vec<&Value> = members.iter().filter(|m| !m.is_null()).collect();
        if members.is_empty() {
            return Err(self.fail(path, "an `enum` whose only member is null (write `type: \"null\"`)"));
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

/// Whether JSON Schema lets null through `node`, for the keywords the
/// language writes: `type` must name null (or be absent), `enum` must list
/// it, `const` must be it, and exactly one `oneOf` branch must take it.
/// The other keywords say nothing about null.
fn takes_null(node: &Value) -> bool {
    let Some(obj) = node.as_object() else { return false };
    let typed = match obj.get("type") {
        None => true,
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        Some(_) => false,
    };
    let listed = obj.get("enum").is_none_or(|e| e.as_array().is_some_and(|m| m.contains(&Value::Null)));
    let constant = obj.get("const").is_none_or(Value::is_null);
    let one =
        obj.get("oneOf").is_none_or(|b| b.as_array().is_some_and(|b| b.iter().filter(|b| takes_null(b)).count() == 1));
    typed && listed && constant && one
}

/// `{ one_of = [...] }`, with `nullable = true` when the union takes null.
fn union(branches: &[String], nullable: bool) -> String {
    let mut fields = vec![("one_of".to_owned(), format!("[{}]", branches.join(", ")))];
    if nullable {
        fields.push(("nullable".into(), "true".into()));
    }
    inline(&fields)
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
    fn agent_id_is_required_or_accepted_for_every_tool_alike() {
        let tool = |name: &str, required: &[&str]| {
            serde_json::json!({"name": name, "inputSchema": {"type": "object", "required": required,
                "properties": {"agent_id": {"type": "string"}}}})
        };
        let schemas = |tools: Vec<Value>| {
            serde_json::json!({"m1nd_mcp": "1.6.5", "schema": "m1nd-upstream-schemas-v1", "tools": tools}).to_string()
        };
        let optional = tools_toml(&schemas(vec![tool("a", &[]), tool("b", &[])])).unwrap();
        assert!(optional.contains("[common]\naccepts = [\"agent_id\"]\n"), "{optional}");
        let mixed = tools_toml(&schemas(vec![tool("a", &["agent_id"]), tool("b", &[])])).unwrap_err();
        assert_eq!(mixed.tool, "b");
        assert!(mixed.what.contains("required by `a` but optional in `b`"), "{}", mixed.what);
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
        assert!(toml.contains("[common]\nrequires = [\"agent_id\"]\n\n[arguments]\nagent_id = \"text\"\n"), "{toml}");
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
value = { type = "any", nullable = true }
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
            "[verbs.mission_service]\n\
             summary = \"m1nd 1.6.5 tool `mission_service`\"\n\
             common = false\n\
             one_of = [\n  \
             { requires = [\"action\", \"id\"], arguments = { action = { type = \"text\", const = \"land\" }, id = { type = \"text\", min_length = 1 } } },\n  \
             { requires = [\"action\"], arguments = { action = { type = \"text\", const = \"status\" } } },\n\
             ]\n"
        );
        toml.parse::<toml::Table>().expect("the output is TOML");
    }

    #[test]
    fn a_one_of_of_one_branch_is_that_branch() {
        let schema = serde_json::json!({"type": "object", "oneOf": [
            {"type": "object", "required": ["agent_id", "id"], "properties": {"agent_id": {"type": "string"}, "id": {"type": "string"}}},
        ]});
        let toml = tools_toml(&one("land", schema)).unwrap();
        assert_eq!(
            verbs(&toml),
            "[verbs.land]\nsummary = \"m1nd 1.6.5 tool `land`\"\nrequires = [\"id\"]\n\n[verbs.land.arguments]\nid = \"text\"\n"
        );
    }

    #[test]
    fn a_tool_without_agent_id_takes_no_common_argument() {
        let schema = serde_json::json!({"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}});
        let toml = tools_toml(&one("evidence_query", schema)).unwrap();
        assert_eq!(
            verbs(&toml),
            "[verbs.evidence_query]\n\
             summary = \"m1nd 1.6.5 tool `evidence_query`\"\n\
             common = false\n\
             \n\
             [verbs.evidence_query.arguments]\n\
             id = \"text\"\n"
        );
        let table: toml::Table = toml.parse().expect("the output is TOML");
        assert_eq!(table["verbs"]["evidence_query"]["common"], toml::Value::Boolean(false));
        let some = serde_json::json!({"type": "object", "oneOf": [
            {"type": "object", "properties": {"agent_id": {"type": "string"}, "a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}},
        ]});
        assert_eq!(
            refused(some),
            Unexpressible {
                tool: "t".into(),
                path: "#".into(),
                what: "`agent_id` in only some top-level `oneOf` branches (a verb takes the [common] arguments in \
                       every argument set or in none)"
                    .into()
            }
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
            (serde_json::json!({"type": "null", "default": null}), "a null in `default` (TOML cannot write null)"),
            (serde_json::json!({"type": ["string", "null"], "const": null}), "`const: null` (TOML cannot write null)"),
            (
                serde_json::json!({"type": ["string", "null"], "enum": [null]}),
                "an `enum` whose only member is null (write `type: \"null\"`)",
            ),
            (
                serde_json::json!({"oneOf": [{"type": "null"}, {"type": "null"}]}),
                "a `oneOf` of null branches that refuses null, which no value fits",
            ),
            (
                serde_json::json!({"oneOf": [{"type": "null"}, {"type": ["null"]}]}),
                "`type: \"null\"` where null is refused, which no value fits",
            ),
            (serde_json::json!({"type": "integer", "minLength": 1}), "`minLength` on a `\"integer\"` argument"),
            (serde_json::json!({"type": "integer", "enum": [1, 2]}), "`enum` on a `\"integer\"` argument"),
            (serde_json::json!({"enum": ["a", 1]}), "an `enum` member that is not a string"),
            (serde_json::json!({"type": "number", "minimum": 0.5}), "`minimum: 0.5`, not an integer"),
            (
                serde_json::json!({"type": ["string", "number"], "minLength": 1}),
                "a union of types (`type: [...]`) beside other keywords",
            ),
            (
                serde_json::json!({"type": ["string", "null", "string"]}),
                "`type: [\"string\",\"null\",\"string\"]`, which names a type twice",
            ),
            (serde_json::json!({"type": "any"}), "`type: \"any\"`"),
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
        let inner = serde_json::json!({"oneOf": [{"type": "null"}, {"type": "string", "format": "uri"}]});
        assert_eq!(refused(with("a", inner)).path, "#/properties/a/oneOf/1");
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
    fn null_is_written_where_upstream_takes_it_and_nowhere_else() {
        let schema = serde_json::json!({"type": "object", "additionalProperties": false, "properties": {
            "agent_id": {"type": "string"},
            // The kind `null`, for a member that takes only null.
            "request": {"type": "object", "additionalProperties": false, "required": ["id"],
                        "properties": {"id": {"type": "string"}, "parent": {"type": "null"}}},
            "nothing": {"type": "null"},
            // `nullable` is read before `enum`: null is written there by `nullable`, and only there.
            "tier": {"type": ["string", "null"], "enum": [null, "A0", "A1"]},
            "kind": {"enum": ["a", null]},
            "plain": {"type": "string", "enum": ["a", null]},
            "picked": {"type": ["string", "null"], "enum": ["a"]},
            "fixed": {"type": ["string", "null"], "const": "x"},
            "bounded": {"type": ["integer", "null"], "minimum": 1},
            // `oneOf: [null, S]`: `S`, nullable unless `S` takes null itself (then null fits two branches).
            "evidence": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {"id": {"type": "string"}}}]},
            "tagged": {"oneOf": [{"type": "null"}, {"type": "string", "enum": ["x"]}]},
            "twice": {"oneOf": [{"type": "null"}, {"type": ["string", "null"], "enum": ["x", null]}]},
            "either": {"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]},
            "union": {"type": ["string", "number", "null"]},
            "value": {},
        }});
        let toml = tools_toml(&one("authority_authorize", schema)).unwrap();
        assert_eq!(
            verbs(&toml),
            r#"[verbs.authority_authorize]
summary = "m1nd 1.6.5 tool `authority_authorize`"

[verbs.authority_authorize.arguments]
bounded = { type = "integer", nullable = true, minimum = 1 }
either = { one_of = ["integer", "text"], nullable = true }
evidence = { type = "object", nullable = true, properties = { id = "text" } }
fixed = { type = "text", const = "x" }
kind = { type = "text", nullable = true, enum = ["a"] }
nothing = "null"
picked = { type = "text", enum = ["a"] }
plain = { type = "text", enum = ["a"] }
request = { type = "object", properties = { id = "text", parent = "null" }, required = ["id"], additional_properties = false }
tagged = { type = "text", nullable = true, enum = ["x"] }
tier = { type = "text", nullable = true, enum = ["A0", "A1"] }
twice = { type = "text", enum = ["x"] }
union = { one_of = ["text", "number"], nullable = true }
value = { type = "any", nullable = true }
"#
        );
        toml.parse::<toml::Table>().expect("the output is TOML");
    }

    #[test]
    fn takes_null_reads_type_enum_const_and_one_of() {
        let cases = [
            (serde_json::json!({}), true),
            (serde_json::json!({"type": "null"}), true),
            (serde_json::json!({"type": "string"}), false),
            (serde_json::json!({"type": ["string", "null"], "minLength": 1, "pattern": "^a$"}), true),
            (serde_json::json!({"type": ["string", "null"], "enum": ["a"]}), false),
            (serde_json::json!({"enum": ["a", null]}), true),
            (serde_json::json!({"type": "string", "enum": ["a", null]}), false),
            (serde_json::json!({"const": "a"}), false),
            (serde_json::json!({"oneOf": [{"type": "null"}, {"type": "object"}]}), true),
            (serde_json::json!({"oneOf": [{"type": "null"}, {}]}), false),
        ];
        for (schema, takes) in cases {
            assert_eq!(takes_null(&schema), takes, "{schema}");
        }
    }

    #[test]
    fn strings_are_escaped_for_toml() {
        assert_eq!(quoted("a\"b\\c\u{7f}\u{1}\n"), r#""a\"b\\c\u007F\u0001\n""#);
        assert_eq!(key("top_k"), "top_k");
        assert_eq!(key("a.b"), "\"a.b\"");
    }
}
