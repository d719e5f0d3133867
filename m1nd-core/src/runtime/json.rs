//! The JSON skin (schema `m1nd-cockpit-v1`), the input of the widget.
//!
//! Entries carry only a `select` reference and either a static `label` or an
//! `item` (sanitised state), and an item may carry a static `mark` (its kind,
//! e.g. `candidate`). No entry has a `verb` key: the only thing a button can
//! send back is the reference a human would type. A collection says what its
//! list is in `list`: `{ "shown": 5, "total": 7, "order": "newest first" }`.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::reference::Path;
use super::view::{Entry, EntryText, Listing, View};

pub use crate::table::SCHEMA;

/// The view as a JSON value (the MCP structured content).
pub fn to_value(view: &View) -> Value {
    serde_json::to_value(Json(view)).unwrap_or(Value::Null)
}

/// The view as something to serialise straight into a larger document (the
/// MCP result's `structuredContent`), with the same keys in the same order as
/// [`to_value`], and no intermediate `Value`.
pub fn skin(view: &View) -> impl Serialize + '_ {
    Json(view)
}

/// Pretty JSON: what is measured against the budget and shown by `--json`.
pub fn to_pretty(view: &View) -> String {
    serde_json::to_string_pretty(&Json(view)).unwrap_or_default()
}

/// Serialises a view straight to JSON, keys in a fixed order with moved
/// state first; no intermediate `Value` is built.
struct Json<'a>(&'a View);

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("schema", SCHEMA)?;
        if v.state_moved {
            m.serialize_entry("state_moved", &true)?;
        }
        if let Some(note) = &v.note {
            m.serialize_entry("note", note)?;
        }
        m.serialize_entry("level", &level_name(v.level))?;
        m.serialize_entry("title", &v.title)?;
        if let Some(subject) = &v.subject {
            m.serialize_entry("item", subject)?;
        }
        m.serialize_entry("menu_sig", &v.menu_sig)?;
        m.serialize_entry("state_sig", &v.state_sig)?;
        m.serialize_entry("store_version", &v.store_version)?;
        if let Some(door) = &v.door {
            m.serialize_entry("door", door)?;
        }
        if let Some(link) = &v.door_link {
            m.serialize_entry("door_link", link)?;
        }
        if let Some(listing) = &v.listing {
            m.serialize_entry("list", &ListingJson(listing))?;
        }
        if !v.facts.is_empty() {
            m.serialize_entry("facts", &Facts(&v.facts))?;
        }
        if !v.entries.is_empty() || v.level == Path::Root {
            m.serialize_entry("entries", &Entries(&v.entries))?;
        }
        if let Some(back) = &v.back {
            m.serialize_entry("back", back)?;
        }
        m.end()
    }
}

/// `{ "shown": 5, "total": 7, "order": "newest first" }`.
struct ListingJson<'a>(&'a Listing);

impl Serialize for ListingJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Listing { shown, total, order } = self.0;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("shown", shown)?;
        m.serialize_entry("total", total)?;
        m.serialize_entry("order", order)?;
        m.end()
    }
}

struct Facts<'a>(&'a [(String, String)]);

impl Serialize for Facts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (field, value) in self.0 {
            m.serialize_entry(field, value)?;
        }
        m.end()
    }
}

/// Each entry is `{ "select": …, "label": … }` or `{ "select": …, "item": … }`,
/// the latter with `"mark": …` when the item's kind is marked.
struct Entries<'a>(&'a [Entry]);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for entry in self.0 {
            seq.serialize_element(&EntryJson(entry))?;
        }
        seq.end()
    }
}

struct EntryJson<'a>(&'a Entry);

impl Serialize for EntryJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2 + usize::from(self.0.mark.is_some())))?;
        m.serialize_entry("select", &self.0.select)?;
        match &self.0.text {
            EntryText::Label(label) => m.serialize_entry("label", label)?,
            EntryText::Data(data) => m.serialize_entry("item", data)?,
        }
        if let Some(mark) = self.0.mark {
            m.serialize_entry("mark", mark)?;
        }
        m.end()
    }
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
