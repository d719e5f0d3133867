//! `m1nd policy diff`: what a policy change does to safety, from two compiled
//! tables.
//!
//! A raw TOML diff shows edits; a reviewer needs their effect. The changes
//! come out grouped by [`Category`], in order of danger: what a session can
//! newly reach first (*loosened*), then what it lost (*tightened*),
//! then the verbs the server knows, then what the menu shows. The worst-case
//! response sizes (M011's bound, measured with the real composer) and the
//! digests close the report. Both tables passed every law, so the diff only
//! reports; it never judges legality.

mod effects;
mod gateway;
pub mod render;
mod surfaces;

pub use gateway::diff_gateway;

use std::collections::BTreeSet;

use crate::deny::StatusOnly;
use crate::runtime::worst_case;
use crate::table::{Card, Cockpit, Slot, SlotKind, Verb};

/// What kind of change, in the order a reviewer should read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// A session may now make a call it could not make before: a read-only
    /// one through the deny list, or any MCP session through a verb that is
    /// no longer the human's alone.
    Loosened,
    /// A session may no longer make a call it could make before.
    Tightened,
    /// Verbs added, removed, retired, brought back, or given other arguments.
    Verbs,
    /// Slots, labels, doors, cards, actions and collections.
    Menu,
}

impl Category {
    pub const ALL: [Category; 4] = [Category::Loosened, Category::Tightened, Category::Verbs, Category::Menu];

    /// The name used in every output format and by `--fail-on`.
    pub const fn key(self) -> &'static str {
        match self {
            Category::Loosened => "loosened",
            Category::Tightened => "tightened",
            Category::Verbs => "verbs",
            Category::Menu => "menu",
        }
    }
}

/// One change: what it is about (a verb, `slot 4`, `card health`) and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub category: Category,
    pub subject: String,
    pub detail: String,
}

/// M011's compile-time bound for one table: the declared budget and the
/// worst case measured on the loudest state the policy admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub root_budget: u32,
    pub drill_budget: u32,
    pub root_tokens: usize,
    pub drill_tokens: usize,
    /// The reference of the largest drill, e.g. `6.5`.
    pub drill_level: String,
}

impl Bound {
    pub fn of(table: &Cockpit) -> Self {
        let worst = worst_case(table);
        Self {
            root_budget: table.budget.root_tokens,
            drill_budget: table.budget.drill_tokens,
            root_tokens: worst.root_tokens,
            drill_tokens: worst.drill_tokens,
            drill_level: worst.drill_level,
        }
    }
}

/// Everything `policy diff` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyDiff {
    /// Sorted by category, then in table order within one.
    pub changes: Vec<Change>,
    /// M011's bound on both sides; `None` for gateway policies, which serve
    /// no menu of their own.
    pub bound: Option<[Bound; 2]>,
    pub digest: [String; 2],
}

impl PolicyDiff {
    /// The changes of one category.
    pub fn of(&self, category: Category) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.category == category)
    }

    /// True when the two tables are the same policy.
    pub fn is_empty(&self) -> bool {
        self.digest[0] == self.digest[1]
    }
}

/// Compare two compiled policies.
pub fn diff(old: &Cockpit, new: &Cockpit) -> PolicyDiff {
    let mut out = Changes(Vec::new());
    read_only(old, new, &mut out);
    human_only(old, new, &mut out);
    verbs(old, new, &mut out);
    cards(old, new, &mut out);
    slots(old, new, &mut out);
    effects::effects(old, new, &mut out);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.category);
    PolicyDiff {
        changes,
        bound: Some([Bound::of(old), Bound::of(new)]),
        digest: [old.digest.to_string(), new.digest.to_string()],
    }
}

struct Changes(Vec<Change>);

impl Changes {
    fn push(&mut self, category: Category, subject: impl Into<String>, detail: impl Into<String>) {
        self.0.push(Change { category, subject: subject.into(), detail: detail.into() });
    }
}

/// How a read-only session may call a verb under one table.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Access {
    /// Not a verb of this table, or retired: no session may call it.
    Absent,
    Denied,
    StatusOnly {
        argument: String,
        allowed: BTreeSet<String>,
    },
    Free,
}

fn access(table: &Cockpit, verb: &str) -> Access {
    match table.verb(verb) {
        None => Access::Absent,
        Some(v) if v.retired => Access::Absent,
        Some(_) if table.deny.denies(verb) => Access::Denied,
        Some(_) => match table.deny.status_only(verb) {
            Some(StatusOnly { verb: _, argument, allowed }) => Access::StatusOnly {
                argument: argument.to_string(),
                allowed: allowed.iter().map(|a| a.to_ascii_lowercase()).collect(),
            },
            None => Access::Free,
        },
    }
}

fn quoted<'a>(values: impl IntoIterator<Item = &'a String>) -> String {
    values.into_iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
}

