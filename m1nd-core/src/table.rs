//! The compiled cockpit table.
//!
//! Every field is a `Cow<'static, _>` so that one type serves two owners: the
//! `cockpit!` macro emits it as a `static` of borrowed literals, and
//! [`crate::policy::compile`] builds the same value owned at run time. The two
//! can then be compared with `==`, which is how the runtime re-check proves the
//! generated table is the policy on disk.
//!
//! The shapes make some laws unrepresentable: a [`SlotKind::Door`] has no
//! field that selecting it could execute (its optional `source` only feeds its
//! label), and a read is a [`ReadVerb`], whose constructor is meant for the
//! policy compiler and generated code only. The fields are public so that
//! generated code can build the table in a `const`; the composer therefore
//! re-checks every read against the deny list before running it.

use std::borrow::Cow;

use crate::arguments::{ArgType, Parameter, Takes};
use crate::deny::DenyList;
use crate::effects::Effects;
use crate::facets::Facet;
pub use crate::primitives::{Argument, List, Str};

/// The one schema this compiler reads and the JSON skin writes.
pub const SCHEMA: &str = "m1nd-cockpit-v1";

/// The whole compiled policy: what the server serves, guards with and lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cockpit {
    pub schema: Str,
    pub title: Str,
    /// The on-request-only sentence, repeated verbatim in the MCP instructions.
    pub negative_default: Str,
    /// blake3 of the canonical encoding of the policy (64 hex digits).
    pub digest: Str,
    pub budget: Budget,
    pub verbs: List<Verb>,
    /// The type of every argument a verb takes (see [`crate::arguments`]).
    pub arguments: List<Parameter>,
    /// Arguments every verb accepts besides its own, declared once.
    pub common: List<Str>,
    /// Those of [`Cockpit::common`] that every verb taking them requires.
    pub common_required: List<Str>,
    pub deny: DenyList,
    pub cards: List<Card>,
    pub slots: List<Slot>,
    /// Verbs only the human performs, never served over MCP (M013).
    pub human_only: HumanOnly,
    /// What the effect files said, as the laws judged it ([`Effects::NONE`] without them).
    pub effects: Effects,
}

/// The verbs of `human_only.toml`: refused over MCP in every session and
/// listed in none, performed only on the human's own pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HumanOnly {
    /// Canonical verb names, in policy order.
    pub verbs: List<Str>,
    /// Where the human performs them (static text; empty when there are none).
    pub acts_at: Str,
}

impl HumanOnly {
    /// Whether `verb` (canonical) is the human's alone.
    pub fn contains(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

/// Response ceilings, in tokens (characters / 4 of the pretty JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub root_tokens: u32,
    pub drill_tokens: u32,
    /// An item's own view, within `drill_tokens`: its headline is shown at
    /// length until the loudest item view reaches this. Defaults to `drill_tokens`.
    pub item_tokens: u32,
}

/// A verb of one compiled table, named by its position in [`Cockpit::verbs`].
///
/// The guard resolves a written name to a `VerbId` once; everything after it
/// (dispatch, the store's reads, the cockpit's slots) carries the handle and
/// indexes tables built from the same [`Cockpit`], never looking a name up
/// again. A handle means nothing in another table: only the table that made it
/// (the guard's, or the policy compiler's for a [`ReadVerb`]) should read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerbId(u32);

impl VerbId {
    /// The handle of the verb at `index` in [`Cockpit::verbs`]; used by the
    /// policy compiler and by `cockpit!` expansions.
    #[doc(hidden)]
    pub const fn __at(index: u32) -> Self {
        Self(index)
    }

    /// The verb's position in [`Cockpit::verbs`], for tables indexed alike.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A verb the server knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verb {
    pub name: Str,
    pub summary: Str,
    /// Arguments a caller must supply.
    pub requires: List<Str>,
    /// Further arguments a caller may supply.
    pub accepts: List<Str>,
    /// The types of the arguments this verb types its own way; every other
    /// argument it takes has its type in [`Cockpit::arguments`].
    pub arguments: List<Parameter>,
    /// Whether the verb takes the policy's common arguments ([`Cockpit::common`]).
    pub common: bool,
    /// Argument sets, exactly one of which a call matches; when not empty,
    /// `requires`, `accepts` and `arguments` are, and each set says its own.
    pub one_of: List<ArgSet>,
    /// Tombstones: refused in every session, kept so old callers get a clear answer.
    pub retired: bool,
}

/// One argument set of a verb's [`Verb::one_of`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgSet {
    pub requires: List<Str>,
    /// Every argument of the set, required or not, with its type.
    pub arguments: List<Parameter>,
}

