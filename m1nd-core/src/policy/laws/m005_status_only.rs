//! M005: a status-only verb appears in the menu only with its argument pinned
//! to an allowed value (`persist` with `action = "status"`).

use super::super::context::{Context, Role, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (key, rule) in cx.raw.deny.status_only.iter() {
        let def = rule.get_ref();
        if def.allowed.get_ref().is_empty() {
            out.push(
                Diagnostic::new(
                    Law::M005,
                    loc(PolicyFile::Deny, &def.allowed),
                    format!("status-only rule for `{}` allows nothing", key.get_ref()),
                )
                .help("list at least one allowed value, or move the verb to `tools` to deny it outright"),
            );
        }
        if let Some(verb) = cx.verb(key.get_ref()).and_then(|v| cx.verb_def(v)) {
            let arg = def.argument.get_ref();
            if let Some(ty) = cx.type_of(verb, arg) {
                for value in def.allowed.get_ref() {
                    if let Err(why) = ty.check(&serde_json::Value::from(value.get_ref().as_str())) {
                        let choices: Vec<&str> = ty.choices.iter().map(|c| &**c).collect();
                        out.push(
                            Diagnostic::new(
                                Law::M005,
                                loc(PolicyFile::Deny, value),
                                format!("status-only `{}` allows a value `{arg}` never takes", key.get_ref()),
                            )
                            .label(format!("it {why}"))
                            .help(super::near_name(value.get_ref(), &choices, "values")),
                        );
                    }
                }
            }
            if !cx.takes(verb).contains(&arg.as_str()) {
                out.push(
                    Diagnostic::new(
                        Law::M005,
                        loc(PolicyFile::Deny, &def.argument),
                        format!("`{}` takes no argument `{arg}`", key.get_ref()),
                    )
                    .help(format!(
                        "pin an argument `{}` takes (its requires, accepts or own arguments in tools.toml)",
                        key.get_ref()
                    )),
                );
            }
        }
    }
    for read in cx.menu_reads() {
        let Some(card) = read.card else { continue };
        let card = card.get_ref();
        let Some(verb) = cx.verb(card.tool.get_ref()) else {
            continue;
        };
        let Some((rule_key, rule)) = cx.status_only(verb) else {
            continue;
        };
        let argument = rule.argument.get_ref();
        let allowed: Vec<String> = rule.allowed.get_ref().iter().map(|a| format!("\"{}\"", a.get_ref())).collect();
        let pinned = card.arguments.iter().find(|(k, _)| k.get_ref() == argument);
        // The same comparison the guard makes: trimmed, ASCII case-insensitive.
        let ok = pinned.is_some_and(|(_, v)| {
            let v = v.get_ref().as_str().unwrap_or_default();
            rule.allowed.get_ref().iter().any(|a| a.get_ref().eq_ignore_ascii_case(v.trim()))
        });
        if !ok {
            let (at, got) = match pinned {
                Some((_, v)) => (
                    loc(PolicyFile::Cards, v),
                    format!("pins it to \"{}\"", super::super::arg_types::fixed_text(None, v.get_ref())),
                ),
                None => (loc(PolicyFile::Cards, &card.tool), "leaves it open".to_owned()),
            };
            out.push(
                Diagnostic::new(
                    Law::M005,
                    loc(PolicyFile::Cockpit, read.card_ref),
                    format!("{} calls status-only `{verb}` but {got}", read.describe()),
                )
                .label("a read-only menu may only ask for the status")
                .related(at, format!("card `{}`", card.id.get_ref()))
                .related(loc(PolicyFile::Deny, rule_key), "status-only rule here")
                .help(format!("set `arguments = {{ {argument} = {} }}` on the card", allowed.join(" or "))),
            );
        }
        if let (Role::Action(k), Some(actions)) = (read.role, &read.slot.actions) {
            let action = actions.get_ref()[k - 1].get_ref();
            if let Some((bound, _)) = action.bind.iter().find(|(b, _)| b.get_ref() == argument) {
                out.push(
                    Diagnostic::new(
                        Law::M005,
                        loc(PolicyFile::Cockpit, bound),
                        format!("{} binds `{argument}` of status-only `{verb}` from an item", read.describe()),
                    )
                    .help(format!("pin `{argument}` on the card instead; an item field could carry any value")),
                );
            }
        }
    }
}
