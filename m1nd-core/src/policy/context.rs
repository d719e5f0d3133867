//! What the laws share: the parsed policy plus the indexes every law needs.
//!
//! Built once per compile so that no law re-derives a lookup table, and so that
//! "what the menu can reach" is defined in exactly one place
//! ([`Context::menu_reads`]).

use std::collections::HashMap;

use toml::Spanned;

use super::profile::Profile;
use super::raw::{CardDef, RawPolicy, SlotDef, StatusOnlyDef, Text, in_source_order};
use super::raw_type::RawType;
pub use super::source::loc;
use crate::arguments::ArgType;
use crate::facets::Facet;
use crate::names::{Folding, NameIndex, Resolution};

pub struct Context<'p> {
    pub raw: &'p RawPolicy,
    /// How a written name finds a verb: m1nd's canonical rule, or a gateway's
    /// spec folding (see [`crate::names::Folding`]).
    pub folding: Folding,
    pub names: NameIndex<'p>,
    /// Folded denied verb → its first entry in read_only_denied.toml.
    denied: HashMap<String, &'p Text>,
    /// Folded human-only verb → its first entry in human_only.toml.
    human_only: HashMap<String, &'p Text>,
    /// Folded status-only verb → (its key, its rule).
    status_only: HashMap<String, (&'p Text, &'p StatusOnlyDef)>,
    /// Card id → first definition.
    pub cards: HashMap<&'p str, &'p Spanned<CardDef>>,
    pub card_ids: NameIndex<'p>,
    /// Canonical verb name → definition.
    verb_defs: HashMap<&'p str, &'p super::raw::VerbDef>,
    /// Argument name → its type in `[arguments]`, as written.
    argument_types: HashMap<&'p str, &'p Spanned<RawType>>,
    /// What the menu reads, collected once (see [`Context::menu_reads`]).
    menu: Vec<MenuRead<'p>>,
    /// The effect files indexed, when the policy has them (M019, M020, M021, M022).
    pub effects: Option<super::effects::Model<'p>>,
}

/// How a menu entry reaches a card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `card = "…"` on a slot: the read the slot shows.
    SlotCard,
    /// `source = "…"` on a door: the read that feeds its label.
    DoorSource,
    /// `[[slot.actions]]` number `k` (1-based).
    Action(usize),
}

/// One place where the menu performs a read.
pub struct MenuRead<'p> {
    pub slot: &'p SlotDef,
    pub role: Role,
    pub card_ref: &'p Text,
    pub card: Option<&'p Spanned<CardDef>>,
}

impl MenuRead<'_> {
    /// "slot 4's card", "slot 2's action 1", for messages.
    pub fn describe(&self) -> String {
        let n = self.slot.n.get_ref();
        match self.role {
            Role::SlotCard => format!("slot {n}'s card `{}`", self.card_ref.get_ref()),
            Role::DoorSource => format!("slot {n}'s door source `{}`", self.card_ref.get_ref()),
            Role::Action(k) => {
                format!("slot {n}'s action {k} (card `{}`)", self.card_ref.get_ref())
            }
        }
    }
}

