//! The store's writes: `memorize` and `persist`.
//!
//! Every write is one `BEGIN IMMEDIATE` transaction: it takes the store's
//! write lock (waiting up to the busy timeout for another writer), checks
//! `expected_store_version` against the version inside the transaction,
//! makes its change, bumps the version once and commits. Nothing another
//! writer does can come between the check and the commit, and a write that
//! fails anywhere (a conflict, the size limit, a full disk) rolls back and
//! leaves the store as it was.
//!
//! Arguments are checked before the store is touched. A write that carries
//! an agent id also records that agent's presence (what it did, and when the
//! server saw it, by the server's clock) in the same transaction.
//!
//! # What an answer means
//!
//! - **An answer with a `store_version`** means the write committed at that
//!   version and is durable in the store at its path: synced before the
//!   answer (it survives `kill -9` and, with `synchronous = EXTRA`, power
//!   loss), and the path still named the file it went to after the commit.
//! - **A refusal** ("changed nothing") means the store at its path is as it
//!   was: conflicts, bad arguments, the size limit, a busy store and I/O
//!   failures all roll back. One write is never split.
//! - **No answer**, because the request was cancelled, the client died, or
//!   two requests shared an id and one answer was lost: the write landed
//!   exactly once or not at all; a call that started is never stopped half
//!   way, and is never applied twice. To find out which, retry the same
//!   write with the `expected_store_version` it was based on. If the first
//!   landed, the retry is refused as a conflict naming the current version
//!   (read, and the first write is there); if not, the retry lands. So a
//!   retry carrying `expected_store_version` is always safe; one without it
//!   may store the claim twice.

use std::fmt;

use rusqlite::TransactionBehavior;

use super::db::{Db, DbError, args};
use super::error::StoreError;
use super::frame::Frame;
use super::state::{self, Counts, MAX_SOURCE_CHARS};
use super::{Conn, Store, clock, file, pg, sql, tally};

/// What `persist` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PersistAction {
    /// Report; never writes.
    Status,
    Save,
    Checkpoint,
    /// Re-read from disk; never writes.
    Load,
}

impl PersistAction {
    pub const ALL: [PersistAction; 4] =
        [PersistAction::Status, PersistAction::Save, PersistAction::Checkpoint, PersistAction::Load];

    pub fn parse(action: &str) -> Option<PersistAction> {
        Self::ALL.into_iter().find(|a| a.as_str() == action)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            PersistAction::Status => "status",
            PersistAction::Save => "save",
            PersistAction::Checkpoint => "checkpoint",
            PersistAction::Load => "load",
        }
    }

    pub const fn writes(self) -> bool {
        matches!(self, PersistAction::Save | PersistAction::Checkpoint)
    }
}

impl fmt::Display for PersistAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The answer to `persist`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PersistOutcome {
    pub action: PersistAction,
    /// The version on disk after the action.
    pub store_version: u64,
    /// Whether the store was written (and the version bumped).
    pub wrote: bool,
    pub counts: Counts,
}

impl Store {
    /// Append a memory, attributed to `agent` when one is given. Returns the
    /// new store_version.
    pub fn memorize(
        &mut self,
        claim: &str,
        source: &str,
        agent: Option<&str>,
        expected_store_version: Option<u64>,
    ) -> Result<u64, StoreError> {
        state::check_claim(claim).map_err(|problem| StoreError::BadArgument(problem.to_string()))?;
        check_source(source)?;
        let source = source.trim();
        let agent = agent_of(agent);
        self.commit(expected_store_version, agent.map(|a| (a, "memorize")), |frame, version| {
            let id = memory_id(frame.db(), version)?;
            frame.insert(sql::INSERT_MEMORY, args![id, claim, source, frame.now(), agent])?;
            tally::add(frame.db(), tally::MEMORIES, 1)
        })
    }

