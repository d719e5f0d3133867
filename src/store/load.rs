//! One loader from a [`State`] (a `state.json`, or the demo seed) into a new
//! store's tables: `m1nd init --demo` and `m1nd store import` both use it.
//!
//! It also computes the columns the cockpit orders by, and the tallies; the
//! rules for them live here and nowhere else.

use rusqlite::{Connection, params};

use super::state::{BlockStatus, Phase, State};
use super::{sql, tally};

/// Insert everything `state` holds into an empty store, with its
/// `store_version` and checkpoint count, and record `max_bytes`.
pub fn load(conn: &Connection, state: &State, max_bytes: u64) -> rusqlite::Result<()> {
    conn.execute(sql::INSERT_STORE, params![clamp(state.store_version), clamp(state.checkpoints), clamp(max_bytes)])?;
    for m in &state.missions {
        conn.prepare_cached(sql::LOAD_MISSION)?.execute(params![
            m.id,
            m.title,
            m.phase.as_str(),
            m.agent,
            board(m.phase)
        ])?;
        tally::add(conn, tally::MISSIONS, 1)?;
        tally::add(conn, &tally::phase(m.phase), 1)?;
    }
    for b in &state.blocks {
        conn.prepare_cached(sql::LOAD_BLOCK)?.execute(params![
            b.id,
            b.title,
            b.status.as_str(),
            b.receipt,
            b.hash,
            b.node,
            urgency(b.status)
        ])?;
        tally::add(conn, &tally::status(b.status), 1)?;
    }
    for m in &state.memories {
        conn.prepare_cached(sql::LOAD_MEMORY)?.execute(params![m.id, m.claim, m.source, m.at])?;
        tally::add(conn, tally::MEMORIES, 1)?;
    }
    for a in &state.alerts {
        conn.prepare_cached(sql::LOAD_ALERT)?.execute(params![a.id, a.level, a.text, a.node, severity(&a.level)])?;
        tally::add(conn, tally::ALERTS, 1)?;
    }
    for m in &state.modules {
        // Validation guarantees scores parse; an unparsable one sorts first
        // and counts as low rather than hiding a bad module.
        let score = m.score_value().unwrap_or(0.0);
        conn.prepare_cached(sql::LOAD_MODULE)?.execute(params![m.id, m.score, m.defects, score])?;
        tally::add(conn, tally::MODULES, 1)?;
        if score < tally::LOW_TRUST {
            tally::add(conn, tally::LOW_MODULES, 1)?;
        }
    }
    for d in &state.drift {
        conn.prepare_cached(sql::LOAD_DRIFT)?.execute(params![d.id, d.evidence, d.cause])?;
        tally::add(conn, tally::DRIFT, 1)?;
    }
    for p in &state.presences {
        conn.prepare_cached(sql::LOAD_PRESENCE)?.execute(params![p.id, p.doing, p.since])?;
        tally::add(conn, tally::PRESENCES, 1)?;
    }
    Ok(())
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
