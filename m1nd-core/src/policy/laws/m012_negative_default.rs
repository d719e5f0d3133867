//! M012: `negative_default` — the on-request-only sentence — is present and
//! non-empty. The server repeats it verbatim in its MCP instructions.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;

const HELP: &str = "say in one sentence that the cockpit is served only when the human types `?` or asks for it, \
                    e.g. negative_default = \"Serve the cockpit only when the human asks for it.\"";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    match &cx.raw.cockpit.negative_default {
        None => out.push(
            Diagnostic::new(
                Law::M012,
                loc(PolicyFile::Cockpit, &cx.raw.cockpit.schema),
                "cockpit.toml declares no `negative_default`",
            )
            .label("add it next to the schema")
            .help(HELP),
        ),
        Some(text) if text.get_ref().trim().is_empty() => out
            .push(Diagnostic::new(Law::M012, loc(PolicyFile::Cockpit, text), "`negative_default` is empty").help(HELP)),
        Some(text) if text.get_ref().contains(['\n', '\r']) => out.push(
            Diagnostic::new(Law::M012, loc(PolicyFile::Cockpit, text), "`negative_default` spans several lines").help(
                "keep it one sentence on one line; it is compared word for word with the instructions and skills",
            ),
        ),
        Some(_) => {}
    }
}
