//! The canonical encoding of a compiled table and its blake3 digest.
//!
//! The digest names a policy's meaning, not its formatting: comments, key
//! order and whitespace in the TOML do not change it; any change to a verb, a
//! deny entry, a card or a slot does. The encoding is explicit (tagged,
//! length-prefixed, little-endian) rather than `Debug` or serde output, so it
//! is stable across platforms, Rust versions and dependency upgrades.

use crate::arguments::{ArgType, Parameter, Property};
use crate::deny::{DenyList, StatusOnly};
use crate::effects::{CatalogAction, EffectMode, Effects, Reasoned, Route, RouteValue};
use crate::table::{
    Action, ArgSet, Argument, Binding, Budget, Card, Cockpit, Collection, HelpEntry, HumanOnly, Label, ReadVerb, Slot,
    SlotKind, Verb,
};

mod gateway;
pub use gateway::gateway_digest;

/// 64 lowercase hex digits of blake3 over [`encode`].
pub fn digest(cockpit: &Cockpit) -> String {
    blake3::hash(&encode(cockpit)).to_hex().to_string()
}

/// The canonical bytes of everything in the table except its digest.
///
/// Every table type is taken apart with an exhaustive pattern (never `..`):
/// a field added to any of them does not compile until it is encoded here,
/// so no part of the table can change without changing the digest.
pub fn encode(c: &Cockpit) -> Vec<u8> {
    let mut e = Encoder(Vec::with_capacity(16 * 1024));
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
    e.str("m1nd-policy-encoding-v1");
    e.str(schema);
    e.str(title);
    e.str(negative_default);
    e.budget(budget);
    e.each(verbs, Encoder::verb);
    e.each(arguments, Encoder::parameter);
    e.strs(common);
    e.strs(common_required);
    e.deny(deny);
    e.each(cards, Encoder::card);
    e.each(slots, Encoder::slot);
    e.human_only(human_only);
    e.effects(effects);
    e.0
}

impl Encoder {
    fn budget(&mut self, b: &Budget) {
        let Budget { root_tokens, drill_tokens, item_tokens } = *b;
        self.u64(root_tokens.into());
        self.u64(drill_tokens.into());
        self.u64(item_tokens.into());
    }

    fn verb(&mut self, v: &Verb) {
        let Verb { name, summary, requires, accepts, arguments, common, one_of, retired } = v;
        self.str(name);
        self.str(summary);
        self.strs(requires);
        self.strs(accepts);
        self.each(arguments, Encoder::parameter);
        self.bool(*common);
        self.each(one_of, |e, set| {
            let ArgSet { requires, arguments } = set;
            e.strs(requires);
            e.each(arguments, Encoder::parameter);
        });
        self.bool(*retired);
    }

    fn parameter(&mut self, p: &Parameter) {
        let Parameter { name, ty } = p;
        self.str(name);
        self.arg_type(ty);
    }

    fn arg_type(&mut self, t: &ArgType) {
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
        self.str(kind.key());
        self.bool(*nullable);
        self.strs(choices);
        self.opt(constant.as_deref());
        self.opt(default.as_deref());
        for bound in [minimum, maximum] {
            self.opt(bound.map(|b| b.to_string()).as_deref());
        }
        for count in [min_length, min_items, max_items] {
            self.opt(count.map(|c| c.to_string()).as_deref());
        }
        self.opt(pattern.as_deref());
        self.each(items, Encoder::arg_type);
        self.bool(*unique_items);
        self.each(properties, |e, p| {
            let Property { name, ty, required } = p;
            e.str(name);
            e.arg_type(ty);
            e.bool(*required);
        });
        self.bool(*closed);
        self.each(one_of, Encoder::arg_type);
    }

    fn deny(&mut self, d: &DenyList) {
        let DenyList { tools, status_only } = d;
        self.strs(tools);
        self.each(status_only, |e, rule| {
            let StatusOnly { verb, argument, allowed } = rule;
            e.str(verb);
            e.str(argument);
            e.strs(allowed);
        });
    }

