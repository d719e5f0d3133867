//! Group commit: the writes waiting at one moment share one transaction and
//! one sync.
//!
//! # The invariant
//!
//! A change is acknowledged (its `Ok` returned) only after the commit that
//! holds it is durable in the store at its path, exactly as a lone write is
//! ([`Store::write_transaction`]). Each change runs in a savepoint of its
//! own: a change that is refused (a stale `expected_store_version`, an act
//! that no longer applies, the size limit) is rolled back alone and the
//! others go on. A failure that ends the transaction itself (the commit's
//! sync, a file that moved, SQLite rolling the transaction back) fails every
//! change in it, and none is acknowledged. Changes apply in the order given,
//! and each one that lands bumps `store_version` once.

use super::db::{Db, DbError, args};
use super::error::StoreError;
use super::frame::Frame;
use super::state::Counts;
use super::tray::{Act, ActRefused, Acted, Judged};
use super::writes::{PersistAction, PersistOutcome, agent_of, check_expected, memory_id, record_presence};
use super::{Store, sql, state, tally, tray};

/// One write waiting for its turn.
#[derive(Clone, Debug)]
pub enum Change {
    /// Append one memory per claim, all at one store_version (at most
    /// [`MAX_CLAIMS_PER_CALL`], at least one).
    Memorize { claims: Vec<String>, source: String, agent: Option<String>, expected: Option<u64> },
    /// `persist save` or `persist checkpoint` (the actions that write).
    Checkpoint { action: PersistAction, agent: Option<String>, expected: Option<u64> },
    /// The human's act on the tray.
    Act { act: Act, target: String, receipt_hash: String, seen_version: u64 },
}

/// What a change did, once its commit is durable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    Memorized { store_version: u64 },
    Persisted(PersistOutcome),
    Acted(Acted),
}

/// Why a change did not land; nothing of it was written.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Act(#[from] ActRefused),
}

/// A change's result inside the transaction, before the commit.
enum Applied {
    /// Written at this version; final once the commit is durable.
    Landed(Landing),
    /// Nothing to write: the act happened before.
    Already(Acted),
}

enum Landing {
    Memorized(u64),
    Persisted(PersistAction, u64),
    Acted(u64),
}

impl Change {
    /// The checks that need no store: a change that fails one is refused
    /// before the transaction begins.
    fn check(&self) -> Result<(), Refusal> {
        match self {
            Change::Memorize { claims, source, .. } => {
                check_claims(claims)?;
                super::writes::check_source(source).map_err(Refusal::from)
            }
            Change::Checkpoint { action, .. } if !action.writes() => {
                Err(StoreError::BadArgument(format!("`persist {action}` does not write; it is a read")).into())
            }
            Change::Checkpoint { .. } => Ok(()),
            Change::Act { seen_version: 0, .. } => Err(ActRefused::VersionZero.into()),
            Change::Act { .. } => Ok(()),
        }
    }

    /// Apply the change at `actual` (the version before it), in the caller's savepoint.
    fn apply(&self, frame: &Frame<'_>, actual: u64) -> Result<Applied, Refusal> {
        match self {
            Change::Memorize { claims, source, agent, expected } => {
                check_expected(*expected, actual)?;
                let version = frame.next(actual)?;
                let agent = agent_of(agent.as_deref());
                (|| {
                    for claim in claims {
                        let id = memory_id(frame.db(), version)?;
                        frame.insert(sql::INSERT_MEMORY, args![id, claim, source.trim(), frame.now(), agent])?;
                    }
                    tally::add(frame.db(), tally::MEMORIES, count(claims.len()))?;
                    agent.map_or(Ok(()), |a| record_presence(frame, a, "memorize"))
                })()
                .map_err(|e| frame.fail(e))?;
                frame.bump(version)?;
                Ok(Applied::Landed(Landing::Memorized(version)))
            }
            Change::Checkpoint { action, agent, expected } => {
                check_expected(*expected, actual)?;
                let version = frame.next(actual)?;
                (|| {
                    frame.db().execute(sql::ADD_CHECKPOINT, args![])?;
                    agent_of(agent.as_deref()).map_or(Ok(()), |a| record_presence(frame, a, "persist"))
                })()
                .map_err(|e| frame.fail(e))?;
                frame.bump(version)?;
                Ok(Applied::Landed(Landing::Persisted(*action, version)))
            }
            Change::Act { act, target, receipt_hash, seen_version } => {
                match tray::judge_in(frame, *act, target, receipt_hash, *seen_version, actual)? {
                    Judged::Already(acted) => Ok(Applied::Already(acted)),
                    Judged::Go => {
                        let version = frame.next(actual)?;
                        tray::apply(frame, *act, target, receipt_hash, *seen_version, version)
                            .map_err(|e| ActRefused::Store(frame.fail(e)))?;
                        frame.bump(version).map_err(ActRefused::Store)?;
                        Ok(Applied::Landed(Landing::Acted(version)))
                    }
                }
            }
        }
    }
}

