//! The names a gateway policy declares, with where `tools.toml` writes
//! them: for laws that look at several policies at once (a fleet's M017),
//! which must point at the lines that declare what collides.

use std::ops::Range;

use super::load::load;
use super::profile::Profile;
use super::raw::{Table, in_source_order};
use super::source::PolicySources;

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
}

/// What a gateway policy declares, or `None` when its files do not parse
/// (M001 says why when it is compiled).
pub fn gateway_declarations(sources: &PolicySources) -> Option<Declared> {
    let raw = load(sources, Profile::Gateway).ok()?;
    fn keys<V>(table: &Table<V>) -> Names {
        in_source_order(table).into_iter().map(|(name, _)| (name.get_ref().clone(), name.span())).collect()
    }
    Some(Declared {
        tools: keys(raw.tools.verbs.get_ref()),
        prompts: keys(&raw.tools.prompts),
        resources: keys(&raw.tools.resources),
        templates: keys(&raw.tools.templates),
    })
}
