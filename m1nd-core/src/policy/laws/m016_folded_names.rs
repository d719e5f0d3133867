//! M016: no two names a gateway policy declares fold to the same name.
//!
//! Invariant: every spelling a client may write ([`spec::fold`]: case, `-`,
//! `_`, `.`, the `m1nd.` prefix) denotes at most one declared tool, so a
//! refusal of one spelling is a refusal of all of them, and an allowed
//! spelling forwards one exact upstream name. Two declared tools that fold
//! together would make that a guess. m1nd's own policy keeps this as M003,
//! since its verbs are canonical and fold only by case and prefix.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::names::spec;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let verbs = cx.verbs_in_order();
    for collision in spec::collisions(verbs.iter().map(|(name, _)| name.get_ref().as_str())) {
        let (first, second) = (verbs[collision.first].0, verbs[collision.second].0);
        out.push(
            Diagnostic::new(
                Law::M016,
                loc(PolicyFile::Tools, second),
                format!(
                    "tools `{}` and `{}` fold to the same name `{}`",
                    first.get_ref(),
                    second.get_ref(),
                    collision.folded
                ),
            )
            .label("declared again here, under another spelling")
            .related(loc(PolicyFile::Tools, first), "first declared here")
            .help(format!(
                "declare only one of them: a client's `{}`, `{}` or any spelling that folds to `{}` could mean \
                 either, so the gateway could not tell which tool a call means (an upstream tool the policy leaves \
                 out is hidden and refused)",
                first.get_ref(),
                second.get_ref(),
                collision.folded
            )),
        );
    }
}
