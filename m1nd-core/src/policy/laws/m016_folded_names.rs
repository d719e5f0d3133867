//! M016: no two tools (or two prompts) a gateway policy declares fold to the
//! same name.
//!
//! Invariant: every spelling a client may write ([`spec::fold`]: case, `-`,
//! `_`, `.`, the `m1nd.` prefix) denotes at most one declared tool, so a
//! refusal of one spelling is a refusal of all of them, and an allowed
//! spelling forwards one exact upstream name. Two declared tools that fold
//! together would make that a guess. m1nd's own policy keeps this as M003,
//! since its verbs are canonical and fold only by case and prefix.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::raw::{Text, in_source_order};
use super::super::source::PolicyFile;
use crate::names::spec;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let verbs: Vec<&Text> = cx.verbs_in_order().into_iter().map(|(name, _)| name).collect();
    collisions(&verbs, ["tools", "tool", "call"], out);
    let prompts: Vec<&Text> = in_source_order(&cx.raw.tools.prompts).into_iter().map(|(name, _)| name).collect();
    collisions(&prompts, ["prompts", "prompt", "request"], out);
}

/// Every pair of `names` (one kind, in source order) that fold together.
fn collisions(names: &[&Text], [kind, one, request]: [&str; 3], out: &mut Vec<Diagnostic>) {
    for collision in spec::collisions(names.iter().map(|name| name.get_ref().as_str())) {
        let (first, second) = (names[collision.first], names[collision.second]);
        out.push(
            Diagnostic::new(
                Law::M016,
                loc(PolicyFile::Tools, second),
                format!(
                    "{kind} `{}` and `{}` fold to the same name `{}`",
                    first.get_ref(),
                    second.get_ref(),
                    collision.folded
                ),
            )
            .label("declared again here, under another spelling")
            .related(loc(PolicyFile::Tools, first), "first declared here")
            .help(format!(
                "declare only one of them: a client's `{}`, `{}` or any spelling that folds to `{}` could mean \
                 either, so the gateway could not tell which {one} a {request} means (an upstream {one} the policy \
                 leaves out is hidden and refused)",
                first.get_ref(),
                second.get_ref(),
                collision.folded
            )),
        );
    }
}
