//! Counts kept beside the rows they count, so a reading's numbers are one
//! primary-key lookup each, whatever the size of the store.
//!
//! The store's writers are the only code that inserts rows, and each one
//! calls [`add`] in the same transaction as the insert, so a count can never
//! disagree with its table (a test checks every count against `count(*)`).

use super::db::{Db, DbError, args};
use super::sql;
use super::state::{BlockStatus, Counts, Phase};

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
pub fn add(db: Db<'_>, name: &str, delta: i64) -> Result<(), DbError> {
    db.execute(sql::TALLY_ADD, args![name, delta]).map(drop)
}

/// Every count, read in one statement.
pub struct Tallies(Vec<(String, u64)>);

impl Tallies {
    pub(super) fn read(db: Db<'_>) -> Result<Self, DbError> {
        let rows = db
            .rows(sql::TALLIES, args![], |r| Ok((r.get::<String>(0)?, u64::try_from(r.get::<i64>(1)?).unwrap_or(0))))?;
        Ok(Self(rows))
    }

    /// The count `name` (0 if nothing was ever counted), as [`get`] reads it.
    pub fn get(&self, name: &str) -> u64 {
        self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)).map_or(0, |i| self.0[i].1)
    }
}

impl Counts {
    /// How much of each kind the store holds, from its counts.
    pub fn from_tallies(tallies: &Tallies, checkpoints: u64) -> Self {
        let n = |name: &str| usize::try_from(tallies.get(name)).unwrap_or(usize::MAX);
        let blocks = [BlockStatus::Fresh, BlockStatus::Stale, BlockStatus::Candidate];
        Counts {
            missions: n(MISSIONS),
            blocks: blocks.into_iter().map(|s| n(&status(s))).sum(),
            memories: n(MEMORIES),
            alerts: n(ALERTS),
            modules: n(MODULES),
            drift: n(DRIFT),
            presences: n(PRESENCES),
            checkpoints,
        }
    }
}

/// The count `name` (0 if nothing was ever counted).
pub fn get(db: Db<'_>, name: &str) -> Result<u64, DbError> {
    let n: Option<i64> = db.row(sql::TALLY, args![name], |r| r.get(0))?;
    Ok(n.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
}
