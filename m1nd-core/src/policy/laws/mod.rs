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
