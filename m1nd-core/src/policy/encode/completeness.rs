//! Digest completeness: change any one field of a compiled table and the
//! digest changes.
//!
//! [`Walk`] visits the table with the same exhaustive patterns as the
//! encoding and counts one edit per field (and one per list length and per
//! optional part), so a field added to a table type fails to compile here too
//! until it has an edit. Each check applies edit `k` alone to a fresh copy of a
//! compiled policy and asserts that the copy differs from the original and
//! that its digest differs.

use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

use proptest::prelude::*;

use super::digest;
use crate::arguments::{ArgKind, ArgType, Parameter, Property};
use crate::deny::{DenyList, StatusOnly};
use crate::effects::{CatalogAction, EffectMode, Effects, Reasoned, Route, RouteValue};
use crate::facets::Facet;
use crate::table::{
    Action, ArgSet, Argument, Binding, Budget, Card, Cockpit, Collection, HelpEntry, HumanOnly, Label, List, ReadVerb,
    Slot, SlotKind, Str, Verb, VerbId,
};
use crate::{PolicySources, compile};

fn compiled(dir: &str) -> Cockpit {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let sources = PolicySources::read_dir(&path, dir);
    compile(&sources).unwrap_or_else(|p| panic!("{}", p.iter().map(|d| d.render(&sources)).collect::<String>()))
}

/// A walk that applies edit number `target` (counting from 0) with `with`,
/// a non-empty text, and records where it was.
struct Walk<'t> {
    target: usize,
    seen: usize,
    with: &'t str,
    applied: Option<String>,
}

impl<'t> Walk<'t> {
    /// Whether the edit now being counted is the one to apply.
    fn here(&mut self, at: &str) -> bool {
        let hit = self.seen == self.target;
        self.seen += 1;
        if hit {
            self.applied = Some(at.to_owned());
        }
        hit
    }

    fn cockpit(&mut self, c: &mut Cockpit) {
        let Cockpit {
            schema,
            title,
            negative_default,
            digest: _,
            budget,
            verbs,
            arguments,
            common,
            common_required,
            deny,
            cards,
            slots,
            human_only,
            effects,
        } = c;
        self.text("schema", schema);
        self.text("title", title);
        self.text("negative_default", negative_default);
        let Budget { root_tokens, drill_tokens, item_tokens } = budget;
        if self.here("budget.root_tokens") {
            *root_tokens += 1;
        }
        if self.here("budget.drill_tokens") {
            *drill_tokens += 1;
        }
        if self.here("budget.item_tokens") {
            *item_tokens += 1;
        }
        self.each("verbs", verbs, |w, at, v| {
            let Verb { name, summary, requires, accepts, arguments, common, one_of, retired } = v;
            w.text(&format!("{at}.name"), name);
            w.text(&format!("{at}.summary"), summary);
            w.texts(&format!("{at}.requires"), requires);
            w.texts(&format!("{at}.accepts"), accepts);
            w.each(&format!("{at}.arguments"), arguments, Walk::parameter);
            w.flag(&format!("{at}.common"), common);
            w.each(&format!("{at}.one_of"), one_of, |w, at, set| {
                let ArgSet { requires, arguments } = set;
                w.texts(&format!("{at}.requires"), requires);
                w.each(&format!("{at}.arguments"), arguments, Walk::parameter);
            });
            w.flag(&format!("{at}.retired"), retired);
        });
        self.each("arguments", arguments, Walk::parameter);
        self.texts("common", common);
        self.texts("common_required", common_required);
        let DenyList { tools, status_only } = deny;
        self.texts("deny.tools", tools);
        self.each("deny.status_only", status_only, |w, at, rule| {
            let StatusOnly { verb, argument, allowed } = rule;
            w.text(&format!("{at}.verb"), verb);
            w.text(&format!("{at}.argument"), argument);
            w.texts(&format!("{at}.allowed"), allowed);
        });
        self.each("cards", cards, |w, at, card| {
            let Card { id, title, why, tool, arguments, reject_tool, reject_reason, overview } = card;
            w.text(&format!("{at}.id"), id);
            w.text(&format!("{at}.title"), title);
            w.text(&format!("{at}.why"), why);
            w.text(&format!("{at}.tool"), tool);
            w.each(&format!("{at}.arguments"), arguments, Walk::argument);
            w.optional(&format!("{at}.reject_tool"), reject_tool);
            w.optional(&format!("{at}.reject_reason"), reject_reason);
            w.flag(&format!("{at}.overview"), overview);
        });
        self.each("slots", slots, Walk::slot);
        let HumanOnly { verbs, acts_at } = human_only;
        self.texts("human_only.verbs", verbs);
        self.text("human_only.acts_at", acts_at);
        self.effects(effects);
    }