/// A help card (upstream's OverviewCard form), reused by the menu for its reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    pub id: Str,
    pub title: Str,
    pub why: Str,
    pub tool: Str,
    pub arguments: List<Argument>,
    pub reject_tool: Option<Str>,
    pub reject_reason: Option<Str>,
    /// Listed by the help overview (subject to the deny list in read-only sessions).
    pub overview: bool,
}

/// A permission to call one read verb with fixed arguments.
///
/// Its fields are private to this crate (the canonical encoding takes them
/// apart) and its constructor is hidden: the values in a
/// table were produced by the policy compiler after every law passed. Because
/// a determined caller could still reach the hidden constructor, the composer
/// does not take a `ReadVerb` on trust: it checks each one against the table's
/// deny list before asking the [`crate::runtime::Reader`] (fail-closed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadVerb {
    pub(crate) card: Str,
    pub(crate) verb: Str,
    /// `verb`'s handle in the table this read belongs to (derived from `verb`
    /// and the table's verb list, so it is not encoded separately).
    pub(crate) verb_id: VerbId,
    pub(crate) arguments: List<Argument>,
}

impl ReadVerb {
    /// Used by the policy compiler and by `cockpit!` expansions only.
    #[doc(hidden)]
    pub const fn __from_checked_policy(card: Str, verb: Str, verb_id: VerbId, arguments: List<Argument>) -> Self {
        Self { card, verb, verb_id, arguments }
    }

    /// The verb's handle in the table this read came from: what a reader
    /// dispatches on, instead of the name.
    pub fn verb_id(&self) -> VerbId {
        self.verb_id
    }

    /// The help card this read comes from.
    pub fn card(&self) -> &str {
        &self.card
    }

    /// The verb to call.
    pub fn verb(&self) -> &str {
        &self.verb
    }

    /// The fixed arguments of the call.
    pub fn arguments(&self) -> &[Argument] {
        &self.arguments
    }
}

/// One numbered entry of the root menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The number a human types (1–9; 0 is "back").
    pub n: u8,
    pub facet: Facet,
    /// One of the permanent trio held in slots 1–3.
    pub pinned: bool,
    pub kind: SlotKind,
    /// One label per facet condition.
    pub labels: List<Label>,
    pub collection: Option<Collection>,
    /// A door's static link to where the human acts (a path or a loopback URL).
    pub link: Option<Str>,
}

impl Slot {
    /// The label text for a facet condition; the laws guarantee one exists for each.
    pub fn label(&self, condition: &str) -> Option<&str> {
        self.labels.iter().find(|l| l.condition == condition).map(|l| &*l.text)
    }
}

/// What selecting a slot does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// A pointer: text that says where to go. Nothing to execute, even by mistake.
    Door { text: Str, source: Option<ReadVerb> },
    /// An argument-less read.
    Read { read: ReadVerb },
    /// The help overview, derived at compile time from the cards the deny list allows.
    Help { cards: List<HelpEntry> },
}

impl SlotKind {
    /// The read that feeds this slot's label and collection, if any.
    pub fn source(&self) -> Option<&ReadVerb> {
        match self {
            SlotKind::Door { source, .. } => source.as_ref(),
            SlotKind::Read { read } => Some(read),
            SlotKind::Help { .. } => None,
        }
    }
}

/// A card listed by the derived help collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelpEntry {
    pub card: Str,
    pub title: Str,
    pub why: Str,
    pub tool: Str,
}

/// A label for one facet condition; `{name}` placeholders are the facet's numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub condition: Str,
    pub text: Str,
}

/// A fixed-N projection of a facet's items (level 2), with drill-down actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    pub items: Str,
    pub limit: u16,
    /// The most characters of an item's headline its own view (level 3)
    /// shows: as many as the drill budget leaves room for in the loudest
    /// state, found by the compiler with the real composer
    /// ([`crate::runtime::budget::fit_text_caps`]), never less than the
    /// field's own cap.
    pub text_cap: u16,
    pub actions: List<Action>,
}

/// A read run on a selected item, its targets bound from item fields (level 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub read: ReadVerb,
    pub bind: List<Binding>,
}

/// `argument ← item.field`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub argument: Str,
    pub field: Str,
}

impl Cockpit {
    /// The type an argument has when `verb` takes it: the verb's own, else
    /// the policy-wide one.
    pub fn argument_type<'a>(&'a self, verb: &'a Verb, name: &str) -> Option<&'a ArgType> {
        let sets = verb.one_of.iter().map(|s| &s.arguments);
        std::iter::once(&verb.arguments)
            .chain(sets)
            .find_map(|list| list.iter().find(|p| p.name == name))
            .or_else(|| self.arguments.iter().find(|p| p.name == name))
            .map(|p| &p.ty)
    }

