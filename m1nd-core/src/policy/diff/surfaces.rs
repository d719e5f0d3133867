//! `m1nd policy diff` on a gateway policy's prompts, resources and resource
//! templates: part of the reachability plan (see [`super::gateway`]).
//!
//! Invariant: like a tool, a declared surface is reachable by every session
//! (they only read), so declaring one, or dropping its `definition` pin,
//! loosens; removing one, or pinning it, tightens; a pin moved to another
//! digest is a change a reviewer reads, filed with the verbs.

use super::{Category, Changes};
use crate::gateway_table::SurfaceKind as Kind;
use crate::gateway_table::{Surface, Surfaces};

/// Every change between two policies' surfaces, kind by kind.
pub fn surfaces(old: &Surfaces, new: &Surfaces, out: &mut Changes) {
    let kinds = [(Kind::Prompt, &old.prompts, &new.prompts), (Kind::Resource, &old.resources, &new.resources)];
    for (kind, was, now) in kinds.into_iter().chain([(Kind::Template, &old.templates, &new.templates)]) {
        one_kind(kind, was, now, out);
    }
}

fn one_kind(kind: Kind, was: &[Surface], now: &[Surface], out: &mut Changes) {
    use Category::{Loosened, Tightened, Verbs};
    let find = |list: &[Surface], key: &str| list.iter().find(|s| s.key == key).cloned();
    let (noun, table) = (kind.noun(), kind.table());
    let reach = match kind {
        Kind::Prompt => "list and get it",
        Kind::Resource => "list, read and subscribe to it",
        Kind::Template => "list it and read every URI it names",
    };
    for surface in now {
        let subject = format!("[{table}] {}", surface.key);
        match find(was, &surface.key) {
            None => out.push(Loosened, subject, format!("the {noun} is declared: every session may now {reach}")),
            Some(before) => match (before.definition.as_deref(), surface.definition.as_deref()) {
                (Some(a), Some(b)) if a != b => out.push(Verbs, subject, format!("definition changed: {a} → {b}")),
                (Some(a), None) => out.push(
                    Loosened,
                    subject,
                    format!("`definition` no longer pinned (was {a}): whatever the upstream says the {noun} is, it is served"),
                ),
                (None, Some(b)) => out.push(
                    Tightened,
                    subject,
                    format!("`definition` now pinned to {b}: another definition is hidden and refused"),
                ),
                _ => {}
            },
        }
    }
    for surface in was.iter().filter(|s| find(now, &s.key).is_none()) {
        let subject = format!("[{table}] {}", surface.key);
        out.push(Tightened, subject, format!("the {noun} is no longer declared: it is hidden and refused"));
    }
}
