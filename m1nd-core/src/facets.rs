//! The facet registry: the fixed vocabulary of state a slot may show.
//!
//! The policy chooses slots, labels, doors, cards and actions; this registry
//! says what each facet can report (its conditions and their numeric
//! placeholders), what its items carry (fields and their display caps), which
//! kinds of item a collection lists with the number that counts each kind, and
//! in what order. The compiler checks the policy against it (M007, M010, M011,
//! M015) and the runtime renders from it, so both agree on every width, every
//! count and every mark by construction.

/// A part of the state a slot may show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Facet {
    Tray,
    Map,
    Missions,
    Health,
    Trust,
    Memories,
    Drift,
    Presences,
    /// The help overview, derived from the policy's cards rather than read.
    Help,
}

/// One state a facet can be in, with the numbers its label may show.
#[derive(Debug)]
pub struct Condition {
    pub name: &'static str,
    pub placeholders: &'static [&'static str],
}

/// A field of a facet's items, with the most characters ever displayed.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub cap: usize,
}

/// What a facet's collection lists.
#[derive(Debug)]
pub struct Items {
    /// The name a policy uses in `collection = { items = "…" }`.
    pub name: &'static str,
    pub fields: &'static [Field],
    /// The field shown in the one-line listing at level 2, and at length as
    /// the subject of an item's own view.
    pub headline: &'static str,
    /// Every kind of item the collection lists, each with the number that
    /// counts it; an item is of the first kind it matches (see [`Items::kind_of`]).
    pub kinds: &'static [Kind],
    /// The order the reading lists items in, as a listing says it ("newest first").
    pub order: &'static str,
}

