//! One loader from a [`State`] (a `state.json`, or the demo seed) into a new
//! store's tables: `m1nd init --demo` and `m1nd store import` both use it.
//!
//! It also computes the columns the cockpit orders by, and the tallies; the
//! rules for them live here and nowhere else.

use super::db::{Arg, Db, DbError, args, stored_bytes};
use super::state::{BlockStatus, Phase, State};
use super::{sql, tally};

/// Insert everything `state` holds into an empty store, with its
/// `store_version` and checkpoint count, and record `max_bytes`. Returns
/// the bytes the rows store, as a size cap without pages counts them
/// (`frame.rs`).
pub fn load(db: Db<'_>, state: &State, max_bytes: u64) -> Result<u64, DbError> {
    let mut stored = 0_u64;
    let mut put = |sql: &'static str, args: &[&dyn Arg]| -> Result<(), DbError> {
        db.execute(sql, args)?;
        stored = stored.saturating_add(stored_bytes(args));
        Ok(())
    };
    let store_row = match db {
        Db::Sqlite(_) => sql::INSERT_STORE,
        Db::Postgres(_) => sql::PG_INSERT_STORE,
    };
    db.execute(store_row, args![clamp(state.store_version), clamp(state.checkpoints), clamp(max_bytes)])?;
    for m in &state.missions {
        put(sql::LOAD_MISSION, args![m.id, m.title, m.phase.as_str(), m.agent, board(m.phase)])?;
        tally::add(db, tally::MISSIONS, 1)?;
        tally::add(db, &tally::phase(m.phase), 1)?;
    }
    for b in &state.blocks {
        put(sql::LOAD_BLOCK, args![b.id, b.title, b.status.as_str(), b.receipt, b.hash, b.node, urgency(b.status)])?;
        tally::add(db, &tally::status(b.status), 1)?;
    }
    for m in &state.memories {
        put(sql::LOAD_MEMORY, args![m.id, m.claim, m.source, m.at])?;
        tally::add(db, tally::MEMORIES, 1)?;
    }
    for a in &state.alerts {
        put(sql::LOAD_ALERT, args![a.id, a.level, a.text, a.node, severity(&a.level)])?;
        tally::add(db, tally::ALERTS, 1)?;
    }
    for m in &state.modules {
        // Validation guarantees scores parse; an unparsable one sorts first
        // and counts as low rather than hiding a bad module.
        let score = m.score_value().unwrap_or(0.0);
        put(sql::LOAD_MODULE, args![m.id, m.score, m.defects, score])?;
        tally::add(db, tally::MODULES, 1)?;
        if score < tally::LOW_TRUST {
            tally::add(db, tally::LOW_MODULES, 1)?;
        }
    }
    for d in &state.drift {
        put(sql::LOAD_DRIFT, args![d.id, d.evidence, d.cause])?;
        tally::add(db, tally::DRIFT, 1)?;
    }
    for p in &state.presences {
        put(sql::LOAD_PRESENCE, args![p.id, p.doing, p.since])?;
        tally::add(db, tally::PRESENCES, 1)?;
    }
    Ok(stored)
}

/// SQLite integers are signed; `Store::create` refuses versions past
/// `i64::MAX`, and a size limit past it means no limit.
fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The mission board's order: waiting for the human first, then the rest of
/// the open missions; finished ones are not on the board (`None`).
fn board(phase: Phase) -> Option<i64> {
    match phase {
        Phase::MergeWait => Some(0),
        _ if phase.open() => Some(1),
        _ => None,
    }
}

/// Most in need of the human first: stale receipts, then unratified candidates.
fn urgency(status: BlockStatus) -> i64 {
    match status {
        BlockStatus::Stale => 0,
        BlockStatus::Candidate => 1,
        BlockStatus::Fresh => 2,
    }
}

/// Sort rank of an alert level: most severe first, unknown levels last.
fn severity(level: &str) -> i64 {
    match level.trim().to_ascii_lowercase().as_str() {
        "critical" | "fatal" => 0,
        "error" => 1,
        "warn" | "warning" => 2,
        "info" | "notice" => 3,
        _ => 4,
    }
}
