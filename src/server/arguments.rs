//! Checking a call's arguments against the verb's `requires` and `accepts`.
//!
//! rmcp does not validate arguments against the input schema, so this does,
//! with messages that name the argument and the expected type. Values are
//! never echoed back whole: a wrong value is described by its JSON type.

use m1nd_core::Verb;
use rmcp::model::JsonObject;
use serde_json::Value;

/// The longest string argument accepted (the store's own limits are lower).
pub const MAX_STRING_BYTES: usize = 64 * 1024;

/// The JSON type an argument takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    /// A non-negative integer.
    Integer,
}

/// Store versions are counters; every other argument is text.
pub fn kind(name: &str) -> Kind {
    if name.ends_with("store_version") { Kind::Integer } else { Kind::String }
}

/// Arguments that passed the check: every key known, every value typed.
#[derive(Debug, Default)]
pub struct Checked {
    strings: Vec<(String, String)>,
    integers: Vec<(String, u64)>,
}

impl Checked {
    pub fn text(&self, name: &str) -> Option<&str> {
        self.strings.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn integer(&self, name: &str) -> Option<u64> {
        self.integers.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The string arguments as `(name, value)` pairs, for the store's reads.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.strings.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
    }
}

/// Check `args` for `verb`. A `null` value counts as absent.
pub fn check(verb: &Verb, args: Option<&JsonObject>) -> Result<Checked, String> {
    let known = || verb.requires.iter().chain(verb.accepts.iter());
    let mut checked = Checked::default();
    for (name, value) in args.into_iter().flatten() {
        if !known().any(|k| k == name) {
            let shown = m1nd_core::sanitize::display(name, m1nd_core::sanitize::cap::NAME);
            let takes: Vec<&str> = known().map(|k| &**k).collect();
            let takes = if takes.is_empty() { "no arguments".to_owned() } else { takes.join(", ") };
            return Err(format!("`{}` has no argument `{shown}`; it takes {takes}", verb.name));
        }
        match (kind(name), value) {
            (_, Value::Null) => {}
            (Kind::String, Value::String(s)) if s.len() > MAX_STRING_BYTES => {
                return Err(format!(
                    "argument `{name}` of `{}` is {} bytes; this server accepts at most {MAX_STRING_BYTES} bytes per argument",
                    verb.name,
                    s.len()
                ));
            }
            (Kind::String, Value::String(s)) => checked.strings.push((name.clone(), s.clone())),
            (Kind::Integer, v) if v.as_u64().is_some() => {
                checked.integers.push((name.clone(), v.as_u64().unwrap_or_default()));
            }
            (expected, other) => {
                let expected = match expected {
                    Kind::String => "a string",
                    Kind::Integer => "a non-negative integer",
                };
                return Err(format!(
                    "argument `{name}` of `{}` must be {expected}, got {}",
                    verb.name,
                    type_name(other)
                ));
            }
        }
    }
    for name in verb.requires.iter() {
        if checked.text(name).is_none() && checked.integer(name).is_none() {
            return Err(format!("`{}` requires the argument `{name}`", verb.name));
        }
    }
    Ok(checked)
}

/// How a JSON value is described in an error.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn memorize() -> &'static Verb {
        m1nd::COCKPIT.verb("memorize").expect("memorize")
    }

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn good_arguments_pass() {
        let args = object(json!({"claim": "c", "source": null, "expected_store_version": 3}));
        let checked = check(memorize(), Some(&args)).expect("ok");
        assert_eq!(checked.text("claim"), Some("c"));
        assert_eq!(checked.text("source"), None);
        assert_eq!(checked.integer("expected_store_version"), Some(3));
    }

    #[test]
    fn bad_arguments_name_the_argument_and_the_type() {
        let cases = [
            (json!({"claim": 5}), "argument `claim` of `memorize` must be a string, got an integer"),
            (json!({"claim": "c", "expected_store_version": "3"}), "must be a non-negative integer, got a string"),
            (json!({"claim": "c", "expected_store_version": -1}), "must be a non-negative integer, got an integer"),
            (json!({"claim": "c", "bogus": 1}), "`memorize` has no argument `bogus`; it takes claim, source"),
            (json!({}), "`memorize` requires the argument `claim`"),
            (json!({"claim": null}), "`memorize` requires the argument `claim`"),
        ];
        for (args, expected) in cases {
            let err = check(memorize(), Some(&object(args.clone()))).expect_err("bad");
            assert!(err.contains(expected), "{args}: {err}");
        }
        let huge = object(json!({"claim": "x".repeat(MAX_STRING_BYTES + 1)}));
        let err = check(memorize(), Some(&huge)).expect_err("huge");
        assert!(err.contains("argument `claim`") && err.contains("at most 65536 bytes"), "{err}");
        assert!(err.len() < 200);
    }
}
