//! TOML text: keys, strings, inline tables, in a stable order.

use std::fmt::Write;

use serde_json::{Map, Value};

/// A map's members in name order.
pub(super) fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<_> = map.iter().collect();
    members.sort_by(|a, b| a.0.cmp(b.0));
    members
}

/// `{ a = 1, b = "x" }`, or `{}`.
pub(super) fn inline(fields: &[(String, String)]) -> String {
    if fields.is_empty() {
        return "{}".into();
    }
    let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("{{ {} }}", fields.join(", "))
}

pub(super) fn strings(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A bare key when TOML allows one, else a quoted one.
pub(super) fn key(name: &str) -> String {
    let bare = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare { name.to_owned() } else { quoted(name) }
}

/// A TOML basic string: `"` and `\` escaped, and every control character.
pub(super) fn quoted(text: &str) -> String {
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
pub(super) fn pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
