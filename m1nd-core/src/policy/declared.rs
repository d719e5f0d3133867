//! The names a gateway policy declares, with where `tools.toml` writes
//! them: for laws that look at several policies at once (a fleet's M017),
//! which must point at the lines that declare what collides.

use std::ops::Range;

use super::load::load;
use super::profile::Profile;
use super::raw::{Table, in_source_order};
use super::source::PolicySources;
use crate::gateway_table::SurfaceKind as Kind;

/// The table of tools.toml that declares tools; the other tables are [`Kind::table`]'s.
pub const VERBS: &str = "verbs";

/// The key of an entry's allowance for invisible characters (M018), as messages name it
/// (the field of `raw::VerbDef` and `raw::SurfaceDef`).
pub const ALLOW_INVISIBLE: &str = "allow_invisible";

/// Declared names of one kind, in source order, each with the byte range of its key.
pub type Names = Vec<(String, Range<usize>)>;

/// Each kind of name a gateway policy declares in `tools.toml`, in source
/// order, with the byte range of its key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    pub tools: Names,
    pub prompts: Names,
    pub resources: Names,
    pub templates: Names,
    /// Each entry's `allow_invisible` (M018), where it names any key:
    /// (its table, [`VERBS`] or a [`Kind::table`]; its name)
    /// → the definition's top-level keys that may hold invisible characters.
    pub allow_invisible: Vec<((&'static str, String), Vec<String>)>,
}

impl Declared {
    /// The keys `allow_invisible` names for `name` in `table`.
    pub fn allowed_invisible(&self, table: &str, name: &str) -> &[String] {
        self.allow_invisible.iter().find(|((t, n), _)| *t == table && n == name).map_or(&[], |(_, keys)| keys)
    }
}

/// What a gateway policy declares, or `None` when its files do not parse
/// (M001 says why when it is compiled).
pub fn gateway_declarations(sources: &PolicySources) -> Option<Declared> {
    let raw = load(sources, Profile::Gateway).ok()?;
    fn keys<V>(table: &Table<V>) -> Names {
        in_source_order(table).into_iter().map(|(name, _)| (name.get_ref().clone(), name.span())).collect()
    }
    let mut allow_invisible = Vec::new();
    let mut allowed = |table: &'static str, name: &str, keys: &[super::raw::Text]| {
        if !keys.is_empty() {
            allow_invisible.push(((table, name.to_owned()), keys.iter().map(|k| k.get_ref().clone()).collect()));
        }
    };
    for (name, def) in in_source_order(raw.tools.verbs.get_ref()) {
        allowed(VERBS, name.get_ref(), &def.get_ref().allow_invisible);
    }
    for kind in Kind::ALL {
        let defs = match kind {
            Kind::Prompt => &raw.tools.prompts,
            Kind::Resource => &raw.tools.resources,
            Kind::Template => &raw.tools.templates,
        };
        for (name, def) in in_source_order(defs) {
            allowed(kind.table(), name.get_ref(), &def.get_ref().allow_invisible);
        }
    }
    Some(Declared {
        allow_invisible,
        tools: keys(raw.tools.verbs.get_ref()),
        prompts: keys(&raw.tools.prompts),
        resources: keys(&raw.tools.resources),
        templates: keys(&raw.tools.templates),
    })
}
