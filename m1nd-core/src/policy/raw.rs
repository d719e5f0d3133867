//! The policy as written: serde shapes of the TOML files, with spans.
//!
//! Unknown keys are rejected (M001). A few keys that have no meaning in a
//! place are still accepted here (a door's `card`, an action's nested
//! `collection`) so that the law that forbids them can say why, instead of a
//! bare "unknown field".

use serde::Deserialize;
use serde::de::IgnoredAny;
use toml::Spanned;

use super::profile::Profile;
use super::raw_type::RawType;

pub use super::spanned::{Table, Text, in_source_order};

/// `tools.toml`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsFile {
    /// Arguments every verb accepts, declared once.
    #[serde(default)]
    pub common: Option<Spanned<CommonDef>>,
    /// Argument name → its type (see [`RawType`]), for every verb that takes
    /// the name and does not type it itself.
    #[serde(default)]
    pub arguments: Table<RawType>,
    /// Gateway only: the session mode, `read-only` or `read-write` (M001).
    #[serde(default)]
    pub mode: Option<Text>,
    /// Gateway only: the client capabilities (`sampling`, `elicitation`,
    /// `roots`) offered to the upstream (M001).
    #[serde(default)]
    pub client_capabilities: Option<Spanned<Vec<Text>>>,
    pub verbs: Spanned<Table<VerbDef>>,
    /// Gateway only: the upstream's prompts a session may list and get, by
    /// their exact names (M001, M016).
    #[serde(default)]
    pub prompts: Table<SurfaceDef>,
    /// Gateway only: the upstream's resources a session may list, read and
    /// subscribe to, by their exact URIs (M001).
    #[serde(default)]
    pub resources: Table<SurfaceDef>,
    /// Gateway only: the upstream's resource templates, by their exact URI
    /// templates; a read of a URI the template matches is allowed (M001).
    #[serde(default)]
    pub templates: Table<SurfaceDef>,
}

/// One prompt, resource or resource template a gateway policy declares.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceDef {
    /// `blake3:` digest of the upstream's reviewed definition (M014), as for a tool.
    #[serde(default)]
    pub definition: Option<Text>,
    /// The definition's top-level keys that may hold invisible or control characters (M018).
    #[serde(default)]
    pub allow_invisible: Vec<Text>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommonDef {
    #[serde(default)]
    pub accepts: Vec<Text>,
    /// Arguments every verb that takes the common ones requires (m1nd's
    /// tools all require `agent_id`).
    #[serde(default)]
    pub requires: Vec<Text>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerbDef {
    pub summary: Text,
    #[serde(default)]
    pub requires: Vec<Text>,
    #[serde(default)]
    pub accepts: Vec<Text>,
    /// Arguments this verb types its own way; each is also one it accepts.
    #[serde(default)]
    pub arguments: Table<RawType>,
    /// `false`: the verb takes none of the `[common]` arguments (an upstream
    /// tool whose schema does not declare them, and refuses what it does not declare).
    #[serde(default)]
    pub common: Option<Spanned<bool>>,
    /// Argument sets, exactly one of which a call matches (JSON Schema's
    /// top-level `oneOf`). A verb with them lists its arguments only there.
    #[serde(default)]
    pub one_of: Option<Spanned<Vec<Spanned<ArgSetDef>>>>,
    #[serde(default)]
    pub retired: Option<Spanned<bool>>,
    /// Gateway only: argument → the values it is pinned to (M014).
    #[serde(default)]
    pub pins: Table<PinDef>,
    /// Gateway only: `blake3:` digest of the upstream's reviewed definition (M014).
    #[serde(default)]
    pub definition: Option<Text>,
    /// Gateway only: the definition's top-level keys that may hold invisible
    /// or control characters, once a person has seen them escaped (M018).
    #[serde(default)]
    pub allow_invisible: Vec<Text>,
}

/// One argument set of a verb's `one_of`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgSetDef {
    #[serde(default)]
    pub requires: Vec<Text>,
    /// Every argument of the set, required or not, with its type.
    #[serde(default)]
    pub arguments: Table<RawType>,
}

/// One argument pin: exactly one of `allowed` (exact values) or `under`
/// (absolute directories the path must lie in); an `under` pin may add
/// `hard_links = true` to let files with more than one hard link through.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinDef {
    #[serde(default)]
    pub allowed: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    pub under: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    pub hard_links: Option<Spanned<bool>>,
}

