//! M004: no denied verb is reachable from the menu.
//!
//! An explicit entry (a slot's card, a door's source, an item action) whose
//! verb is denied is an error. The derived help collection is not checked
//! here: lowering drops denied cards from it silently, so when the deny list
//! grows the menu shrinks by itself.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::names::Resolution;

const HELP: &str = "the cockpit is read-only: use a door with text that points to where the human acts, \
                    or a card whose tool is a read verb";

const RETIRED_HELP: &str = "a retired verb is refused forever: read a live verb here, \
                            and keep the tombstone in read_only_denied.toml";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for read in cx.menu_reads() {
        let Some(card) = read.card else { continue };
        let tool = &card.get_ref().tool;
        let written = tool.get_ref();
        let (verb, how) = match cx.resolve(written) {
            Resolution::Known(verb) if verb != written.as_str() => (verb, format!("`{written}` (that is `{verb}`)")),
            Resolution::Known(verb) => (verb, format!("`{verb}`")),
            Resolution::LookAlike { verb, first_foreign } => {
                (verb, format!("`{written}`, a look-alike of `{verb}` (U+{:04X} is not ASCII),", first_foreign as u32))
            }
            Resolution::Unknown { .. } => continue,
        };
        // A human-only verb in the menu is M013's to report, with its own reason.
        if cx.human_only(verb).is_some() {
            continue;
        }
        let retired = cx.verb_def(verb).and_then(|d| d.retired.as_ref()).is_some_and(|r| *r.get_ref());
        let Some(entry) = cx.denial(verb) else {
            if retired {
                let card_id = card.get_ref().id.get_ref();
                out.push(
                    Diagnostic::new(
                        Law::M004,
                        loc(PolicyFile::Cockpit, read.card_ref),
                        format!("{} calls {how} which is retired", read.describe()),
                    )
                    .label("the menu reaches a verb every session refuses")
                    .related(loc(PolicyFile::Cards, tool), format!("card `{card_id}` calls it here"))
                    .help(RETIRED_HELP),
                );
            }
            continue;
        };
        let why = if retired { " (a retired verb, refused forever)" } else { "" };
        out.push(
            Diagnostic::new(
                Law::M004,
                loc(PolicyFile::Cockpit, read.card_ref),
                format!("{} calls {how} which read_only_denied.toml denies{why}", read.describe()),
            )
            .label("the menu reaches a write here")
            .related(loc(PolicyFile::Cards, tool), format!("card `{}` calls it here", card.get_ref().id.get_ref()))
            .related(loc(PolicyFile::Deny, entry), "denied here")
            .help(HELP),
        );
    }
}