/// Loosened and tightened: every verb live in both tables whose read-only
/// access changed. Verbs that appear or vanish are [`verbs`]'s to report.
fn read_only(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Access::{Absent, Denied, Free, StatusOnly as Pinned};
    use Category::{Loosened, Tightened};
    for verb in new.verbs.iter().map(|v| &*v.name) {
        let (before, after) = (access(old, verb), access(new, verb));
        match (&before, &after) {
            (Absent, _) | (_, Absent) => {}
            (a, b) if a == b => {}
            (Denied, Free) => {
                out.push(Loosened, verb, "left read_only_denied.toml: a read-only session may now call it")
            }
            (Denied, Pinned { argument, allowed }) => out.push(
                Loosened,
                verb,
                format!(
                    "denied outright before, now status-only: a read-only session may call it with `{argument}` = {}",
                    quoted(allowed)
                ),
            ),
            (Pinned { argument, .. }, Free) => out.push(
                Loosened,
                verb,
                format!("no longer status-only: a read-only session may call it with any `{argument}`"),
            ),
            (Pinned { argument: was, allowed: before }, Pinned { argument, allowed }) => {
                let gained: Vec<&String> = allowed.difference(before).collect();
                let lost: Vec<&String> = before.difference(allowed).collect();
                if was != argument {
                    out.push(
                        Loosened,
                        verb,
                        format!("status-only on `{argument}` instead of `{was}`: calls that were pinned are now free"),
                    );
                }
                if was == argument && !gained.is_empty() {
                    out.push(Loosened, verb, format!("status-only `{argument}` now also allows {}", quoted(gained)));
                }
                if was == argument && !lost.is_empty() {
                    out.push(Tightened, verb, format!("status-only `{argument}` no longer allows {}", quoted(lost)));
                }
            }
            (Free, Denied) | (Pinned { .. }, Denied) => {
                out.push(Tightened, verb, "joined read_only_denied.toml: a read-only session may no longer call it")
            }
            (Free, Pinned { argument, allowed }) => out.push(
                Tightened,
                verb,
                format!(
                    "now status-only: a read-only session may call it only with `{argument}` = {}",
                    quoted(allowed)
                ),
            ),
            // (Denied, Denied) and (Free, Free), which the guard above already took.
            _ => {}
        }
    }
}

/// Human-only verbs (M013): one that leaves `human_only.toml` is served over
/// MCP again, one that joins it is served to no MCP session. Verbs that
/// appear or vanish are [`verbs`]'s to report.
fn human_only(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Category::{Loosened, Tightened, Verbs};
    for verb in new.verbs.iter().map(|v| &*v.name).filter(|v| old.verb(v).is_some()) {
        match (old.human_only.contains(verb), new.human_only.contains(verb)) {
            (true, false) => out.push(
                Loosened,
                verb,
                "left human_only.toml: MCP sessions may call it again, as far as the deny list lets them",
            ),
            (false, true) => {
                out.push(Tightened, verb, "joined human_only.toml: no MCP session may call it; the human performs it")
            }
            _ => {}
        }
    }
    if old.human_only.acts_at != new.human_only.acts_at {
        out.push(
            Verbs,
            "human-only verbs",
            format!("performed at {:?}, was {:?}", new.human_only.acts_at, old.human_only.acts_at),
        );
    }
}

/// How a new verb is classified, so an added write that was not deny-listed stands out.
fn classified(table: &Cockpit, verb: &Verb) -> &'static str {
    match access(table, &verb.name) {
        Access::Absent => "retired",
        Access::Denied => "denied to read-only sessions",
        Access::StatusOnly { .. } => "status-only in read-only sessions",
        Access::Free => "callable by read-only sessions",
    }
}

fn verbs(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Category::Verbs;
    for v in new.verbs.iter() {
        let Some(was) = old.verb(&v.name) else {
            out.push(Verbs, &*v.name, format!("added ({})", classified(new, v)));
            continue;
        };
        match (was.retired, v.retired) {
            (false, true) => out.push(Verbs, &*v.name, "retired: refused in every session"),
            (true, false) => out.push(Verbs, &*v.name, format!("no longer retired ({})", classified(new, v))),
            _ => {}
        }
        if was.requires != v.requires || was.accepts != v.accepts {
            let args = |v: &Verb| format!("requires [{}], accepts [{}]", v.requires.join(", "), v.accepts.join(", "));
            out.push(Verbs, &*v.name, format!("arguments: {} → {}", args(was), args(v)));
        }
    }
    for v in old.verbs.iter().filter(|v| new.verb(&v.name).is_none()) {
        out.push(Verbs, &*v.name, "removed: callers now get `unknown tool`");
    }
}

