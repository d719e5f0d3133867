//! The verbs this server implements, and the tools a session sees: served
//! verbs ∩ the table, filtered by the guard.
//!
//! [`registry`] is the one list of served verbs, each with what answers it.
//! It is [`OWN`] (the verbs the server answers itself) followed by the
//! store's [`store::VERBS`]; every name is written exactly once, in one of
//! the two. `tools/list`, `help`, the "served here?" check of `tools/call`
//! and its dispatch all read it, and tests tie it to the compiled table:
//! every served verb is a live table verb, every verb that may write is kept
//! from read-only sessions by the deny list, and no verb that only reads is.

use std::sync::{Arc, LazyLock};

use m1nd::COCKPIT;
use m1nd::store::{self, Op};
use m1nd_core::arguments::MAX_ID_CHARS;
use m1nd_core::guard::Guard;
use m1nd_core::runtime::SEND_AS_TYPED;
use m1nd_core::{ArgKind, Verb};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::app;

/// What answers a served verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// The cockpit card, composed over the store.
    Cockpit,
    /// The overview cards this session may call.
    Help,
    /// One of the store's reads or writes.
    Store(Op),
}

/// The verbs this server answers itself, without the store's help.
pub const OWN: &[(&str, Handler)] = &[("cockpit", Handler::Cockpit), ("help", Handler::Help)];

/// Every verb this server implements (canonical names), with what answers it.
pub fn registry() -> impl Iterator<Item = (&'static str, Handler)> {
    OWN.iter().copied().chain(store::VERBS.iter().map(|&(name, op)| (name, Handler::Store(op))))
}

/// What answers `verb` (canonical), if this server implements it.
fn handler_named(verb: &str) -> Option<Handler> {
    registry().find(|&(name, _)| name == verb).map(|(_, handler)| handler)
}

/// Whether this server implements `verb` (canonical).
pub fn served(verb: &str) -> bool {
    handler_named(verb).is_some()
}

/// The handler of each table verb, by its position in `COCKPIT.verbs`:
/// found by name once, when the server starts.
static BY_POSITION: LazyLock<Vec<Option<Handler>>> =
    LazyLock::new(|| COCKPIT.verbs.iter().map(|v| handler_named(&v.name)).collect());

/// What answers a verb the guard resolved, without looking its name up
/// again. The guard hands out references into `COCKPIT.verbs`, so the
/// verb's address gives its position; a verb from anywhere else (a copy)
/// has none and is treated as not served.
pub fn handler(verb: &Verb) -> Option<Handler> {
    let start = COCKPIT.verbs.as_ptr() as usize;
    let offset = (verb as *const Verb as usize).checked_sub(start)?;
    let position = offset / std::mem::size_of::<Verb>();
    let found = COCKPIT.verbs.get(position).filter(|v| std::ptr::eq(*v, verb))?;
    debug_assert_eq!(found.name, verb.name);
    *BY_POSITION.get(position)?
}

/// Every verb this server implements, in table order. Only names the table
/// defines can come out of here.
pub fn served_verbs() -> impl Iterator<Item = &'static Verb> {
    COCKPIT.verbs.iter().filter(|v| !v.retired && served(&v.name))
}