    /// The arguments a call matching `set` of `verb` takes: the set's, then
    /// the common ones when the verb takes them.
    pub fn takes_in<'a>(&'a self, verb: &'a Verb, set: &'a ArgSet) -> impl Iterator<Item = Takes<'a>> + 'a {
        let own = set.arguments.iter().map(move |p| Takes {
            name: &p.name,
            ty: Some(&p.ty),
            required: set.requires.contains(&p.name),
        });
        let common = self.common.iter().filter(move |_| verb.common);
        own.chain(common.map(move |name| Takes {
            name,
            ty: self.argument_type(verb, name),
            required: self.common_required.contains(name),
        }))
    }

    /// A card's fixed argument as the JSON a call sends: the text itself for
    /// an argument whose type takes strings, else the JSON the policy wrote
    /// (the policy compiler checked it against the type, M007).
    pub fn fixed_value(&self, tool: &str, argument: &Argument) -> serde_json::Value {
        let ty = self.verb(tool).and_then(|v| self.argument_type(v, &argument.name));
        match ty {
            Some(ty) if !ty.is_textual() => serde_json::from_str(&argument.value)
                .unwrap_or_else(|_| serde_json::Value::from(argument.value.to_string())),
            _ => serde_json::Value::from(argument.value.to_string()),
        }
    }

    /// Every argument `verb` takes: its `requires`, its `accepts`, then the
    /// arguments common to all verbs, each with its declared type.
    pub fn takes<'a>(&'a self, verb: &'a Verb) -> impl Iterator<Item = Takes<'a>> + 'a {
        let required = verb.requires.iter().map(|n| (n, true));
        let common = self.common.iter().filter(move |_| verb.common);
        let common = common.map(|n| (n, self.common_required.contains(n)));
        let optional = verb.accepts.iter().map(|n| (n, false)).chain(common);
        required.chain(optional).map(|(name, required)| Takes { name, ty: self.argument_type(verb, name), required })
    }
}

impl Cockpit {
    /// The verb definition for a canonical name.
    pub fn verb(&self, name: &str) -> Option<&Verb> {
        self.verbs.iter().find(|v| v.name == name)
    }

    /// The handle of a canonical name: for tables a server builds once, by
    /// name, when it starts (a call's verb comes from the guard instead).
    pub fn verb_id(&self, name: &str) -> Option<VerbId> {
        let index = self.verbs.iter().position(|v| v.name == name)?;
        u32::try_from(index).ok().map(VerbId)
    }

    /// The verb a handle of this table names.
    pub fn verb_at(&self, id: VerbId) -> Option<&Verb> {
        self.verbs.get(id.index())
    }

    /// Every verb with its handle, in table order.
    pub fn verbs_with_ids(&self) -> impl Iterator<Item = (VerbId, &Verb)> {
        // tools.toml is capped at MAX_FILE_BYTES, which holds far fewer verbs
        // than u32::MAX; a hand-built table past that is cut rather than wrapped.
        self.verbs.iter().take(u32::MAX as usize).enumerate().map(|(i, v)| (VerbId(i as u32), v))
    }

    /// The slot a human selects with `n`.
    pub fn slot(&self, n: u8) -> Option<&Slot> {
        self.slots.iter().find(|s| s.n == n)
    }

    /// Every read the menu can perform: slot sources and item actions.
    pub fn reads(&self) -> impl Iterator<Item = &ReadVerb> {
        self.slots.iter().flat_map(|slot| {
            slot.kind.source().into_iter().chain(slot.collection.iter().flat_map(|c| c.actions.iter().map(|a| &a.read)))
        })
    }
}

impl Cockpit {
    /// The value `cockpit!` emits next to its compile errors, so that rustc
    /// reports the policy's violations and nothing else. Never served.
    #[doc(hidden)]
    pub const STUB: Cockpit = Cockpit {
        schema: Cow::Borrowed(""),
        title: Cow::Borrowed(""),
        negative_default: Cow::Borrowed(""),
        digest: Cow::Borrowed(""),
        budget: Budget { root_tokens: 0, drill_tokens: 0, item_tokens: 0 },
        verbs: Cow::Borrowed(&[]),
        arguments: Cow::Borrowed(&[]),
        common: Cow::Borrowed(&[]),
        common_required: Cow::Borrowed(&[]),
        deny: DenyList { tools: Cow::Borrowed(&[]), status_only: Cow::Borrowed(&[]) },
        cards: Cow::Borrowed(&[]),
        slots: Cow::Borrowed(&[]),
        human_only: HumanOnly { verbs: Cow::Borrowed(&[]), acts_at: Cow::Borrowed("") },
        effects: Effects::NONE,
    };
}
