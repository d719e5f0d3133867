//! The values every compiled type is built from, one floor below both the
//! deny list and the table so that neither has to import the other.

use std::borrow::Cow;

/// Static or owned text.
pub type Str = Cow<'static, str>;
/// Static or owned list.
pub type List<T> = Cow<'static, [T]>;

/// A fixed argument: what a card passes to its verb, and what a status-only
/// rule looks at to decide whether a read-only session may make the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    pub name: Str,
    pub value: Str,
}

/// The prefix of a definition digest: what `m1nd policy import` writes into a
/// gateway policy and what the gateway compares a live definition against.
pub const DIGEST_PREFIX: &str = "blake3:";

/// Whether `text` is a definition digest: [`DIGEST_PREFIX`] and 64 lower-case
/// hex digits.
pub fn is_digest(text: &str) -> bool {
    text.strip_prefix(DIGEST_PREFIX)
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}