/// The `tools/list` of a session.
pub fn tools(guard: &Guard<'_>) -> Vec<Tool> {
    served_verbs().filter(|v| guard.shows(v)).map(|v| tool(v, guard.read_only())).collect()
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

fn tool(verb: &Verb, read_only: bool) -> Tool {
    let annotations =
        ToolAnnotations::new().read_only(read_only_hint(&verb.name)).destructive(destructive_hint(&verb.name));
    let tool = Tool::new(verb.name.to_string(), verb.summary.to_string(), Arc::new(input_schema(verb, read_only)))
        .with_annotations(annotations);
    // The cockpit's results are drawn by the widget in hosts that have MCP Apps.
    if handler(verb) == Some(Handler::Cockpit) { tool.with_meta(app::tool_meta()) } else { tool }
}

/// A JSON Schema object for the verb's arguments: its `requires` and
/// `accepts` and the common arguments, each typed as tools.toml declares.
/// In a read-only session a status-only verb's pinned argument is required
/// and limited to its allowed values.
pub fn input_schema(verb: &Verb, read_only: bool) -> JsonObject {
    let rule = if read_only { COCKPIT.deny.status_only(&verb.name) } else { None };
    let mut properties = JsonObject::new();
    let mut required: Vec<Value> = Vec::new();
    for takes in COCKPIT.takes(verb) {
        let mut property = property(takes.kind);
        if let (Some(rule), Value::Object(p)) = (rule, &mut property)
            && rule.argument == takes.name
        {
            p.insert("enum".into(), rule.allowed.iter().map(|a| Value::from(a.to_string())).collect());
        }
        properties.insert(takes.name.to_owned(), property);
        if takes.required {
            required.push(Value::from(takes.name));
        }
    }
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

/// The schema of one argument type. An argument without a declared type
/// (no lawful policy has one) gets `false`: no value is valid, as the
/// argument check refuses every value.
fn property(kind: Option<ArgKind>) -> Value {
    match kind {
        Some(ArgKind::Text) => json!({ "type": "string" }),
        Some(ArgKind::Integer) => json!({ "type": "integer", "minimum": 0 }),
        Some(ArgKind::Reference) => json!({
            "oneOf": [{ "type": "string" }, { "type": "integer", "minimum": 0 }],
            "description": SEND_AS_TYPED,
        }),
        Some(ArgKind::Id) => json!({ "type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS }),
        None => json!(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether some call of the verb may write: only the store's writes do.
    fn writes(handler: Handler) -> bool {
        matches!(handler, Handler::Store(op) if op.writes())
    }

    #[test]
    fn every_served_verb_is_a_live_table_verb_named_once() {
        for (name, _) in registry() {
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is served but not in tools.toml"));
            assert!(!verb.retired, "`{name}` is retired");
            assert_eq!(&*verb.name, name, "`{name}` is not the canonical name");
        }
        let names: std::collections::HashSet<&str> = registry().map(|(name, _)| name).collect();
        assert_eq!(names.len(), registry().count(), "a verb is registered twice");
        assert_eq!(served_verbs().count(), registry().count());
    }

    /// A served verb that may write is on the deny list or status-only, so a
    /// read-only session can never reach its write; a served verb that only
    /// reads is neither, so read-only sessions keep it.
    #[test]
    fn the_deny_list_covers_exactly_the_served_writes() {
        for (name, handler) in registry() {
            let kept_from_read_only = COCKPIT.deny.denies(name) || COCKPIT.deny.status_only(name).is_some();
            if writes(handler) {
                assert!(kept_from_read_only, "`{name}` writes, but a read-only session may call it freely");
                assert!(!read_only_hint(name), "`{name}` writes but is hinted read-only");
            } else {
                assert!(
                    !COCKPIT.deny.denies(name) && COCKPIT.deny.status_only(name).is_none(),
                    "`{name}` only reads, but the deny list keeps it from read-only sessions"
                );
                assert!(read_only_hint(name), "`{name}` only reads but is not hinted read-only");
            }
        }
        assert!(registry().any(|(_, h)| writes(h)) && registry().any(|(_, h)| !writes(h)));
    }

    /// M013's half on the server's side: the registry of verbs served over
    /// MCP holds no human-only verb, so none can be registered by hand, and
    /// the guard refuses each one before a handler could be looked up.
    #[test]
    fn no_human_only_verb_is_registered_for_mcp() {
        assert!(!COCKPIT.human_only.verbs.is_empty(), "the policy declares no human-only verb");
        for (name, _) in registry() {
            assert!(!COCKPIT.human_only.contains(name), "`{name}` is the human's alone but registered for MCP");
        }
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            for verb in COCKPIT.human_only.verbs.iter() {
                let table_verb = COCKPIT.verb(verb).expect("a table verb");
                assert!(!guard.shows(table_verb), "`{verb}` is listed");
                assert!(matches!(guard.check(verb, None), Err(m1nd_core::guard::Refused::HumanOnly { .. })), "{verb}");
            }
            assert!(tools(&guard).iter().all(|t| !COCKPIT.human_only.contains(&t.name)));
        }
    }

    /// The handler found from the guard's verb is the one registered under
    /// its name, for every table verb; a copy of a verb resolves to nothing.
    #[test]
    fn the_guard_resolves_and_the_handler_follows_by_position() {
        let guard = Guard::new(&COCKPIT, false);
        for verb in COCKPIT.verbs.iter().filter(|v| !v.retired) {
            let resolved = guard.check(&verb.name, None).unwrap_or(verb);
            assert!(std::ptr::eq(resolved, verb));
            assert_eq!(handler(resolved), handler_named(&verb.name), "{}", verb.name);
        }
        let copy = COCKPIT.verb("memorize").expect("memorize").clone();
        assert_eq!(handler(&copy), None);
        assert!(handler(COCKPIT.verb("memorize").expect("memorize")).is_some());
    }

    /// A read-only guard lets every served read through and refuses every
    /// served write that has no status-only exception.
    #[test]
    fn a_read_only_guard_agrees_with_the_registry() {
        let guard = Guard::new(&COCKPIT, true);
        for (name, handler) in registry() {
            let checked = guard.check(name, Some(&JsonObject::new()));
            match (writes(handler), COCKPIT.deny.status_only(name)) {
                (false, _) => assert!(checked.is_ok(), "`{name}`: {checked:?}"),
                (true, None) => assert!(checked.is_err(), "`{name}` writes and passed a read-only guard"),
                (true, Some(rule)) => {
                    let pinned = rule.allowed.first().expect("an allowed value");
                    let args = JsonObject::from_iter([(rule.argument.to_string(), Value::from(pinned.to_string()))]);
                    assert!(guard.check(name, Some(&args)).is_ok(), "`{name}` with {args:?}");
                    assert!(checked.is_err(), "`{name}` without its pinned argument passed a read-only guard");
                }
            }
        }
    }

    #[test]
    fn listed_tools_are_table_verbs_and_read_only_hides_denied() {
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            for tool in tools(&guard) {
                let verb = COCKPIT.verb(&tool.name).expect("table verb");
                assert!(served(&verb.name));
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

    /// Every listed tool takes the common `agent_id`, typed as the policy declares.
    #[test]
    fn every_listed_schema_has_the_common_arguments() {
        for read_only in [false, true] {
            for tool in tools(&Guard::new(&COCKPIT, read_only)) {
                let properties = &tool.input_schema["properties"];
                for name in COCKPIT.common.iter() {
                    assert_eq!(
                        properties[&**name],
                        property(COCKPIT.argument_kind(name)),
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
        assert_eq!(select["description"], SEND_AS_TYPED);
        assert_eq!(schema["properties"]["seen_store_version"], json!({ "type": "integer", "minimum": 0 }));
    }
}