    /// `status`, `save`, `checkpoint` or `load`; anything else is `BadArgument`.
    pub fn persist(
        &mut self,
        action: &str,
        agent: Option<&str>,
        expected_store_version: Option<u64>,
    ) -> Result<PersistOutcome, StoreError> {
        let action = PersistAction::parse(action).ok_or_else(|| {
            let shown: String = action.chars().take(32).collect();
            StoreError::BadArgument(format!("unknown persist action `{shown}`; use status, save, checkpoint or load"))
        })?;
        let wrote = action.writes();
        let committed = if wrote {
            let agent = agent_of(agent);
            Some(self.commit(expected_store_version, agent.map(|a| (a, "persist")), |frame, _| {
                frame.db().execute(sql::ADD_CHECKPOINT, args![]).map(drop)
            })?)
        } else {
            None
        };
        // For `status` and `load` a snapshot is the whole answer (nothing is
        // held in memory, so `load` has nothing to refresh). After a write it
        // gives the counts; the version is the one this write committed.
        let snapshot = self.snapshot()?;
        if !wrote {
            check_expected(expected_store_version, snapshot.version())?;
        }
        let store_version = committed.unwrap_or(snapshot.version());
        Ok(PersistOutcome { action, store_version, wrote, counts: snapshot.counts()? })
    }

    /// One write transaction: check the version, apply `change` (which
    /// gets the version the write will produce), record the agent's
    /// presence, bump, commit. Any failure rolls everything back.
    pub(super) fn commit(
        &mut self,
        expected: Option<u64>,
        seen: Option<(&str, &str)>,
        change: impl FnOnce(&Frame<'_>, u64) -> Result<(), DbError>,
    ) -> Result<u64, StoreError> {
        self.write_transaction(|frame| {
            let actual = frame.version()?;
            check_expected(expected, actual)?;
            let version = frame.next(actual)?;
            change(frame, version).map_err(|e| frame.fail(e))?;
            if let Some((agent, doing)) = seen {
                record_presence(frame, agent, doing).map_err(|e| frame.fail(e))?;
            }
            frame.bump(version)?;
            Ok(version)
        })
    }

    /// The frame of every write transaction, one change or many: `body`
    /// runs inside one transaction that holds the store's write lock, and
    /// its result is returned only once the commit is durable in the store
    /// at its location. Any failure before the commit rolls everything back.
    /// SQLite's frame is here; PostgreSQL's is `pg/write.rs`.
    pub(super) fn write_transaction<T>(
        &mut self,
        body: impl FnOnce(&Frame<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Store { dir, path, conn, file: opened, max_bytes } = self;
        let conn = match conn {
            Conn::Sqlite(conn) => conn,
            Conn::Postgres(conn) => return pg::write::transaction(conn, path, *opened, body),
        };
        let opened = *opened;
        let still_ours = || match file::id_of(path) {
            Ok(now) if now == opened => Ok(()),
            Ok(_) | Err(StoreError::NotFound { .. }) => Err(StoreError::Moved { path: path.clone() }),
            Err(e) => Err(e),
        };
        file::check_journal(dir)?;
        still_ours()?;
        // Declared before the transaction, so dropped after it has ended:
        // then this process's blocked readers are woken (turnstile.rs).
        let _writing = super::turnstile::Writing::begin();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| StoreError::write(path, "write", *max_bytes, &e))?;
        // The lock is on the file the connection opened; if the path now
        // names another file, writing here would not be writing the store.
        still_ours()?;
        let value = body(&Frame::new(Db::Sqlite(&tx), path, *max_bytes, clock::now_utc()))?;
        match tx.commit() {
            Ok(()) => {}
            // Deleting the journal is the commit. If something else deleted
            // it first, SQLite reports that after the transaction has ended:
            // the change is in `state.db`, synced. What `EXTRA` would have
            // done next, syncing the directory so the journal cannot come
            // back, is done here; then the write stands like any other.
            Err(e) if journal_was_already_gone(&e) => super::sync_dir(dir)?,
            Err(e) => return Err(StoreError::write(path, "write", *max_bytes, &e)),
        }
        still_ours()?;
        Ok(value)
    }
}

fn journal_was_already_gone(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_IOERR_DELETE_NOENT)
}

/// A memory's source: not empty, not too long, no U+0000 (see `state::has_nul`).
pub(super) fn check_source(source: &str) -> Result<(), StoreError> {
    if source.contains('\0') {
        return Err(StoreError::BadArgument(
            "the source holds the character U+0000 (NUL), which no m1nd store keeps; remove it".to_owned(),
        ));
    }
    let source = source.trim();
    if source.is_empty() {
        return Err(StoreError::BadArgument("the source is empty; say who or what the claim comes from".to_owned()));
    }
    let chars = source.chars().count();
    if chars > MAX_SOURCE_CHARS {
        return Err(StoreError::BadArgument(format!(
            "the source is {chars} characters; the limit is {MAX_SOURCE_CHARS}"
        )));
    }
    Ok(())
}

