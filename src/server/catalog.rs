//! The tools a session sees: served verbs ∩ the table, filtered by the guard.

use std::sync::Arc;

use m1nd::COCKPIT;
use m1nd::store;
use m1nd_core::Verb;
use m1nd_core::guard::Guard;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::arguments::{Kind, kind};

/// Verbs this server implements besides the store's reads and writes.
pub const OWN: &[&str] = &["cockpit", "help"];

/// Whether this server implements `verb` (canonical).
pub fn served(verb: &str) -> bool {
    OWN.contains(&verb) || store::serves(verb)
}

/// Every verb this server implements, in table order. Only names the table
/// defines can come out of here.
pub fn served_verbs() -> impl Iterator<Item = &'static Verb> {
    COCKPIT.verbs.iter().filter(|v| !v.retired && served(&v.name))
}

/// The `tools/list` of a session.
pub fn tools(guard: &Guard<'_>) -> Vec<Tool> {
    served_verbs().filter(|v| guard.lists(v)).map(|v| tool(v, guard.read_only())).collect()
}

/// `readOnlyHint`: no argument can make the verb write.
pub fn read_only_hint(verb: &str) -> bool {
    !COCKPIT.deny.lists(verb) && COCKPIT.deny.status_only(verb).is_none()
}

/// `destructiveHint`: the table knows only that a verb writes, not that the
/// write is additive, so every writing verb keeps the conservative `true`.
pub fn destructive_hint(verb: &str) -> bool {
    !read_only_hint(verb)
}

fn tool(verb: &Verb, read_only: bool) -> Tool {
    let annotations =
        ToolAnnotations::new().read_only(read_only_hint(&verb.name)).destructive(destructive_hint(&verb.name));
    Tool::new(verb.name.to_string(), verb.summary.to_string(), Arc::new(input_schema(verb, read_only)))
        .with_annotations(annotations)
}

/// A JSON Schema object for the verb's arguments, from `requires`/`accepts`.
/// In a read-only session a status-only verb's pinned argument is required
/// and limited to its allowed values.
pub fn input_schema(verb: &Verb, read_only: bool) -> JsonObject {
    let rule = if read_only { COCKPIT.deny.status_only(&verb.name) } else { None };
    let mut properties = JsonObject::new();
    for name in verb.requires.iter().chain(verb.accepts.iter()) {
        let mut property = match kind(name) {
            Kind::String => json!({ "type": "string" }),
            Kind::Integer => json!({ "type": "integer", "minimum": 0 }),
        };
        if let (Some(rule), Value::Object(p)) = (rule, &mut property)
            && rule.argument == *name
        {
            p.insert("enum".into(), rule.allowed.iter().map(|a| Value::from(a.to_string())).collect());
        }
        properties.insert(name.to_string(), property);
    }
    let mut required: Vec<Value> = verb.requires.iter().map(|r| Value::from(r.to_string())).collect();
    if let Some(rule) = rule
        && !verb.requires.contains(&rule.argument)
    {
        required.push(Value::from(rule.argument.to_string()));
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_name_is_a_table_verb() {
        for name in OWN.iter().chain(store::READS).chain(store::WRITES) {
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is served but not in tools.toml"));
            assert!(!verb.retired, "`{name}` is retired");
        }
        assert_eq!(served_verbs().count(), OWN.len() + store::READS.len() + store::WRITES.len());
    }

    #[test]
    fn listed_tools_are_table_verbs_and_read_only_hides_denied() {
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            for tool in tools(&guard) {
                let verb = COCKPIT.verb(&tool.name).expect("table verb");
                assert!(served(&verb.name));
                if read_only {
                    assert!(!COCKPIT.deny.lists(&verb.name), "{}", verb.name);
                }
                let hints = tool.annotations.expect("annotations");
                assert_eq!(hints.read_only_hint, Some(read_only_hint(&verb.name)));
                assert_eq!(hints.destructive_hint, Some(!read_only_hint(&verb.name)));
            }
        }
        assert!(!read_only_hint("persist") && !read_only_hint("memorize") && read_only_hint("cockpit"));
    }

    #[test]
    fn schemas_follow_requires_and_accepts() {
        let memorize = COCKPIT.verb("memorize").expect("memorize");
        let schema = Value::Object(input_schema(memorize, false));
        assert_eq!(schema["required"], json!(["claim"]));
        assert_eq!(schema["properties"]["expected_store_version"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);

        let persist = COCKPIT.verb("persist").expect("persist");
        let open = Value::Object(input_schema(persist, false));
        assert!(open.get("required").is_none());
        let closed = Value::Object(input_schema(persist, true));
        assert_eq!(closed["required"], json!(["action"]));
        assert_eq!(closed["properties"]["action"]["enum"], json!(["status"]));
    }
}
