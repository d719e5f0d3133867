//! M013: a human-only verb is the human's alone.
//!
//! `human_only.toml` names the verbs that only a person performs (stamping a
//! mission, ratifying a block), on the tray's pages where the click travels
//! browser → server with no model in between. Each must be
//!
//! - in read_only_denied.toml, so the one read-only classification agrees
//!   that it writes;
//! - reachable from no menu entry (a slot's card, a door's source, an item
//!   action), so no number a human types into the cockpit performs it;
//! - and its `acts_at` text says where the human acts: the guard quotes it
//!   when it refuses the verb, in every session. Lowering puts the verbs in
//!   the table's `human_only`, which `tools/list` and the guard read, so no
//!   session lists or calls it over MCP.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;

/// The longest `acts_at` text: one line a refusal can quote whole.
pub const MAX_ACTS_AT_CHARS: usize = 160;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = &cx.raw.human_only else { return };
    let acts_at = file.acts_at.get_ref();
    if acts_at.trim().is_empty() || acts_at.contains(['\n', '\r']) || acts_at.chars().count() > MAX_ACTS_AT_CHARS {
        out.push(
            Diagnostic::new(
                Law::M013,
                loc(PolicyFile::HumanOnly, &file.acts_at),
                "`acts_at` must say, in one line, where the human performs these verbs",
            )
            .label(format!("empty, several lines, or over {MAX_ACTS_AT_CHARS} characters"))
            .help("write one static line naming the place, e.g. \"the tray page that `m1nd serve --http` serves\""),
        );
    }
    for entry in file.verbs.get_ref() {
        let Some(verb) = cx.verb(entry.get_ref()) else { continue };
        if cx.human_only(verb) != Some(entry) {
            continue; // a second entry for the same verb is M003's
        }
        if cx.denial(verb).is_none() {
            out.push(
                Diagnostic::new(
                    Law::M013,
                    loc(PolicyFile::HumanOnly, entry),
                    format!("human-only verb `{verb}` is not in read_only_denied.toml"),
                )
                .label("the human's verb is declared here")
                .help(format!("a human-only verb writes: add \"{verb}\" to `tools` in read_only_denied.toml")),
            );
        }
    }
    for read in cx.menu_reads() {
        let Some(card) = read.card else { continue };
        let tool = &card.get_ref().tool;
        let Some(verb) = cx.verb(tool.get_ref()) else { continue };
        let Some(entry) = cx.human_only(verb) else { continue };
        let how = if verb == tool.get_ref().as_str() {
            format!("`{verb}`")
        } else {
            format!("`{}` (that is `{verb}`)", tool.get_ref())
        };
        out.push(
            Diagnostic::new(
                Law::M013,
                loc(PolicyFile::Cockpit, read.card_ref),
                format!("{} calls {how}, which only the human performs", read.describe()),
            )
            .label("the menu reaches the human's verb here")
            .related(loc(PolicyFile::Cards, tool), format!("card `{}` calls it here", card.get_ref().id.get_ref()))
            .related(loc(PolicyFile::HumanOnly, entry), "declared human-only here")
            .help(format!("the human performs `{verb}` on {acts_at}; make this slot a door whose text points there")),
        );
    }
}
