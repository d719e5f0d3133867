//! The policy compiler: `policy/*.toml` → laws → [`Cockpit`].
//!
//! `cockpit!`, `m1nd policy check` and the runtime re-check all go through
//! [`compile`], so they report the same violations with the same messages.

mod context;
mod decompile;
mod diagnostic;
pub mod diff;
mod encode;
mod laws;
mod load;
mod lower;
mod raw;
pub mod report;
mod source;

pub use crate::runtime::{WorstCase, worst_case};
pub use decompile::decompile;
pub use diagnostic::{Diagnostic, Law};
pub use encode::{digest, encode};
pub use source::{Loc, MAX_FILE_BYTES, PolicyFile, PolicySources, ReadProblem, line_col};

use crate::table::Cockpit;

/// Compile a policy, or return every violation found.
///
/// Parse errors (M001) are reported for all four files at once and stop
/// there; otherwise every other law runs and all their diagnostics are
/// returned together, in file and position order.
pub fn compile(sources: &PolicySources) -> Result<Cockpit, Vec<Diagnostic>> {
    let raw = load::load(sources)?;
    let cx = context::Context::new(&raw);
    let mut problems = laws::check(&cx);
    if problems.is_empty() {
        let cockpit = lower::lower(&cx);
        laws::m011_budget::check_worst_case(&cx, &cockpit, &mut problems);
        if problems.is_empty() {
            return Ok(cockpit);
        }
    }
    problems.sort_by_key(|d| (d.file, d.at.as_ref().map(|a| a.span.start), d.law));
    Err(problems)
}
