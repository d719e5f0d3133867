//! Counts kept beside the rows they count, so a reading's numbers are one
//! primary-key lookup each, whatever the size of the store.
//!
//! The store's writers are the only code that inserts rows, and each one
//! calls [`add`] in the same transaction as the insert, so a count can never
//! disagree with its table (a test checks every count against `count(*)`).

use rusqlite::{Connection, OptionalExtension, params};

use super::state::{BlockStatus, Phase};

/// Below this a module's trust is low.
pub const LOW_TRUST: f64 = 0.5;

pub const MISSIONS: &str = "missions";
pub const MEMORIES: &str = "memories";
pub const ALERTS: &str = "alerts";
pub const MODULES: &str = "modules";
pub const LOW_MODULES: &str = "modules.low";
pub const DRIFT: &str = "drift";
pub const PRESENCES: &str = "presences";

/// The count of missions in `phase`.
pub fn phase(phase: Phase) -> String {
    format!("missions.{}", phase.as_str())
}

/// The count of blocks with `status`.
pub fn status(status: BlockStatus) -> String {
    format!("blocks.{}", status.as_str())
}

/// Add `delta` to the count `name`.
pub fn add(conn: &Connection, name: &str, delta: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO tallies (name, n) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET n = n + ?2")?
        .execute(params![name, delta])
        .map(drop)
}

/// The count `name` (0 if nothing was ever counted).
pub fn get(conn: &Connection, name: &str) -> rusqlite::Result<u64> {
    let n: Option<i64> =
        conn.prepare_cached("SELECT n FROM tallies WHERE name = ?1")?.query_row([name], |r| r.get(0)).optional()?;
    Ok(n.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
}
