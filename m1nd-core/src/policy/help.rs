//! The wording of a `help:` line about a name: the names a place takes,
//! listed, and the nearest one when the name written looks like a typo of it.
//! The laws and the argument types' checks share it, so every such help reads
//! the same.

use crate::names::{did_you_mean, suggest};

/// Names as a message lists them: `a`, `b`, `c`.
pub(in crate::policy) fn list(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// A `help:` for a name that is not one of `candidates`, in the one
/// did-you-mean wording: the nearest one if it is close enough to be a typo,
/// and always the whole list.
pub(in crate::policy) fn near_name(name: &str, candidates: &[&str], what: &str) -> String {
    let listed = format!("the {what} here are {}", list(candidates));
    did_you_mean(suggest(name, candidates.iter().copied()), &listed, || {
        if candidates.is_empty() { format!("there are no {what} here") } else { listed.clone() }
    })
}
