//! One schema node as a type of the policy language: the keywords it may
//! carry, the null it takes, and the TOML it is written as.

use serde_json::{Map, Value};

use super::Unexpressible;
use super::text::{inline, key, pointer, quoted, sorted, strings};
use super::verb::Verb;

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
pub(super) fn takes(kind: &str) -> &'static [&'static str] {
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

impl Verb<'_> {
    /// One schema node as a type: the shorthand when it has only `type`.
    pub(super) fn ty(&self, node: &Value, path: &str) -> Result<String, Unexpressible> {
        self.ty_as(node, path, takes_null(node))
    }

    /// One schema node as a type that takes null exactly when `nullable`
    /// says: what the node itself says ([`takes_null`]), or what the `oneOf`
    /// it is the one non-null branch of says.
    pub(super) fn ty_as(&self, node: &Value, path: &str, nullable: bool) -> Result<String, Unexpressible> {
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
pub(super) fn takes_null(node: &Value) -> bool {
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
pub(super) fn union(branches: &[String], nullable: bool) -> String {
    let mut fields = vec![("one_of".to_owned(), format!("[{}]", branches.join(", ")))];
    if nullable {
        fields.push(("nullable".into(), "true".into()));
    }
    inline(&fields)
}
