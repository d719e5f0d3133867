//! Lowering: the parsed policy, once every law holds, becomes a [`Cockpit`].
//!
//! This is also where the help overview is derived: overview cards whose verb
//! a read-only session may not call are dropped here, silently, so a growing
//! deny list shrinks the menu without anyone editing cockpit.toml.

use std::borrow::Cow;
use std::collections::HashMap;

use super::context::Context;
use super::encode::digest;
use super::raw::{CardDef, SlotDef, Table, in_source_order};
use super::raw_type::RawType;
use crate::arguments::Parameter;
use crate::deny::{DenyList, StatusOnly};
use crate::facets::Facet;
use crate::table::{
    Action, ArgSet, Argument, Binding, Budget, Card, Cockpit, Collection, HelpEntry, HumanOnly, Label, List, ReadVerb,
    Slot, SlotKind, Str, Verb, VerbId,
};

/// Build the table. Callers run the laws first; lowering assumes they hold.
pub fn lower(cx: &Context<'_>) -> Cockpit {
    let raw = cx.raw;
    let verbs: Vec<Verb> = cx
        .verbs_in_order()
        .into_iter()
        .map(|(name, def)| {
            let def = def.get_ref();
            Verb {
                name: owned(name.get_ref()),
                summary: owned(def.summary.get_ref()),
                requires: list(def.requires.iter().map(|a| owned(a.get_ref()))),
                // A verb with `one_of` has no arguments of its own (M001): its sets hold them.
                accepts: list(
                    cx.takes(def)
                        .into_iter()
                        .skip(def.requires.len())
                        .filter(|_| def.one_of.is_none())
                        .map(|a| Cow::Owned(a.to_owned())),
                ),
                arguments: parameters(&def.arguments),
                common: Context::takes_common(def),
                one_of: list(def.one_of.iter().flat_map(|s| s.get_ref()).map(|set| {
                    let set = set.get_ref();
                    ArgSet {
                        requires: list(set.requires.iter().map(|r| owned(r.get_ref()))),
                        arguments: parameters(&set.arguments),
                    }
                })),
                retired: def.retired.as_ref().is_some_and(|r| *r.get_ref()),
            }
        })
        .collect();
    let arguments = parameters(&raw.tools.arguments);
    let common = list(cx.common_arguments().map(|a| owned(a.get_ref())));
    let common_required = list(cx.common_required().iter().map(|a| owned(a.get_ref())));
    let deny = DenyList {
        tools: list(raw.deny.tools.get_ref().iter().map(|t| Cow::Owned(cx.lowered_name(t.get_ref())))),
        status_only: list(in_source_order(&raw.deny.status_only).into_iter().map(|(verb, rule)| {
            let rule = rule.get_ref();
            StatusOnly {
                verb: Cow::Owned(cx.lowered_name(verb.get_ref())),
                argument: owned(rule.argument.get_ref()),
                allowed: list(rule.allowed.get_ref().iter().map(|a| owned(a.get_ref()))),
            }
        })),
    };
    let cards: Vec<Card> = raw.cards.card.iter().map(|c| card(cx, c.get_ref())).collect();
    let budget = raw.cockpit.budget.as_ref().map(|b| b.get_ref());
    let budget = Budget {
        root_tokens: budget.map_or(0, |b| clamp_u32(*b.root_tokens.get_ref())),
        drill_tokens: budget.map_or(0, |b| clamp_u32(*b.drill_tokens.get_ref())),
        item_tokens: budget.map_or(0, |b| clamp_u32(*b.item_tokens.as_ref().unwrap_or(&b.drill_tokens).get_ref())),
    };
    let reads = Reads::new(&cards, &verbs);
    let mut slots: Vec<Slot> = cx.slots().filter_map(|s| slot(cx, s, &reads)).collect();
    slots.sort_by_key(|s| s.n);
    let mut cockpit = Cockpit {
        schema: owned(raw.cockpit.schema.get_ref()),
        title: owned(raw.cockpit.title.get_ref()),
        negative_default: owned(raw.cockpit.negative_default.as_ref().map_or("", |t| t.get_ref().as_str())),
        digest: Cow::Borrowed(""),
        budget,
        verbs: Cow::Owned(verbs),
        arguments,
        common,
        common_required,
        deny,
        cards: Cow::Owned(cards),
        slots: Cow::Owned(slots),
        human_only: HumanOnly {
            verbs: list(
                raw.human_only.iter().flat_map(|h| h.verbs.get_ref()).map(|v| Cow::Owned(cx.lowered_name(v.get_ref()))),
            ),
            acts_at: owned(raw.human_only.as_ref().map_or("", |h| h.acts_at.get_ref().as_str())),
        },
        effects: super::lower_effects::lower(cx),
    };
    crate::runtime::budget::fit_text_caps(&mut cockpit);
    cockpit.digest = Cow::Owned(digest(&cockpit));
    cockpit
}

