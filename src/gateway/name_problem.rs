//! Why `m1nd policy import` cannot declare an upstream's tool.
//!
//! Invariant: import takes every tool under its exact name or writes nothing,
//! so each tool it cannot declare is one of these, quoted with the rule (and
//! the law code) it breaks. A file of its own, so that the import and the
//! gateway's error type both name it without importing each other.

use m1nd_policy::names::spec::SPEC_RULE;

/// Why an upstream's tool cannot be declared in a gateway policy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    /// A listed tool with no string `name`.
    #[error("tool {position} of the listing has no name; the MCP specification requires one")]
    Unnamed { position: usize },
    /// A name outside the specification (law M001 for a gateway policy).
    #[error(
        "[M001] `{name}` is not a tool name the MCP specification allows: {problem}; {SPEC_RULE}. The gateway \
         hides and refuses it: ask the upstream's maintainers to rename it"
    )]
    OutsideSpec { name: String, problem: String },
    /// Two names a client could not tell apart (law M016).
    #[error(
        "[M016] `{first}` and `{second}` fold to the same name `{folded}` (case, `-`, `_`, `.` and the `m1nd.` \
         prefix are folded), so a client's spelling could mean either: write tools.toml by hand, declaring only \
         the one to serve (the other stays hidden and refused)"
    )]
    Folded { first: String, second: String, folded: String },
}