/// The agent id to record: trimmed, and none if empty.
pub(super) fn agent_of(agent: Option<&str>) -> Option<&str> {
    agent.map(str::trim).filter(|a| !a.is_empty())
}

/// Insert or refresh `agent`'s presence: first seen (`since`) stays, what it
/// did and when it was last seen move.
pub(super) fn record_presence(frame: &Frame<'_>, agent: &str, doing: &str) -> Result<(), DbError> {
    let known = frame.db().row(sql::PRESENCE_KNOWN, args![agent], |_| Ok(()))?.is_some();
    if known {
        return frame.db().execute(sql::UPSERT_PRESENCE, args![agent, doing, frame.now()]).map(drop);
    }
    frame.insert(sql::UPSERT_PRESENCE, args![agent, doing, frame.now()])?;
    tally::add(frame.db(), tally::PRESENCES, 1)
}

pub(super) fn check_expected(expected: Option<u64>, actual: u64) -> Result<(), StoreError> {
    match expected {
        Some(expected) if expected != actual => Err(StoreError::Conflict { expected, actual }),
        _ => Ok(()),
    }
}

/// `mem_` + the version in hex: unique because versions only grow, with a
/// suffix in the unlikely case an imported id already took it.
pub(super) fn memory_id(db: Db<'_>, version: u64) -> Result<String, DbError> {
    let base = format!("mem_{version:08x}");
    let is_taken = |id: &str| db.row(sql::MEMORY_ID_TAKEN, args![id], |_| Ok(())).map(|row| row.is_some());
    if !is_taken(&base)? {
        return Ok(base);
    }
    for n in 2u32.. {
        let id = format!("{base}_{n}");
        if !is_taken(&id)? {
            return Ok(id);
        }
    }
    Ok(base)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::test_dir::{files, test_dir};
    use super::super::{DB_FILE, Read};
    use super::*;
    use crate::store::MAX_CLAIM_CHARS;

    /// The claims listed, newest first.
    fn claims(store: &Store) -> Vec<String> {
        let snapshot = store.snapshot().expect("snapshot");
        let reading = snapshot.read(Read::Memories, &[]).expect("read");
        reading.items.iter().map(|i| i.field("claim").unwrap_or_default().to_owned()).collect()
    }

    #[test]
    fn each_write_bumps_the_version_exactly_once() {
        let dir = test_dir("bump");
        let mut store = Store::init(dir.path(), false).expect("init");
        assert_eq!(store.memorize("first", "test", None, Some(1)).expect("m1"), 2);
        assert_eq!(store.memorize("second", "test", None, None).expect("m2"), 3);
        let saved = store.persist("save", None, Some(3)).expect("save");
        assert_eq!((saved.store_version, saved.wrote), (4, true));
        assert_eq!(saved.counts.checkpoints, 1);
        let checkpoint = store.persist("checkpoint", None, None).expect("checkpoint");
        assert_eq!(checkpoint.store_version, 5);
        assert_eq!(checkpoint.counts.checkpoints, 2);

        let reopened = Store::open(dir.path()).expect("open");
        assert_eq!(reopened.version().expect("version"), 5);
        let snapshot = reopened.snapshot().expect("snapshot");
        let memories = snapshot.read(Read::Memories, &[]).expect("read");
        let ids: Vec<_> = memories.items.iter().map(|i| i.field("id").unwrap_or_default()).collect();
        assert_eq!(ids, ["mem_00000003", "mem_00000002"]);
        drop(snapshot);
        assert_eq!(claims(&reopened), ["second", "first"]);
        assert_eq!(files(&reopened).len(), 1, "a write left a file behind");
    }

    #[test]
    fn stale_expected_version_conflicts_and_changes_nothing() {
        let dir = test_dir("conflict");
        let mut store = Store::init(dir.path(), true).expect("init");
        store.memorize("moves it to 2", "test", None, Some(1)).expect("m");
        let before = files(&store);

        let err = store.memorize("stale", "test", Some("agent-x"), Some(1)).expect_err("stale memorize");
        assert!(matches!(err, StoreError::Conflict { expected: 1, actual: 2 }));
        for action in ["save", "checkpoint", "status", "load"] {
            let err = store.persist(action, Some("agent-x"), Some(7)).expect_err(action);
            assert!(matches!(err, StoreError::Conflict { .. }), "{action}: {err}");
        }
        assert_eq!(files(&store), before);
        assert_eq!(store.version().expect("version"), 2);
    }

    #[test]
    fn another_writer_makes_a_held_version_stale() {
        let dir = test_dir("two-writers");
        let mut a = Store::init(dir.path(), false).expect("init");
        let mut b = Store::open(dir.path()).expect("open");
        let seen = a.version().expect("version");
        b.memorize("b wins", "b", None, Some(1)).expect("b");
        let before = files(&b);
        let err = a.memorize("a loses", "a", None, Some(seen)).expect_err("a");
        assert!(matches!(err, StoreError::Conflict { expected: 1, actual: 2 }));
        assert_eq!(files(&b), before);
        // Without an expectation, a writes on top of b's change, not over it.
        assert_eq!(a.memorize("a after", "a", None, None).expect("a"), 3);
        assert_eq!(claims(&a), ["a after", "b wins"]);
    }

    /// Writers, each with its own connection, racing without an expected
    /// version: every write lands on top of the others', none is lost, and
    /// the version rises once per write.
    #[test]
    fn concurrent_writers_lose_nothing() {
        const WRITERS: usize = 3;
        const EACH: usize = 5;
        let dir = test_dir("race");
        Store::init(dir.path(), false).expect("init");
        let start = std::sync::Barrier::new(WRITERS);
        std::thread::scope(|scope| {
            for writer in 0..WRITERS {
                let (dir, start) = (dir.path(), &start);
                scope.spawn(move || {
                    let mut store = Store::open(dir).expect("open");
                    start.wait();
                    for n in 0..EACH {
                        store.memorize(&format!("claim {writer}.{n}"), "race", None, None).expect("memorize");
                    }
                });
            }
        });
        let store = Store::open(dir.path()).expect("open");
        let total = WRITERS * EACH;
        assert_eq!(store.version().expect("version"), 1 + total as u64);
        let mut got = claims(&store);
        got.sort_unstable();
        let mut expected: Vec<String> =
            (0..WRITERS).flat_map(|w| (0..EACH).map(move |n| format!("claim {w}.{n}"))).collect();
        expected.sort_unstable();
        assert_eq!(got, expected);
    }

    #[test]
    fn status_and_load_never_write() {
        let dir = test_dir("status");
        let mut store = Store::init(dir.path(), true).expect("init");
        let before = files(&store);
        let status = store.persist("status", Some("agent-x"), Some(1)).expect("status");
        assert_eq!(status.store_version, 1);
        assert!(!status.wrote);
        assert_eq!(status.counts.memories, 7);
        let load = store.persist("load", None, None).expect("load");
        assert_eq!((load.store_version, load.wrote), (1, false));
        assert_eq!(files(&store), before);
        assert_eq!(Store::open(dir.path()).expect("open").version().expect("version"), 1);
    }

    #[test]
    fn load_and_status_see_other_writers() {
        let dir = test_dir("load");
        let mut a = Store::init(dir.path(), false).expect("init");
        Store::open(dir.path()).expect("open").memorize("elsewhere", "b", None, None).expect("b");
        let outcome = a.persist("load", None, Some(2)).expect("load");
        assert_eq!(outcome.counts.memories, 1);
        assert_eq!(a.version().expect("version"), 2);
    }

    #[test]
    fn bad_arguments_change_nothing() {
        let dir = test_dir("bad-args");
        let mut store = Store::init(dir.path(), true).expect("init");
        let before = files(&store);
        let huge = "x".repeat(1024 * 1024);
        let cases = [
            store.memorize(&huge, "test", None, None),
            store.memorize(&"y".repeat(MAX_CLAIM_CHARS + 1), "test", None, None),
            store.memorize("", "test", None, None),
            store.memorize(" \n\t", "test", None, None),
            store.memorize("ok", "  ", None, None),
            store.memorize("ok", &"s".repeat(MAX_SOURCE_CHARS + 1), None, None),
            store.memorize("a claim with \0 inside", "test", None, None),
            store.memorize("ok", "a source\0", None, None),
        ];
        for result in cases {
            assert!(matches!(result, Err(StoreError::BadArgument(_))), "{result:?}");
        }
        for action in ["", "STATUS", "delete", "save now"] {
            let err = store.persist(action, None, None).expect_err(action);
            assert!(matches!(err, StoreError::BadArgument(_)));
        }
        assert_eq!(files(&store), before);
        // The limit itself is accepted.
        let at_limit = "z".repeat(MAX_CLAIM_CHARS);
        assert_eq!(store.memorize(&at_limit, "test", None, Some(1)).expect("limit"), 2);
    }

    #[test]
    fn a_write_past_the_declared_size_is_refused_and_rolled_back() {
        let dir = test_dir("full");
        let mut store = Store::create(dir.path(), &state::State::empty(), super::super::MIN_MAX_BYTES).expect("init");
        let claim = "w".repeat(MAX_CLAIM_CHARS);
        let mut last = 1;
        let refused = loop {
            match store.memorize(&claim, "test", None, None) {
                Ok(version) => last = version,
                Err(e) => break e,
            }
            assert!(last < 1000, "the limit never held");
        };
        assert!(matches!(refused, StoreError::Full { .. }), "{refused:?}");
        assert!(refused.to_string().contains(&store.path().display().to_string()));
        let size = fs::metadata(store.path()).expect("stat").len();
        assert!(size <= super::super::MIN_MAX_BYTES, "{size}");
        let before = files(&store);
        assert!(store.memorize(&claim, "test", None, None).is_err());
        assert_eq!(files(&store), before, "a refused write changed the files");
        let reopened = Store::open(dir.path()).expect("open");
        assert_eq!(reopened.version().expect("version"), last);
        // Small writes may still fit.
        assert_eq!(files(&reopened).len(), 1);
    }

    #[test]
    fn the_agent_is_recorded_with_the_memory_and_as_a_presence() {
        let dir = test_dir("agent");
        let mut store = Store::init(dir.path(), true).expect("init");
        store.memorize("attributed", "test", Some("  agent-9 "), None).expect("m");
        store.memorize("anonymous", "test", None, None).expect("m");
        store.persist("save", Some("agent-9"), None).expect("save");
        let snapshot = store.snapshot().expect("snapshot");
        let agents = snapshot.column("SELECT agent_id FROM memories ORDER BY seq DESC LIMIT 2");
        assert_eq!(agents, [None, Some("agent-9".to_owned())]);
        let presences = snapshot.read(Read::Presences, &[]).expect("read");
        assert_eq!(presences.number("agents"), 4);
        assert_eq!(presences.items[0].field("id"), Some("agent-9"));
        assert_eq!(presences.items[0].field("doing"), Some("persist"));
    }

    #[test]
    fn a_corrupt_store_is_never_overwritten() {
        let dir = test_dir("corrupt-write");
        let mut store = Store::init(dir.path(), true).expect("init");
        let good = fs::read(store.path()).expect("read");
        let cases: [&[u8]; 3] = [b"garbage", &good[..good.len() / 2], b""];
        for corrupt in cases {
            fs::write(store.path(), corrupt).expect("corrupt it");
            for result in [
                store.memorize("claim", "test", None, None).map(|_| ()),
                store.persist("save", None, None).map(|_| ()),
                store.persist("checkpoint", None, Some(1)).map(|_| ()),
                store.persist("status", None, None).map(|_| ()),
            ] {
                let err = result.expect_err("write on corrupt store");
                assert!(err.to_string().contains(&store.path().display().to_string()), "{err}");
            }
            assert_eq!(fs::read(store.path()).expect("read"), corrupt);
        }
    }

    #[test]
    fn a_deleted_or_replaced_store_takes_no_write() {
        let dir = test_dir("deleted");
        let mut store = Store::init(dir.path(), false).expect("init");
        fs::remove_file(store.path()).expect("delete");
        let err = store.memorize("claim", "test", None, None).expect_err("gone");
        assert!(matches!(err, StoreError::Moved { .. }), "{err:?}");
        assert!(!store.path().exists());

        // A different store put in its place is not written through the old
        // connection either.
        let other = test_dir("replacement");
        Store::init(other.path(), false).expect("other");
        fs::copy(other.path().join(DB_FILE), store.path()).expect("replace");
        let before = fs::read(store.path()).expect("read");
        let err = store.memorize("claim", "test", None, None).expect_err("replaced");
        assert!(matches!(err, StoreError::Moved { .. }), "{err:?}");
        assert_eq!(fs::read(store.path()).expect("read"), before);
    }
}
