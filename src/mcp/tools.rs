//! The tools a session sees: served verbs ∩ the table, filtered by the
//! guard, each with a schema and annotations derived from the table.

use std::sync::Arc;

use m1nd_policy::arguments::Takes;
use m1nd_policy::guard::Guard;
use m1nd_policy::{ArgType, StatusOnly, Verb};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::app;
use crate::COCKPIT;
use crate::service::dispatch::{self, Handler};
use crate::service::output_schema::output_schema;

/// The `tools/list` of a session.
pub fn tools(guard: &Guard<'_>) -> Vec<Tool> {
    COCKPIT
        .verbs_with_ids()
        .filter_map(|(id, v)| Some((dispatch::handler(id)?, v)))
        .filter(|(_, v)| !v.retired && guard.shows(v))
        .map(|(handler, v)| tool(v, handler, guard.read_only()))
        .collect()
}

/// `readOnlyHint`: no argument can make the verb write.
pub fn read_only_hint(verb: &str) -> bool {
    COCKPIT.deny.never_writes(verb)
}

/// `destructiveHint`: the table knows only that a verb writes, not that the
/// write is additive, so every writing verb keeps the conservative `true`.
pub fn destructive_hint(verb: &str) -> bool {
    !read_only_hint(verb)
}

fn tool(verb: &Verb, handler: Handler, read_only: bool) -> Tool {
    let annotations =
        ToolAnnotations::new().read_only(read_only_hint(&verb.name)).destructive(destructive_hint(&verb.name));
    let output = match output_schema(handler, &verb.name) {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    };
    let tool = Tool::new(verb.name.to_string(), verb.summary.to_string(), Arc::new(input_schema(verb, read_only)))
        .with_annotations(annotations)
        .with_raw_output_schema(Arc::new(output));
    // The cockpit's results are drawn by the widget in hosts that have MCP Apps.
    if handler == Handler::Cockpit { tool.with_meta(app::tool_meta()) } else { tool }
}

/// A JSON Schema object for the verb's arguments: its `requires` and
/// `accepts` and the common arguments, each typed as tools.toml declares.
/// In a read-only session a status-only verb's pinned argument is required
/// and limited to its allowed values.
pub fn input_schema(verb: &Verb, read_only: bool) -> JsonObject {
    if !verb.one_of.is_empty() {
        let sets = verb.one_of.iter().map(|set| Value::Object(object_schema(COCKPIT.takes_in(verb, set), None)));
        let mut schema = JsonObject::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("oneOf".into(), sets.collect());
        return schema;
    }
    let rule = if read_only { COCKPIT.deny.status_only(&verb.name) } else { None };
    object_schema(COCKPIT.takes(verb), rule)
}

