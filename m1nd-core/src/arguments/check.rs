//! Whether a JSON value is a valid value of an [`ArgType`]: one function for
//! the policy compiler (a card's fixed values, a type's default) and for the
//! server (every call's arguments), so the two can never disagree.

use serde_json::Value;

use super::types::ArgType;
use super::{ArgKind, IdProblem, MAX_ID_CHARS, check_id};
use crate::sanitize::{cap, display};

/// Why a value is not valid: where inside it, what was expected there, and
/// what came instead (bounded and sanitised, so an error stays one line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// A JSON-pointer-like path inside the value (`/actions/0/file_path`),
    /// empty for the value itself.
    pub at: String,
    pub expected: String,
    pub received: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.at.is_empty() {
            write!(f, "must be {}, got {}", self.expected, self.received)
        } else {
            write!(f, "has `{}`, which must be {}, got {}", self.at, self.expected, self.received)
        }
    }
}

/// Regular expressions are compiled per check: patterns are short, and the
/// policy compiler has already proved each one compiles.
fn matches(pattern: &str, text: &str) -> bool {
    regex_lite::Regex::new(pattern).is_ok_and(|re| re.is_match(text))
}

impl ArgType {
    /// Check `value` against this type.
    pub fn check(&self, value: &Value) -> Result<(), Mismatch> {
        self.check_at(value, &mut String::new())
    }

    fn check_at(&self, value: &Value, at: &mut String) -> Result<(), Mismatch> {
        let wrong = |expected: String| Err(Mismatch { at: at.clone(), expected, received: received(value) });
        // JSON Schema's `{}` (plain `any`) takes null too; a union takes it
        // when a branch does.
        let plain_any = self.kind == ArgKind::Any && self.one_of.is_empty();
        if value.is_null() && (self.nullable || self.kind == ArgKind::Null || plain_any) {
            return Ok(());
        }
        if !self.one_of.is_empty() {
            let fits = self.one_of.iter().filter(|t| t.check_at(value, &mut at.clone()).is_ok()).count();
            return if fits == 1 { Ok(()) } else { wrong(self.expected()) };
        }
        if value.is_null() {
            return wrong(self.expected());
        }
        match (self.kind, value) {
            (ArgKind::Any, _) | (ArgKind::Boolean, Value::Bool(_)) => Ok(()),
            (ArgKind::Text, Value::String(s)) => self.text(s, at),
            (ArgKind::Id, Value::String(s)) => match check_id(s) {
                Ok(()) => Ok(()),
                Err(IdProblem::Length(n)) => wrong(format!("an id of 1 to {MAX_ID_CHARS} characters, not {n}")),
                Err(IdProblem::Unprintable) => wrong("a printable id, with no control or invisible characters".into()),
            },
            (ArgKind::Reference, Value::String(_)) => Ok(()),
            (ArgKind::Reference, Value::Number(n)) if n.is_u64() => Ok(()),
            (ArgKind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => self.bounded(n.as_f64(), value, at),
            (ArgKind::Number, Value::Number(n)) => self.bounded(n.as_f64(), value, at),
            (ArgKind::Array, Value::Array(items)) => self.array(items, value, at),
            (ArgKind::Object, Value::Object(members)) => self.object(members, at),
            _ => wrong(self.expected()),
        }
    }

    fn text(&self, s: &str, at: &str) -> Result<(), Mismatch> {
        let fail =
            |expected: String| Err(Mismatch { at: at.to_owned(), expected, received: received(&Value::from(s)) });
        if !self.choices.is_empty() && !self.choices.iter().any(|c| c == s) {
            return fail(self.expected());
        }
        if let Some(constant) = &self.constant
            && constant != s
        {
            return fail(self.expected());
        }
        if let Some(min) = self.min_length
            && (s.chars().count() as u64) < min
        {
            return fail(format!("a string of at least {min} characters"));
        }
        if let Some(pattern) = &self.pattern
            && !matches(pattern, s)
        {
            return fail(format!("a string matching `{pattern}`"));
        }
        Ok(())
    }

    fn bounded(&self, n: Option<f64>, value: &Value, at: &str) -> Result<(), Mismatch> {
        let n = n.unwrap_or(f64::NAN);
        let below = self.minimum.is_some_and(|lo| n < lo as f64);
        let above = self.maximum.is_some_and(|hi| n > hi as f64);
        if below || above || n.is_nan() {
            Err(Mismatch { at: at.to_owned(), expected: self.expected(), received: received(value) })
        } else {
            Ok(())
        }
    }

    fn array(&self, items: &[Value], value: &Value, at: &mut String) -> Result<(), Mismatch> {
        let count = items.len() as u64;
        if self.min_items.is_some_and(|min| count < min) || self.max_items.is_some_and(|max| count > max) {
            let (lo, hi) = (self.min_items.unwrap_or(0), self.max_items);
            let expected = match hi {
                Some(hi) if hi == lo => format!("an array of exactly {lo} items"),
                Some(hi) => format!("an array of {lo} to {hi} items"),
                None => format!("an array of at least {lo} items"),
            };
            return Err(Mismatch { at: at.clone(), expected, received: received(value) });
        }
        if self.unique_items
            && let Some(i) = (1..items.len()).find(|&i| items[..i].contains(&items[i]))
        {
            let expected = "an array whose items are all different".to_owned();
            return Err(Mismatch { at: format!("{at}/{i}"), expected, received: received(&items[i]) });
        }
        if let Some(item) = self.item() {
            for (i, value) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                item.check_at(value, at)?;
                at.truncate(len);
            }
        }
        Ok(())
    }