impl<'p> Context<'p> {
    pub fn new(raw: &'p RawPolicy) -> Self {
        let folding = match raw.profile {
            Profile::Cockpit => Folding::Canonical,
            Profile::Gateway => Folding::Spec,
        };
        let fold = |name: &str| folding.written(name);
        let names = NameIndex::with_folding(raw.tools.verbs.get_ref().keys().map(|k| k.get_ref().as_str()), folding);
        let mut denied = HashMap::new();
        for entry in raw.deny.tools.get_ref() {
            denied.entry(fold(entry.get_ref())).or_insert(entry);
        }
        let mut human_only = HashMap::new();
        for entry in raw.human_only.iter().flat_map(|h| h.verbs.get_ref()) {
            human_only.entry(fold(entry.get_ref())).or_insert(entry);
        }
        let status_only = raw.deny.status_only.iter().map(|(k, v)| (fold(k.get_ref()), (k, v.get_ref()))).collect();
        let mut cards = HashMap::new();
        for card in &raw.cards.card {
            cards.entry(card.get_ref().id.get_ref().as_str()).or_insert(card);
        }
        let card_ids = NameIndex::new(raw.cards.card.iter().map(|c| c.get_ref().id.get_ref().as_str()));
        let verb_defs = raw.tools.verbs.get_ref().iter().map(|(k, v)| (k.get_ref().as_str(), v.get_ref())).collect();
        let argument_types = raw.tools.arguments.iter().map(|(k, v)| (k.get_ref().as_str(), v)).collect();
        let mut cx = Self {
            raw,
            folding,
            names,
            denied,
            human_only,
            status_only,
            cards,
            card_ids,
            verb_defs,
            argument_types,
            menu: Vec::new(),
            effects: raw.effects.as_ref().map(super::effects::Model::new),
        };
        cx.menu = cx.collect_menu_reads();
        cx
    }

