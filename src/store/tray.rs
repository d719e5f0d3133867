//! The tray's reads and its writes: the human's acts, stamping a mission
//! and ratifying a candidate block.
//!
//! # The invariant
//!
//! An act lands exactly what the human saw, once. The page shows each
//! waiting mission and candidate block with a receipt hash (blake3 over its
//! record); an act names the target, that hash and the page's
//! `store_version`. It lands only if, inside the write transaction, the
//! target still waits (a mission in `merge_wait`, a block a `candidate`) and
//! its record still hashes to the hash the human saw. Anything else moving in
//! the store does not matter. A target is acted on once (`human_acts` has
//! one row per act and target): the same act on the same receipt again, from
//! a double click or a second person, is told it already happened and
//! writes nothing.
//!
//! The judgement is made inside the act's own write transaction (a change
//! of a group commit, see `batch.rs`), which holds the store's write lock:
//! nothing can come between the judgement and the commit. So two people
//! acting at once get one act and one "already".

use m1nd_policy::sanitize::{cap, display};

use super::db::{Db, DbError, args};
use super::error::StoreError;
use super::frame::Frame;
use super::state::{BlockStatus, Phase};
use super::{Store, sql, tally};

/// How many waiting missions and candidate blocks the tray lists: the limit
/// written into the tray's listings (`sql::tray_listed!`), read from the
/// same text. Like the reads', their every value is in the SQL, so each is
/// prepared once per connection (see the module doc of `sql.rs`).
pub const TRAY_LISTED: usize = sql::decimal(sql::tray_listed!());

/// A receipt hash: 64 lowercase hex digits.
pub const RECEIPT_HASH_LEN: usize = 64;

/// What the human does on the tray.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// A mission waiting in `merge_wait` lands.
    Stamp,
    /// A candidate block joins the map.
    Ratify,
}

impl Act {
    pub const fn as_str(self) -> &'static str {
        match self {
            Act::Stamp => "stamp",
            Act::Ratify => "ratify",
        }
    }

    const fn what(self) -> &'static str {
        match self {
            Act::Stamp => "mission",
            Act::Ratify => "block",
        }
    }

    const fn done(self) -> &'static str {
        match self {
            Act::Stamp => "stamped",
            Act::Ratify => "ratified",
        }
    }
}

/// A mission waiting for the human's stamp, with its receipt. Its text is
/// shown through the one sanitiser; the receipt hash is over the stored text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WaitingMission {
    pub id: String,
    pub title: String,
    pub agent: String,
    pub phase: &'static str,
    pub receipt_hash: String,
}

/// A candidate block waiting for ratification, with its receipt.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CandidateBlock {
    pub id: String,
    pub title: String,
    pub receipt: String,
    pub hash: String,
    pub node: String,
    pub receipt_hash: String,
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

/// An act that went through, or had already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acted {
    /// This act landed at `store_version`.
    Now { store_version: u64 },
    /// The same act on the same receipt happened before, at `store_version`.
    Already { store_version: u64, at: String },
}

impl Acted {
    /// The version the act landed at, now or before.
    pub fn store_version(&self) -> u64 {
        match self {
            Acted::Now { store_version } | Acted::Already { store_version, .. } => *store_version,
        }
    }
}

/// Why an act was refused. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ActRefused {
    /// No mission (or block) has this id.
    #[error("no {} has this id; nothing was {}", .act.what(), .act.done())]
    Unknown { act: Act },
    /// The target is not waiting for this act; `state` is where it is.
    #[error("{}", not_waiting(*.act, .state))]
    NotWaiting { act: Act, state: &'static str },
    /// The target changed since the page showed it: its receipt hash is now `now`.
    #[error(
        "state moved: the {} changed since the page showed it; read its new receipt first; nothing was {}",
        .act.what(),
        .act.done()
    )]
    StateMoved { act: Act, now: String },
    /// The page claims a store_version the store has not reached.
    #[error("the page names store_version {seen}, but the store is at {actual}; reload the tray")]
    FutureVersion { seen: u64, actual: u64 },
    /// The page claims store_version 0, which no store has.
    #[error("the page names store_version 0, but a store's versions start at 1; reload the tray")]
    VersionZero,
    /// The store refused (busy, full, moved, I/O).
    #[error("the store refused: {0}")]
    Store(StoreError),
}

