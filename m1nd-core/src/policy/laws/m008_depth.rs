//! M008: at most three levels — root → collection → item. No actions at the
//! root, nothing below an item, and a collection lists its facet's items.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::facets::Facet;
use crate::names::{did_you_mean, suggest};

/// The most items a collection may project; item numbers stay short to type.
pub const MAX_LIMIT: i64 = 20;

const NO_COLLECTION_HELP: &str = "add `collection = { items = \"…\", limit = N }` so actions apply to an item, \
                                  or remove the actions";

const TOO_DEEP_HELP: &str = "the cockpit has three levels (root → collection → item); \
                             show what you need inside the item view";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for slot in cx.slots() {
        let n = *slot.n.get_ref();
        let facet = Context::facet(slot);
        if let (Some(actions), None, None) = (&slot.actions, &slot.collection, &slot.door) {
            out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, actions),
                    format!("slot {n} has actions but no collection"),
                )
                .label("an action runs on a selected item, and the root has none")
                .help(NO_COLLECTION_HELP),
            );
        }
        if let Some(actions) = &slot.actions {
            for action in actions.get_ref() {
                let action = action.get_ref();
                for (field, at) in [("collection", &action.collection), ("actions", &action.actions)] {
                    if let Some(at) = at {
                        out.push(
                            Diagnostic::new(
                                Law::M008,
                                loc(PolicyFile::Cockpit, at),
                                format!("slot {n}'s action `{}` opens a level below the item", action.card.get_ref()),
                            )
                            .label(format!("`{field}` inside an action"))
                            .help(TOO_DEEP_HELP),
                        );
                    }
                }
            }
        }
        if facet == Some(Facet::Help) && slot.collection.is_none() {
            out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, &slot.key),
                    format!("slot {n} is the help overview but lists nothing"),
                )
                .help("add `collection = { items = \"cards\", limit = N }`"),
            );
        }
        let Some(collection) = &slot.collection else {
            continue;
        };
        let def = collection.get_ref();
        if let Some(inner) = &def.collection {
            out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, inner),
                    format!("slot {n} nests a collection inside its collection"),
                )
                .help("the cockpit has three levels (root → collection → item); flatten it"),
            );
        }
        let limit = *def.limit.get_ref();
        if !(1..=MAX_LIMIT).contains(&limit) {
            out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, &def.limit),
                    format!("slot {n}'s collection limit {limit} is outside 1..={MAX_LIMIT}"),
                )
                .help("a collection is a short fixed-N projection (recent memories = 5, say), never an open list"),
            );
        }
        let Some(facet) = facet else { continue };
        match facet.items() {
            None => out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, collection),
                    format!("slot {n}'s facet `{}` has no items to list", facet.key()),
                )
                .help("remove the collection; this facet is shown by its label and door only"),
            ),
            Some(items) if items.name != def.items.get_ref() => out.push(
                Diagnostic::new(
                    Law::M008,
                    loc(PolicyFile::Cockpit, &def.items),
                    format!("slot {n}'s facet `{}` lists `{}`, not `{}`", facet.key(), items.name, def.items.get_ref()),
                )
                .help(did_you_mean(suggest(def.items.get_ref(), [items.name]), "", || {
                    format!("write `items = \"{}\"`", items.name)
                })),
            ),
            Some(_) => {}
        }
    }
}
