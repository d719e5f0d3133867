//! M002: every verb named anywhere (human_only.toml included) is declared in tools.toml, and every card
//! the menu names is declared in help_cards.toml.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::raw::Text;
use super::super::source::PolicyFile;
use crate::names::Resolution;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for entry in cx.raw.deny.tools.get_ref() {
        verb(cx, PolicyFile::Deny, entry, "the deny list names", out);
    }
    for key in cx.raw.deny.status_only.keys() {
        verb(cx, PolicyFile::Deny, key, "a status-only rule names", out);
    }
    for entry in cx.raw.human_only.iter().flat_map(|h| h.verbs.get_ref()) {
        verb(cx, PolicyFile::HumanOnly, entry, "human_only.toml names", out);
    }
    for card in &cx.raw.cards.card {
        let card = card.get_ref();
        // A look-alike of a denied verb on a card the menu uses is M004's to
        // report: it is an attempt to reach a write, not a typo.
        let m004_owns = cx.menu_uses_card(card.id.get_ref())
            && matches!(cx.resolve(card.tool.get_ref()), Resolution::LookAlike { verb, .. } if cx.denial(verb).is_some());
        if !m004_owns {
            let what = format!("card `{}` calls", card.id.get_ref());
            verb(cx, PolicyFile::Cards, &card.tool, &what, out);
        }
        if let Some(reject) = &card.reject_tool {
            let what = format!("card `{}` rejects", card.id.get_ref());
            verb(cx, PolicyFile::Cards, reject, &what, out);
        }
    }
    for read in cx.menu_reads() {
        if read.card.is_none() {
            let written = read.card_ref.get_ref();
            let mut d = Diagnostic::new(
                Law::M002,
                loc(PolicyFile::Cockpit, read.card_ref),
                format!("{} is not a card in help_cards.toml", read.describe()),
            )
            .label("no card has this id");
            d = d.help(match cx.card_ids.suggest(written) {
                Some(best) => format!("did you mean `{best}`? or declare a `[[card]]` with id = \"{written}\""),
                None => format!("declare a `[[card]]` with id = \"{written}\" in help_cards.toml"),
            });
            out.push(d);
        }
    }
}

fn verb(cx: &Context<'_>, file: PolicyFile, written: &Text, what: &str, out: &mut Vec<Diagnostic>) {
    let name = written.get_ref();
    match cx.resolve(name) {
        Resolution::Known(_) => {}
        Resolution::LookAlike { verb, first_foreign } => out.push(
            Diagnostic::new(
                Law::M002,
                loc(file, written),
                format!("{what} `{name}`, a look-alike of `{verb}` that is not a verb"),
            )
            .label(format!("U+{:04X} is not ASCII", first_foreign as u32))
            .help(format!("write `{verb}` in plain ASCII; names with non-ASCII letters never resolve to a verb")),
        ),
        Resolution::Unknown { suggestion } => out.push(
            Diagnostic::new(
                Law::M002,
                loc(file, written),
                format!("{what} `{name}`, which tools.toml does not declare"),
            )
            .label("unknown verb")
            .help(match suggestion {
                Some(best) => {
                    format!("did you mean `{best}`? every verb must be declared as `[verbs.NAME]` in tools.toml")
                }
                None => "declare it as `[verbs.NAME]` in tools.toml, or name a verb that is declared there".to_owned(),
            }),
        ),
    }
}