fn not_waiting(act: Act, state: &str) -> String {
    match (act, state) {
        (Act::Stamp, "landed") => "the mission has already landed; nothing was stamped".to_owned(),
        (Act::Stamp, state) => {
            format!("the mission is in `{state}`, not waiting for a stamp in merge_wait; nothing was stamped")
        }
        (Act::Ratify, state) => {
            format!("the block is `{state}`, not a candidate waiting for ratification; nothing was ratified")
        }
    }
}

/// blake3 over a record's fields, tagged and length-prefixed so no two
/// records (or kinds of record) share bytes.
fn record_hash(tag: &str, parts: &[&str]) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(tag.as_bytes());
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

/// A mission's receipt hash: its id, title, phase and agent.
pub fn receipt_hash(id: &str, title: &str, phase: &str, agent: &str) -> String {
    record_hash("m1nd-mission-receipt-v1", &[id, title, phase, agent])
}

/// A block's receipt hash: its id, title, status, receipt, hash and node.
pub fn block_receipt_hash(b: &CandidateBlock, status: &str) -> String {
    record_hash("m1nd-block-receipt-v1", &[&b.id, &b.title, status, &b.receipt, &b.hash, &b.node])
}

/// A target as it is now: whether it waits for the act, where it is, its hash.
struct Target {
    waiting: bool,
    state: &'static str,
    hash: String,
}

/// What the judgement decided on one state.
pub(super) enum Judged {
    Go,
    Already(Acted),
}

impl Store {
    /// The tray: waiting missions and candidate blocks with their receipts.
    /// One read transaction; writes nothing.
    pub fn tray(&self) -> Result<TrayState, StoreError> {
        let snapshot = self.snapshot()?;
        let (db, store_version) = (snapshot.db(), snapshot.version());
        let fail = |e: DbError| StoreError::db(&self.path, "read", &e);
        let missions = db
            .rows(sql::WAITING_MISSIONS, args![], |r| {
                let (id, title, agent): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
                let phase = Phase::MergeWait.as_str();
                let receipt_hash = receipt_hash(&id, &title, phase, &agent);
                let (title, agent) = (display(&title, cap::TRAY_FIELD), display(&agent, cap::NAME));
                Ok(WaitingMission { id, title, agent, phase, receipt_hash })
            })
            .map_err(fail)?;
        let candidate = BlockStatus::Candidate.as_str();
        let candidates = db
            .rows(sql::CANDIDATE_BLOCKS, args![], |r| {
                let mut block = CandidateBlock {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    receipt: r.get(2)?,
                    hash: r.get(3)?,
                    node: r.get(4)?,
                    receipt_hash: String::new(),
                };
                block.receipt_hash = block_receipt_hash(&block, candidate);
                for field in [&mut block.title, &mut block.receipt, &mut block.hash, &mut block.node] {
                    *field = display(field, cap::TRAY_FIELD);
                }
                Ok(block)
            })
            .map_err(fail)?;
        let waiting = tally::get(db, &tally::phase(Phase::MergeWait)).map_err(fail)?;
        let candidate_count = tally::get(db, &tally::status(BlockStatus::Candidate)).map_err(fail)?;
        Ok(TrayState { store_version, waiting, missions, candidate_count, candidates })
    }
}