/// `read_only_denied.toml`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DenyFile {
    pub tools: Spanned<Vec<Text>>,
    #[serde(default)]
    pub status_only: Table<StatusOnlyDef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusOnlyDef {
    pub argument: Text,
    pub allowed: Spanned<Vec<Text>>,
}

/// `help_cards.toml`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardsFile {
    #[serde(default)]
    pub card: Vec<Spanned<CardDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardDef {
    pub id: Text,
    pub title: Text,
    pub why: Text,
    pub tool: Text,
    /// Argument → the value the card fixes, written as TOML of the
    /// argument's own type (`depth = 3`, `node_id = "x"`).
    #[serde(default)]
    pub arguments: Table<toml::Value>,
    #[serde(default)]
    pub reject_tool: Option<Text>,
    #[serde(default)]
    pub reject_reason: Option<Text>,
    #[serde(default)]
    pub overview: Option<Spanned<bool>>,
}

/// `cockpit.toml`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CockpitFile {
    pub schema: Text,
    pub title: Text,
    #[serde(default)]
    pub negative_default: Option<Text>,
    #[serde(default)]
    pub budget: Option<Spanned<BudgetDef>>,
    #[serde(default)]
    pub slot: Vec<Spanned<SlotDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetDef {
    pub root_tokens: Spanned<i64>,
    pub drill_tokens: Spanned<i64>,
    /// An item's own view, within `drill_tokens` (M011); `drill_tokens` when absent.
    #[serde(default)]
    pub item_tokens: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotDef {
    pub n: Spanned<i64>,
    pub key: Text,
    #[serde(default)]
    pub pinned: Option<Spanned<bool>>,
    /// A pointer: door text only.
    #[serde(default)]
    pub door: Option<Text>,
    /// The card whose read feeds a door's label and collection.
    #[serde(default)]
    pub source: Option<Text>,
    /// The card whose read this slot shows.
    #[serde(default)]
    pub card: Option<Text>,
    #[serde(default)]
    pub label: Option<Spanned<Table<String>>>,
    #[serde(default)]
    pub collection: Option<Spanned<CollectionDef>>,
    #[serde(default)]
    pub actions: Option<Spanned<Vec<Spanned<ActionDef>>>>,
    /// Executable fields a slot may never carry directly (M006).
    #[serde(default)]
    pub tool: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub verb: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub arguments: Option<Spanned<IgnoredAny>>,
    /// A door's static link to where the human acts (M010 checks its shape).
    #[serde(default)]
    pub link: Option<Text>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionDef {
    pub items: Text,
    pub limit: Spanned<i64>,
    /// A collection inside a collection (M008).
    #[serde(default)]
    pub collection: Option<Spanned<IgnoredAny>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionDef {
    pub card: Text,
    #[serde(default)]
    pub bind: Table<String>,
    /// A level below the item (M008).
    #[serde(default)]
    pub collection: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub actions: Option<Spanned<IgnoredAny>>,
}

/// `human_only.toml`: the verbs only the human performs, and where.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HumanOnlyFile {
    /// Static text saying where the human performs them, quoted by every refusal.
    pub acts_at: Text,
    pub verbs: Spanned<Vec<Text>>,
}

/// Every file, parsed.
#[derive(Debug)]
pub struct RawPolicy {
    pub tools: ToolsFile,
    pub deny: DenyFile,
    pub cards: CardsFile,
    pub cockpit: CockpitFile,
    /// Absent when the policy has no `human_only.toml`.
    pub human_only: Option<HumanOnlyFile>,
    pub profile: Profile,
    /// Whether the policy has a menu (`cockpit.toml`). Always true for a
    /// cockpit policy; a gateway policy without one gets an empty menu.
    pub menu: bool,
    /// effects.toml, routes.toml and catalog.json, when the policy has them.
    pub effects: Option<super::effects::raw::EffectFiles>,
}

impl CockpitFile {
    /// The menu of a gateway policy that has no `cockpit.toml`: no slots.
    pub fn absent() -> Self {
        let text = |s: &str| Spanned::new(0..0, s.to_owned());
        Self {
            schema: text(crate::table::SCHEMA),
            title: text(""),
            negative_default: None,
            budget: None,
            slot: Vec::new(),
        }
    }
}