    fn object(&self, members: &serde_json::Map<String, Value>, at: &mut String) -> Result<(), Mismatch> {
        for property in self.properties.iter() {
            let len = at.len();
            at.push('/');
            at.push_str(&property.name);
            match members.get(&*property.name) {
                Some(value) => property.ty.check_at(value, at)?,
                None if property.required => {
                    let expected = property.ty.expected();
                    return Err(Mismatch { at: at.clone(), expected, received: "nothing (it is required)".into() });
                }
                None => {}
            }
            at.truncate(len);
        }
        if self.closed
            && let Some(extra) = members.keys().find(|k| !self.properties.iter().any(|p| p.name == **k))
        {
            let names: Vec<&str> = self.properties.iter().map(|p| &*p.name).collect();
            return Err(Mismatch {
                at: format!("{at}/{}", display(extra, cap::NAME)),
                expected: format!("absent: the object takes only {}", names.join(", ")),
                received: "a member".into(),
            });
        }
        Ok(())
    }
}

/// A value as an error shows it: its JSON type and a bounded, sanitised preview.
pub fn received(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("the integer {}", display(&n.to_string(), cap::VALUE)),
        Value::Number(n) => format!("the number {}", display(&n.to_string(), cap::VALUE)),
        Value::String(s) => format!("the string \"{}\"", display(s, cap::VALUE)),
        Value::Array(items) => format!("an array of {}", count(items.len(), "item")),
        Value::Object(keys) => format!("an object with {}", count(keys.len(), "key")),
    }
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::arguments::types::Property;
    use crate::primitives::List;

    fn text_enum(choices: &'static [crate::primitives::Str]) -> ArgType {
        ArgType { choices: List::Borrowed(choices), ..ArgType::of(ArgKind::Text) }
    }

    #[test]
    fn every_kind_takes_its_own_json_and_refuses_the_rest() {
        let cases = [
            (ArgKind::Text, json!("x"), json!(1)),
            (ArgKind::Integer, json!(-3), json!(1.5)),
            (ArgKind::Number, json!(1.5), json!("1.5")),
            (ArgKind::Boolean, json!(true), json!("true")),
            (ArgKind::Array, json!([1, "a"]), json!({})),
            (ArgKind::Object, json!({"a": 1}), json!([])),
            (ArgKind::Reference, json!(3), json!(-3)),
            (ArgKind::Id, json!("agent-7"), json!("a\u{7}")),
        ];
        for (kind, good, bad) in cases {
            assert_eq!(ArgType::of(kind).check(&good), Ok(()), "{kind:?} takes {good}");
            assert!(ArgType::of(kind).check(&bad).is_err(), "{kind:?} refuses {bad}");
            assert!(ArgType::of(kind).check(&Value::Null).is_err(), "{kind:?} is not nullable");
        }
        assert_eq!(ArgType::of(ArgKind::Any).check(&json!({"x": [1]})), Ok(()));
        assert_eq!(ArgType::of(ArgKind::Any).check(&Value::Null), Ok(()), "JSON Schema's {{}} takes null");
        assert_eq!(ArgType::of(ArgKind::Null).check(&Value::Null), Ok(()));
        assert!(ArgType::of(ArgKind::Null).check(&json!(0)).is_err());
    }

    #[test]
    fn enums_bounds_lengths_and_patterns_are_enforced() {
        static CHOICES: [crate::primitives::Str; 2] =
            [crate::primitives::Str::Borrowed("code"), crate::primitives::Str::Borrowed("memory")];
        let adapter = text_enum(&CHOICES);
        assert_eq!(adapter.check(&json!("memory")), Ok(()));
        let err = adapter.check(&json!("json")).unwrap_err();
        assert_eq!(err.to_string(), "must be one of \"code\", \"memory\", got the string \"json\"");
        let radius = ArgType { minimum: Some(1), maximum: Some(4), ..ArgType::of(ArgKind::Integer) };
        assert_eq!(radius.check(&json!(4)), Ok(()));
        assert_eq!(radius.check(&json!(5)).unwrap_err().expected, "an integer from 1 to 4");
        let digest =
            ArgType { pattern: Some("^[0-9a-f]{64}$".into()), min_length: Some(1), ..ArgType::of(ArgKind::Text) };
        assert_eq!(digest.check(&json!("a".repeat(64))), Ok(()));
        assert!(digest.check(&json!("A".repeat(64))).is_err());
        assert!(digest.check(&json!("")).is_err());
    }

    #[test]
    fn arrays_and_objects_are_checked_member_by_member_with_a_path() {
        let action = ArgType {
            properties: List::Owned(vec![
                Property { name: "action_type".into(), ty: ArgType::of(ArgKind::Text), required: true },
                Property { name: "file_path".into(), ty: ArgType::of(ArgKind::Text), required: true },
            ]),
            closed: true,
            ..ArgType::of(ArgKind::Object)
        };
        let actions = ArgType { items: List::Owned(vec![action]), min_items: Some(1), ..ArgType::of(ArgKind::Array) };
        assert_eq!(actions.check(&json!([{"action_type": "modify", "file_path": "a.rs"}])), Ok(()));
        let err = actions.check(&json!([{"action_type": "modify", "file_path": 3}])).unwrap_err();
        assert_eq!(err.at, "/0/file_path");
        let err = actions.check(&json!([{"action_type": "modify"}])).unwrap_err();
        assert_eq!((err.at.as_str(), err.received.as_str()), ("/0/file_path", "nothing (it is required)"));
        let err = actions.check(&json!([{"action_type": "m", "file_path": "a", "extra": 1}])).unwrap_err();
        assert_eq!(err.at, "/0/extra");
        assert!(actions.check(&json!([])).is_err(), "min_items");
        let unique = ArgType { unique_items: true, ..ArgType::of(ArgKind::Array) };
        assert_eq!(unique.check(&json!([1, 2, 1])).unwrap_err().at, "/2");
    }

    #[test]
    fn a_union_takes_exactly_one_branch_and_null_only_when_nullable() {
        let event = ArgType {
            kind: ArgKind::Any,
            one_of: List::Owned(vec![ArgType::of(ArgKind::Object), ArgType::of(ArgKind::Text)]),
            ..ArgType::of(ArgKind::Any)
        };
        assert_eq!(event.check(&json!("started")), Ok(()));
        assert_eq!(event.check(&json!({"kind": "started"})), Ok(()));
        assert!(event.check(&json!(1)).is_err());
        assert!(event.check(&Value::Null).is_err(), "no branch takes null");
        let maybe = ArgType {
            one_of: List::Owned(vec![ArgType::of(ArgKind::Null), ArgType::of(ArgKind::Object)]),
            ..ArgType::of(ArgKind::Any)
        };
        assert_eq!(maybe.check(&Value::Null), Ok(()), "the null branch takes it");
        let both = ArgType {
            one_of: List::Owned(vec![ArgType::of(ArgKind::Number), ArgType::of(ArgKind::Integer)]),
            ..ArgType::of(ArgKind::Any)
        };
        assert!(both.check(&json!(1)).is_err(), "1 fits both branches, so not exactly one");
        let nullable = ArgType { nullable: true, ..ArgType::of(ArgKind::Text) };
        assert_eq!(nullable.check(&Value::Null), Ok(()));
        static TIERS: [crate::primitives::Str; 1] = [crate::primitives::Str::Borrowed("project")];
        let tier = ArgType { nullable: true, ..text_enum(&TIERS) };
        assert_eq!(tier.check(&Value::Null), Ok(()), "null is taken whatever the enum says");
        assert!(tier.check(&json!("medulla")).is_err());
    }
}