    pub fn resolve(&self, written: &str) -> Resolution<'p> {
        self.names.resolve(written)
    }

    /// The declared verb a written name denotes, if it denotes one exactly.
    pub fn verb(&self, written: &str) -> Option<&'p str> {
        match self.resolve(written) {
            Resolution::Known(v) => Some(v),
            _ => None,
        }
    }

    /// The key a written name is compared by: this policy's folding of it.
    pub fn fold(&self, written: &str) -> String {
        self.folding.written(written)
    }

    /// The verb name a written reference lowers to: the declared verb it
    /// denotes, or (only where a law already failed) its folded form.
    pub fn lowered_name(&self, written: &str) -> String {
        self.verb(written).map_or_else(|| self.fold(written), str::to_owned)
    }

    pub fn verb_def(&self, canonical: &str) -> Option<&'p super::raw::VerbDef> {
        self.verb_defs.get(canonical).copied()
    }

    /// The type declared for an argument in `[arguments]`, as written.
    pub fn argument_type(&self, name: &str) -> Option<&'p Spanned<RawType>> {
        self.argument_types.get(name).copied()
    }

    /// The type an argument has when `verb` takes it, as written: the verb's
    /// own `[verbs.NAME.arguments]` first, then `[arguments]`.
    pub fn declared_type(&self, verb: &'p super::raw::VerbDef, name: &str) -> Option<&'p Spanned<RawType>> {
        let sets = verb.one_of.iter().flat_map(|s| s.get_ref()).map(|s| &s.get_ref().arguments);
        std::iter::once(&verb.arguments)
            .chain(sets)
            .find_map(|table| table.iter().find(|(k, _)| k.get_ref() == name).map(|(_, v)| v))
            .or_else(|| self.argument_type(name))
    }

    /// Whether the help overview shows `card`: it asks to be shown, and its
    /// verb is live, neither denied nor the human's alone, and (when
    /// status-only) pinned to an allowed value. Lowering builds the overview
    /// with this, and M022 judges what it shows with this.
    pub fn overview_shows(&self, card: &CardDef) -> bool {
        if !card.overview.as_ref().is_some_and(|o| *o.get_ref()) {
            return false;
        }
        let Some(verb) = self.verb(card.tool.get_ref()) else { return false };
        let live = self.verb_def(verb).is_some_and(|d| !d.retired.as_ref().is_some_and(|r| *r.get_ref()));
        let pinned_right = self.status_only(verb).is_none_or(|(_, rule)| {
            card.arguments.iter().any(|(k, v)| {
                k.get_ref() == rule.argument.get_ref()
                    && rule.allowed.get_ref().iter().any(|a| v.get_ref().as_str() == Some(a.get_ref()))
            })
        });
        live && self.denial(verb).is_none() && self.human_only(verb).is_none() && pinned_right
    }

    /// Whether `verb` takes the `[common]` arguments (unless it says `common = false`).
    pub fn takes_common(verb: &super::raw::VerbDef) -> bool {
        verb.common.as_ref().is_none_or(|c| *c.get_ref())
    }

    /// The type an argument has when `verb` takes it, when it is a lawful one.
    pub fn type_of(&self, verb: &'p super::raw::VerbDef, name: &str) -> Option<ArgType> {
        self.declared_type(verb, name).and_then(super::arg_types::lawful)
    }

    /// Every argument `verb` takes: what it requires, then what it accepts,
    /// then what it types itself without listing, then the common ones.
    pub fn takes(&self, verb: &'p super::raw::VerbDef) -> Vec<&'p str> {
        let mut names: Vec<&'p str> = verb.requires.iter().chain(&verb.accepts).map(|a| a.get_ref().as_str()).collect();
        let sets = verb.one_of.iter().flat_map(|s| s.get_ref()).flat_map(|s| s.get_ref().arguments.keys());
        for own in verb.arguments.keys().chain(sets) {
            if !names.contains(&own.get_ref().as_str()) {
                names.push(own.get_ref());
            }
        }
        names
    }

    /// The arguments `[common]` names, accepted and required alike.
    pub fn common_arguments(&self) -> impl Iterator<Item = &'p Text> + use<'p> {
        let common = self.raw.tools.common.as_ref().map(|c| c.get_ref());
        common.into_iter().flat_map(|c| c.accepts.iter().chain(&c.requires))
    }

    /// The arguments `[common]` says every verb (that takes them) requires.
    pub fn common_required(&self) -> &'p [Text] {
        self.raw.tools.common.as_ref().map_or(&[], |c| c.get_ref().requires.as_slice())
    }

    /// The deny-list entry that denies this verb, if any.
    pub fn denial(&self, verb: &str) -> Option<&'p Text> {
        self.denied.get(&self.fold(verb)).copied()
    }

    /// The human_only.toml entry that makes this verb the human's alone, if any.
    pub fn human_only(&self, verb: &str) -> Option<&'p Text> {
        self.human_only.get(&self.fold(verb)).copied()
    }

    /// The status-only rule of this verb (its key, its rule), if any.
    pub fn status_only(&self, verb: &str) -> Option<(&'p Text, &'p StatusOnlyDef)> {
        self.status_only.get(&self.fold(verb)).copied()
    }

    pub fn card(&self, id: &str) -> Option<&'p Spanned<CardDef>> {
        self.cards.get(id).copied()
    }

    pub fn slots(&self) -> impl Iterator<Item = &'p SlotDef> {
        self.raw.cockpit.slot.iter().map(|s| s.get_ref())
    }

    pub fn facet(slot: &SlotDef) -> Option<Facet> {
        Facet::from_key(slot.key.get_ref())
    }

    /// Every read the menu can perform, explicitly named by cockpit.toml.
    pub fn menu_reads(&self) -> &[MenuRead<'p>] {
        &self.menu
    }

    fn collect_menu_reads(&self) -> Vec<MenuRead<'p>> {
        let mut reads = Vec::new();
        for slot in self.slots() {
            let mut push = |role, card_ref: &'p Text| {
                reads.push(MenuRead { slot, role, card_ref, card: self.card(card_ref.get_ref()) });
            };
            if let Some(card) = &slot.card {
                push(Role::SlotCard, card);
            }
            if let Some(source) = &slot.source {
                push(Role::DoorSource, source);
            }
            if let Some(actions) = &slot.actions {
                for (k, action) in actions.get_ref().iter().enumerate() {
                    push(Role::Action(k + 1), &action.get_ref().card);
                }
            }
        }
        reads
    }

    /// Whether the card with this id is reached by the menu explicitly.
    pub fn menu_uses_card(&self, id: &str) -> bool {
        self.menu.iter().any(|r| r.card_ref.get_ref() == id)
    }

    /// Verbs in the order tools.toml declares them.
    pub fn verbs_in_order(&self) -> Vec<(&'p Text, &'p Spanned<super::raw::VerbDef>)> {
        in_source_order(self.raw.tools.verbs.get_ref())
    }
}
