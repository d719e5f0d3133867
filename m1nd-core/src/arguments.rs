//! Argument types: what JSON each argument of a verb takes.
//!
//! tools.toml declares an argument's type in its `[arguments]` table, for
//! every verb that takes the name, or in a verb's own `[verbs.NAME.arguments]`
//! when that verb types the name its own way (m1nd types `depth` as an
//! integer in one tool and as a string enum in another). The arguments every
//! verb accepts are declared once, in `[common]`. The laws check the
//! declarations (a type the language cannot express is M001, an argument
//! without one is M002, a verb repeating a common argument is M003); lowering
//! carries them into the table, so the server's argument check and its
//! `tools/list` schemas read the policy instead of guessing from names.

mod check;
mod schema;
mod types;

pub use check::{Mismatch, received};
pub use types::{ArgType, Property};

use crate::primitives::Str;

/// How a client sends a reference, said once: the server's instructions, the
/// `select` schema, its refusals and the skill files all carry this sentence.
/// (It lives with the argument kinds: it describes the `reference` kind.)
pub const SEND_AS_TYPED: &str = "Pass the human's reference as `select` exactly as they typed it, as a JSON string: \"2.10\" and \"2.1\" are different items, and a JSON number cannot tell them apart.";

/// The JSON an argument takes. The policy writes it as [`ArgKind::key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArgKind {
    /// A JSON string.
    Text,
    /// A JSON integer (bounded by its type's `minimum` and `maximum`).
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
    /// Any JSON value; with `one_of`, exactly one of its branches.
    Any,
    /// Only `null` (JSON Schema `type: "null"`): a member a tool takes but
    /// ignores, kept so that a closed object does not refuse it.
    Null,
    /// A cockpit reference: a JSON string as typed, or a non-negative JSON
    /// integer, which means exactly what its decimal string means.
    Reference,
    /// A short printable identifier, such as the calling agent's id: a JSON
    /// string of 1 to [`MAX_ID_CHARS`] characters, none of them a control or
    /// invisible character.
    Id,
}

/// The longest [`ArgKind::Id`] accepted, in characters.
pub const MAX_ID_CHARS: usize = 64;

impl ArgKind {
    /// Every kind, in the order the policy reference lists them.
    pub const ALL: [ArgKind; 10] = [
        ArgKind::Text,
        ArgKind::Integer,
        ArgKind::Number,
        ArgKind::Boolean,
        ArgKind::Array,
        ArgKind::Object,
        ArgKind::Any,
        ArgKind::Null,
        ArgKind::Reference,
        ArgKind::Id,
    ];

    /// How tools.toml writes the kind.
    pub fn key(self) -> &'static str {
        match self {
            ArgKind::Text => "text",
            ArgKind::Integer => "integer",
            ArgKind::Number => "number",
            ArgKind::Boolean => "boolean",
            ArgKind::Array => "array",
            ArgKind::Object => "object",
            ArgKind::Any => "any",
            ArgKind::Null => "null",
            ArgKind::Reference => "reference",
            ArgKind::Id => "id",
        }
    }

    /// The kind tools.toml names, if it names one.
    pub fn from_key(key: &str) -> Option<ArgKind> {
        Self::ALL.into_iter().find(|k| k.key() == key)
    }

    /// The enum variant's name, for generated code.
    pub fn variant(self) -> &'static str {
        match self {
            ArgKind::Text => "Text",
            ArgKind::Integer => "Integer",
            ArgKind::Number => "Number",
            ArgKind::Boolean => "Boolean",
            ArgKind::Array => "Array",
            ArgKind::Object => "Object",
            ArgKind::Any => "Any",
            ArgKind::Null => "Null",
            ArgKind::Reference => "Reference",
            ArgKind::Id => "Id",
        }
    }

    /// What a caller must send, for error messages.
    pub fn expected(self) -> &'static str {
        match self {
            ArgKind::Text => "a string",
            ArgKind::Integer => "an integer",
            ArgKind::Number => "a number",
            ArgKind::Boolean => "a boolean",
            ArgKind::Array => "an array",
            ArgKind::Object => "an object",
            ArgKind::Any => "any JSON value",
            ArgKind::Null => "null",
            ArgKind::Reference => "a reference (a string, or a non-negative integer naming a slot or `0`)",
            ArgKind::Id => "a short printable string",
        }
    }
}

/// Why a string is not an [`ArgKind::Id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdProblem {
    /// Not 1 to [`MAX_ID_CHARS`] characters long; holds the length.
    Length(usize),
    /// Sanitising would change it: it holds an escape, a control or
    /// invisible character, or leading, trailing or repeated whitespace.
    Unprintable,
}

/// Whether `s` is an [`ArgKind::Id`]: 1 to [`MAX_ID_CHARS`] characters that
/// [`display`](crate::sanitize::display) leaves as they are.
pub fn check_id(s: &str) -> Result<(), IdProblem> {
    let chars = s.chars().count();
    if chars == 0 || chars > MAX_ID_CHARS {
        Err(IdProblem::Length(chars))
    } else if crate::sanitize::display(s, MAX_ID_CHARS) != s {
        Err(IdProblem::Unprintable)
    } else {
        Ok(())
    }
}

/// One declared argument type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: Str,
    pub ty: ArgType,
}

/// One argument a verb takes, with its type as the table declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Takes<'a> {
    pub name: &'a str,
    /// `None` only in a table no lawful policy produced; callers refuse it.
    pub ty: Option<&'a ArgType>,
    pub required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_and_printable() {
        assert_eq!(check_id("Agent 7"), Ok(()));
        assert_eq!(check_id(&"a".repeat(MAX_ID_CHARS)), Ok(()));
        assert_eq!(check_id(&"a".repeat(MAX_ID_CHARS + 1)), Err(IdProblem::Length(MAX_ID_CHARS + 1)));
        assert_eq!(check_id(""), Err(IdProblem::Length(0)));
        for bad in ["a\u{1b}[2J", "a\u{200B}b", " a", "a  b", "a\tb"] {
            assert_eq!(check_id(bad), Err(IdProblem::Unprintable), "{bad:?}");
        }
    }

    #[test]
    fn keys_round_trip_and_are_distinct() {
        for kind in ArgKind::ALL {
            assert_eq!(ArgKind::from_key(kind.key()), Some(kind));
        }
        let keys: std::collections::HashSet<&str> = ArgKind::ALL.iter().map(|k| k.key()).collect();
        assert_eq!(keys.len(), ArgKind::ALL.len());
        assert_eq!(ArgKind::from_key("string"), None);
    }
}