    fn slot(&mut self, at: &str, slot: &mut Slot) {
        let Slot { n, facet, pinned, kind, labels, collection, link } = slot;
        if self.here(&format!("{at}.n")) {
            *n += 1;
        }
        if self.here(&format!("{at}.facet")) {
            let i = Facet::ALL.iter().position(|f| f == facet).unwrap_or(0);
            *facet = Facet::ALL[(i + 1) % Facet::ALL.len()];
        }
        self.flag(&format!("{at}.pinned"), pinned);
        match kind {
            SlotKind::Door { text, source } => {
                self.text(&format!("{at}.door"), text);
                let at = format!("{at}.door.source");
                if self.here(&at) {
                    *source = match source {
                        Some(_) => None,
                        None => Some(ReadVerb::__from_checked_policy(
                            owned(self.with),
                            owned(self.with),
                            VerbId::__at(0),
                            List::Borrowed(&[]),
                        )),
                    };
                } else if let Some(r) = source {
                    self.read(&at, r);
                }
            }
            SlotKind::Read { read } => self.read(&format!("{at}.read"), read),
            SlotKind::Help { cards } => self.each(&format!("{at}.help"), cards, |w, at, entry| {
                let HelpEntry { card, title, why, tool } = entry;
                w.text(&format!("{at}.card"), card);
                w.text(&format!("{at}.title"), title);
                w.text(&format!("{at}.why"), why);
                w.text(&format!("{at}.tool"), tool);
            }),
        }
        self.each(&format!("{at}.labels"), labels, |w, at, label| {
            let Label { condition, text } = label;
            w.text(&format!("{at}.condition"), condition);
            w.text(&format!("{at}.text"), text);
        });
        self.optional(&format!("{at}.link"), link);
        let at = format!("{at}.collection");
        if collection.is_some() && self.here(&at) {
            *collection = None;
        } else if let Some(Collection { items, limit, text_cap, actions }) = collection {
            self.text(&format!("{at}.items"), items);
            if self.here(&format!("{at}.limit")) {
                *limit += 1;
            }
            if self.here(&format!("{at}.text_cap")) {
                *text_cap += 1;
            }
            self.each(&format!("{at}.actions"), actions, |w, at, action| {
                let Action { read, bind } = action;
                w.read(&format!("{at}.read"), read);
                w.each(&format!("{at}.bind"), bind, |w, at, binding| {
                    let Binding { argument, field } = binding;
                    w.text(&format!("{at}.argument"), argument);
                    w.text(&format!("{at}.field"), field);
                });
            });
        }
    }

    fn read(&mut self, at: &str, r: &mut ReadVerb) {
        // `verb_id` is derived from `verb` and the verb list (see encode.rs).
        let ReadVerb { card, verb, verb_id: _, arguments } = r;
        self.text(&format!("{at}.card"), card);
        self.text(&format!("{at}.verb"), verb);
        self.each(&format!("{at}.arguments"), arguments, Walk::argument);
    }

    fn effects(&mut self, x: &mut Effects) {
        let Effects { catalog_digest, modes, actions, routes } = x;
        self.text("effects.catalog_digest", catalog_digest);
        let reasoned = |w: &mut Self, at: &str, r: &mut Reasoned| {
            let Reasoned { name, reason } = r;
            w.text(&format!("{at}.name"), name);
            w.text(&format!("{at}.reason"), reason);
        };
        self.each("effects.modes", modes, |w, at, mode| {
            let EffectMode { name, effects, floors, also } = mode;
            w.text(&format!("{at}.name"), name);
            w.each(&format!("{at}.effects"), effects, reasoned);
            w.texts(&format!("{at}.floors"), floors);
            w.each(&format!("{at}.also"), also, reasoned);
        });
        self.each("effects.actions", actions, |w, at, action| {
            let CatalogAction { name, effects, floor } = action;
            w.text(&format!("{at}.name"), name);
            w.texts(&format!("{at}.effects"), effects);
            w.text(&format!("{at}.floor"), floor);
        });
        self.each("effects.routes", routes, |w, at, route| {
            let Route { verb, actions, by, absent } = route;
            w.text(&format!("{at}.verb"), verb);
            w.texts(&format!("{at}.actions"), actions);
            w.each(&format!("{at}.by"), by, |w, at, value| {
                let RouteValue { argument, value, actions } = value;
                w.text(&format!("{at}.argument"), argument);
                w.text(&format!("{at}.value"), value);
                w.texts(&format!("{at}.actions"), actions);
            });
            if w.here(&format!("{at}.absent")) {
                *absent = match absent {
                    Some(_) => None,
                    None => Some(Cow::Owned(Vec::new())),
                };
            }
        });
    }

    fn parameter(&mut self, at: &str, p: &mut Parameter) {
        let Parameter { name, ty } = p;
        self.text(&format!("{at}.name"), name);
        self.arg_type(&format!("{at}.ty"), ty);
    }

