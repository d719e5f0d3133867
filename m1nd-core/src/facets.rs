//! The facet registry: the fixed vocabulary of state a slot may show.
//!
//! The policy chooses slots, labels, doors, cards and actions; this registry
//! says what each facet can report (its conditions and their numeric
//! placeholders) and what its items carry (fields and their display caps). The
//! compiler checks the policy against it (M007, M010, M011) and the runtime
//! renders from it, so both agree on every width by construction.

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
    /// The field shown in the one-line listing at level 2.
    pub headline: &'static str,
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
                Condition { name: "ratified", placeholders: &["blocks", "stale"] },
            ],
            Facet::Missions => &[
                Condition { name: UNAVAILABLE, placeholders: &[] },
                Condition { name: "none", placeholders: &[] },
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
                    Field { name: "status", cap: 8 },
                    Field { name: "receipt", cap: ID },
                    Field { name: "hash", cap: 16 },
                    Field { name: "node", cap: 48 },
                ],
                headline: "title",
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
            }),
            Facet::Trust => Some(&Items {
                name: "modules",
                fields: &[
                    Field { name: "id", cap: 48 },
                    Field { name: "score", cap: 6 },
                    Field { name: "defects", cap: 20 },
                ],
                headline: "id",
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
            }),
            Facet::Drift => Some(&Items {
                name: "nodes",
                fields: &[
                    Field { name: "id", cap: 48 },
                    Field { name: "evidence", cap: 60 },
                    Field { name: "cause", cap: 48 },
                ],
                headline: "id",
            }),
            Facet::Presences => Some(&Items {
                name: "agents",
                fields: &[
                    Field { name: "id", cap: ID },
                    Field { name: "doing", cap: 48 },
                    Field { name: "since", cap: 20 },
                ],
                headline: "id",
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
            }),
        }
    }
}

impl Items {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn field_names(&self) -> impl Iterator<Item = &'static str> {
        self.fields.iter().map(|f| f.name)
    }
}

impl Facet {
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
