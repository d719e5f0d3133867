//! A tool (prompt, resource, template) definition as text a person reviews, and the line diff of two.
//!
//! 1. **Everything the digest covers is shown.** The digest is over the
//!    whole definition object, so every key is rendered: `name` (or a
//!    resource's `uri`, a template's `uriTemplate`), `title` and
//!    `description` first (what a person reads), then every other key in
//!    sorted order (`annotations`, `inputSchema`, `outputSchema`, `_meta`,
//!    ...). A string is shown as its lines; any other value as pretty JSON.
//!    Key order is not shown, as the digest ignores it.
//! 2. **Upstream text is data.** Every character that would not draw on a
//!    terminal, or would draw something else (controls, escapes, bidi and
//!    other format characters, invisible fillers), is shown as `\u{…}`:
//!    nothing is removed, so an instruction hidden in a description is
//!    visible in the diff, and nothing can redraw the terminal.

use m1nd_policy::sanitize::is_hidden;
use serde_json::Value;

/// The keys shown first, in this order (a prompt or tool is named by
/// `name`, a resource by `uri`, a template by `uriTemplate`); the rest
/// follow sorted.
const LEAD: [&str; 5] = ["name", "uri", "uriTemplate", "title", "description"];

/// `definition` as lines of text, each ending in `\n`.
pub fn render(definition: &Value) -> String {
    let Some(object) = definition.as_object() else {
        return block(&pretty(definition));
    };
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort_by_key(|k| (LEAD.iter().position(|l| l == k).unwrap_or(LEAD.len()), k.as_str()));
    let mut out = String::new();
    for key in keys {
        let value = &object[key.as_str()];
        let key = visible(key);
        match value {
            Value::String(text) if !text.contains('\n') => {
                out.push_str(&format!("{key}: {}\n", visible(text)));
            }
            Value::String(text) => {
                out.push_str(&format!("{key}:\n"));
                out.push_str(&block(text));
            }
            other => {
                out.push_str(&format!("{key}:\n"));
                out.push_str(&block(&pretty(other)));
            }
        }
    }
    out
}

/// The unified diff of two renderings, headed by what each side is.
pub fn diff(reviewed: &Value, now: &Value, reviewed_label: &str, now_label: &str) -> String {
    let (old, new) = (render(reviewed), render(now));
    similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header(&visible(reviewed_label), &visible(now_label))
        .to_string()
}

/// `text` with every character that does not draw as itself escaped.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || is_hidden(c) || matches!(c, '\u{2028}' | '\u{2029}') {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Each line of `text`, indented two spaces and made visible (split on
/// `\n` alone, so a `\r` stays visible).
fn block(text: &str) -> String {
    text.split('\n').map(|line| format!("  {}\n", visible(line))).collect()
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