    fn arg_type(&mut self, at: &str, t: &mut ArgType) {
        let ArgType {
            kind,
            nullable,
            choices,
            constant,
            default,
            minimum,
            maximum,
            min_length,
            pattern,
            items,
            min_items,
            max_items,
            unique_items,
            properties,
            closed,
            one_of,
        } = t;
        if self.here(&format!("{at}.kind")) {
            *kind = if *kind == ArgKind::Text { ArgKind::Integer } else { ArgKind::Text };
        }
        self.flag(&format!("{at}.nullable"), nullable);
        self.texts(&format!("{at}.choices"), choices);
        self.optional(&format!("{at}.constant"), constant);
        self.optional(&format!("{at}.default"), default);
        self.optional(&format!("{at}.pattern"), pattern);
        for (key, bound) in [("minimum", minimum), ("maximum", maximum)] {
            if self.here(&format!("{at}.{key}")) {
                *bound = Some(bound.map_or(0, |b| b.wrapping_add(1)));
            }
        }
        for (key, count) in [("min_length", min_length), ("min_items", min_items), ("max_items", max_items)] {
            if self.here(&format!("{at}.{key}")) {
                *count = Some(count.map_or(0, |c| c.wrapping_add(1)));
            }
        }
        self.each(&format!("{at}.items"), items, Walk::arg_type);
        self.flag(&format!("{at}.unique_items"), unique_items);
        self.each(&format!("{at}.properties"), properties, |w, at, p| {
            let Property { name, ty, required } = p;
            w.text(&format!("{at}.name"), name);
            w.arg_type(&format!("{at}.ty"), ty);
            w.flag(&format!("{at}.required"), required);
        });
        self.flag(&format!("{at}.closed"), closed);
        self.each(&format!("{at}.one_of"), one_of, Walk::arg_type);
    }

    fn argument(&mut self, at: &str, a: &mut Argument) {
        let Argument { name, value } = a;
        self.text(&format!("{at}.name"), name);
        self.text(&format!("{at}.value"), value);
    }

    fn text(&mut self, at: &str, s: &mut Str) {
        if self.here(at) {
            s.to_mut().push_str(self.with);
        }
    }

    fn optional(&mut self, at: &str, s: &mut Option<Str>) {
        if self.here(at) {
            match s {
                Some(s) => s.to_mut().push_str(self.with),
                None => *s = Some(owned(self.with)),
            }
        }
    }

    fn flag(&mut self, at: &str, b: &mut bool) {
        if self.here(at) {
            *b = !*b;
        }
    }

    fn texts(&mut self, at: &str, list: &mut List<Str>) {
        if self.here(&format!("{at}[+]")) {
            list.to_mut().push(owned(self.with));
        }
    }

    /// An edit of the list's length (its last element dropped), then each
    /// element's edits.
    fn each<T: Clone>(&mut self, at: &str, list: &mut List<T>, mut per: impl FnMut(&mut Self, &str, &mut T)) {
        if !list.is_empty() && self.here(&format!("{at}[-1]")) {
            list.to_mut().pop();
            return;
        }
        for (i, element) in list.to_mut().iter_mut().enumerate() {
            per(self, &format!("{at}[{i}]"), element);
        }
    }
}

fn owned(t: &str) -> Str {
    Cow::Owned(t.to_owned())
}

/// How many edits the walk offers on `c`.
fn edit_count(c: &Cockpit) -> usize {
    let mut walk = Walk { target: usize::MAX, seen: 0, with: "x", applied: None };
    walk.cockpit(&mut c.clone());
    walk.seen
}

/// Apply edit `k` to a copy of `original` with `with`; assert it changed the
/// table and the digest.
fn assert_edit_changes_digest(original: &Cockpit, k: usize, with: &str) -> Result<(), TestCaseError> {
    let mut copy = original.clone();
    let mut walk = Walk { target: k, seen: 0, with, applied: None };
    walk.cockpit(&mut copy);
    let at = walk.applied.unwrap_or_else(|| panic!("edit {k} of {} was not reached", walk.seen));
    prop_assert_ne!(&copy, original, "editing {} changed nothing", at);
    prop_assert_ne!(digest(&copy), digest(original), "editing {} left the digest unchanged", at);
    Ok(())
}

#[test]
fn every_field_of_the_real_policy_moves_the_digest() {
    let cockpit = compiled("../policy");
    let n = edit_count(&cockpit);
    assert!(n > cockpit.verbs.len() * 5, "{n} edits for {} verbs", cockpit.verbs.len());
    for k in 0..n {
        assert_edit_changes_digest(&cockpit, k, "x").unwrap();
    }
}

#[test]
fn the_digest_field_itself_is_not_encoded() {
    let cockpit = compiled("../policy");
    let mut copy = cockpit.clone();
    copy.digest = owned("0");
    assert_eq!(digest(&copy), digest(&cockpit));
    assert_eq!(cockpit.digest, digest(&cockpit));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any edit, with any non-empty text, on a fixture policy.
    #[test]
    fn any_edit_with_any_text_moves_the_digest(pick in any::<prop::sample::Index>(), with in "\\PC{1,16}") {
        static BASE: LazyLock<Cockpit> = LazyLock::new(|| compiled("../tests/ui/policies/base"));
        let k = pick.index(edit_count(&BASE));
        assert_edit_changes_digest(&BASE, k, &with)?;
    }
}