/// One kind of item a collection lists, and the facet number that counts it.
///
/// A label that counts a kind names its number (`{candidates}`); law M015
/// holds every label to count each kind its list can show in that condition.
#[derive(Debug)]
pub struct Kind {
    /// What items of this kind are called in a message ("candidate blocks").
    pub name: &'static str,
    /// The placeholder that counts them.
    pub count: &'static str,
    /// Which items are of this kind: those whose field holds one of the
    /// values. `None` takes every item the kinds before it did not.
    pub when: Option<(&'static str, &'static [&'static str])>,
    /// Static text a listing shows beside each item of this kind, so a kind
    /// the label counts apart (candidates among ratified blocks) is told apart.
    pub mark: Option<&'static str>,
}

/// Every facet condition except `help`'s can also be `unavailable`: the read
/// failed, and the label says so instead of guessing.
pub const UNAVAILABLE: &str = "unavailable";

/// Display cap of ids (block, mission, memory, node, agent ids).
const ID: usize = 24;

impl Facet {
    pub const ALL: [Facet; 9] = [
        Facet::Tray,
        Facet::Map,
        Facet::Missions,
        Facet::Health,
        Facet::Trust,
        Facet::Memories,
        Facet::Drift,
        Facet::Presences,
        Facet::Help,
    ];

    /// The key a policy uses for this facet.
    pub const fn key(self) -> &'static str {
        match self {
            Facet::Tray => "tray",
            Facet::Map => "map",
            Facet::Missions => "missions",
            Facet::Health => "health",
            Facet::Trust => "trust",
            Facet::Memories => "memories",
            Facet::Drift => "drift",
            Facet::Presences => "presences",
            Facet::Help => "help",
        }
    }

    pub fn from_key(key: &str) -> Option<Facet> {
        Facet::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The Rust path of this variant, for code generation.
    pub const fn variant(self) -> &'static str {
        match self {
            Facet::Tray => "Tray",
            Facet::Map => "Map",
            Facet::Missions => "Missions",
            Facet::Health => "Health",
            Facet::Trust => "Trust",
            Facet::Memories => "Memories",
            Facet::Drift => "Drift",
            Facet::Presences => "Presences",
            Facet::Help => "Help",
        }
    }

    /// Whether the facet is derived from the policy instead of read from state.
    pub const fn derived(self) -> bool {
        matches!(self, Facet::Help)
    }

    /// The conditions a label must cover, `unavailable` included where it applies.
    pub const fn conditions(self) -> &'static [Condition] {
        match self {
            Facet::Tray => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "quiet", placeholders: &[] },
                Condition { name: "waiting", placeholders: &["count"] },
            ],
            Facet::Map => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "empty", placeholders: &[] },
                Condition { name: "candidates", placeholders: &["candidates"] },
                Condition { name: "ratified", placeholders: &["blocks", "stale", "candidates"] },
            ],
            Facet::Missions => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "none", placeholders: &[] },
                // Waiting for a stamp, none in flight: without it, "none" would
                // open a list of waiting missions it does not count (M015).
                Condition { name: "waiting", placeholders: &["waiting"] },
                Condition { name: "active", placeholders: &["flight", "waiting"] },
            ],
            Facet::Health => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "ok", placeholders: &[] },
                Condition { name: "alerts", placeholders: &["alerts"] },
            ],
            Facet::Trust => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "unscored", placeholders: &[] },
                Condition { name: "scored", placeholders: &["modules", "low"] },
            ],
            Facet::Memories => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "empty", placeholders: &[] },
                Condition { name: "stored", placeholders: &["memories"] },
            ],
            Facet::Drift => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "still", placeholders: &[] },
                Condition { name: "moved", placeholders: &["nodes"] },
            ],
            Facet::Presences => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "alone", placeholders: &[] },
                Condition { name: "present", placeholders: &["agents"] },
            ],
            Facet::Help => &[Condition { name: "ready", placeholders: &["cards"] }],
        }
    }

    pub fn condition(self, name: &str) -> Option<&'static Condition> {
        self.conditions().iter().find(|c| c.name == name)
    }

    /// What this facet's collection lists, if it has one.
    pub const fn items(self) -> Option<&'static Items> {
        match self {
            Facet::Tray => None,
            Facet::Map => Some(&Items {
                name: "blocks",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "title", cap: 40 },
                    Field { name: "status", cap: 10 },
                    Field { name: "receipt", cap: ID },
                    Field { name: "hash", cap: 16 },
                    Field { name: "node", cap: 48 },
                ],
                headline: "title",
                kinds: &[
                    Kind {
                        name: "candidate blocks",
                        count: "candidates",
                        when: Some(("status", &["candidate"])),
                        mark: Some("candidate"),
                    },
                    Kind { name: "ratified blocks", count: "blocks", when: None, mark: None },
                ],
                order: "most urgent first",
            }),
            Facet::Missions => Some(&Items {
                name: "missions",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "title", cap: 40 },
                    Field { name: "phase", cap: 10 },
                    Field { name: "agent", cap: ID },
                ],
                headline: "title",
                kinds: &[
                    Kind {
                        name: "waiting missions",
                        count: "waiting",
                        when: Some(("phase", &["merge_wait"])),
                        mark: Some("waiting"),
                    },
                    Kind { name: "missions in flight", count: "flight", when: None, mark: None },
                ],
                order: "waiting first",
            }),
            Facet::Health => Some(&Items {
                name: "alerts",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "level", cap: 8 },
                    Field { name: "text", cap: 60 },
                    Field { name: "node", cap: 48 },
                ],
                headline: "text",
                kinds: &[Kind { name: "alerts", count: "alerts", when: None, mark: None }],
                order: "most severe first",
            }),
            Facet::Trust => Some(&Items {
                name: "modules",
                fields: &[
                    Field { name: "id", cap: 48 },
                    Field { name: "score", cap: 6 },
                    Field { name: "defects", cap: 20 },
                ],
                headline: "id",
                kinds: &[Kind { name: "scored modules", count: "modules", when: None, mark: None }],
                order: "lowest score first",
            }),
            Facet::Memories => Some(&Items {
                name: "memories",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "claim", cap: 120 },
                    Field { name: "source", cap: 32 },
                    Field { name: "at", cap: 20 },
                ],
                headline: "claim",
                kinds: &[Kind { name: "memories", count: "memories", when: None, mark: None }],
                order: "newest first",
            }),
            Facet::Drift => Some(&Items {
                name: "nodes",
                fields: &[
                    Field { name: "id", cap: 48 },
                    Field { name: "evidence", cap: 60 },
                    Field { name: "cause", cap: 48 },
                ],
                headline: "id",
                kinds: &[Kind { name: "moved nodes", count: "nodes", when: None, mark: None }],
                order: "oldest first",
            }),
            Facet::Presences => Some(&Items {
                name: "agents",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "doing", cap: 48 },
                    Field { name: "since", cap: 20 },
                ],
                headline: "id",
                kinds: &[Kind { name: "agents", count: "agents", when: None, mark: None }],
                order: "most recently seen first",
            }),
            Facet::Help => Some(&Items {
                name: "cards",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "title", cap: 40 },
                    Field { name: "why", cap: 120 },
                    Field { name: "tool", cap: 32 },
                ],
                headline: "title",
                kinds: &[Kind { name: "cards", count: "cards", when: None, mark: None }],
                order: "in policy order",
            }),
        }
    }
}

impl Items {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The kind an item is: the first whose field value matches, else the
    /// last catch-all kind; `None` only for an item no kind takes.
    pub fn kind_of<'v>(&self, field: impl Fn(&str) -> Option<&'v str>) -> Option<&'static Kind> {
        self.kinds.iter().find(|k| match k.when {
            None => true,
            Some((name, values)) => field(name).is_some_and(|v| values.contains(&v)),
        })
    }

    /// How many items the reading counts in all: the sum of every kind's number.
    pub fn total(&self, number: impl Fn(&str) -> u64) -> u64 {
        self.kinds.iter().fold(0u64, |sum, k| sum.saturating_add(number(k.count)))
    }

    /// The longest mark any kind carries, if any kind is marked.
    pub fn longest_mark(&self) -> Option<&'static str> {
        self.kinds.iter().filter_map(|k| k.mark).max_by_key(|m| m.chars().count())
    }

    pub fn field_names(&self) -> impl Iterator<Item = &'static str> {
        self.fields.iter().map(|f| f.name)
    }
}

