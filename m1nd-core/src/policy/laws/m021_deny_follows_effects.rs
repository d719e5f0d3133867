//! M021: the deny list follows the effects, both ways.
//!
//! A verb is denied to read-only sessions exactly when some action it can
//! reach exceeds `[mode.read_only]`: a deny list that lags the catalog (a new
//! write nobody listed) fails, and so does one that denies a verb whose every
//! action is a read the mode allows. A status-only verb (M005) is the same
//! rule judged per value: each allowed value must reach only what the mode
//! allows, so a value whose route writes is never let through.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::effects::{How, Mode, Model, Pinned, describe_call};
use super::super::raw::{StatusOnlyDef, Text};
use super::super::source::PolicyFile;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(model) = &cx.effects else { return };
    let Some(mode) = model.mode(Mode::ReadOnly) else { return };
    for (verb, def) in cx.verbs_in_order() {
        let name = verb.get_ref().as_str();
        if def.get_ref().retired.as_ref().is_some_and(|r| *r.get_ref()) || !model.routes.contains_key(name) {
            continue; // A tombstone is denied forever (M004); an unrouted verb is M019's.
        }
        if let Some((key, rule)) = cx.status_only(name) {
            status_only(model, mode, name, key, rule, out);
            continue;
        }
        let worst = model.reach(name, |_| Pinned::Open);
        if worst.as_ref().is_some_and(|r| r.actions.iter().any(|a| !model.actions.contains_key(a.get_ref().as_str()))) {
            continue; // A route to an action the catalog lacks is M019's; nothing can be judged by it.
        }
        let excess = worst.as_ref().and_then(|r| model.first_excess(mode, r));
        match (excess, cx.denial(name)) {
            (Some((action, excess)), None) if cx.human_only(name).is_none() => {
                let route = &model.routes[name];
                out.push(
                    Diagnostic::new(
                        Law::M021,
                        loc(PolicyFile::Tools, verb),
                        format!(
                            "`{name}` reaches `{}` ({}) beyond read-only mode, but read_only_denied.toml does not deny it",
                            action.get_ref(),
                            excess.describe()
                        ),
                    )
                    .label("a read-only session could call this")
                    .related(loc(route.file, action), "the route says it reaches this action")
                    .help(format!(
                        "add \"{name}\" to `tools` in read_only_denied.toml; or, if read-only sessions should reach it, \
                         allow `{}` under [mode.read_only.also] in effects.toml with the reason",
                        action.get_ref()
                    )),
                );
            }
            (None, Some(entry)) if cx.human_only(name).is_none() => out.push(
                Diagnostic::new(
                    Law::M021,
                    loc(PolicyFile::Deny, entry),
                    format!("read_only_denied.toml denies `{name}`, whose every action read-only mode allows"),
                )
                .label("denied, though the catalog says it only does what read-only allows")
                .help(format!(
                    "remove \"{name}\" from the deny list; if it should stay denied, the catalog or its route \
                     understates it: fix them upstream and regenerate"
                )),
            ),
            _ => {}
        }
    }
}

/// Each value a status-only rule lets through reaches only what read-only allows.
fn status_only(
    model: &Model<'_>,
    mode: &super::super::effects::raw::ModeDef,
    name: &str,
    key: &Text,
    rule: &StatusOnlyDef,
    out: &mut Vec<Diagnostic>,
) {
    let argument = rule.argument.get_ref().as_str();
    for value in rule.allowed.get_ref() {
        let pinned = |a: &str| if a == argument { Pinned::To(value.get_ref()) } else { Pinned::Open };
        let Some(reached) = model.reach(name, pinned) else { continue };
        let Some((action, excess)) = model.first_excess(mode, &reached) else { continue };
        let why = match reached.how {
            How::Worst => format!(
                " (the routes do not name `{argument} = {:?}`, so it is judged as the worst case)",
                value.get_ref()
            ),
            _ => String::new(),
        };
        let route = &model.routes[name];
        out.push(
            Diagnostic::new(
                Law::M021,
                loc(PolicyFile::Deny, value),
                format!(
                    "status-only `{}` lets read-only sessions call {}, which reaches `{}` ({}){why}",
                    key.get_ref(),
                    describe_call(name, How::Value { argument, value: value.get_ref() }),
                    action.get_ref(),
                    excess.describe()
                ),
            )
            .label("a write reachable through this value")
            .related(loc(route.file, action), "routed here")
            .help("allow only values whose route stays within read-only mode, or deny the verb outright"),
        );
    }
}
