//! Argument types: what JSON each argument of a verb takes.
//!
//! tools.toml declares every argument's type once, in its `[arguments]`
//! table, and the arguments every verb accepts once, in `[common]`. The laws
//! check the declarations (an unknown type is M001, an argument without one
//! is M002, a verb repeating a common argument is M003); lowering carries
//! them into the table, so the server's argument check and its `tools/list`
//! schemas read the policy instead of guessing from names.

use crate::table::{Cockpit, Str, Verb};

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

impl Cockpit {
    /// The declared type of an argument.
    pub fn argument_kind(&self, name: &str) -> Option<ArgKind> {
        self.arguments.iter().find(|p| p.name == name).map(|p| p.kind)
    }

    /// Every argument `verb` takes: its `requires`, its `accepts`, then the
    /// arguments common to all verbs, each with its declared type.
    pub fn takes<'a>(&'a self, verb: &'a Verb) -> impl Iterator<Item = Takes<'a>> + 'a {
        let required = verb.requires.iter().map(|n| (n, true));
        let optional = verb.accepts.iter().chain(self.common.iter()).map(|n| (n, false));
        required.chain(optional).map(|(name, required)| Takes { name, kind: self.argument_kind(name), required })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
