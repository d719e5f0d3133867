//! The laws M001–M013 as pure functions over the parsed policy.
//!
//! Each law reports every violation it finds; none stops at the first. M001's
//! parse errors are reported by [`super::load`] and are terminal (the other
//! laws need a parsed policy); M011's worst-case measurement runs on the
//! lowered table (see [`super::compile`]).

mod m001_shape;
mod m002_known;
mod m003_unique;
mod m004_denied;
mod m005_status_only;
mod m006_doors;
mod m007_arguments;
mod m008_depth;
mod m009_slots;
mod m010_labels;
pub mod m011_budget;
mod m012_negative_default;
mod m013_human_only;

use super::context::Context;
use super::diagnostic::Diagnostic;
use crate::names::{did_you_mean, suggest};

/// Run every law that works on the parsed policy.
pub fn check(cx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    m001_shape::check(cx, &mut out);
    m002_known::check(cx, &mut out);
    m003_unique::check(cx, &mut out);
    m004_denied::check(cx, &mut out);
    m005_status_only::check(cx, &mut out);
    m006_doors::check(cx, &mut out);
    m007_arguments::check(cx, &mut out);
    m008_depth::check(cx, &mut out);
    m009_slots::check(cx, &mut out);
    m010_labels::check(cx, &mut out);
    m011_budget::check_declared(cx, &mut out);
    m012_negative_default::check(cx, &mut out);
    m013_human_only::check(cx, &mut out);
    out
}

/// Names as a message lists them: `a`, `b`, `c`.
fn list(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// A `help:` for a name that is not one of `candidates`, in the one
/// did-you-mean wording: the nearest one if it is close enough to be a typo,
/// and always the whole list.
fn near_name(name: &str, candidates: &[&str], what: &str) -> String {
    let listed = format!("the {what} here are {}", list(candidates));
    did_you_mean(suggest(name, candidates.iter().copied()), &listed, || {
        if candidates.is_empty() { format!("there are no {what} here") } else { listed.clone() }
    })
}
