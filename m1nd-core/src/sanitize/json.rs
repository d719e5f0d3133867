//! Every string of a JSON value held to [`super::escape`]'s rule: found for
//! a reviewer ([`unseen`]) or escaped for a model ([`escape_strings`]).
//!
//! A definition, a prompt or a tool result is a tree of strings: a hidden
//! instruction may sit in any of them, a schema's nested `description` as
//! well as a tool's. Both walks visit every string value and every object
//! key, with an explicit stack (no recursion, so no depth an upstream picks
//! can overflow it); the work is one visit per node of a value already in
//! memory. TAB, LF and CR are kept ([`Layout::Keep`]): a diff or a file's
//! contents must survive.

use serde_json::{Map, Value};

use super::escape::{Layout, escape, is_unseen};

/// One string that holds a character a reader would not see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unseen {
    /// Where it is: a JSON pointer (RFC 6901) into the walked value, for a
    /// key the pointer of the member it names; escaped, as it is shown.
    pub pointer: String,
    /// The top-level key it lies under (`description`, `inputSchema`, ...),
    /// as written (an allowance names it); empty for the top-level value.
    pub field: String,
    /// The text as it is, every unseen character written `\u{XXXX}`.
    pub shown: String,
}

/// Every string (value or key) of `value` holding a character [`escape`]
/// would spell out, in document order.
pub fn unseen(value: &Value) -> Vec<Unseen> {
    let mut found = Vec::new();
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), value)];
    while let Some((pointer, value)) = stack.pop() {
        let note = |pointer: &str, text: &str, found: &mut Vec<Unseen>| {
            if text.chars().any(|c| is_unseen(c, Layout::Keep)) {
                let field = pointer.split('/').nth(1).map(unpoint).unwrap_or_default();
                let (pointer, shown) = (escape(pointer, Layout::Escape).into(), escape(text, Layout::Keep).into());
                found.push(Unseen { pointer, field, shown });
            }
        };
        match value {
            Value::String(text) => note(&pointer, text, &mut found),
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().rev().map(|(i, item)| (format!("{pointer}/{i}"), item)));
            }
            Value::Object(map) => {
                let mut members = Vec::with_capacity(map.len());
                for (key, item) in map {
                    let at = format!("{pointer}/{}", point(key));
                    note(&at, key, &mut found);
                    members.push((at, item));
                }
                stack.extend(members.into_iter().rev());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    found
}

/// Escape every unseen character of every string value and key of `value`
/// in place; the number of characters escaped. A key that escapes to a key
/// the object already holds keeps the first member's place and value (both
/// came from the same sender, and nothing invisible is kept).
pub fn escape_strings(value: &mut Value) -> usize {
    let mut escaped = 0;
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => escaped += escape_one(text),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                if map.keys().any(|k| k.chars().any(|c| is_unseen(c, Layout::Keep))) {
                    let mut rekeyed = Map::with_capacity(map.len());
                    for (mut key, item) in std::mem::take(map) {
                        escaped += escape_one(&mut key);
                        rekeyed.entry(key).or_insert(item);
                    }
                    *map = rekeyed;
                }
                stack.extend(map.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    escaped
}

/// Escape `text` in place; how many characters were escaped.
fn escape_one(text: &mut String) -> usize {
    let count = text.chars().filter(|c| is_unseen(*c, Layout::Keep)).count();
    if count > 0 {
        *text = escape(text, Layout::Keep).into_owned();
    }
    count
}

/// A key as a JSON pointer token.
fn point(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unpoint(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hostile() -> Value {
        json!({
            "name": "echo",
            "title": "Echo\u{202E}",
            "description": "Echo text.\u{E0049}\u{E0047}\nSecond line\tok",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "x\u{200B}"}},
                "enum": ["a", "b\u{1B}[2J"]},
            "outputSchema": {"properties": {"k\u{7}": {"type": "string"}}},
            "annotations": {"title": "t\u{FEFF}"},
            "plain": "Tabs\tand\r\nlines stay",
        })
    }

    #[test]
    fn every_hidden_string_and_key_is_found_with_its_field_and_place() {
        let found = unseen(&hostile());
        let at: Vec<(&str, &str)> = found.iter().map(|u| (u.field.as_str(), u.pointer.as_str())).collect();
        assert_eq!(
            at,
            [
                ("title", "/title"),
                ("description", "/description"),
                ("inputSchema", "/inputSchema/properties/text/description"),
                ("inputSchema", "/inputSchema/enum/1"),
                ("outputSchema", "/outputSchema/properties/k\\u{0007}"),
                ("annotations", "/annotations/title"),
            ]
        );
        assert_eq!(found[1].shown, "Echo text.\\u{E0049}\\u{E0047}\nSecond line\tok");
        assert_eq!(found[4].shown, "k\\u{0007}");
    }

    #[test]
    fn escaping_leaves_nothing_hidden_and_keeps_the_layout() {
        let mut value = hostile();
        assert_eq!(escape_strings(&mut value), 7);
        assert!(unseen(&value).is_empty(), "{:?}", unseen(&value));
        assert_eq!(value["plain"], "Tabs\tand\r\nlines stay");
        assert_eq!(value["description"], "Echo text.\\u{E0049}\\u{E0047}\nSecond line\tok");
        assert_eq!(value["outputSchema"]["properties"]["k\\u{0007}"], json!({"type": "string"}));
        assert_eq!(escape_strings(&mut value), 0, "escaping twice changes nothing");
    }

    #[test]
    fn a_value_nested_deeper_than_any_parser_allows_is_walked_without_recursion() {
        let mut deep = json!("\u{200B}");
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(unseen(&deep).len(), 1);
        assert_eq!(escape_strings(&mut deep), 1);
        // Dropping a deep serde_json value recurses; take it apart one level at a time.
        while let Value::Array(mut items) = deep {
            deep = items.pop().unwrap_or(Value::Null);
        }
    }
}
