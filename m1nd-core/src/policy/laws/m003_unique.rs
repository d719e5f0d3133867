//! M003: nothing is defined twice — verbs (up to aliasing and look-alikes),
//! a verb's arguments (its own and the `[common]` ones), deny entries,
//! human-only entries, card ids, slot numbers and slot keys.

use std::collections::HashMap;

use toml::Spanned;

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::source::PolicyFile;
use crate::names::{canonical, skeleton_of};

const BOTH_HELP: &str = "choose one: keep it in `tools` to deny every call, \
                         or keep the status-only rule to allow its status form";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let verbs = cx.verbs_in_order();
    // A gateway's declared names that fold together are M016's, with its own reason.
    if cx.raw.profile == Profile::Cockpit {
        first_wins(
            PolicyFile::Tools,
            verbs.iter().map(|(k, _)| (skeleton_of(&canonical(k.get_ref())), *k)),
            |name, first| {
                format!(
                    "verb `{name}` collides with `{first}` (same name once aliases, case and look-alikes are folded)"
                )
            },
            "rename or remove one of them; clients could not tell them apart",
            out,
        );
    }
    first_wins(
        PolicyFile::Deny,
        cx.raw.deny.tools.get_ref().iter().map(|t| (cx.fold(t.get_ref()), t)),
        |name, first| format!("the deny list names `{name}` twice (first as `{first}`)"),
        "list each verb once",
        out,
    );
    first_wins(
        PolicyFile::HumanOnly,
        cx.raw.human_only.iter().flat_map(|h| h.verbs.get_ref()).map(|t| (cx.fold(t.get_ref()), t)),
        |name, first| format!("human_only.toml names `{name}` twice (first as `{first}`)"),
        "list each verb once",
        out,
    );
    for (key, _) in cx.raw.deny.status_only.iter() {
        if let Some(entry) = cx.denial(key.get_ref()) {
            out.push(
                Diagnostic::new(
                    Law::M003,
                    loc(PolicyFile::Deny, key),
                    format!("`{}` is both denied outright and status-only", key.get_ref()),
                )
                .related(loc(PolicyFile::Deny, entry), "denied outright here")
                .help(BOTH_HELP),
            );
        }
    }
    first_wins(
        PolicyFile::Tools,
        cx.common_arguments().map(|a| (a.get_ref().clone(), a)),
        |arg, _| format!("`[common]` lists argument `{arg}` twice"),
        "list each common argument once",
        out,
    );
    for (name, verb) in &verbs {
        let def = verb.get_ref();
        for arg in def.accepts.iter().filter(|a| def.arguments.keys().any(|k| k.get_ref() == a.get_ref())) {
            out.push(
                Diagnostic::new(
                    Law::M003,
                    loc(PolicyFile::Tools, arg),
                    format!("verb `{}` accepts `{}` and also types it", name.get_ref(), arg.get_ref()),
                )
                .label("listed again here")
                .help("remove it from `accepts`: an argument the verb types itself is one it accepts"),
            );
        }
        for arg in def.requires.iter().chain(&def.accepts).chain(def.arguments.keys()) {
            if let Some(common) = cx.common_arguments().find(|c| c.get_ref() == arg.get_ref()) {
                out.push(
                    Diagnostic::new(
                        Law::M003,
                        loc(PolicyFile::Tools, arg),
                        format!(
                            "verb `{}` lists argument `{}`, which every verb already accepts",
                            name.get_ref(),
                            arg.get_ref()
                        ),
                    )
                    .label("listed again here")
                    .related(loc(PolicyFile::Tools, common), "`[common]` gives it to every verb here")
                    .help("remove it from the verb: a `[common]` argument is declared once, for all verbs"),
                );
            }
        }
        first_wins(
            PolicyFile::Tools,
            def.requires.iter().chain(&def.accepts).map(|a| (a.get_ref().clone(), a)),
            |arg, _| format!("verb `{}` lists argument `{arg}` twice", name.get_ref()),
            "an argument is either required (`requires`) or optional (`accepts`), once",
            out,
        );
    }
    first_wins(
        PolicyFile::Cards,
        cx.raw.cards.card.iter().map(|c| (c.get_ref().id.get_ref().clone(), &c.get_ref().id)),
        |id, _| format!("card id `{id}` is used twice"),
        "give every card its own id; the menu names cards by id",
        out,
    );
    let slots: Vec<_> = cx.slots().collect();
    first_wins(
        PolicyFile::Cockpit,
        slots.iter().map(|s| (s.n.get_ref().to_string(), &s.n)),
        |n, _| format!("slot number {n} is used twice"),
        "number each slot once; a number is what the human types",
        out,
    );
    first_wins(
        PolicyFile::Cockpit,
        slots.iter().map(|s| (s.key.get_ref().clone(), &s.key)),
        |key, _| format!("slot key `{key}` is used twice"),
        "each facet gets one slot, so a slot's meaning never depends on which copy the human saw",
        out,
    );
}

/// Report every value whose key was already seen, pointing back at the first.
fn first_wins<'a, T: 'a + std::fmt::Display>(
    file: PolicyFile,
    items: impl Iterator<Item = (String, &'a Spanned<T>)>,
    title: impl Fn(&T, &T) -> String,
    help: &str,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: HashMap<String, &Spanned<T>> = HashMap::new();
    for (key, value) in items {
        match seen.get(&key) {
            Some(first) => out.push(
                Diagnostic::new(Law::M003, loc(file, value), title(value.get_ref(), first.get_ref()))
                    .label("defined again here")
                    .related(loc(file, first), "first defined here")
                    .help(help),
            ),
            None => {
                seen.insert(key, value);
            }
        }
    }
}
