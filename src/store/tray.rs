//! The tray's reads and its one write: the human's stamp.
//!
//! # The invariant
//!
//! A stamp lands exactly what the human saw, once. The page shows each
//! waiting mission with its receipt hash (blake3 over the mission's record:
//! id, title, phase and agent); a stamp names the mission, that hash and the
//! page's `store_version`. It lands only if, inside the write transaction,
//! the mission still waits in `merge_wait` and its record still hashes to
//! the hash the human saw. Anything else moving in the store does not matter.
//! A mission lands once (the `stamps` table's `mission` is unique): a second
//! stamp of the same mission and receipt, from a double click or a second
//! person, is told it was already stamped and writes nothing.
//!
//! The judgement is made on one read transaction at version V, and the write
//! commits only at V (the store's optimistic concurrency): if any writer came
//! between, the stamp is judged again on the new state, a bounded number of
//! times. So two people stamping at once get one stamp and one "already".

use rusqlite::{OptionalExtension, Transaction, params};

use super::error::StoreError;
use super::state::{BlockStatus, Phase};
use super::{Store, clock, tally};

/// How many waiting missions and candidate blocks the tray lists.
pub const TRAY_LISTED: usize = 50;

/// How many times a stamp is judged again when other writes keep landing
/// between its judgement and its commit.
const ATTEMPTS: usize = 8;

/// A receipt hash: 64 lowercase hex digits.
pub const RECEIPT_HASH_LEN: usize = 64;

/// A mission waiting for the human's stamp, with its receipt.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WaitingMission {
    pub id: String,
    pub title: String,
    pub agent: String,
    pub phase: &'static str,
    pub receipt_hash: String,
}

/// A candidate block waiting for ratification.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CandidateBlock {
    pub id: String,
    pub title: String,
    pub receipt: String,
    pub hash: String,
    pub node: String,
}

/// What the tray shows, read in one transaction.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TrayState {
    pub store_version: u64,
    /// How many missions wait (the list holds at most [`TRAY_LISTED`]).
    pub waiting: u64,
    pub missions: Vec<WaitingMission>,
    /// How many candidate blocks wait (the list holds at most [`TRAY_LISTED`]).
    pub candidate_count: u64,
    pub candidates: Vec<CandidateBlock>,
}

/// A stamp that went through, or had already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stamped {
    /// This stamp landed the mission at `store_version`.
    Now { store_version: u64 },
    /// The same mission and receipt were stamped before, at `store_version`.
    Already { store_version: u64, at: String },
}

/// Why a stamp was refused. Nothing was written.
#[derive(Debug)]
pub enum StampRefused {
    /// No mission has this id.
    UnknownMission,
    /// The mission is not waiting for a stamp (it landed, failed, or is still in flight).
    NotWaiting { phase: &'static str },
    /// The mission changed since the page showed it: its receipt hash is now `now`.
    StateMoved { now: String },
    /// The page claims a store_version the store has not reached.
    FutureVersion { seen: u64, actual: u64 },
    /// The store refused (busy, full, moved, I/O).
    Store(StoreError),
}

impl std::fmt::Display for StampRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StampRefused::UnknownMission => f.write_str("no mission has this id; nothing was stamped"),
            StampRefused::NotWaiting { phase: "landed" } => {
                f.write_str("the mission has already landed; nothing was stamped")
            }
            StampRefused::NotWaiting { phase } => {
                write!(f, "the mission is in `{phase}`, not waiting for a stamp in merge_wait; nothing was stamped")
            }
            StampRefused::StateMoved { .. } => f.write_str(
                "state moved: the mission changed since the page showed it; read its new receipt before stamping",
            ),
            StampRefused::FutureVersion { seen, actual } => {
                write!(f, "the page names store_version {seen}, but the store is at {actual}; reload the tray")
            }
            StampRefused::Store(e) => write!(f, "the store refused the stamp: {e}"),
        }
    }
}

/// blake3 over a mission's record, length-prefixed so no two records share bytes.
pub fn receipt_hash(id: &str, title: &str, phase: &str, agent: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"m1nd-mission-receipt-v1");
    for part in [id, title, phase, agent] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

/// What the judgement decided on one state.
enum Judged {
    Go { version: u64 },
    Already(Stamped),
}

