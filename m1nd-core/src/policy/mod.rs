//! The policy compiler: `policy/*.toml` → laws → [`Cockpit`].
//!
//! `cockpit!`, `m1nd policy check` and the runtime re-check all go through
//! [`compile`], so they report the same violations with the same messages.

mod arg_types;
mod context;
mod declared;
mod decompile;
mod diagnostic;
pub mod diff;
mod effects;
mod encode;
mod gateway;
mod help;
mod laws;
pub(crate) mod load;
mod lower;
mod lower_effects;
mod profile;
mod raw;
mod raw_type;
pub mod report;
mod source;
mod spanned;

pub use crate::primitives::{DIGEST_PREFIX, is_digest};
pub use crate::runtime::{WorstCase, worst_case};
pub use declared::{ALLOW_INVISIBLE, Declared, Names, VERBS, gateway_declarations};
pub use decompile::decompile;
pub(crate) use diagnostic::one_line;
pub use diagnostic::{Diagnostic, Law, Place, Where, render_report};
pub use encode::{digest, encode, gateway_digest};
pub use laws::Scope;
pub use profile::Profile;
pub use source::{Loc, MAX_FILE_BYTES, PolicyFile, PolicySources, ReadProblem, join_display, line_col, read_text};

use crate::gateway_table::Gateway;
use crate::table::Cockpit;

/// Compile a cockpit policy, or return every violation found.
///
/// Parse errors (M001) are reported for all four files at once and stop
/// there; otherwise every other law runs and all their diagnostics are
/// returned together, in file and position order.
///
/// ```
/// use std::path::Path;
/// use m1nd_policy::{PolicySources, compile};
///
/// let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
/// let cockpit = compile(&PolicySources::read_dir(&dir, "policy")).expect("the repository's policy keeps every law");
///
/// // The one table: the deny list the guard reads, and the menu.
/// assert!(cockpit.deny.denies("learn"));
/// assert!(!cockpit.deny.denies("doctor"));
/// assert_eq!(cockpit.slots.iter().filter(|s| s.pinned).count(), 3);
/// assert_eq!(cockpit.digest.len(), 64);
/// ```
pub fn compile(sources: &PolicySources) -> Result<Cockpit, Vec<Diagnostic>> {
    compile_as(sources, Profile::Cockpit, |_, cockpit| cockpit)
}

/// Compile a gateway policy (see [`Profile::Gateway`]): the same laws, where
/// they govern it, and the same messages as [`compile`].
pub fn compile_gateway(sources: &PolicySources) -> Result<Gateway, Vec<Diagnostic>> {
    compile_as(sources, Profile::Gateway, gateway::lower)
}

fn compile_as<T>(
    sources: &PolicySources,
    profile: Profile,
    finish: impl FnOnce(&context::Context<'_>, Cockpit) -> T,
) -> Result<T, Vec<Diagnostic>> {
    let raw = load::load(sources, profile)?;
    let cx = context::Context::new(&raw);
    let mut problems = laws::check(&cx);
    if problems.is_empty() {
        let cockpit = lower::lower(&cx);
        if laws::governs(Law::M011, &cx) {
            laws::m011_budget::check_worst_case(&cx, &cockpit, &mut problems);
        }
        if problems.is_empty() {
            return Ok(finish(&cx, cockpit));
        }
    }
    problems.sort_by_key(|d| (d.file, d.at.as_ref().map(|a| a.span.start), d.law));
    Err(problems)
}
