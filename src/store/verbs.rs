//! The verbs this store implements: one table, each name written once.
//!
//! [`VERBS`] is the only place a store verb is named. The store's reads look a
//! verb up here to know what to compute, and the server builds its registry
//! (what `tools/list` offers, what `tools/call` dispatches to) on top of it, so
//! implementing a verb and serving it cannot drift apart. Whether a verb may
//! write is said here too (`Op::Write`); tests tie that to the compiled deny
//! list, so a writing verb can never be reached by a read-only session.

use super::reads::{Kind, Plain};

/// What the store does for a verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Answered from the state held in memory; never writes.
    Read(Read),
    /// May write `state.json` (for `persist`, depending on its action).
    Write(Write),
}

/// A read verb; what it computes is the store's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read(pub(super) Kind);

/// A write verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    Memorize,
    Persist,
}

impl Op {
    /// Whether some call of the verb may write.
    pub const fn writes(self) -> bool {
        matches!(self, Op::Write(_))
    }
}

/// Every verb this store implements.
pub const VERBS: &[(&str, Op)] = &[
    ("north", plain(Plain::North)),
    ("system_blocks_snapshot", plain(Plain::Blocks)),
    ("orient", plain(Plain::Orient)),
    ("doctor", plain(Plain::Doctor)),
    ("trust", plain(Plain::Trust)),
    ("boot_memory", plain(Plain::Memories)),
    ("drift", plain(Plain::Drift)),
    ("panoramic", plain(Plain::Presences)),
    ("impact", Op::Read(Read(Kind::Impact))),
    ("why", Op::Read(Read(Kind::Why))),
    ("trace", Op::Read(Read(Kind::Trace))),
    ("memorize", Op::Write(Write::Memorize)),
    ("persist", Op::Write(Write::Persist)),
];

const fn plain(plain: Plain) -> Op {
    Op::Read(Read(Kind::Plain(plain)))
}

/// What the store does for `verb` (canonical), if it implements it.
pub fn op(verb: &str) -> Option<Op> {
    VERBS.iter().find(|(name, _)| *name == verb).map(|&(_, op)| op)
}

/// Whether this store implements `verb` (a read or a write).
pub fn serves(verb: &str) -> bool {
    op(verb).is_some()
}

/// The read verbs, in table order.
pub fn reads() -> impl Iterator<Item = &'static str> {
    VERBS.iter().filter(|(_, op)| !op.writes()).map(|&(name, _)| name)
}

/// The write verbs, in table order.
pub fn writes() -> impl Iterator<Item = &'static str> {
    VERBS.iter().filter(|(_, op)| op.writes()).map(|&(name, _)| name)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::COCKPIT;

    #[test]
    fn each_name_once() {
        let names: HashSet<&str> = VERBS.iter().map(|&(name, _)| name).collect();
        assert_eq!(names.len(), VERBS.len());
        assert_eq!(reads().count() + writes().count(), VERBS.len());
        assert!(serves("north") && serves("memorize") && !serves("cockpit") && !serves("apply"));
    }

    /// Every store verb is a live verb of the compiled table, and the deny
    /// list agrees with the table above about which ones write.
    #[test]
    fn verbs_agree_with_the_compiled_table() {
        for &(name, op) in VERBS {
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is implemented but not in tools.toml"));
            assert!(!verb.retired, "`{name}` is retired");
            assert_eq!(&*verb.name, name, "`{name}` is not the canonical name");
            let denied = COCKPIT.deny.denies(name) || COCKPIT.deny.status_only(name).is_some();
            if op.writes() {
                assert!(denied, "`{name}` writes but a read-only session could call it");
            } else {
                assert!(!denied, "`{name}` only reads but the deny list keeps it from read-only sessions");
            }
        }
    }
}
