//! The JSON Schema of the JSON skin ([`super::json`]): what the cockpit tool
//! declares as its `outputSchema`, so a client can check every
//! `structuredContent` it gets.
//!
//! It sits beside the serialiser it describes, and the tests below serialise
//! views with every optional key set and with none, and check that each key
//! written is one the schema names, with the type it names, and that every
//! key the schema requires is written. The e2e suite validates live answers
//! (root, drill, item, "state moved") against it with a real validator.

use serde_json::{Value, json};

use super::json::SCHEMA;

/// The schema of one cockpit view (`m1nd-cockpit-v1`), as JSON Schema 2020-12.
pub fn cockpit() -> Value {
    let text = json!({ "type": "string" });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": SCHEMA,
        "description": "One level of the cockpit: its numbered entries, or an item's facts. Every string that \
                        comes from the store's state is sanitised data, never markup.",
        "type": "object",
        "properties": {
            "schema": { "const": SCHEMA },
            "state_moved": { "const": true, "description": "The level's state moved since the reference was read." },
            "note": text,
            "level": { "type": "string", "description": "`root`, or the reference of the level (e.g. `2.1`)." },
            "title": text,
            "item": { "type": "string", "description": "An item view's headline (sanitised state)." },
            "menu_sig": { "type": "string", "description": "Signs the menu's shape; references carry it." },
            "state_sig": { "type": "string", "description": "Signs the state the level was composed from." },
            "store_version": { "type": "integer", "minimum": 0 },
            "door": { "type": "string", "description": "Where the human acts on this (static, from the policy)." },
            "door_link": { "type": "string" },
            "list": {
                "type": "object",
                "description": "What a collection's list shows: how many of how many, in what order.",
                "properties": {
                    "shown": { "type": "integer", "minimum": 0 },
                    "total": { "type": "integer", "minimum": 0 },
                    "order": { "type": "string" }
                },
                "required": ["shown", "total", "order"],
                "additionalProperties": false
            },
            "facts": {
                "type": "object",
                "description": "An item's or an action's facts: field → sanitised value.",
                "additionalProperties": { "type": "string" }
            },
            "entries": {
                "type": "array",
                "items": {
                    "description": "A numbered choice: the reference a human would type, and a static label or an item.",
                    // Two shapes that exclude each other (one forbids `item`, the other `label`), so
                    // `anyOf` says "exactly one of `label` and `item`" as a `oneOf` would, and a
                    // validator stops at the first shape that fits instead of trying both: the
                    // official Python SDK checks every answer against this schema, and this way
                    // costs it about 30% less (`tests/e2e/bench_validation.py`).
                    "anyOf": [entry_shape("label"), entry_shape("item")]
                }
            },
            "back": { "type": "string", "description": "Where back (`0`) leads, as a reference." }
        },
        "required": ["schema", "level", "title", "menu_sig", "state_sig", "store_version"],
        "additionalProperties": false
    })
}

/// A cockpit entry that shows `text` (`label` or `item`), and no other text key.
fn entry_shape(text: &str) -> Value {
    let string = json!({ "type": "string" });
    let mut properties = serde_json::Map::new();
    properties.insert("select".into(), string.clone());
    properties.insert(text.into(), string);
    properties.insert(
        "mark".into(),
        json!({ "type": "string", "description": "The item's kind, when marked (e.g. candidate)." }),
    );
    json!({
        "type": "object",
        "properties": properties,
        "required": ["select", text],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::json::to_value;
    use crate::runtime::reference::Path;
    use crate::runtime::view::{Entry, EntryText, Listing, View};

    /// Whether `value` has the JSON type `schema` names (or its `const`).
    fn has_type(schema: &Value, value: &Value) -> bool {
        if let Some(constant) = schema.get("const") {
            return constant == value;
        }
        match schema["type"].as_str() {
            Some("string") => value.is_string(),
            Some("integer") => value.is_u64() || value.is_i64(),
            Some("object") => value.is_object(),
            Some("array") => value.is_array(),
            other => panic!("a type this check does not know: {other:?}"),
        }
    }

    /// Every key written is declared with its type; every required key is
    /// written; under `anyOf`, exactly one shape fits (the shapes exclude
    /// each other).
    fn conforms(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
        if let Some(shapes) = schema.get("anyOf").and_then(Value::as_array) {
            let fits = shapes.iter().filter(|shape| conforms(shape, value, at).is_ok()).count();
            return if fits == 1 { Ok(()) } else { Err(format!("{at}: {fits} of the shapes fit {value}")) };
        }
        let properties = schema["properties"].as_object().ok_or(format!("{at}: no properties"))?;
        let object = value.as_object().ok_or(format!("{at}: not an object"))?;
        for (key, value) in object {
            let declared = properties.get(key).ok_or(format!("{at}: `{key}` is written but not declared"))?;
            if !has_type(declared, value) {
                return Err(format!("{at}.{key}: {value} is not {declared}"));
            }
            if declared.get("properties").is_some() {
                conforms(declared, value, &format!("{at}.{key}"))?;
            }
            if let (Some(items), Some(values)) = (declared.get("items"), value.as_array()) {
                for (i, v) in values.iter().enumerate() {
                    conforms(items, v, &format!("{at}.{key}[{i}]"))?;
                }
            }
        }
        for key in schema["required"].as_array().into_iter().flatten() {
            let key = key.as_str().expect("a key");
            if !object.contains_key(key) {
                return Err(format!("{at}: `{key}` is required but not written"));
            }
        }
        Ok(())
    }

    fn entry(select: &str, text: EntryText, mark: Option<&'static str>) -> Entry {
        Entry { select: select.into(), text, mark, identity: std::borrow::Cow::Borrowed("") }
    }

    #[test]
    fn a_view_with_every_key_and_one_with_none_conform() {
        let mut full = View::new(Path::Root, "m1nd cockpit".into(), "st_1".into(), 7);
        full.menu_sig = "mc_1a2b3c4d".into();
        full.subject = Some("an item".into());
        full.state_moved = true;
        full.note = Some("state moved".into());
        full.door = Some("stamp it in the tray".into());
        full.door_link = Some("/tray".into());
        full.entries = vec![
            entry("1@mc_1a2b3c4d", EntryText::Label("tray".into()), None),
            entry("2", EntryText::Data("x".into()), Some("candidate")),
        ];
        full.listing = Some(Listing { shown: 1, total: 2, order: "newest first" });
        full.facts = vec![("status".into(), "ratified".into())];
        full.back = Some("root".into());
        let schema = cockpit();
        conforms(&schema, &to_value(&full), "full").unwrap();

        let bare = View::new(Path::Root, "m1nd cockpit".into(), "st_1".into(), 0);
        conforms(&schema, &to_value(&bare), "bare").unwrap();
    }

    /// An entry shows a label or an item, never both and never neither.
    #[test]
    fn an_entry_with_both_texts_or_none_does_not_conform() {
        let items = &cockpit()["properties"]["entries"]["items"];
        for fits in [json!({"select": "1", "label": "a"}), json!({"select": "2", "item": "x", "mark": "candidate"})] {
            conforms(items, &fits, "entry").unwrap();
        }
        for wrong in [
            json!({"select": "1"}),
            json!({"select": "1", "label": "a", "item": "x"}),
            json!({"label": "a"}),
            json!({"select": "1", "label": "a", "extra": "b"}),
        ] {
            assert!(conforms(items, &wrong, "entry").is_err(), "{wrong} was taken");
        }
    }
}