/// The most claims one `memorize` call may carry: they land in one commit,
/// so the bound keeps one call's write small next to its neighbours'.
pub const MAX_CLAIMS_PER_CALL: usize = 32;

/// A `memorize` call's claims: one to [`MAX_CLAIMS_PER_CALL`], each one a
/// claim the store keeps (a refusal names the claim by its position, from 1).
fn check_claims(claims: &[String]) -> Result<(), Refusal> {
    let bad = |why: String| Refusal::from(StoreError::BadArgument(why));
    if claims.is_empty() {
        return Err(bad("memorize needs at least one claim in `claims`".to_owned()));
    }
    if claims.len() > MAX_CLAIMS_PER_CALL {
        return Err(bad(format!(
            "memorize takes at most {MAX_CLAIMS_PER_CALL} claims per call, got {}; send the rest in further calls",
            claims.len()
        )));
    }
    for (n, claim) in claims.iter().enumerate() {
        state::check_claim(claim).map_err(|problem| bad(format!("claim {}: {problem}", n + 1)))?;
    }
    Ok(())
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store {
    /// Apply `changes` in one write transaction and one sync; see the module
    /// doc for what each result means. The results are in the order given.
    pub fn apply(&mut self, changes: &[Change]) -> Vec<Result<Done, Refusal>> {
        let mut results: Vec<Option<Result<Done, Refusal>>> =
            changes.iter().map(|change| change.check().err().map(Err)).collect();
        if results.iter().all(Option::is_some) {
            return results.into_iter().flatten().collect();
        }
        let outcome = self.write_transaction(|frame| {
            let mut actual = frame.version()?;
            let mut landed = Vec::new();
            for (i, change) in changes.iter().enumerate() {
                if results[i].is_some() {
                    continue;
                }
                let savepoint = frame.savepoint()?;
                match change.apply(frame, actual) {
                    Ok(Applied::Landed(landing)) => {
                        savepoint.keep()?;
                        actual = landing.version();
                        landed.push((i, landing));
                    }
                    // Nothing of the change stays.
                    Ok(Applied::Already(acted)) => {
                        savepoint.undo()?;
                        results[i] = Some(Ok(Done::Acted(acted)));
                    }
                    Err(refusal) => {
                        // The backend may have ended the whole transaction (SQLite
                        // on a full disk, PostgreSQL with its connection): then
                        // nothing in it can land.
                        if savepoint.undo().is_err() {
                            return Err(refusal.into_store_error());
                        }
                        results[i] = Some(Err(refusal));
                    }
                }
            }
            let counts = if landed.iter().any(|(_, l)| matches!(l, Landing::Persisted(..))) {
                Some(counts_in(frame.db()).map_err(|e| frame.fail(e))?)
            } else {
                None
            };
            Ok((landed, counts))
        });
        match outcome {
            Ok((landed, counts)) => {
                for (i, landing) in landed {
                    results[i] = Some(Ok(landing.done(counts)));
                }
            }
            Err(e) => {
                for slot in results.iter_mut().filter(|r| r.is_none() || matches!(r, Some(Ok(_)))) {
                    *slot = Some(Err(Refusal::Store(e.clone())));
                }
            }
        }
        results.into_iter().map(|r| r.unwrap_or(Err(Refusal::Store(StoreError::Interrupted)))).collect()
    }
}

impl Landing {
    fn version(&self) -> u64 {
        match self {
            Landing::Memorized(v) | Landing::Persisted(_, v) | Landing::Acted(v) => *v,
        }
    }

    fn done(self, counts: Option<Counts>) -> Done {
        match self {
            Landing::Memorized(store_version) => Done::Memorized { store_version },
            Landing::Persisted(action, store_version) => Done::Persisted(PersistOutcome {
                action,
                store_version,
                wrote: true,
                counts: counts.unwrap_or_default(),
            }),
            Landing::Acted(store_version) => Done::Acted(Acted::Now { store_version }),
        }
    }
}

impl Refusal {
    /// The store failure behind a refusal that ended the whole transaction.
    fn into_store_error(self) -> StoreError {
        match self {
            Refusal::Store(e) | Refusal::Act(ActRefused::Store(e)) => e,
            // An act refused on its own merits never ends the transaction;
            // if SQLite ended it anyway, say the write did not happen.
            Refusal::Act(_) => StoreError::Interrupted,
        }
    }
}

/// How much of each kind the store holds, inside the write transaction.
fn counts_in(db: Db<'_>) -> Result<Counts, DbError> {
    let tallies = tally::Tallies::read(db)?;
    let checkpoints: i64 = db.row(sql::CHECKPOINTS, args![], |r| r.get(0))?.unwrap_or(0);
    Ok(Counts::from_tallies(&tallies, u64::try_from(checkpoints).unwrap_or(0)))
}

impl Store {
    /// Do `act` on `target`, which the human saw with `receipt` at
    /// `seen_version`: a mission lands (merge_wait → landed), a block is
    /// ratified (candidate → fresh), and the act is recorded, in one write.
    /// The judgement is made inside that write's transaction, so nothing can
    /// come between it and the commit.
    pub fn act(&mut self, act: Act, target: &str, receipt: &str, seen_version: u64) -> Result<Acted, ActRefused> {
        let change = Change::Act { act, target: target.to_owned(), receipt_hash: receipt.to_owned(), seen_version };
        match self.apply(std::slice::from_ref(&change)).pop() {
            Some(Ok(Done::Acted(acted))) => Ok(acted),
            Some(Err(Refusal::Act(refused))) => Err(refused),
            Some(Err(Refusal::Store(e))) => Err(ActRefused::Store(e)),
            Some(Ok(_)) | None => Err(ActRefused::Store(StoreError::Interrupted)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::test_dir::{files, test_dir};
    use super::*;
    use crate::store::{DB_FILE, MIN_MAX_BYTES, Read};

    fn memorize(claim: &str, expected: Option<u64>) -> Change {
        Change::Memorize { claims: vec![claim.to_owned()], source: "test".to_owned(), agent: None, expected }
    }

    /// SQLite's file change counter (header offset 24): one more per commit.
    fn commits(store: &Store) -> u32 {
        let header = fs::read(store.dir().join(DB_FILE)).expect("read");
        u32::from_be_bytes(header[24..28].try_into().expect("4 bytes"))
    }

    #[test]
    fn a_batch_is_one_commit_and_each_change_one_version() {
        let dir = test_dir("batch-one-commit");
        let mut store = Store::init(dir.path(), false).expect("init");
        let before = commits(&store);
        let changes: Vec<Change> = (0..10).map(|n| memorize(&format!("claim {n}"), None)).collect();
        let results = store.apply(&changes);
        let versions: Vec<u64> = results
            .iter()
            .map(|r| match r {
                Ok(Done::Memorized { store_version }) => *store_version,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(versions, (2..12).collect::<Vec<_>>());
        assert_eq!(commits(&store), before + 1, "ten writes, one commit");
        assert_eq!(store.version().expect("version"), 11);
    }

    /// A refused change is rolled back alone; the others land, in order.
    #[test]
    fn a_refusal_spares_the_rest_of_its_batch() {
        let dir = test_dir("batch-refusal");
        let mut store = Store::init(dir.path(), true).expect("init");
        let tray = store.tray().expect("tray");
        let waiting = &tray.missions[0];
        let stamp = Change::Act {
            act: Act::Stamp,
            target: waiting.id.clone(),
            receipt_hash: waiting.receipt_hash.clone(),
            seen_version: tray.store_version,
        };
        let changes = vec![
            memorize("lands at 2", Some(1)),
            memorize("stale", Some(1)),
            memorize("", None),
            Change::Checkpoint { action: PersistAction::Checkpoint, agent: Some("agent-7".into()), expected: None },
            stamp.clone(),
            stamp,
            Change::Act { act: Act::Ratify, target: "sb_nope".into(), receipt_hash: "0".repeat(64), seen_version: 1 },
            memorize("lands at 5", Some(4)),
        ];
        let results = store.apply(&changes);
        assert!(matches!(results[0], Ok(Done::Memorized { store_version: 2 })), "{:?}", results[0]);
        assert!(matches!(results[1], Err(Refusal::Store(StoreError::Conflict { expected: 1, actual: 2 }))));
        assert!(matches!(results[2], Err(Refusal::Store(StoreError::BadArgument(_)))));
        match &results[3] {
            Ok(Done::Persisted(outcome)) => {
                assert_eq!((outcome.store_version, outcome.wrote, outcome.counts.checkpoints), (3, true, 1));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(results[4], Ok(Done::Acted(Acted::Now { store_version: 4 }))), "{:?}", results[4]);
        assert!(matches!(results[5], Ok(Done::Acted(Acted::Already { store_version: 4, .. }))), "{:?}", results[5]);
        assert!(matches!(results[6], Err(Refusal::Act(ActRefused::Unknown { .. }))));
        assert!(matches!(results[7], Ok(Done::Memorized { store_version: 5 })), "{:?}", results[7]);
        assert_eq!(store.version().expect("version"), 5);
        let presences = store.snapshot().expect("read").counts().expect("counts").presences;
        assert_eq!(presences, 4, "agent-7 joins the demo's three");
    }

    /// One call's claims land together: one commit, one store_version, one
    /// memory each, counted by the tally; too many or none are refused whole.
    #[test]
    fn the_claims_of_one_call_land_at_one_version() {
        let dir = test_dir("batch-claims");
        let mut store = Store::init(dir.path(), false).expect("init");
        let memories = |store: &Store| store.snapshot().expect("read").counts().expect("counts").memories;
        let before = (commits(&store), memories(&store));
        let claims: Vec<String> = (0..3).map(|n| format!("claim {n}")).collect();
        let change = Change::Memorize { claims, source: "node".into(), agent: None, expected: Some(1) };
        let results = store.apply(&[change]);
        assert!(matches!(results[0], Ok(Done::Memorized { store_version: 2 })), "{results:?}");
        assert_eq!((commits(&store), memories(&store)), (before.0 + 1, before.1 + 3));
        let snapshot = store.snapshot().expect("read");
        let listed = snapshot.read(Read::Memories, &[]).expect("list");
        let ids: std::collections::HashSet<&str> = listed.items.iter().filter_map(|i| i.field("id")).collect();
        assert_eq!(ids.len(), listed.items.len(), "every memory has its own id");
        drop(snapshot);
        let many = vec!["x".to_owned(); MAX_CLAIMS_PER_CALL + 1];
        let refused = [
            Change::Memorize { claims: many, source: "node".into(), agent: None, expected: None },
            Change::Memorize { claims: vec![], source: "node".into(), agent: None, expected: None },
            Change::Memorize {
                claims: vec!["ok".into(), " ".into()],
                source: "node".into(),
                agent: None,
                expected: None,
            },
        ];
        let results = store.apply(&refused);
        let messages: Vec<String> = results.iter().map(|r| r.as_ref().expect_err("refused").to_string()).collect();
        assert!(messages[0].contains(&format!("at most {MAX_CLAIMS_PER_CALL} claims")), "{}", messages[0]);
        assert!(messages[1].contains("at least one claim"), "{}", messages[1]);
        assert!(messages[2].contains("claim 2"), "{}", messages[2]);
        assert_eq!((store.version().expect("version"), memories(&store)), (2, before.1 + 3));
    }

    /// A batch in which nothing lands leaves every file as it was.
    #[test]
    fn a_batch_of_refusals_writes_nothing() {
        let dir = test_dir("batch-nothing");
        let mut store = Store::init(dir.path(), true).expect("init");
        let before = files(&store);
        let changes = vec![
            memorize("stale", Some(9)),
            memorize(&"x".repeat(crate::store::MAX_CLAIM_CHARS + 1), None),
            Change::Act {
                act: Act::Stamp,
                target: "msn_000000000000".into(),
                receipt_hash: "0".repeat(64),
                seen_version: 1,
            },
        ];
        assert!(store.apply(&changes).iter().all(Result::is_err));
        assert_eq!(files(&store), before);
    }

    /// The size limit refuses the change that would pass it, not its neighbours.
    #[test]
    fn the_size_limit_refuses_only_the_change_that_passes_it() {
        let dir = test_dir("batch-full");
        let mut store = Store::create(dir.path(), &crate::store::State::empty(), MIN_MAX_BYTES).expect("create");
        let big = "y".repeat(crate::store::MAX_CLAIM_CHARS - 16);
        let mut landed = 0;
        // Fill the store to its limit, a batch at a time.
        for round in 0..64 {
            let changes: Vec<Change> = (0..4).map(|n| memorize(&format!("{round}.{n} {big}"), None)).collect();
            let results = store.apply(&changes);
            landed += results.iter().filter(|r| r.is_ok()).count();
            if results.iter().any(|r| matches!(r, Err(Refusal::Store(StoreError::Full { .. })))) {
                let small = store.apply(&[memorize("a small claim still fits", None)]);
                assert!(matches!(small[0], Ok(Done::Memorized { .. })), "{small:?}");
                assert_eq!(store.version().expect("version"), 1 + landed as u64 + 1);
                return;
            }
        }
        panic!("the size limit was never reached");
    }
}