impl Store {
    /// The tray: waiting missions with their receipts, and candidate blocks.
    /// One read transaction; writes nothing.
    pub fn tray(&self) -> Result<TrayState, StoreError> {
        let fail = |e: rusqlite::Error| StoreError::sql(&self.path, "read", &e);
        let tx = self.conn.unchecked_transaction().map_err(fail)?;
        let store_version = current_version(&tx).map_err(fail)?;
        let limit = TRAY_LISTED as i64;
        let missions = tx
            .prepare_cached("SELECT id, title, agent FROM missions WHERE board = 0 ORDER BY board, seq LIMIT ?1")
            .and_then(|mut s| {
                s.query_map([limit], |r| {
                    let (id, title, agent): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
                    let phase = Phase::MergeWait.as_str();
                    let receipt_hash = receipt_hash(&id, &title, phase, &agent);
                    Ok(WaitingMission { id, title, agent, phase, receipt_hash })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        let candidates = tx
            .prepare_cached(
                "SELECT id, title, receipt, hash, node FROM blocks WHERE urgency = 1 AND status = ?1 \
                 ORDER BY urgency, seq LIMIT ?2",
            )
            .and_then(|mut s| {
                s.query_map(params![BlockStatus::Candidate.as_str(), limit], |r| {
                    Ok(CandidateBlock {
                        id: r.get(0)?,
                        title: r.get(1)?,
                        receipt: r.get(2)?,
                        hash: r.get(3)?,
                        node: r.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        let waiting = tally::get(&tx, &tally::phase(Phase::MergeWait)).map_err(fail)?;
        let candidate_count = tally::get(&tx, &tally::status(BlockStatus::Candidate)).map_err(fail)?;
        Ok(TrayState { store_version, waiting, missions, candidate_count, candidates })
    }

    /// Stamp `mission`, which the human saw with `receipt` at `seen_version`:
    /// it lands (merge_wait → landed) and the stamp is recorded, in one write.
    pub fn stamp(&mut self, mission: &str, receipt: &str, seen_version: u64) -> Result<Stamped, StampRefused> {
        for _ in 0..ATTEMPTS {
            let version = match self.judge(mission, receipt, seen_version)? {
                Judged::Already(stamped) => return Ok(stamped),
                Judged::Go { version } => version,
            };
            let landed = self.commit(Some(version), None, |tx, now| land(tx, mission, receipt, seen_version, now));
            match landed {
                Ok(store_version) => return Ok(Stamped::Now { store_version }),
                // Someone wrote between the judgement and the commit: judge again.
                Err(StoreError::Conflict { .. }) => continue,
                Err(e) => return Err(StampRefused::Store(e)),
            }
        }
        Err(StampRefused::Store(StoreError::Busy { path: self.path.clone() }))
    }

    /// Decide on one consistent state whether the stamp may land.
    fn judge(&self, mission: &str, receipt: &str, seen_version: u64) -> Result<Judged, StampRefused> {
        let fail = |e: rusqlite::Error| StampRefused::Store(StoreError::sql(&self.path, "read", &e));
        let tx = self.conn.unchecked_transaction().map_err(fail)?;
        let version = current_version(&tx).map_err(fail)?;
        let row: Option<(String, String, String)> = tx
            .prepare_cached("SELECT title, phase, agent FROM missions WHERE id = ?1")
            .and_then(|mut s| s.query_row([mission], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional())
            .map_err(fail)?;
        let Some((title, phase, agent)) = row else { return Err(StampRefused::UnknownMission) };
        let earlier: Option<(String, i64, String)> = tx
            .prepare_cached("SELECT receipt_hash, store_version, at FROM stamps WHERE mission = ?1")
            .and_then(|mut s| s.query_row([mission], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional())
            .map_err(fail)?;
        if let Some((hash, store_version, at)) = earlier {
            if constant_time_eq::constant_time_eq(hash.as_bytes(), receipt.as_bytes()) {
                let store_version = u64::try_from(store_version).unwrap_or(0);
                return Ok(Judged::Already(Stamped::Already { store_version, at }));
            }
            return Err(StampRefused::NotWaiting { phase: Phase::Landed.as_str() });
        }
        if seen_version > version {
            return Err(StampRefused::FutureVersion { seen: seen_version, actual: version });
        }
        let phase = Phase::ALL.into_iter().find(|p| p.as_str() == phase).map_or("unknown", Phase::as_str);
        if phase != Phase::MergeWait.as_str() {
            return Err(StampRefused::NotWaiting { phase });
        }
        let now = receipt_hash(mission, &title, phase, &agent);
        if now != receipt {
            return Err(StampRefused::StateMoved { now });
        }
        Ok(Judged::Go { version })
    }
}

/// The write itself: the mission lands, the board and tallies follow, the stamp is kept.
fn land(tx: &Transaction<'_>, mission: &str, receipt: &str, seen: u64, version: u64) -> rusqlite::Result<()> {
    let changed = tx
        .prepare_cached("UPDATE missions SET phase = ?2, board = NULL WHERE id = ?1 AND phase = ?3")?
        .execute(params![mission, Phase::Landed.as_str(), Phase::MergeWait.as_str()])?;
    if changed != 1 {
        // The judgement and the commit saw the same version, so this cannot
        // happen; if it did, roll back rather than record a stamp that did nothing.
        return Err(rusqlite::Error::QueryReturnedNoRows);
    }
    // `tally::add` inserts before it updates, and the table's CHECK refuses a
    // negative insert, so a count that falls is updated in place.
    tx.prepare_cached("UPDATE tallies SET n = n - 1 WHERE name = ?1")?.execute([tally::phase(Phase::MergeWait)])?;
    tally::add(tx, &tally::phase(Phase::Landed), 1)?;
    tx.prepare_cached(
        "INSERT INTO stamps (mission, receipt_hash, seen_version, store_version, at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![mission, receipt, seen as i64, version as i64, clock::now_utc()])
    .map(drop)
}

fn current_version(tx: &Transaction<'_>) -> rusqlite::Result<u64> {
    let v: i64 = tx.prepare_cached("SELECT store_version FROM store WHERE one = 1")?.query_row([], |r| r.get(0))?;
    Ok(u64::try_from(v).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::super::test_dir::test_dir;
    use super::*;

    fn files(store: &Store) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(store.dir())
            .expect("list")
            .map(|e| {
                let e = e.expect("entry");
                (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).expect("read"))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_stamp_lands_once_and_a_second_is_told() {
        let dir = test_dir("tray-stamp");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        assert!(tray.waiting >= 1 && tray.missions.len() as u64 == tray.waiting.min(TRAY_LISTED as u64));
        let first = tray.missions[0].clone();
        let stamped = store.stamp(&first.id, &first.receipt_hash, tray.store_version).expect("stamp");
        assert_eq!(stamped, Stamped::Now { store_version: tray.store_version + 1 });
        let before = files(&store);
        let again = store.stamp(&first.id, &first.receipt_hash, tray.store_version).expect("again");
        assert!(matches!(again, Stamped::Already { store_version, .. } if store_version == tray.store_version + 1));
        assert_eq!(files(&store), before, "a second stamp wrote");
        let after = store.tray().expect("tray");
        assert_eq!(after.waiting, tray.waiting - 1);
        assert!(!after.missions.iter().any(|m| m.id == first.id));
    }

    #[test]
    fn refusals_write_nothing() {
        let dir = test_dir("tray-refused");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        let m = tray.missions[0].clone();
        let before = files(&store);
        let wrong = "0".repeat(RECEIPT_HASH_LEN);
        for (mission, receipt, seen) in [
            ("no-such-mission", m.receipt_hash.as_str(), tray.store_version),
            (m.id.as_str(), wrong.as_str(), tray.store_version),
            (m.id.as_str(), m.receipt_hash.as_str(), tray.store_version + 5),
        ] {
            assert!(store.stamp(mission, receipt, seen).is_err(), "{mission} {receipt} {seen}");
        }
        assert_eq!(files(&store), before);
    }

    #[test]
    fn unrelated_writes_do_not_stop_a_stamp_but_a_changed_mission_does() {
        let dir = test_dir("tray-fresh");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        let (a, b) = (tray.missions[0].clone(), tray.missions[1].clone());
        store.memorize("unrelated", "test", None, None).expect("memorize");
        assert!(matches!(store.stamp(&a.id, &a.receipt_hash, tray.store_version), Ok(Stamped::Now { .. })));
        store
            .commit(None, None, |tx, _| {
                tx.execute("UPDATE missions SET title = 'changed' WHERE id = ?1", [&b.id]).map(drop)
            })
            .expect("change b");
        let before = files(&store);
        let refused = store.stamp(&b.id, &b.receipt_hash, tray.store_version).expect_err("stale");
        assert!(matches!(&refused, StampRefused::StateMoved { .. }), "{refused}");
        assert!(refused.to_string().starts_with("state moved"));
        assert_eq!(files(&store), before);
    }

    #[test]
    fn a_landed_or_unwaiting_mission_is_refused() {
        let dir = test_dir("tray-phase");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tx = store.conn.unchecked_transaction().expect("tx");
        let (id, title, phase, agent): (String, String, String, String) = tx
            .query_row("SELECT id, title, phase, agent FROM missions WHERE phase != 'merge_wait' LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .expect("a mission not waiting");
        drop(tx);
        let hash = receipt_hash(&id, &title, &phase, &agent);
        let refused = store.stamp(&id, &hash, 1).expect_err("not waiting");
        assert!(matches!(refused, StampRefused::NotWaiting { .. }), "{refused}");
    }
}