impl Facet {
    /// The kinds of item this facet's collection can list while the facet is
    /// in `condition`: every kind except those whose number leads a later
    /// condition, since [`Facet::condition_for`] would have chosen that later
    /// condition had the number not been zero. `unavailable` lists nothing.
    pub fn listable_in(self, condition: &str) -> Vec<&'static Kind> {
        let (Some(items), Some(at)) = (self.items(), self.conditions().iter().position(|c| c.name == condition)) else {
            return Vec::new();
        };
        if condition == UNAVAILABLE {
            return Vec::new();
        }
        let later: Vec<&str> =
            self.conditions()[at + 1..].iter().filter_map(|c| c.placeholders.first().copied()).collect();
        items.kinds.iter().filter(|k| !later.contains(&k.count)).collect()
    }

    /// The condition a facet is in, chosen mechanically from its numbers: the
    /// last condition whose first placeholder is non-zero, else the quiet one.
    /// (`unavailable` is chosen by the composer when the read fails.)
    pub fn condition_for(self, number: impl Fn(&str) -> u64) -> &'static Condition {
        let conditions = self.conditions();
        let live = conditions.iter().filter(|c| c.name != UNAVAILABLE);
        let loud = live.clone().rev().find(|c| c.placeholders.first().is_some_and(|p| number(p) > 0));
        loud.or_else(|| live.clone().next()).unwrap_or(&conditions[0])
    }
}

#[cfg(test)]
mod tests {
    use super::{Facet, UNAVAILABLE};

    /// Each kind is counted by a number of its facet, only the last kind
    /// takes every item, and a kind a field tells apart is marked, so a
    /// listing never mixes kinds silently.
    #[test]
    fn kinds_are_counted_and_told_apart() {
        for facet in Facet::ALL {
            let Some(items) = facet.items() else { continue };
            let numbers: Vec<&str> = facet.conditions().iter().flat_map(|c| c.placeholders).copied().collect();
            let (last, rest) = items.kinds.split_last().expect("a collection lists at least one kind");
            assert!(last.when.is_none(), "{}: the last kind takes every other item", facet.key());
            for kind in items.kinds {
                assert!(numbers.contains(&kind.count), "{}: `{}` is counted by no number", facet.key(), kind.name);
            }
            for kind in rest {
                let (field, _) = kind.when.expect("only the last kind takes every item");
                assert!(items.field(field).is_some(), "{}: `{}` is told by a field items lack", facet.key(), kind.name);
                assert!(kind.mark.is_some(), "{}: `{}` is not marked in a listing", facet.key(), kind.name);
            }
            assert!(!items.order.is_empty());
        }
    }

    /// `listable_in` is what `condition_for` allows: in every state (each
    /// number zero or not), every kind with items is listable in the chosen
    /// condition.
    #[test]
    fn listable_kinds_cover_every_state_that_chooses_the_condition() {
        for facet in Facet::ALL {
            let Some(items) = facet.items() else { continue };
            let mut names: Vec<&str> = facet.conditions().iter().flat_map(|c| c.placeholders).copied().collect();
            names.sort_unstable();
            names.dedup();
            for bits in 0u32..(1 << names.len()) {
                let number = |p: &str| names.iter().position(|n| *n == p).map_or(0, |i| u64::from((bits >> i) & 1));
                let chosen = facet.condition_for(number);
                let listable = facet.listable_in(chosen.name);
                for kind in items.kinds.iter().filter(|k| number(k.count) > 0) {
                    assert!(
                        listable.iter().any(|l| l.name == kind.name),
                        "{}: in `{}` the list can show {} (state {bits:b} of {names:?})",
                        facet.key(),
                        chosen.name,
                        kind.name
                    );
                }
            }
            assert!(facet.listable_in(UNAVAILABLE).is_empty());
        }
    }

    /// M015 can always be kept: a condition may show the number of every
    /// kind its list can show.
    #[test]
    fn every_listable_kind_is_a_number_its_condition_may_show() {
        for facet in Facet::ALL {
            for condition in facet.conditions() {
                for kind in facet.listable_in(condition.name) {
                    assert!(
                        condition.placeholders.contains(&kind.count),
                        "{}: `{}` lists {} but may not show {{{}}}",
                        facet.key(),
                        condition.name,
                        kind.name,
                        kind.count
                    );
                }
            }
        }
    }

    #[test]
    fn an_item_is_of_the_first_kind_it_matches() {
        let blocks = Facet::Map.items().expect("the map lists blocks");
        let of = |status: &'static str| blocks.kind_of(|f| (f == "status").then_some(status)).map(|k| k.name);
        assert_eq!(of("candidate"), Some("candidate blocks"));
        assert_eq!(of("fresh"), Some("ratified blocks"));
        assert_eq!(of("stale"), Some("ratified blocks"));
        assert_eq!(blocks.total(|p| if p == "stale" { 5 } else { 2 }), 4, "stale blocks are among `blocks`");
    }
}
