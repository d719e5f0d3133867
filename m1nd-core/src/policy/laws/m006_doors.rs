//! M006: a door is a pointer — text only, nothing to execute even by mistake.
//! Also: every slot is exactly one of door, read or the derived help.

use toml::Spanned;

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::raw::SlotDef;
use super::super::source::{Loc, PolicyFile};
use crate::facets::Facet;

const DOOR_HELP: &str = "a door is a pointer: keep only its text (and a `source` card for its label), \
                         and move any read to a slot of its own";

const CARD_HELP: &str = "a slot reads only through a card: put the tool and its arguments on a `[[card]]` \
                         and name it with `card = \"…\"`";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for slot in cx.slots() {
        let n = *slot.n.get_ref();
        let executable = executable_fields(slot);
        if let Some(door) = &slot.door {
            for (field, at) in &executable {
                out.push(
                    Diagnostic::new(Law::M006, at.clone(), format!("slot {n} is a door but carries `{field}`"))
                        .label("a door executes nothing")
                        .related(loc(PolicyFile::Cockpit, door), "the door")
                        .help(DOOR_HELP),
                );
            }
            if door.get_ref().trim().is_empty() {
                out.push(
                    Diagnostic::new(
                        Law::M006,
                        loc(PolicyFile::Cockpit, door),
                        format!("slot {n}'s door text is empty"),
                    )
                    .help("say where the human acts, e.g. \"open the tray: the stamp lives there\""),
                );
            }
            continue;
        }
        for (field, at) in executable.iter().filter(|(f, _)| !matches!(*f, "card" | "actions")) {
            out.push(
                Diagnostic::new(Law::M006, at.clone(), format!("slot {n} carries `{field}` directly")).help(CARD_HELP),
            );
        }
        if let Some(source) = &slot.source {
            out.push(
                Diagnostic::new(
                    Law::M006,
                    loc(PolicyFile::Cockpit, source),
                    format!("slot {n} has a `source` but is not a door"),
                )
                .help("`source` feeds a door's label; a read slot's card already feeds its own"),
            );
        }
        let is_help = Facet::from_key(slot.key.get_ref()) == Some(Facet::Help);
        match (&slot.card, is_help) {
            (Some(card), true) => out.push(
                Diagnostic::new(
                    Law::M006,
                    loc(PolicyFile::Cockpit, card),
                    format!("slot {n} is the help overview but names a card"),
                )
                .help("help is derived from the `overview = true` cards in help_cards.toml; remove `card`"),
            ),
            (None, false) => out.push(
                Diagnostic::new(
                    Law::M006,
                    loc(PolicyFile::Cockpit, &slot.key),
                    format!("slot {n} neither points nor reads"),
                )
                .help("give it `door = \"…\"` (a pointer) or `card = \"…\"` (an argument-less read)"),
            ),
            _ => {}
        }
    }
}

fn executable_fields(slot: &SlotDef) -> Vec<(&'static str, Loc)> {
    fn at<T>(v: &Option<Spanned<T>>) -> Option<Loc> {
        v.as_ref().map(|v| loc(PolicyFile::Cockpit, v))
    }
    [
        ("card", at(&slot.card)),
        ("tool", at(&slot.tool)),
        ("verb", at(&slot.verb)),
        ("arguments", at(&slot.arguments)),
        ("actions", at(&slot.actions)),
    ]
    .into_iter()
    .filter_map(|(f, l)| l.map(|l| (f, l)))
    .collect()
}
