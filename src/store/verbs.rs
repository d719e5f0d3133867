//! The verbs this store implements: one table, each name written once.
//!
//! [`VERBS`] is the only place a store verb is named. The server builds its
//! registry (what `tools/list` offers, what `tools/call` dispatches to) on top
//! of it and hands the [`Read`] or [`Write`] found here straight to the store,
//! so implementing a verb and serving it cannot drift apart, and a call's verb
//! is looked up by name once. Whether a verb may write is said here too
//! (`Op::Write`); tests tie that to the compiled deny list, so a writing verb
//! can never be reached by a read-only session.

use std::sync::LazyLock;

use m1nd_policy::{Facet, ReadVerb, VerbId};

/// What the store does for a verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Answered from one read transaction; never writes.
    Read(Read),
    /// May write (for `persist`, depending on its action).
    Write(Write),
}

/// A read verb: what it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    North,
    Blocks,
    Orient,
    Doctor,
    Trust,
    Memories,
    Drift,
    Presences,
    Impact,
    Why,
    Trace,
}

impl Read {
    /// How many reads there are (for tables indexed by `Read as usize`).
    pub const COUNT: usize = 11;

    /// Whether the answer depends on the state alone, not on an argument.
    pub const fn plain(self) -> bool {
        !matches!(self, Read::Impact | Read::Why | Read::Trace)
    }

    /// The verb's name, as [`VERBS`] spells it.
    pub fn name(self) -> &'static str {
        name(self)
    }
}

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
    ("north", Op::Read(Read::North)),
    ("system_blocks_snapshot", Op::Read(Read::Blocks)),
    ("orient", Op::Read(Read::Orient)),
    ("doctor", Op::Read(Read::Doctor)),
    ("trust", Op::Read(Read::Trust)),
    ("boot_memory", Op::Read(Read::Memories)),
    ("drift", Op::Read(Read::Drift)),
    ("panoramic", Op::Read(Read::Presences)),
    ("impact", Op::Read(Read::Impact)),
    ("why", Op::Read(Read::Why)),
    ("trace", Op::Read(Read::Trace)),
    ("memorize", Op::Write(Write::Memorize)),
    ("persist", Op::Write(Write::Persist)),
];

/// What the store does for `verb` (canonical), if it implements it.
pub fn op(verb: &str) -> Option<Op> {
    VERBS.iter().find(|(name, _)| *name == verb).map(|&(_, op)| op)
}

/// The read of each table verb, by its handle: found by name once, from
/// [`VERBS`] and the compiled table.
static READS: LazyLock<Vec<Option<Read>>> = LazyLock::new(|| {
    crate::COCKPIT
        .verbs
        .iter()
        .map(|v| match op(&v.name) {
            Some(Op::Read(read)) => Some(read),
            _ => None,
        })
        .collect()
});

/// The read a verb handle of the compiled table names, if the store serves it.
pub fn read_at(id: VerbId) -> Option<Read> {
    READS.get(id.index()).copied().flatten()
}

/// The read behind one of the table's reads: a store verb, found by its
/// handle, or the cockpit's own read of a slot (`cockpit` pinned to
/// `select = "N"`, the door sources of the bell and the mission board),
/// found by that slot's facet. The catalog calls the cockpit a plain read
/// (`query.read`), so the menu reaches the mission box without north's or
/// orient's bookkeeping writes; the store answers it with the same read.
pub fn read_of(read: &ReadVerb) -> Option<Read> {
    if let Some(op) = read_at(read.verb_id()).filter(|op| op.name() == read.verb()) {
        return Some(op);
    }
    if read.verb() != COCKPIT_VERB {
        return None;
    }
    let select = read.arguments().iter().find(|a| a.name == "select")?;
    match crate::COCKPIT.slot(select.value.parse().ok()?)?.facet {
        Facet::Tray => Some(Read::North),
        Facet::Missions => Some(Read::Orient),
        _ => None,
    }
}

/// The menu's own verb, answered by the server (`service::dispatch::OWN`),
/// never served by the store as a verb of its own.
pub const COCKPIT_VERB: &str = "cockpit";

/// The name of a read, as [`VERBS`] spells it.
pub fn name(read: Read) -> &'static str {
    VERBS.iter().find(|(_, op)| *op == Op::Read(read)).map_or("?", |&(name, _)| name)
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
        assert_eq!(reads().count(), Read::COUNT);
        assert!(serves("north") && serves("memorize") && !serves("cockpit") && !serves("apply"));
        for &(verb, op) in VERBS {
            if let Op::Read(read) = op {
                assert_eq!(name(read), verb);
                assert!((read as usize) < Read::COUNT);
            }
        }
    }

    /// Every store verb is a live verb of the compiled table, and the deny
    /// list agrees with the table above about which ones write.
    #[test]
    fn verbs_agree_with_the_compiled_table() {
        for &(name, op) in VERBS {
            let verb = COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is implemented but not in tools.toml"));
            assert!(!verb.retired, "`{name}` is retired");
            assert_eq!(&*verb.name, name, "`{name}` is not the canonical name");
            if op.writes() {
                let kept = COCKPIT.deny.denies(name) || COCKPIT.deny.status_only(name).is_some();
                assert!(kept, "`{name}` writes but a read-only session could call it");
            } else {
                // A read may be status-only (upstream routes other values to writes), never denied.
                assert!(
                    !COCKPIT.deny.denies(name),
                    "`{name}` only reads but the deny list keeps it from read-only sessions"
                );
            }
            // A read that answers from its arguments requires them; a reading
            // kept per state may require only what upstream requires and this
            // store does not read (north's and orient's `task`), or what it
            // admits before reading (boot_memory's `action`, list only).
            if let Op::Read(read) = op {
                let ignored = |r: &str| matches!((name, r), ("north" | "orient", "task") | ("boot_memory", "action"));
                if read.plain() {
                    assert!(
                        verb.requires.iter().all(|r| ignored(r)),
                        "`{name}` is kept per state but requires {:?}",
                        verb.requires
                    );
                } else {
                    assert!(!verb.requires.is_empty(), "`{name}` reads its arguments but requires none");
                }
            }
        }
    }
}
