//! `policy diff` on effects: a change of mode, catalog effect, authority
//! floor or route, graded by what it does to what the modes let through.
//!
//! A mode that allows more is loosened. A verb whose worst case exceeds a
//! mode by less (its route reaches a milder action, or the catalog says an
//! action does less) is loosened too, since the laws now let more through:
//! the reviewer reads upstream's change before trusting it. The reverse is
//! tightened. Verbs are judged under the new table's modes on both sides, so
//! a mode's own change is reported once, as the mode's.

use std::collections::BTreeSet;

use super::{Category, Changes};
use crate::effects::{EffectMode, Effects};
use crate::table::Cockpit;

pub(super) fn effects(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    let (was, is) = (&old.effects, &new.effects);
    if was.catalog_digest != is.catalog_digest {
        let detail = match (was.catalog_digest.is_empty(), is.catalog_digest.is_empty()) {
            (true, _) => format!("verbs are now judged by their effects (catalog {})", short(&is.catalog_digest)),
            (_, true) => "verbs are no longer judged by their effects".to_owned(),
            _ => format!("judged by catalog {} instead of {}", short(&is.catalog_digest), short(&was.catalog_digest)),
        };
        out.push(Category::Verbs, "effects", detail);
    }
    for mode in is.modes.iter() {
        if let Some(before) = was.mode(&mode.name) {
            allowances(before, mode, out);
        }
        for verb in both(old, new) {
            reach(was, is, mode, verb, out);
        }
    }
    for verb in both(old, new) {
        if let (Some(a), Some(b)) = (was.route(verb), is.route(verb))
            && a.actions != b.actions
        {
            out.push(
                Category::Verbs,
                verb,
                format!("routes to {} (was {})", b.actions.join(", "), a.actions.join(", ")),
            );
        }
    }
}

/// The verbs of both tables, in the new table's order.
fn both<'a>(old: &'a Cockpit, new: &'a Cockpit) -> impl Iterator<Item = &'a str> {
    new.verbs.iter().filter(|v| old.verb(&v.name).is_some()).map(|v| &*v.name)
}

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

/// What a mode allows, before and after.
fn allowances(before: &EffectMode, after: &EffectMode, out: &mut Changes) {
    let subject = format!("mode {}", after.name);
    let lists = [
        ("effect", names(before.effects.iter().map(|e| &*e.name)), names(after.effects.iter().map(|e| &*e.name))),
        ("floor", names(before.floors.iter().map(|f| &**f)), names(after.floors.iter().map(|f| &**f))),
        ("action", names(before.also.iter().map(|a| &*a.name)), names(after.also.iter().map(|a| &*a.name))),
    ];
    for (what, was, is) in lists {
        for gained in is.difference(&was) {
            out.push(Category::Loosened, &subject, format!("now allows the {what} {gained}"));
        }
        for lost in was.difference(&is) {
            out.push(Category::Tightened, &subject, format!("no longer allows the {what} {lost}"));
        }
    }
}

fn names<'a>(items: impl Iterator<Item = &'a str>) -> BTreeSet<&'a str> {
    items.collect()
}

/// How far one verb's worst case exceeds `mode`, before and after.
fn reach(was: &Effects, is: &Effects, mode: &EffectMode, verb: &str, out: &mut Changes) {
    let before: BTreeSet<(String, String)> = was.excess(mode, verb).into_iter().collect();
    let after: BTreeSet<(String, String)> = is.excess(mode, verb).into_iter().collect();
    let shown = |set: Vec<&(String, String)>| {
        set.iter().map(|(action, what)| format!("{what} (`{action}`)")).collect::<Vec<_>>().join(", ")
    };
    let gone: Vec<_> = before.difference(&after).collect();
    let came: Vec<_> = after.difference(&before).collect();
    if !gone.is_empty() {
        let detail = format!("no longer exceeds {} by {}", mode.name, shown(gone));
        out.push(Category::Loosened, verb, detail);
    }
    if !came.is_empty() {
        let detail = format!("now exceeds {} by {}", mode.name, shown(came));
        out.push(Category::Tightened, verb, detail);
    }
}
