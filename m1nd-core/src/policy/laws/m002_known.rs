//! M002: every verb named anywhere (human_only.toml included) is declared in
//! tools.toml, every argument a verb takes has a type in its `[arguments]`,
//! and every card the menu names is declared in help_cards.toml.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::raw::Text;
use super::super::source::PolicyFile;
use crate::arguments::ArgKind;
use crate::names::{Resolution, did_you_mean, suggest};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // A gateway takes its argument types from the upstream's own schema.
    if cx.raw.profile == Profile::Cockpit {
        argument_types(cx, out);
    }
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
            d = d.help(did_you_mean(
                cx.card_ids.suggest(written),
                &format!("or declare a `[[card]]` with id = \"{written}\""),
                || format!("declare a `[[card]]` with id = \"{written}\" in help_cards.toml"),
            ));
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
            .help(did_you_mean(
                suggestion,
                "every verb must be declared as `[verbs.NAME]` in tools.toml",
                || "declare it as `[verbs.NAME]` in tools.toml, or name a verb that is declared there".to_owned(),
            )),
        ),
    }
}

/// Every argument named by a verb or by `[common]` has a declared type.
fn argument_types(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let types = ArgKind::ALL.iter().map(|k| format!("`{}`", k.key())).collect::<Vec<_>>().join(", ");
    let declared: Vec<&str> = cx.raw.tools.arguments.keys().map(|k| k.get_ref().as_str()).collect();
    let required = cx.common_required();
    let common = cx.common_arguments().map(|a| {
        let list = if required.contains(a) { "requires" } else { "accepts" };
        (format!("`[common]` {list}"), a)
    });
    let verbs = cx.verbs_in_order().into_iter().flat_map(|(name, def)| {
        let def = def.get_ref();
        let sets = def.one_of.iter().flat_map(|s| s.get_ref()).flat_map(|s| &s.get_ref().requires);
        def.requires
            .iter()
            .chain(&def.accepts)
            .chain(sets)
            .map(move |a| (format!("verb `{}` takes", name.get_ref()), a, Some(def)))
    });
    for (what, arg, verb) in common.map(|(w, a)| (w, a, None)).chain(verbs) {
        let name = arg.get_ref();
        let typed = match verb {
            Some(def) => cx.declared_type(def, name).is_some(),
            None => cx.argument_type(name).is_some(),
        };
        if !typed {
            let help = did_you_mean(
                suggest(name, declared.iter().copied()),
                &format!("or give `{name}` a type under `[arguments]` or the verb's own `[verbs.NAME.arguments]`"),
                || {
                    format!(
                        "give it a type under `[arguments]`, such as `{name} = \"{}\"`; the types are {types}",
                        ArgKind::Text.key()
                    )
                },
            );
            out.push(
                Diagnostic::new(
                    Law::M002,
                    loc(PolicyFile::Tools, arg),
                    format!("{what} `{name}`, which has no type in `[arguments]`"),
                )
                .label("no declared type")
                .help(help),
            );
        }
    }
}
