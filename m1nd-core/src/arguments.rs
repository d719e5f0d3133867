//! Argument types: what JSON each argument of a verb takes.
//!
//! tools.toml declares every argument's type once, in its `[arguments]`
//! table, and the arguments every verb accepts once, in `[common]`. The laws
//! check the declarations (an unknown type is M001, an argument without one
//! is M002, a verb repeating a common argument is M003); lowering carries
//! them into the table, so the server's argument check and its `tools/list`
//! schemas read the policy instead of guessing from names.

use crate::primitives::Str;

/// The JSON an argument takes. The policy writes it as [`ArgKind::key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A JSON string.
    Text,
    /// A non-negative JSON integer.
    Integer,
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
    pub const ALL: [ArgKind; 4] = [ArgKind::Text, ArgKind::Integer, ArgKind::Reference, ArgKind::Id];

    /// How tools.toml writes the kind.
    pub fn key(self) -> &'static str {
        match self {
            ArgKind::Text => "text",
            ArgKind::Integer => "integer",
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
            ArgKind::Reference => "Reference",
            ArgKind::Id => "Id",
        }
    }

    /// What a caller must send, for error messages.
    pub fn expected(self) -> &'static str {
        match self {
            ArgKind::Text => "a string",
            ArgKind::Integer => "a non-negative integer",
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

impl ArgKind {
    /// Why a fixed text value (a card's argument) is not valid for this
    /// kind, if it is not: what the text of a call would have to be.
    pub fn fixed_problem(self, value: &str) -> Option<String> {
        match self {
            ArgKind::Text => None,
            ArgKind::Integer if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                value.parse::<u64>().err().map(|_| "it is too large".to_owned())
            }
            ArgKind::Integer => Some("it is not a decimal number".to_owned()),
            ArgKind::Reference => crate::runtime::parse_reference(value).err().map(|e| e.reason),
            ArgKind::Id => match check_id(value) {
                Ok(()) => None,
                Err(IdProblem::Length(n)) => Some(format!("it is {n} characters; an id has 1 to {MAX_ID_CHARS}")),
                Err(IdProblem::Unprintable) => Some("it holds control, invisible or repeated space characters".into()),
            },
        }
    }
}

/// One declared argument type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: Str,
    pub kind: ArgKind,
}

/// One argument a verb takes, with its type as the table declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Takes<'a> {
    pub name: &'a str,
    /// `None` only in a table no lawful policy produced; callers refuse it.
    pub kind: Option<ArgKind>,
    pub required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_values_are_checked_against_their_kind() {
        assert_eq!(ArgKind::Text.fixed_problem(""), None);
        assert_eq!(ArgKind::Integer.fixed_problem("10"), None);
        assert!(ArgKind::Integer.fixed_problem("ten").is_some());
        assert!(ArgKind::Integer.fixed_problem("-1").is_some());
        assert!(ArgKind::Integer.fixed_problem("99999999999999999999").is_some());
        assert_eq!(ArgKind::Reference.fixed_problem("2.1"), None);
        assert!(ArgKind::Reference.fixed_problem("2.x").is_some());
        assert_eq!(ArgKind::Id.fixed_problem("agent-7"), None);
        assert!(ArgKind::Id.fixed_problem("").is_some());
        assert!(ArgKind::Id.fixed_problem("a\u{7}").is_some());
    }

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