fn cards(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Category::Menu;
    let find = |table: &'_ Cockpit, id: &str| table.cards.iter().find(|c| c.id == id).cloned();
    for card in new.cards.iter() {
        let subject = format!("card {}", card.id);
        let Some(was) = find(old, &card.id) else {
            out.push(Menu, subject, format!("added, calling `{}`", card.tool));
            continue;
        };
        if was.tool != card.tool {
            out.push(Menu, &subject, format!("calls `{}` instead of `{}`", card.tool, was.tool));
        }
        if was.arguments != card.arguments {
            let args = |c: &Card| c.arguments.iter().map(|a| format!("{} = {:?}", a.name, a.value)).collect::<Vec<_>>();
            out.push(Menu, &subject, format!("arguments {:?} → {:?}", args(&was), args(card)));
        }
        if was.overview != card.overview {
            let listed = if card.overview { "now listed by" } else { "no longer listed by" };
            out.push(Menu, &subject, format!("{listed} the help overview"));
        }
        if (&was.title, &was.why, &was.reject_tool, &was.reject_reason)
            != (&card.title, &card.why, &card.reject_tool, &card.reject_reason)
        {
            out.push(Menu, &subject, "wording changed (title, why or reject hint)");
        }
    }
    for card in old.cards.iter().filter(|c| find(new, &c.id).is_none()) {
        out.push(Menu, format!("card {}", card.id), "removed");
    }
}

/// What selecting a slot does, in a few words.
fn kind(slot: &Slot) -> String {
    match &slot.kind {
        SlotKind::Door { text, source: Some(r) } => format!("door {text:?} (numbers from card `{}`)", r.card()),
        SlotKind::Door { text, source: None } => format!("door {text:?}"),
        SlotKind::Read { read } => format!("reads card `{}` (`{}`)", read.card(), read.verb()),
        SlotKind::Help { .. } => "the derived help overview".to_owned(),
    }
}

fn help_cards(slot: &Slot) -> BTreeSet<&str> {
    match &slot.kind {
        SlotKind::Help { cards } => cards.iter().map(|h| &*h.card).collect(),
        _ => BTreeSet::new(),
    }
}

fn slots(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Category::Menu;
    for slot in new.slots.iter() {
        let subject = format!("slot {}", slot.n);
        let Some(was) = old.slot(slot.n) else {
            out.push(Menu, subject, format!("added: `{}`, {}", slot.facet.key(), kind(slot)));
            continue;
        };
        if was.facet != slot.facet {
            out.push(Menu, &subject, format!("shows `{}` instead of `{}`", slot.facet.key(), was.facet.key()));
        }
        if was.pinned != slot.pinned {
            out.push(Menu, &subject, if slot.pinned { "now pinned" } else { "no longer pinned" });
        }
        let (before, after) = (kind(was), kind(slot));
        if before != after {
            out.push(Menu, &subject, format!("{after}, was {before}"));
        }
        match (&was.link, &slot.link) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, Some(b)) => out.push(Menu, &subject, format!("door link added: {b:?}")),
            (Some(a), None) => out.push(Menu, &subject, format!("door link removed (was {a:?})")),
            (Some(a), Some(b)) => out.push(Menu, &subject, format!("door link: {a:?} → {b:?}")),
        }
        let (offered_before, offered) = (help_cards(was), help_cards(slot));
        for card in offered.difference(&offered_before) {
            out.push(Menu, &subject, format!("the help overview now offers card `{card}`"));
        }
        for card in offered_before.difference(&offered) {
            out.push(Menu, &subject, format!("the help overview no longer offers card `{card}`"));
        }
        for label in slot.labels.iter() {
            match was.label(&label.condition) {
                Some(text) if text == label.text => {}
                Some(text) => {
                    out.push(Menu, &subject, format!("label `{}`: {:?} → {:?}", label.condition, text, label.text))
                }
                None => out.push(Menu, &subject, format!("label `{}` added: {:?}", label.condition, label.text)),
            }
        }
        collection(&subject, was, slot, out);
    }
    for slot in old.slots.iter().filter(|s| new.slot(s.n).is_none()) {
        out.push(Menu, format!("slot {}", slot.n), format!("removed (was `{}`, {})", slot.facet.key(), kind(slot)));
    }
}

fn collection(subject: &str, was: &Slot, slot: &Slot, out: &mut Changes) {
    use Category::Menu;
    match (&was.collection, &slot.collection) {
        (None, None) => {}
        (None, Some(c)) => out.push(Menu, subject, format!("collection added: {} `{}`", c.limit, c.items)),
        (Some(c), None) => out.push(Menu, subject, format!("collection removed (was {} `{}`)", c.limit, c.items)),
        (Some(before), Some(after)) => {
            if (before.limit, &before.items) != (after.limit, &after.items) {
                let (b, a) = (before, after);
                out.push(Menu, subject, format!("collection: {} `{}` → {} `{}`", b.limit, b.items, a.limit, a.items));
            }
            let names = |c: &crate::table::Collection| -> Vec<String> {
                c.actions.iter().map(|a| format!("`{}` (`{}`)", a.read.card(), a.read.verb())).collect()
            };
            let (b, a) = (names(before), names(after));
            for action in a.iter().filter(|x| !b.contains(x)) {
                out.push(Menu, subject, format!("item action added: {action}"));
            }
            for action in b.iter().filter(|x| !a.contains(x)) {
                out.push(Menu, subject, format!("item action removed: {action}"));
            }
            let binds = |c: &crate::table::Collection| -> Vec<_> { c.actions.iter().map(|a| a.bind.clone()).collect() };
            if b == a && binds(before) != binds(after) {
                out.push(Menu, subject, "item actions bind other fields");
            }
        }
    }
}

#[cfg(test)]
mod tests;
