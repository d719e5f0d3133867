//! M007: a root entry is an argument-less read (its card may fix what its
//! verb requires); a verb that requires arguments the card leaves open
//! appears only as an item action whose `bind` supplies every one of them
//! from fields the item has. Cards pass only arguments their verb
//! takes, each fixed to a value its declared type admits (an enum value
//! outside the enum, a number out of bounds, a string where the type wants
//! an integer); a `bind` fills only plain `text` arguments, since an item
//! field is free text.

use super::super::context::{Context, Role, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use super::{list, near_name};
use crate::arguments::{ArgKind, ArgType};
use crate::facets::Facet;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    card_arguments(cx, out);
    for read in cx.menu_reads() {
        let Some(card) = read.card else { continue };
        let card = card.get_ref();
        let Some(verb) = cx.verb(card.tool.get_ref()) else {
            continue;
        };
        let Some(def) = cx.verb_def(verb) else {
            continue;
        };
        // What the card fixes, the human never types: only the rest must come from an item.
        let fixed = |r: &str| card.arguments.keys().any(|a| a.get_ref() == r);
        let common = cx.common_required().iter().filter(|_| Context::takes_common(def));
        let required: Vec<&str> =
            def.requires.iter().chain(common).map(|r| r.get_ref().as_str()).filter(|r| !fixed(r)).collect();
        match read.role {
            Role::SlotCard | Role::DoorSource => {
                if !required.is_empty() {
                    out.push(
                        Diagnostic::new(
                            Law::M007,
                            loc(PolicyFile::Cockpit, read.card_ref),
                            format!("{} calls `{verb}`, which needs {}", read.describe(), list(&required)),
                        )
                        .label("a root entry must be an argument-less read")
                        .help(format!(
                            "offer `{verb}` as an item action (`[[slot.actions]]` with `bind`) \
                                 so a selected item supplies its target, or read an argument-less verb here"
                        )),
                    );
                }
            }
            // A door's actions are M006's to report; there is no item to bind from.
            Role::Action(_) if read.slot.door.is_some() => {}
            Role::Action(k) => {
                let Some(action) = read.slot.actions.as_ref().map(|a| a.get_ref()[k - 1].get_ref()) else {
                    continue;
                };
                let takes = cx.takes(def);
                for missing in required.iter().filter(|r| !action.bind.keys().any(|b| b.get_ref() == *r)) {
                    out.push(
                        Diagnostic::new(
                            Law::M007,
                            loc(PolicyFile::Cockpit, read.card_ref),
                            format!("{} does not bind `{missing}`, which `{verb}` requires", read.describe()),
                        )
                        .help(format!("add `bind = {{ {missing} = \"FIELD\" }}` naming a field of the selected item")),
                    );
                }
                let fields = Context::facet(read.slot).and_then(Facet::items);
                for (argument, field) in &action.bind {
                    if let Some(ty) = cx.type_of(def, argument.get_ref())
                        && !ty.takes_any_text()
                    {
                        out.push(
                            Diagnostic::new(
                                Law::M007,
                                loc(PolicyFile::Cockpit, argument),
                                format!(
                                    "{} binds `{}`, which takes {}, to an item field",
                                    read.describe(),
                                    argument.get_ref(),
                                    ty.expected()
                                ),
                            )
                            .label("item fields are free text")
                            .help(format!(
                                "bind only arguments of plain type `{}`; fix this one on the card instead",
                                ArgKind::Text.key()
                            )),
                        );
                    }
                    if !takes.contains(&argument.get_ref().as_str()) {
                        out.push(
                            Diagnostic::new(
                                Law::M007,
                                loc(PolicyFile::Cockpit, argument),
                                format!(
                                    "{} binds `{}`, which `{verb}` does not take",
                                    read.describe(),
                                    argument.get_ref()
                                ),
                            )
                            .help(near_name(argument.get_ref(), &takes, "arguments")),
                        );
                    }
                    if card.arguments.keys().any(|a| a.get_ref() == argument.get_ref()) {
                        out.push(
                            Diagnostic::new(
                                Law::M007,
                                loc(PolicyFile::Cockpit, argument),
                                format!(
                                    "{} binds `{}`, which card `{}` already fixes",
                                    read.describe(),
                                    argument.get_ref(),
                                    card.id.get_ref()
                                ),
                            )
                            .help("an argument comes from the item or from the card, not both"),
                        );
                    }
                    if let Some(items) = fields {
                        let names: Vec<&str> = items.field_names().collect();
                        if !names.contains(&field.get_ref().as_str()) {
                            out.push(
                                Diagnostic::new(
                                    Law::M007,
                                    loc(PolicyFile::Cockpit, field),
                                    format!(
                                        "{} binds `{}` to `{}`, a field {} items do not have",
                                        read.describe(),
                                        argument.get_ref(),
                                        field.get_ref(),
                                        items.name
                                    ),
                                )
                                .help(near_name(field.get_ref(), &names, "fields")),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Every card passes only arguments its verb requires or accepts.
fn card_arguments(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for card in &cx.raw.cards.card {
        let card = card.get_ref();
        let Some(def) = cx.verb(card.tool.get_ref()).and_then(|v| cx.verb_def(v)) else {
            continue;
        };
        // A card may fix a common argument too (m1nd's cards pass `agent_id`).
        let mut takes = cx.takes(def);
        if Context::takes_common(def) {
            takes.extend(cx.common_arguments().map(|a| a.get_ref().as_str()));
        }
        for argument in card.arguments.keys() {
            if !takes.contains(&argument.get_ref().as_str()) {
                out.push(
                    Diagnostic::new(
                        Law::M007,
                        loc(PolicyFile::Cards, argument),
                        format!(
                            "card `{}` passes `{}`, which `{}` does not take",
                            card.id.get_ref(),
                            argument.get_ref(),
                            card.tool.get_ref()
                        ),
                    )
                    .help(near_name(argument.get_ref(), &takes, "arguments")),
                );
            }
        }
        for (argument, value) in &card.arguments {
            let Some(ty) = cx.type_of(def, argument.get_ref()) else {
                continue;
            };
            if let Some((why, help)) = fixed_problem(&ty, argument.get_ref(), value.get_ref()) {
                out.push(
                    Diagnostic::new(
                        Law::M007,
                        loc(PolicyFile::Cards, value),
                        format!(
                            "card `{}` fixes `{}` to a value its type refuses",
                            card.id.get_ref(),
                            argument.get_ref()
                        ),
                    )
                    .label(why)
                    .help(help),
                );
            }
        }
    }
}

/// Why a card's TOML value is not a value of `ty`, and what to write instead.
fn fixed_problem(ty: &ArgType, argument: &str, value: &toml::Value) -> Option<(String, String)> {
    let json = match serde_json::to_value(value) {
        Ok(json) => json,
        Err(_) => {
            return Some((
                "JSON cannot hold this value".into(),
                "write a string, number, boolean, array or table".into(),
            ));
        }
    };
    let mismatch = ty.check(&json).err()?;
    let help = match (&json, value) {
        (serde_json::Value::String(s), _) if !ty.choices.is_empty() && mismatch.at.is_empty() => {
            let choices: Vec<&str> = ty.choices.iter().map(|c| &**c).collect();
            near_name(s, &choices, "values")
        }
        (serde_json::Value::String(s), _)
            if !ty.is_textual() && ty.check(&serde_json::from_str(s).unwrap_or_default()).is_ok() =>
        {
            format!("write it without quotes: `{argument} = {s}`")
        }
        _ => format!("`{argument}` takes {}: fix it to such a value", ty.expected()),
    };
    Some((format!("it {mismatch}"), help))
}
