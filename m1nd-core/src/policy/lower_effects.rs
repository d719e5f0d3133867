//! The effect files lowered into the table's [`Effects`]: what the laws
//! judged by, in a fixed order, so the digest covers it and `policy diff` can
//! compare two policies' effects. It sits beside `lower.rs`, above both
//! `context` and `effects`, since it reads the one through the other.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::context::Context;
use super::effects::{Mode, Model};
use super::spanned::{Table, Text, in_source_order};
use crate::effects::{CatalogAction, EffectMode, Effects, Reasoned, Route, RouteValue};
use crate::primitives::{List, Str};

pub fn lower(cx: &Context<'_>) -> Effects {
    let Some(model) = &cx.effects else { return Effects::NONE };
    let modes = Mode::ALL.iter().filter_map(|&mode| Some((mode, model.mode(mode)?)));
    let modes = modes.map(|(mode, def)| EffectMode {
        name: Cow::Borrowed(mode.key()),
        effects: list(
            def.effects.get_ref().iter().map(|e| Reasoned { name: owned(e), reason: reason(&def.reasons, e) }),
        ),
        floors: texts(def.floors.get_ref()),
        also: list(
            in_source_order(&def.also).into_iter().map(|(a, why)| Reasoned { name: owned(a), reason: owned(why) }),
        ),
    });
    let routes: Vec<Route> = cx
        .verbs_in_order()
        .into_iter()
        .filter_map(|(verb, _)| model.routes.get(verb.get_ref().as_str()))
        .map(|routed| {
            let def = routed.def;
            let by = in_source_order(&def.by).into_iter().flat_map(|(argument, values)| {
                in_source_order(values.get_ref()).into_iter().map(move |(value, actions)| RouteValue {
                    argument: owned(argument),
                    value: owned(value),
                    actions: texts(actions.get_ref()),
                })
            });
            Route {
                verb: owned(routed.tool),
                actions: texts(def.actions.get_ref()),
                by: list(by),
                absent: def.absent.as_ref().map(|a| texts(a.get_ref())),
            }
        })
        .collect();
    let reached: BTreeSet<&str> = routes.iter().flat_map(|r| r.actions.iter().map(|a| &**a)).collect();
    let actions = reached.into_iter().filter_map(|name| action(model, name));
    Effects {
        catalog_digest: owned(&model.files.effects.catalog_digest),
        modes: list(modes),
        actions: list(actions),
        routes: Cow::Owned(routes),
    }
}

fn action(model: &Model<'_>, name: &str) -> Option<CatalogAction> {
    let entry = model.actions.get(name)?;
    Some(CatalogAction {
        name: Cow::Owned(name.to_owned()),
        effects: list(entry.complete_effects.iter().map(|e| Cow::Borrowed(e.name()))),
        floor: Cow::Borrowed(entry.authority_floor.name()),
    })
}

fn reason(reasons: &Table<String>, effect: &Text) -> Str {
    reasons.iter().find(|(k, _)| k.get_ref() == effect.get_ref()).map_or(Cow::Borrowed(""), |(_, v)| owned(v))
}

fn owned<T: AsRef<str>>(text: &toml::Spanned<T>) -> Str {
    Cow::Owned(text.get_ref().as_ref().to_owned())
}

fn texts(items: &[Text]) -> List<Str> {
    list(items.iter().map(owned))
}

fn list<T: Clone>(items: impl Iterator<Item = T>) -> List<T> {
    Cow::Owned(items.collect())
}
