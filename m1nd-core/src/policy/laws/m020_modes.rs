//! M020: each session mode says what it allows, and why.
//!
//! `[mode.read_only]` bounds what a read-only session may reach and
//! `[mode.menu]` what the human's menu may offer. Each lists the effects and
//! authority floors it allows; anything beyond `READ` carries the reason a
//! person gave, and so does each action allowed beyond them (`also`), so an
//! allowance is a decision on the record, never a silent default. The menu
//! runs inside read-only sessions, so it allows nothing read-only does not.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::effects::names::{Effect, Floor};
use super::super::effects::raw::ModeDef;
use super::super::effects::{Mode, Model};
use super::super::raw::{Text, in_source_order};
use super::super::source::PolicyFile;
use crate::names::{did_you_mean, suggest};

const HERE: PolicyFile = PolicyFile::Effects;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(model) = &cx.effects else { return };
    let modes = &model.files.effects.mode;
    for (key, _) in in_source_order(modes) {
        let written = key.get_ref().as_str();
        if Mode::ALL.iter().all(|m| m.key() != written) {
            let keys = Mode::ALL.map(Mode::key);
            out.push(
                Diagnostic::new(Law::M020, loc(HERE, key), format!("effects.toml declares a mode `{written}`"))
                    .label("no such mode")
                    .help(did_you_mean(suggest(written, keys), "", || {
                        "the modes are `read_only` and `menu`".to_owned()
                    })),
            );
        }
    }
    for mode in Mode::ALL {
        match model.mode(mode) {
            Some(def) => declared(model, mode, def, out),
            None => out.push(
                Diagnostic::whole_file(Law::M020, HERE, format!("effects.toml does not declare [mode.{}]", mode.key()))
                    .help(format!(
                        "declare [mode.{}] with `effects` and `floors`: {} is judged by them",
                        mode.key(),
                        mode.shown()
                    )),
            ),
        }
    }
    if let (Some(read_only), Some(menu)) = (model.mode(Mode::ReadOnly), model.mode(Mode::Menu)) {
        within_read_only(model, read_only, menu, out);
    }
}

fn declared(model: &Model<'_>, mode: Mode, def: &ModeDef, out: &mut Vec<Diagnostic>) {
    let key = mode.key();
    for effect in def.effects.get_ref() {
        let name = effect.get_ref().as_str();
        match Effect::parse(name) {
            None => out.push(unknown(effect, "effect", Effect::NAMES)),
            Some(Effect::Read) => {}
            Some(_) if reason(&def.reasons, name).is_none() => out.push(
                Diagnostic::new(Law::M020, loc(HERE, effect), format!("[mode.{key}] allows {name} without a reason"))
                    .label("an allowance beyond a read")
                    .help(format!(
                        "say why {} allows it: `{name} = \"...\"` under [mode.{key}.reasons]; or remove it",
                        mode.shown()
                    )),
            ),
            Some(_) => {}
        }
    }
    for (effect, _) in in_source_order(&def.reasons) {
        if !def.effects.get_ref().iter().any(|e| e.get_ref() == effect.get_ref()) {
            out.push(
                Diagnostic::new(
                    Law::M020,
                    loc(HERE, effect),
                    format!("[mode.{key}.reasons] explains {}, which the mode does not allow", effect.get_ref()),
                )
                .help("a reason explains an allowance: add the effect to `effects`, or remove the reason"),
            );
        }
    }
    for floor in def.floors.get_ref() {
        if Floor::parse(floor.get_ref()).is_none() {
            out.push(unknown(floor, "authority floor", Floor::NAMES));
        }
    }
    for (action, why) in in_source_order(&def.also) {
        let name = action.get_ref().as_str();
        if !model.actions.contains_key(name) {
            out.push(
                Diagnostic::new(
                    Law::M020,
                    loc(HERE, action),
                    format!("[mode.{key}.also] allows `{name}`, which catalog.json lacks"),
                )
                .label("no such action")
                .help(did_you_mean(suggest(name, model.actions.keys().copied()), "", || "remove it".to_owned())),
            );
        } else if why.get_ref().trim().is_empty() {
            out.push(
                Diagnostic::new(
                    Law::M020,
                    loc(HERE, action),
                    format!("[mode.{key}.also] allows `{name}` without a reason"),
                )
                .help("say why the mode allows this action beyond its effects and floors"),
            );
        }
    }
}

fn reason<'a>(reasons: &'a super::super::raw::Table<String>, effect: &str) -> Option<&'a str> {
    reasons
        .iter()
        .find(|(k, _)| k.get_ref() == effect)
        .map(|(_, v)| v.get_ref().as_str())
        .filter(|r| !r.trim().is_empty())
}

fn unknown(written: &Text, what: &str, names: &[&str]) -> Diagnostic {
    let name = written.get_ref().as_str();
    Diagnostic::new(Law::M020, loc(HERE, written), format!("`{name}` is not an {what} of upstream's catalog"))
        .label(format!("unknown {what}"))
        .help(did_you_mean(suggest(name, names.iter().copied()), "", || {
            format!("the names are {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        }))
}

/// The menu is offered inside read-only sessions: it may allow no effect,
/// floor or action that read-only mode does not.
fn within_read_only(model: &Model<'_>, read_only: &ModeDef, menu: &ModeDef, out: &mut Vec<Diagnostic>) {
    let lists = [("effect", &menu.effects, &read_only.effects), ("floor", &menu.floors, &read_only.floors)];
    for (what, wide, narrow) in lists {
        for name in wide.get_ref() {
            if !narrow.get_ref().iter().any(|n| n.get_ref() == name.get_ref()) {
                out.push(beyond(name, &format!("the {what} {}", name.get_ref())));
            }
        }
    }
    for (action, _) in in_source_order(&menu.also) {
        if model.excess(read_only, action.get_ref()).is_some() {
            out.push(beyond(action, &format!("`{}`", action.get_ref())));
        }
    }
}

fn beyond(at: &Text, what: &str) -> Diagnostic {
    Diagnostic::new(Law::M020, loc(HERE, at), format!("the menu's mode allows {what}, which read-only mode does not"))
        .label("the menu is offered in read-only sessions")
        .help("allow it in [mode.read_only] too, with its reason, or remove it from [mode.menu]")
}