fn card(cx: &Context<'_>, def: &CardDef) -> Card {
    Card {
        id: owned(def.id.get_ref()),
        title: owned(def.title.get_ref()),
        why: owned(def.why.get_ref()),
        tool: Cow::Owned(cx.lowered_name(def.tool.get_ref())),
        arguments: arguments(cx, def),
        reject_tool: def.reject_tool.as_ref().map(|t| Cow::Owned(cx.lowered_name(t.get_ref()))),
        reject_reason: def.reject_reason.as_ref().map(|t| owned(t.get_ref())),
        overview: def.overview.as_ref().is_some_and(|o| *o.get_ref()),
    }
}

fn arguments(cx: &Context<'_>, card: &CardDef) -> List<Argument> {
    let verb = cx.verb(card.tool.get_ref()).and_then(|v| cx.verb_def(v));
    list(in_source_order(&card.arguments).into_iter().map(|(k, v)| {
        let ty = verb.and_then(|verb| cx.type_of(verb, k.get_ref()));
        Argument { name: owned(k.get_ref()), value: Cow::Owned(super::arg_types::fixed_text(ty.as_ref(), v.get_ref())) }
    }))
}

/// Declared types, in source order; the laws have refused any that is not lawful.
fn parameters(table: &Table<RawType>) -> List<Parameter> {
    list(
        in_source_order(table).into_iter().filter_map(|(name, raw)| {
            Some(Parameter { name: owned(name.get_ref()), ty: super::arg_types::lawful(raw)? })
        }),
    )
}

/// The cards a menu entry may read, and the handle of each verb, so every
/// read is built with its verb already resolved.
struct Reads<'a> {
    cards: &'a [Card],
    ids: HashMap<&'a str, VerbId>,
}

impl<'a> Reads<'a> {
    fn new(cards: &'a [Card], verbs: &'a [Verb]) -> Self {
        // tools.toml is capped at MAX_FILE_BYTES, far fewer verbs than u32::MAX.
        let ids = verbs.iter().enumerate().map(|(i, v)| (&*v.name, VerbId::__at(i as u32))).collect();
        Self { cards, ids }
    }

    /// The read of card `id`, if the card and its verb exist (the laws say they do).
    fn read(&self, id: &str) -> Option<ReadVerb> {
        let card = self.cards.iter().find(|c| c.id == id)?;
        let verb_id = *self.ids.get(&*card.tool)?;
        Some(ReadVerb::__from_checked_policy(card.id.clone(), card.tool.clone(), verb_id, card.arguments.clone()))
    }
}

fn slot(cx: &Context<'_>, def: &SlotDef, reads: &Reads<'_>) -> Option<Slot> {
    let facet = Context::facet(def)?;
    let kind = if let Some(door) = &def.door {
        SlotKind::Door {
            text: owned(door.get_ref()),
            source: def.source.as_ref().and_then(|s| reads.read(s.get_ref())),
        }
    } else if facet == Facet::Help {
        SlotKind::Help { cards: help_entries(cx, reads.cards) }
    } else {
        SlotKind::Read { read: reads.read(def.card.as_ref()?.get_ref())? }
    };
    let labels = def.label.as_ref().map_or_else(Vec::new, |l| {
        in_source_order(l.get_ref())
            .into_iter()
            .map(|(k, v)| Label { condition: owned(k.get_ref()), text: owned(v.get_ref()) })
            .collect()
    });
    let collection = def.collection.as_ref().map(|c| {
        let c = c.get_ref();
        let actions = def.actions.as_ref().map_or_else(Vec::new, |actions| {
            actions
                .get_ref()
                .iter()
                .filter_map(|a| {
                    let a = a.get_ref();
                    Some(Action {
                        read: reads.read(a.card.get_ref())?,
                        bind: list(
                            in_source_order(&a.bind)
                                .into_iter()
                                .map(|(k, v)| Binding { argument: owned(k.get_ref()), field: owned(v.get_ref()) }),
                        ),
                    })
                })
                .collect()
        });
        Collection {
            items: owned(c.items.get_ref()),
            limit: u16::try_from(*c.limit.get_ref()).unwrap_or(0),
            // Fitted to the budget once the whole table exists (see `lower`).
            text_cap: 0,
            actions: Cow::Owned(actions),
        }
    });
    Some(Slot {
        n: u8::try_from(*def.n.get_ref()).unwrap_or(0),
        facet,
        pinned: def.pinned.as_ref().is_some_and(|p| *p.get_ref()),
        kind,
        labels: Cow::Owned(labels),
        collection,
        link: def.link.as_ref().map(|l| owned(l.get_ref())),
    })
}

/// The overview's cards, in card order: those [`Context::overview_shows`]
/// (the same test M022 judges the overview with).
fn help_entries(cx: &Context<'_>, cards: &[Card]) -> List<HelpEntry> {
    let shown = cards.iter().zip(&cx.raw.cards.card).filter(|(_, raw)| cx.overview_shows(raw.get_ref()));
    list(shown.map(|(c, _)| HelpEntry {
        card: c.id.clone(),
        title: c.title.clone(),
        why: c.why.clone(),
        tool: c.tool.clone(),
    }))
}

fn owned(s: &str) -> Str {
    Cow::Owned(s.to_owned())
}

fn list<T: Clone>(items: impl Iterator<Item = T>) -> List<T> {
    Cow::Owned(items.collect())
}

fn clamp_u32(v: i64) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}
