//! The JSON skin (schema `m1nd-cockpit-v1`), the input of the widget.
//!
//! Entries carry only a `select` reference and either a static `label` or an
//! `item` (sanitised state). No entry has a `verb` key: the only thing a
//! button can send back is the reference a human would type.

use serde_json::{Map, Value, json};

use super::reference::Path;
use super::view::{EntryText, View};

pub use crate::table::SCHEMA;

/// The view as a JSON value, keys in a fixed order (moved-state first).
pub fn to_value(view: &View) -> Value {
    let mut o = Map::new();
    o.insert("schema".into(), json!(SCHEMA));
    if view.state_moved {
        o.insert("state_moved".into(), json!(true));
    }
    if let Some(note) = &view.note {
        o.insert("note".into(), json!(note));
    }
    o.insert("level".into(), json!(level_name(view.level)));
    o.insert("title".into(), json!(view.title));
    if let Some(subject) = &view.subject {
        o.insert("item".into(), json!(subject));
    }
    o.insert("menu_sig".into(), json!(view.menu_sig));
    o.insert("state_sig".into(), json!(view.state_sig));
    o.insert("store_version".into(), json!(view.store_version));
    if let Some(door) = &view.door {
        o.insert("door".into(), json!(door));
    }
    if !view.facts.is_empty() {
        let facts: Map<String, Value> = view.facts.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        o.insert("facts".into(), Value::Object(facts));
    }
    if !view.entries.is_empty() || view.level == Path::Root {
        let entries = view
            .entries
            .iter()
            .map(|e| match &e.text {
                EntryText::Label(l) => json!({ "select": e.select, "label": l }),
                EntryText::Data(d) => json!({ "select": e.select, "item": d }),
            })
            .collect();
        o.insert("entries".into(), Value::Array(entries));
    }
    if let Some(back) = &view.back {
        o.insert("back".into(), json!(back));
    }
    Value::Object(o)
}

/// Pretty JSON: what is measured against the budget and sent over MCP.
pub fn to_pretty(view: &View) -> String {
    serde_json::to_string_pretty(&to_value(view)).unwrap_or_default()
}

/// `root`, or the reference of the level.
pub fn level_name(level: Path) -> String {
    match level {
        Path::Root => "root".to_owned(),
        other => other.to_string(),
    }
}

/// Budget tokens: characters / 4 of the pretty JSON, rounded up.
pub fn tokens(pretty: &str) -> usize {
    pretty.chars().count().div_ceil(4)
}
