//! M015: a collection's count label and the list it opens count the same
//! thing.
//!
//! 1. In every condition of a slot with a collection, its label counts each
//!    kind of item the list can show in that condition (the facet registry's
//!    [`Facet::listable_in`]) by that kind's number, so "11 blocks ratified"
//!    never opens a list with a candidate among them that it did not count.
//! 2. The runtime does the rest by construction: the listing's total is the
//!    sum of the same numbers, and an item of a marked kind carries its mark.
//!
//! A missing label or a collection of the wrong items is M010's or M008's to
//! report; this law checks only what those leave standing.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::facets::{Facet, Kind};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for slot in cx.slots() {
        let (Some(facet), Some(collection), Some(labels)) = (Context::facet(slot), &slot.collection, &slot.label)
        else {
            continue;
        };
        if facet.items().is_none_or(|items| items.name != collection.get_ref().items.get_ref()) {
            continue;
        }
        let n = slot.n.get_ref();
        for (condition, text) in labels.get_ref() {
            let listable = facet.listable_in(condition.get_ref());
            let (counted, uncounted): (Vec<&Kind>, Vec<&Kind>) =
                listable.iter().copied().partition(|kind| text.get_ref().contains(&format!("{{{}}}", kind.count)));
            if uncounted.is_empty() {
                continue;
            }
            out.push(
                Diagnostic::new(
                    Law::M015,
                    loc(PolicyFile::Cockpit, text),
                    format!(
                        "slot {n}'s `{}` label does not count the {} its list shows",
                        condition.get_ref(),
                        names(&uncounted)
                    ),
                )
                .label(match counted.as_slice() {
                    [] => "counts none of the items its list shows".to_owned(),
                    some => format!("counts {} only", names(some)),
                })
                .related(
                    loc(PolicyFile::Cockpit, collection),
                    format!("the list it opens shows {} in this condition", names(&listable)),
                )
                .help(help(facet, &uncounted)),
            );
        }
    }
}

/// `candidate blocks and ratified blocks`.
fn names(kinds: &[&Kind]) -> String {
    let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

fn help(facet: Facet, uncounted: &[&Kind]) -> String {
    let placeholders: Vec<String> = uncounted.iter().map(|k| format!("`{{{}}}`", k.count)).collect();
    let marks: Vec<String> = uncounted.iter().filter_map(|k| k.mark).map(|m| format!("`{m}`")).collect();
    let marked = match marks.as_slice() {
        [] => String::new(),
        some => format!(" (the list marks each of them {})", some.join(" or ")),
    };
    format!(
        "count them in this label with {}{marked}, so the number the human reads counts what the list shows; \
         or remove the slot's collection and show `{}` by its label alone",
        placeholders.join(" and "),
        facet.key()
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::policy::{Law, PolicySources};

    fn titles(fixture: &str) -> Vec<(Law, String)> {
        let display = format!("tests/ui/policies/{fixture}");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&display);
        match crate::compile(&PolicySources::read_dir(&dir, &display)) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.into_iter().map(|d| (d.law, d.title)).collect(),
        }
    }

    #[test]
    fn the_base_policy_counts_what_its_lists_show() {
        assert_eq!(titles("base"), []);
    }

    /// A label that counts one kind cannot open a list of another: the
    /// ratified label left the candidates out, and the waiting label counts nothing.
    #[test]
    fn an_uncounted_kind_is_reported_at_its_label() {
        assert_eq!(
            titles("m015_uncounted"),
            [
                (Law::M015, "slot 2's `ratified` label does not count the candidate blocks its list shows".to_owned()),
                (Law::M015, "slot 3's `waiting` label does not count the waiting missions its list shows".to_owned()),
            ]
        );
    }
}