    /// The effects come last, and a policy without effect files encodes none:
    /// its digest stays what it was before the effect files existed, while
    /// any effect at all adds bytes at the end.
    fn effects(&mut self, x: &Effects) {
        if *x == Effects::NONE {
            return;
        }
        let Effects { catalog_digest, modes, actions, routes } = x;
        self.str(catalog_digest);
        self.each(modes, |e, mode| {
            let EffectMode { name, effects, floors, also } = mode;
            e.str(name);
            e.each(effects, Encoder::reasoned);
            e.strs(floors);
            e.each(also, Encoder::reasoned);
        });
        self.each(actions, |e, action| {
            let CatalogAction { name, effects, floor } = action;
            e.str(name);
            e.strs(effects);
            e.str(floor);
        });
        self.each(routes, |e, route| {
            let Route { verb, actions, by, absent } = route;
            e.str(verb);
            e.strs(actions);
            e.each(by, |e, value| {
                let RouteValue { argument, value, actions } = value;
                e.str(argument);
                e.str(value);
                e.strs(actions);
            });
            match absent {
                None => e.tag(0),
                Some(actions) => {
                    e.tag(1);
                    e.strs(actions);
                }
            }
        });
    }

    fn reasoned(&mut self, r: &Reasoned) {
        let Reasoned { name, reason } = r;
        self.str(name);
        self.str(reason);
    }

    fn human_only(&mut self, h: &HumanOnly) {
        let HumanOnly { verbs, acts_at } = h;
        self.strs(verbs);
        self.str(acts_at);
    }

    fn card(&mut self, card: &Card) {
        let Card { id, title, why, tool, arguments, reject_tool, reject_reason, overview } = card;
        self.str(id);
        self.str(title);
        self.str(why);
        self.str(tool);
        self.each(arguments, Encoder::argument);
        self.opt(reject_tool.as_deref());
        self.opt(reject_reason.as_deref());
        self.bool(*overview);
    }

    fn argument(&mut self, a: &Argument) {
        let Argument { name, value } = a;
        self.str(name);
        self.str(value);
    }

    fn slot(&mut self, slot: &Slot) {
        let Slot { n, facet, pinned, kind, labels, collection, link } = slot;
        self.u64((*n).into());
        self.str(facet.key());
        self.bool(*pinned);
        self.kind(kind);
        self.each(labels, |e, label| {
            let Label { condition, text } = label;
            e.str(condition);
            e.str(text);
        });
        match collection {
            None => self.tag(0),
            Some(col) => {
                self.tag(1);
                self.collection(col);
            }
        }
        self.opt(link.as_deref());
    }

    fn kind(&mut self, kind: &SlotKind) {
        match kind {
            SlotKind::Door { text, source } => {
                self.tag(1);
                self.str(text);
                match source {
                    Some(r) => {
                        self.tag(1);
                        self.read(r);
                    }
                    None => self.tag(0),
                }
            }
            SlotKind::Read { read } => {
                self.tag(2);
                self.read(read);
            }
            SlotKind::Help { cards } => {
                self.tag(3);
                self.each(cards, |e, entry| {
                    let HelpEntry { card, title, why, tool } = entry;
                    e.str(card);
                    e.str(title);
                    e.str(why);
                    e.str(tool);
                });
            }
        }
    }

    fn collection(&mut self, col: &Collection) {
        let Collection { items, limit, text_cap, actions } = col;
        self.str(items);
        self.u64((*limit).into());
        self.u64((*text_cap).into());
        self.each(actions, |e, action| {
            let Action { read, bind } = action;
            e.read(read);
            e.each(bind, |e, binding| {
                let Binding { argument, field } = binding;
                e.str(argument);
                e.str(field);
            });
        });
    }

    fn read(&mut self, r: &ReadVerb) {
        // `verb_id` is `verb`'s position in the verb list, both encoded already.
        let ReadVerb { card, verb, verb_id: _, arguments } = r;
        self.str(card);
        self.str(verb);
        self.each(arguments, Encoder::argument);
    }
}

struct Encoder(Vec<u8>);

impl Encoder {
    fn tag(&mut self, t: u8) {
        self.0.push(t);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn bool(&mut self, b: bool) {
        self.tag(u8::from(b));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.tag(1);
                self.str(s);
            }
            None => self.tag(0),
        }
    }
    /// A length, then each item.
    fn each<T>(&mut self, items: &[T], mut one: impl FnMut(&mut Self, &T)) {
        self.len(items.len());
        for item in items {
            one(self, item);
        }
    }
    fn strs(&mut self, items: &[crate::table::Str]) {
        self.each(items, |e, s| e.str(s));
    }
}

#[cfg(test)]
mod completeness;
