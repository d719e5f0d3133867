//! M018: text a gateway serves is visible.
//!
//! Invariant: what a reviewer reads is what the model gets. A verb's
//! `summary` is served as its description whenever the definition is not
//! pinned, so it may hold no control character (TAB and line breaks
//! included: a summary is one line) and no invisible one (bidi and other
//! format characters, zero-width characters, the TAG block, fillers): any of
//! them would let `Echo text.` carry an instruction no person sees.
//!
//! The reviewed definitions (`definitions.json`) are held to the same rule
//! by `policy check` and `policy import`, which read that file (the macro and
//! the gateway's startup never do): each string of a definition with such a
//! character is refused under this law, escaped, unless the entry's table in
//! `tools.toml` names that top-level key in `allow_invisible`. The gateway
//! escapes them at run time either way, so an allowance accepts what a
//! person has seen; it never hands invisible characters to a model.

use super::super::context::{Context, loc};
use super::super::declared::ALLOW_INVISIBLE;
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::sanitize::escape::{Layout, escape, has_unseen};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (name, def) in cx.verbs_in_order() {
        let summary = &def.get_ref().summary;
        if has_unseen(summary.get_ref(), Layout::Escape) {
            out.push(
                Diagnostic::new(
                    Law::M018,
                    loc(PolicyFile::Tools, summary),
                    format!(
                        "verb `{}`'s summary holds characters a reader cannot see: \"{}\"",
                        name.get_ref(),
                        escape(summary.get_ref(), Layout::Escape)
                    ),
                )
                .label("served to the model as the tool's description")
                .help(format!(
                    "write the summary as plain visible text on one line (`m1nd policy import` writes it so); a \
                     summary is the policy's own words, so `{ALLOW_INVISIBLE}` does not cover it"
                )),
            );
        }
    }
}