/// Decide on the state the write transaction sees, at `version`, whether
/// the act may land.
pub(super) fn judge_in(
    frame: &Frame<'_>,
    act: Act,
    target: &str,
    receipt: &str,
    seen_version: u64,
    version: u64,
) -> Result<Judged, ActRefused> {
    let fail = |e: DbError| ActRefused::Store(frame.fail(e));
    let Some(now) = read_target(frame.db(), act, target).map_err(fail)? else {
        return Err(ActRefused::Unknown { act });
    };
    let earlier: Option<(String, i64, String)> = frame
        .db()
        .row(sql::EARLIER_ACT, args![act.as_str(), target], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(fail)?;
    if let Some((hash, store_version, at)) = earlier {
        if constant_time_eq::constant_time_eq(hash.as_bytes(), receipt.as_bytes()) {
            let store_version = u64::try_from(store_version).unwrap_or(0);
            return Ok(Judged::Already(Acted::Already { store_version, at }));
        }
        return Err(ActRefused::NotWaiting { act, state: now.state });
    }
    if seen_version > version {
        return Err(ActRefused::FutureVersion { seen: seen_version, actual: version });
    }
    if !now.waiting {
        return Err(ActRefused::NotWaiting { act, state: now.state });
    }
    if now.hash != receipt {
        return Err(ActRefused::StateMoved { act, now: now.hash });
    }
    Ok(Judged::Go)
}

/// The target's record as it is in this transaction.
fn read_target(db: Db<'_>, act: Act, id: &str) -> Result<Option<Target>, DbError> {
    match act {
        Act::Stamp => {
            let row: Option<(String, String, String)> =
                db.row(sql::MISSION_RECORD, args![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(row.map(|(title, phase, agent)| {
                let state = Phase::ALL.into_iter().find(|p| p.as_str() == phase).map_or("unknown", Phase::as_str);
                let hash = receipt_hash(id, &title, state, &agent);
                Target { waiting: state == Phase::MergeWait.as_str(), state, hash }
            }))
        }
        Act::Ratify => {
            let row: Option<(CandidateBlock, String)> = db.row(sql::BLOCK_RECORD, args![id], |r| {
                let block = CandidateBlock {
                    id: id.to_owned(),
                    title: r.get(0)?,
                    receipt: r.get(1)?,
                    hash: r.get(2)?,
                    node: r.get(3)?,
                    receipt_hash: String::new(),
                };
                Ok((block, r.get(4)?))
            })?;
            Ok(row.map(|(block, status)| {
                let all = [BlockStatus::Fresh, BlockStatus::Stale, BlockStatus::Candidate];
                let state = all.into_iter().find(|s| s.as_str() == status).map_or("unknown", BlockStatus::as_str);
                let hash = block_receipt_hash(&block, state);
                Target { waiting: state == BlockStatus::Candidate.as_str(), state, hash }
            }))
        }
    }
}

/// The write itself: the target moves, the orderings and tallies follow, the act is kept.
pub(super) fn apply(
    frame: &Frame<'_>,
    act: Act,
    id: &str,
    receipt: &str,
    seen: u64,
    version: u64,
) -> Result<(), DbError> {
    let (statement, from, to) = match act {
        Act::Stamp => (sql::STAMP_MISSION, tally::phase(Phase::MergeWait), tally::phase(Phase::Landed)),
        Act::Ratify => (sql::RATIFY_BLOCK, tally::status(BlockStatus::Candidate), tally::status(BlockStatus::Fresh)),
    };
    let (to_state, from_state) = match act {
        Act::Stamp => (Phase::Landed.as_str(), Phase::MergeWait.as_str()),
        Act::Ratify => (BlockStatus::Fresh.as_str(), BlockStatus::Candidate.as_str()),
    };
    let db = frame.db();
    if db.execute(statement, args![id, to_state, from_state])? != 1 {
        // The judgement and the commit saw the same version, so this cannot
        // happen; if it did, roll back rather than record an act that did nothing.
        return Err(DbError::Unexpected("the act's target did not move"));
    }
    // `tally::add` inserts before it updates, and the table's CHECK refuses a
    // negative insert, so a count that falls is updated in place.
    db.execute(sql::TALLY_DROP, args![from])?;
    tally::add(db, &to, 1)?;
    let (seen, version) = (i64::try_from(seen).unwrap_or(i64::MAX), i64::try_from(version).unwrap_or(i64::MAX));
    frame.insert(sql::INSERT_ACT, args![act.as_str(), id, receipt, seen, version, frame.now()])
}

#[cfg(test)]
mod tests {
    use super::super::test_dir::{files, test_dir};
    use super::*;

    /// The tray's listings are prepared once per connection, like the reads'.
    #[test]
    fn the_trays_listings_are_never_prepared_again() {
        let dir = test_dir("tray-prepare");
        let mut store = Store::init(dir.path(), true).expect("init");
        for round in 0..3 {
            store.tray().expect("tray");
            store.memorize(&format!("round {round}"), "test", None, None).expect("write");
        }
        for sql in [sql::WAITING_MISSIONS, sql::CANDIDATE_BLOCKS] {
            let statement = store.lite().prepare_cached(sql).expect("cached");
            assert_eq!(statement.get_status(rusqlite::StatementStatus::RePrepare), 0, "re-prepared: {sql}");
        }
        assert_eq!(TRAY_LISTED, 50);
    }

    #[test]
    fn a_stamp_lands_once_and_a_second_is_told() {
        let dir = test_dir("tray-stamp");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        assert!(tray.waiting >= 1 && tray.missions.len() as u64 == tray.waiting.min(TRAY_LISTED as u64));
        let first = tray.missions[0].clone();
        let stamped = store.act(Act::Stamp, &first.id, &first.receipt_hash, tray.store_version).expect("stamp");
        assert_eq!(stamped, Acted::Now { store_version: tray.store_version + 1 });
        let before = files(&store);
        let again = store.act(Act::Stamp, &first.id, &first.receipt_hash, tray.store_version).expect("again");
        assert!(matches!(again, Acted::Already { store_version, .. } if store_version == tray.store_version + 1));
        assert_eq!(files(&store), before, "a second stamp wrote");
        let after = store.tray().expect("tray");
        assert_eq!(after.waiting, tray.waiting - 1);
        assert!(!after.missions.iter().any(|m| m.id == first.id));
    }

    #[test]
    fn the_tray_shows_state_text_sanitised_and_a_stamp_still_lands() {
        let dir = test_dir("tray-sanitised");
        let mut store = Store::init(dir.path(), true).expect("init");
        let id = store.tray().expect("tray").missions[0].id.clone();
        let hostile = "\u{202e}evil\u{202c} \u{1b}[31mmission\u{200b}\nforged line";
        store.lite().execute("UPDATE missions SET title = ?1 WHERE id = ?2", [hostile, &id]).expect("title");
        let tray = store.tray().expect("tray");
        let shown = tray.missions.iter().find(|m| m.id == id).expect("still waiting");
        assert_eq!(shown.title, "evil mission forged line");
        assert_eq!(shown.receipt_hash, receipt_hash(&id, hostile, Phase::MergeWait.as_str(), &shown.agent));
        let stamped = store.act(Act::Stamp, &id, &shown.receipt_hash, tray.store_version).expect("stamp");
        assert_eq!(stamped, Acted::Now { store_version: tray.store_version + 1 });
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
            assert!(store.act(Act::Stamp, mission, receipt, seen).is_err(), "{mission} {receipt} {seen}");
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
        assert!(matches!(store.act(Act::Stamp, &a.id, &a.receipt_hash, tray.store_version), Ok(Acted::Now { .. })));
        store
            .commit(None, None, |frame, _| {
                frame.db().execute("UPDATE missions SET title = 'changed' WHERE id = ?1", args![b.id]).map(drop)
            })
            .expect("change b");
        let before = files(&store);
        let refused = store.act(Act::Stamp, &b.id, &b.receipt_hash, tray.store_version).expect_err("stale");
        assert!(matches!(&refused, ActRefused::StateMoved { act: Act::Stamp, .. }), "{refused}");
        assert!(refused.to_string().starts_with("state moved"));
        assert_eq!(files(&store), before);
    }

    #[test]
    fn a_landed_or_unwaiting_mission_is_refused() {
        let dir = test_dir("tray-phase");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tx = store.lite().unchecked_transaction().expect("tx");
        let (id, title, phase, agent): (String, String, String, String) = tx
            .query_row("SELECT id, title, phase, agent FROM missions WHERE phase != 'merge_wait' LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .expect("a mission not waiting");
        drop(tx);
        let hash = receipt_hash(&id, &title, &phase, &agent);
        let refused = store.act(Act::Stamp, &id, &hash, 1).expect_err("not waiting");
        assert!(matches!(refused, ActRefused::NotWaiting { .. }), "{refused}");
    }
}

#[cfg(test)]
mod ratify_tests {
    use super::super::test_dir::test_dir;
    use super::*;

    #[test]
    fn a_candidate_is_ratified_once_and_a_changed_one_is_refused() {
        let dir = test_dir("tray-ratify");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        let block = tray.candidates[0].clone();
        assert_eq!(tray.candidate_count, tray.candidates.len() as u64);
        let wrong = "0".repeat(RECEIPT_HASH_LEN);
        let refused = store.act(Act::Ratify, &block.id, &wrong, tray.store_version).expect_err("stale");
        assert!(matches!(refused, ActRefused::StateMoved { act: Act::Ratify, .. }), "{refused}");
        let done = store.act(Act::Ratify, &block.id, &block.receipt_hash, tray.store_version).expect("ratify");
        assert_eq!(done, Acted::Now { store_version: tray.store_version + 1 });
        let again = store.act(Act::Ratify, &block.id, &block.receipt_hash, tray.store_version).expect("again");
        assert!(matches!(again, Acted::Already { .. }));
        let after = store.tray().expect("tray");
        assert_eq!(after.candidate_count, tray.candidate_count - 1);
        assert!(!after.candidates.iter().any(|c| c.id == block.id));
        // A mission id is not a block: each act has its own targets.
        let mission = &tray.missions[0];
        assert!(matches!(
            store.act(Act::Ratify, &mission.id, &mission.receipt_hash, after.store_version),
            Err(ActRefused::Unknown { act: Act::Ratify })
        ));
    }
}
