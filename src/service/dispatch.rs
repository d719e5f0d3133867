//! What answers each verb this server serves, found by the verb's handle.
//!
//! [`registry`] is the one list of served verbs, each with what answers it:
//! [`OWN`] (the verbs the service answers itself) followed by the store's
//! [`store::VERBS`]; every name is written exactly once, in one of the two.
//! From it, [`handler`] is a table indexed by [`VerbId`], built once from
//! the compiled table when first used, so a call's handler is found from
//! the guard's handle without looking the name up again. `tools/list`,
//! `help`, the served-verb check and dispatch all read it, and tests tie it
//! to the compiled table: every served verb is a live table verb, every verb
//! that may write is kept from read-only sessions by the deny list, and no
//! verb that only reads is.

use std::sync::LazyLock;

use m1nd_policy::{Verb, VerbId};

use crate::COCKPIT;
use crate::store::{self, Op};

/// What answers a served verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// The cockpit card, composed over the store.
    Cockpit,
    /// The overview cards this session may call.
    Help,
    /// One of the store's reads or writes.
    Store(Op),
}

impl Handler {
    /// Whether some call of the verb may write: only the store's writes do.
    pub const fn writes(self) -> bool {
        matches!(self, Handler::Store(op) if op.writes())
    }
}

/// The verbs this server answers itself, without the store's help.
pub const OWN: &[(&str, Handler)] = &[(store::verbs::COCKPIT_VERB, Handler::Cockpit), ("help", Handler::Help)];

/// Every verb this server implements (canonical names), with what answers it.
pub fn registry() -> impl Iterator<Item = (&'static str, Handler)> {
    OWN.iter().copied().chain(store::VERBS.iter().map(|&(name, op)| (name, Handler::Store(op))))
}

/// The handler of each table verb, by its handle: found by name once.
static BY_ID: LazyLock<Vec<Option<Handler>>> = LazyLock::new(|| {
    COCKPIT.verbs.iter().map(|v| registry().find(|&(name, _)| name == v.name).map(|(_, handler)| handler)).collect()
});

/// What answers a verb the guard resolved, if this server implements it.
pub fn handler(id: VerbId) -> Option<Handler> {
    BY_ID.get(id.index()).copied().flatten()
}

/// Every verb this server implements, in table order. Only names the table
/// defines can come out of here.
pub fn served_verbs() -> impl Iterator<Item = &'static Verb> {
    COCKPIT.verbs_with_ids().filter(|(id, v)| !v.retired && handler(*id).is_some()).map(|(_, v)| v)
}

/// Whether this server implements `verb` (canonical), for tests and `help`.
pub fn served(verb: &str) -> bool {
    COCKPIT.verb_id(verb).and_then(handler).is_some()
}

#[cfg(test)]
mod tests {
    use m1nd_policy::guard::{Guard, Refused};
    use rmcp::model::JsonObject;
    use serde_json::Value;

    use super::*;

    #[test]
    fn every_served_verb_is_a_live_table_verb_named_once() {
        for (name, _) in registry() {
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is served but not in tools.toml"));
            assert!(!verb.retired, "`{name}` is retired");
            assert_eq!(&*verb.name, name, "`{name}` is not the canonical name");
        }
        let names: std::collections::HashSet<&str> = registry().map(|(name, _)| name).collect();
        assert_eq!(names.len(), registry().count(), "a verb is registered twice");
        assert_eq!(served_verbs().count(), registry().count());
    }

    /// A served verb that may write is on the deny list or status-only, so a
    /// read-only session can never reach its write; a served verb that only
    /// reads is never denied, so read-only sessions keep it (status-only
    /// when upstream routes some of its values to writes, like `boot_memory`).
    #[test]
    fn the_deny_list_covers_exactly_the_served_writes() {
        for (name, handler) in registry() {
            let kept_from_read_only = COCKPIT.deny.denies(name) || COCKPIT.deny.status_only(name).is_some();
            if handler.writes() {
                assert!(kept_from_read_only, "`{name}` writes, but a read-only session may call it freely");
            } else {
                assert!(
                    !COCKPIT.deny.denies(name),
                    "`{name}` only reads, but the deny list keeps it from read-only sessions"
                );
            }
        }
        assert!(registry().any(|(_, h)| h.writes()) && registry().any(|(_, h)| !h.writes()));
    }

    /// M013's half on the server's side: the registry of verbs served over
    /// MCP holds no human-only verb, so none can be registered by hand, and
    /// the guard refuses each one before a handler could be looked up.
    #[test]
    fn no_human_only_verb_is_registered_for_mcp() {
        assert!(!COCKPIT.human_only.verbs.is_empty(), "the policy declares no human-only verb");
        for (name, _) in registry() {
            assert!(!COCKPIT.human_only.contains(name), "`{name}` is the human's alone but registered for MCP");
        }
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            for verb in COCKPIT.human_only.verbs.iter() {
                let table_verb = COCKPIT.verb(verb).expect("a table verb");
                assert!(!guard.shows(table_verb), "`{verb}` is listed");
                assert!(matches!(guard.check(verb, None), Err(Refused::HumanOnly { .. })), "{verb}");
            }
        }
    }

    /// The handler found from the guard's handle is the one registered under
    /// the verb's name, for every table verb, whatever spelling was resolved.
    #[test]
    fn the_guard_resolves_and_the_handler_follows_by_handle() {
        let guard = Guard::new(&COCKPIT, false);
        for verb in COCKPIT.verbs.iter().filter(|v| !v.retired && !COCKPIT.human_only.contains(&v.name)) {
            let resolved = guard.check(&format!(" M1ND.{} ", verb.name.to_uppercase()), None).expect("resolves");
            assert!(std::ptr::eq(resolved.verb, verb));
            let by_name = registry().find(|&(name, _)| name == verb.name).map(|(_, h)| h);
            assert_eq!(handler(resolved.id), by_name, "{}", verb.name);
        }
    }

    /// A read-only guard lets every served read through and refuses every
    /// served write that has no status-only exception.
    #[test]
    fn a_read_only_guard_agrees_with_the_registry() {
        let guard = Guard::new(&COCKPIT, true);
        for (name, handler) in registry() {
            let checked = guard.check(name, Some(&JsonObject::new()));
            match (handler.writes(), COCKPIT.deny.status_only(name)) {
                (false, None) => assert!(checked.is_ok(), "`{name}`: {checked:?}"),
                (true, None) => assert!(checked.is_err(), "`{name}` writes and passed a read-only guard"),
                (_, Some(rule)) => {
                    let pinned = rule.allowed.first().expect("an allowed value");
                    let args = JsonObject::from_iter([(rule.argument.to_string(), Value::from(pinned.to_string()))]);
                    assert!(guard.check(name, Some(&args)).is_ok(), "`{name}` with {args:?}");
                    assert!(checked.is_err(), "`{name}` without its pinned argument passed a read-only guard");
                }
            }
        }
    }
}