/// A closed object schema of the arguments `takes` lists. A status-only
/// `rule` limits its argument to the allowed values and requires it.
fn object_schema<'a>(takes: impl Iterator<Item = Takes<'a>>, rule: Option<&StatusOnly>) -> JsonObject {
    let mut properties = JsonObject::new();
    let mut required: Vec<Value> = Vec::new();
    for takes in takes {
        let mut property = property(takes.ty);
        let pinned = rule.is_some_and(|r| r.argument == takes.name);
        if let (Some(rule), Value::Object(p)) = (rule, &mut property)
            && pinned
        {
            p.insert("enum".into(), rule.allowed.iter().map(|a| Value::from(a.to_string())).collect());
        }
        properties.insert(takes.name.to_owned(), property);
        if takes.required || pinned {
            required.push(Value::from(takes.name));
        }
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

/// The schema of one argument type: [`ArgType::schema`]. An argument
/// without a declared type (no lawful policy has one) gets `false`: no value
/// is valid, as the argument check refuses every value.
fn property(ty: Option<&ArgType>) -> Value {
    ty.map_or(json!(false), ArgType::schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_tools_are_table_verbs_and_read_only_hides_denied() {
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            for tool in tools(&guard) {
                let verb = COCKPIT.verb(&tool.name).expect("table verb");
                assert!(dispatch::served(&verb.name));
                if read_only {
                    assert!(!COCKPIT.deny.denies(&verb.name), "{}", verb.name);
                }
                let hints = tool.annotations.expect("annotations");
                assert_eq!(hints.read_only_hint, Some(read_only_hint(&verb.name)));
                assert_eq!(hints.destructive_hint, Some(!read_only_hint(&verb.name)));
            }
        }
        assert!(!read_only_hint("persist") && !read_only_hint("memorize") && read_only_hint("cockpit"));
    }

    /// The hints agree with what the registry says each served verb does,
    /// and with the policy: a verb whose route writes for some value
    /// (status-only, like `boot_memory`) is not hinted read-only, even when
    /// this server serves only its reading values.
    #[test]
    fn hints_follow_whether_a_served_verb_writes() {
        for (name, handler) in dispatch::registry() {
            let may_write = handler.writes() || COCKPIT.deny.status_only(name).is_some();
            assert_eq!(read_only_hint(name), !may_write, "`{name}`");
            assert_eq!(destructive_hint(name), may_write, "`{name}`");
        }
    }

    #[test]
    fn schemas_follow_requires_and_accepts() {
        let memorize = COCKPIT.verb("memorize").expect("memorize");
        let schema = Value::Object(input_schema(memorize, false));
        assert_eq!(schema["required"], json!(["node_label", "claims"]));
        assert_eq!(schema["properties"]["expected_store_version"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);

        let persist = COCKPIT.verb("persist").expect("persist");
        let open = Value::Object(input_schema(persist, false));
        assert_eq!(open["required"], json!(["action"]));
        assert_eq!(open["properties"]["action"]["enum"], json!(["save", "load", "checkpoint", "status"]));
        let closed = Value::Object(input_schema(persist, true));
        assert_eq!(closed["required"], json!(["action"]));
        assert_eq!(closed["properties"]["action"]["enum"], json!(["status"]));
    }

    /// Every listed tool takes the common `agent_id`, typed as the policy declares.
    #[test]
    fn every_listed_schema_has_the_common_arguments() {
        for read_only in [false, true] {
            for tool in tools(&Guard::new(&COCKPIT, read_only)) {
                let properties = &tool.input_schema["properties"];
                for name in COCKPIT.common.iter() {
                    assert_eq!(
                        properties[&**name],
                        property(COCKPIT.verb(&tool.name).and_then(|v| COCKPIT.argument_type(v, name))),
                        "{}: `{name}` is not in its schema as declared",
                        tool.name
                    );
                }
                assert_eq!(properties["agent_id"], json!({ "type": "string", "minLength": 1, "maxLength": 64 }));
            }
        }
    }

    /// Strict clients need `type: object` at the top; `select` is a string or
    /// a non-negative integer, and says how to send it.
    #[test]
    fn the_select_schema_is_a_string_or_a_non_negative_integer() {
        let cockpit = COCKPIT.verb("cockpit").expect("cockpit");
        let schema = Value::Object(input_schema(cockpit, true));
        assert_eq!(schema["type"], "object");
        let select = &schema["properties"]["select"];
        assert_eq!(select["oneOf"], json!([{ "type": "string" }, { "type": "integer", "minimum": 0 }]));
        assert_eq!(select["description"], m1nd_policy::runtime::SEND_AS_TYPED);
        assert_eq!(schema["properties"]["seen_store_version"], json!({ "type": "integer" }));
    }

    #[test]
    fn every_listed_tool_declares_an_object_schema_naming_its_verb() {
        for read_only in [false, true] {
            let tools = tools(&Guard::new(&COCKPIT, read_only));
            assert!(!tools.is_empty());
            for tool in tools {
                let schema = tool.output_schema.as_ref().unwrap_or_else(|| panic!("{}: no outputSchema", tool.name));
                assert_eq!(schema["type"], "object", "{}: MCP wants an object", tool.name);
                assert_eq!(schema["additionalProperties"], false, "{}: closed", tool.name);
                if let Some(verb) = schema["properties"].get("verb") {
                    assert_eq!(verb["const"], *tool.name, "{}: the schema names its own verb", tool.name);
                }
            }
        }
    }

    /// Every argument type lists as the JSON Schema m1nd's own tools write:
    /// the schemas of m1nd-mcp 1.6.5's real surface, compiled by the ui
    /// suite, are the inverse of what `m1nd-upstream` read from upstream.
    #[test]
    fn typed_arguments_list_their_constraints() {
        let ty = m1nd_policy::ArgType {
            choices: std::borrow::Cow::Owned(vec!["forward".into(), "reverse".into()]),
            default: Some("\"forward\"".into()),
            ..m1nd_policy::ArgType::of(m1nd_policy::ArgKind::Text)
        };
        assert_eq!(
            property(Some(&ty)),
            json!({ "type": "string", "enum": ["forward", "reverse"], "default": "forward" })
        );
        assert_eq!(property(None), json!(false));
    }
}
