//! `effects.toml` and `routes.toml` as written, with spans.

use serde::Deserialize;
use toml::Spanned;

use crate::policy::spanned::{Table, Text};

/// `effects.toml`: what people decided about the catalog.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectsFile {
    /// The `catalog_digest` of the catalog these decisions were made against:
    /// a new catalog is not trusted until a person moves this line (M019).
    pub catalog_digest: Text,
    /// `read_only` (what a read-only session may reach) and `menu` (what the
    /// menu may reach), each a [`ModeDef`] (M020).
    pub mode: Table<ModeDef>,
    /// Routes for verbs this server adds to upstream's surface, in the same
    /// shape as `routes.toml`'s.
    #[serde(default)]
    pub routes: Table<RouteDef>,
    /// MCP actions of the catalog that no verb reaches, each with the reason (M019).
    #[serde(default)]
    pub unrouted: Table<String>,
}

/// One session mode: the effects and floors every action it reaches stays
/// within, and the actions allowed beyond them, each with its reason.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeDef {
    pub effects: Spanned<Vec<Text>>,
    pub floors: Spanned<Vec<Text>>,
    /// Effect → why the mode allows it; every effect beyond `READ` has one.
    #[serde(default)]
    pub reasons: Table<String>,
    /// Action → why the mode allows it although its effects or floor exceed.
    #[serde(default)]
    pub also: Table<String>,
}

/// `routes.toml`: upstream's routes from each MCP tool to catalog actions,
/// produced from its source (see `m1nd-upstream/`), never written by hand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutesFile {
    /// Where the routes were read, for the reviewer.
    pub source: Text,
    pub routes: Table<RouteDef>,
}

/// How one tool reaches the catalog.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteDef {
    /// Every action the tool can reach: its worst case.
    pub actions: Spanned<Vec<Text>>,
    /// Argument → its value → the actions that value reaches. A value not
    /// named here reaches the worst case.
    #[serde(default)]
    pub by: Table<Table<Vec<Text>>>,
    /// The actions reached when the routing argument is left out; without
    /// this key, leaving it out is judged as the worst case.
    #[serde(default)]
    pub absent: Option<Spanned<Vec<Text>>>,
}

/// The three effect files, parsed.
#[derive(Debug)]
pub struct EffectFiles {
    pub effects: EffectsFile,
    pub routes: RoutesFile,
    pub catalog: super::catalog::ParsedCatalog,
}
