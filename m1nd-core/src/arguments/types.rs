//! An argument's full type: a kind plus the constraints JSON Schema puts on
//! it (enums, bounds, lengths, patterns, items, properties, unions).
//!
//! m1nd's tools take every JSON type, and the same argument name is typed
//! differently by different tools, so a kind alone cannot say what a call may
//! send. [`ArgType`] is the closed subset of JSON Schema the policy language
//! writes (see "Writing a policy"): anything outside it is refused when the
//! policy compiles, never approximated. The table holds it; the server checks
//! calls against it ([`ArgType::check`]) and lists it ([`ArgType::schema`]).

use super::ArgKind;
use crate::primitives::{List, Str};

/// One argument's type. Built by the policy compiler, checked by it, and
/// compared field by field by the digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgType {
    /// The JSON the value takes. [`ArgKind::Any`] with a non-empty
    /// [`one_of`](Self::one_of) is a union.
    pub kind: ArgKind,
    /// `null` is also a value (JSON Schema `type: [T, "null"]`).
    pub nullable: bool,
    /// The only strings a text argument may take, when not empty.
    pub choices: List<Str>,
    /// The one string a text argument must be.
    pub constant: Option<Str>,
    /// The value the tool assumes when the argument is absent, as compact JSON.
    pub default: Option<Str>,
    /// Inclusive bounds of an integer or number.
    pub minimum: Option<i64>,
    pub maximum: Option<i64>,
    /// The fewest characters a text argument may have.
    pub min_length: Option<u64>,
    /// A regular expression a text argument must match somewhere (anchor it
    /// with `^…$` to match the whole string), as JSON Schema's `pattern`.
    pub pattern: Option<Str>,
    /// An array's item type: empty for any items, else exactly one.
    pub items: List<ArgType>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// No two items of an array are equal.
    pub unique_items: bool,
    /// An object's declared members, in declaration order.
    pub properties: List<Property>,
    /// An object may hold only its declared members (`additionalProperties: false`).
    pub closed: bool,
    /// The value matches exactly one of these (JSON Schema `oneOf`).
    pub one_of: List<ArgType>,
}

/// One declared member of an object type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub name: Str,
    pub ty: ArgType,
    pub required: bool,
}

impl ArgType {
    /// The plain type of a kind: no constraint, not nullable.
    pub const fn of(kind: ArgKind) -> ArgType {
        ArgType {
            kind,
            nullable: false,
            choices: List::Borrowed(&[]),
            constant: None,
            default: None,
            minimum: None,
            maximum: None,
            min_length: None,
            pattern: None,
            items: List::Borrowed(&[]),
            min_items: None,
            max_items: None,
            unique_items: false,
            properties: List::Borrowed(&[]),
            closed: false,
            one_of: List::Borrowed(&[]),
        }
    }

    /// Whether this is the plain type of its kind, which the policy writes
    /// as the kind's bare key (`"text"`).
    pub fn is_plain(&self) -> bool {
        *self == ArgType::of(self.kind)
    }

    /// The array's item type, when it declares one.
    pub fn item(&self) -> Option<&ArgType> {
        self.items.first()
    }

    /// Whether any string is a valid value: what an item field (free text)
    /// may be bound to.
    pub fn takes_any_text(&self) -> bool {
        self.kind == ArgKind::Text
            && self.choices.is_empty()
            && self.constant.is_none()
            && self.min_length.is_none_or(|n| n == 0)
            && self.pattern.is_none()
    }

    /// Whether a JSON string can be a valid value: a card writes such a
    /// value as TOML text, and every other value as TOML of its own type.
    pub fn is_textual(&self) -> bool {
        matches!(self.kind, ArgKind::Text | ArgKind::Reference | ArgKind::Id)
    }

    /// What a caller must send, in words, for error messages.
    pub fn expected(&self) -> String {
        let mut words = if !self.one_of.is_empty() {
            let branches: Vec<String> = self.one_of.iter().map(ArgType::expected).collect();
            format!("exactly one of: {}", branches.join("; "))
        } else if !self.choices.is_empty() {
            let choices: Vec<String> = self.choices.iter().map(|c| format!("\"{c}\"")).collect();
            format!("one of {}", choices.join(", "))
        } else if let Some(constant) = &self.constant {
            format!("the string \"{constant}\"")
        } else if self.kind == ArgKind::Integer && self.minimum == Some(0) && self.maximum.is_none() {
            return format!("a non-negative integer{}", if self.nullable { ", or null" } else { "" });
        } else {
            self.kind.expected().to_owned()
        };
        match (self.minimum, self.maximum) {
            (Some(lo), Some(hi)) => words.push_str(&format!(" from {lo} to {hi}")),
            (Some(lo), None) => words.push_str(&format!(" of at least {lo}")),
            (None, Some(hi)) => words.push_str(&format!(" of at most {hi}")),
            (None, None) => {}
        }
        if self.nullable {
            words.push_str(", or null");
        }
        words
    }
}
