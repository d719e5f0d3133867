//! One tool's `[verbs.NAME]`: its top-level shape, its argument sets and
//! `agent_id`, each argument written by [`super::types`].

use std::fmt::Write;

use serde_json::{Map, Value};

use super::Unexpressible;
use super::text::{inline, key, pointer, quoted, sorted, strings};

/// One tool being written: what every error names.
pub(super) struct Verb<'a> {
    pub(super) tool: &'a str,
}

/// One argument set: a tool's, or one branch of its top-level `oneOf`.
struct ArgumentSet {
    requires: Vec<String>,
    arguments: Vec<(String, String)>,
    agent_id: bool,
}

impl Verb<'_> {
    pub(super) fn fail(&self, path: &str, what: impl Into<String>) -> Unexpressible {
        Unexpressible { tool: self.tool.to_owned(), path: path.to_owned(), what: what.into() }
    }

    pub(super) fn write(&self, schema: &Value, version: &str, out: &mut String) -> Result<(), Unexpressible> {
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
    pub(super) fn required(
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
}
