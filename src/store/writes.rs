//! The store's writes: `memorize` and `persist`.
//!
//! Every write re-reads `state.json` and validates it before touching it, so a
//! file that went corrupt (or was changed by another process) since `open` is
//! never overwritten from a stale copy. `expected_store_version` is checked
//! against that fresh read, and the read, the check and the replacement all
//! happen under the store's write lock, so no other writer can slip in between.

use std::fmt;

use super::Store;
use super::clock;
use super::disk;
use super::error::StoreError;
use super::state::{self, Counts, MAX_SOURCE_CHARS, Memory, State};

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
    /// Whether `state.json` was rewritten (and the version bumped).
    pub wrote: bool,
    pub counts: Counts,
}

impl Store {
    /// Append a memory. Returns the new store_version.
    pub fn memorize(
        &mut self,
        claim: &str,
        source: &str,
        expected_store_version: Option<u64>,
    ) -> Result<u64, StoreError> {
        state::check_claim(claim).map_err(StoreError::BadArgument)?;
        let source = source.trim();
        if source.is_empty() {
            return Err(StoreError::BadArgument(
                "the source is empty; say who or what the claim comes from".to_owned(),
            ));
        }
        let chars = source.chars().count();
        if chars > MAX_SOURCE_CHARS {
            return Err(StoreError::BadArgument(format!(
                "the source is {chars} characters; the limit is {MAX_SOURCE_CHARS}"
            )));
        }
        self.commit(expected_store_version, |next, version| {
            let id = memory_id(next, version);
            next.memories.push(Memory { id, claim: claim.to_owned(), source: source.to_owned(), at: clock::now_utc() });
        })
    }

    /// `status`, `save`, `checkpoint` or `load`; anything else is `BadArgument`.
    pub fn persist(&mut self, action: &str, expected_store_version: Option<u64>) -> Result<PersistOutcome, StoreError> {
        let action = PersistAction::parse(action).ok_or_else(|| {
            let shown: String = action.chars().take(32).collect();
            StoreError::BadArgument(format!("unknown persist action `{shown}`; use status, save, checkpoint or load"))
        })?;
        if action.writes() {
            let store_version = self.commit(expected_store_version, |next, _| {
                next.checkpoints = next.checkpoints.saturating_add(1);
            })?;
            return Ok(self.outcome(action, store_version, true));
        }
        let on_disk = disk::load(&self.path)?;
        check_expected(expected_store_version, on_disk.store_version)?;
        let outcome =
            PersistOutcome { action, store_version: on_disk.store_version, wrote: false, counts: on_disk.counts() };
        if action == PersistAction::Load {
            self.set_state(on_disk);
        }
        Ok(outcome)
    }

    fn outcome(&self, action: PersistAction, store_version: u64, wrote: bool) -> PersistOutcome {
        PersistOutcome { action, store_version, wrote, counts: self.state.counts() }
    }

    /// Under the store's write lock ([`disk::lock`]): re-read, check the
    /// version, apply `change`, bump, write, rename into place. `change` gets
    /// the version the write will produce.
    ///
    /// Holding the lock across all of it is what makes the version check mean
    /// something between processes: without it two writers could both read
    /// version N, both pass the check and both write N + 1, and one write
    /// would be lost. A crashed writer cannot leave the lock held (the
    /// operating system drops it with the process).
    fn commit(&mut self, expected: Option<u64>, change: impl FnOnce(&mut State, u64)) -> Result<u64, StoreError> {
        let _lock = disk::lock(&self.dir)?;
        let mut next = disk::load(&self.path)?;
        check_expected(expected, next.store_version)?;
        let version = next
            .store_version
            .checked_add(1)
            .ok_or_else(|| StoreError::corrupt(&self.path, "store_version is at its maximum and cannot grow"))?;
        change(&mut next, version);
        next.store_version = version;
        // The change is ours, so this only fails on a bug; still, never write
        // a state that could not be opened again.
        next.validate().map_err(StoreError::BadArgument)?;
        let bytes = disk::encode(&self.path, &next)?;
        disk::write_atomic(&self.dir, &bytes, disk::Mode::Replace)?;
        self.set_state(next);
        Ok(version)
    }
}

fn check_expected(expected: Option<u64>, actual: u64) -> Result<(), StoreError> {
    match expected {
        Some(expected) if expected != actual => Err(StoreError::Conflict { expected, actual }),
        _ => Ok(()),
    }
}

/// `mem_` + the version in hex: unique because versions only grow, with a
/// suffix in the unlikely case a hand-written id already took it.
fn memory_id(state: &State, version: u64) -> String {
    let base = format!("mem_{version:08x}");
    let taken = |id: &str| state.memories.iter().any(|m| m.id == id);
    if !taken(&base) {
        return base;
    }
    (2u32..).map(|n| format!("{base}_{n}")).find(|id| !taken(id)).unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::test_dir::test_dir;
    use super::*;
    use crate::store::MAX_CLAIM_CHARS;

    fn bytes(store: &Store) -> Vec<u8> {
        fs::read(store.path()).expect("read state.json")
    }

    #[test]
    fn each_write_bumps_the_version_exactly_once() {
        let dir = test_dir("bump");
        let mut store = Store::init(dir.path(), false).expect("init");
        assert_eq!(store.memorize("first", "test", Some(1)).expect("m1"), 2);
        assert_eq!(store.memorize("second", "test", None).expect("m2"), 3);
        let saved = store.persist("save", Some(3)).expect("save");
        assert_eq!((saved.store_version, saved.wrote), (4, true));
        assert_eq!(saved.counts.checkpoints, 1);
        let checkpoint = store.persist("checkpoint", None).expect("checkpoint");
        assert_eq!(checkpoint.store_version, 5);
        assert_eq!(checkpoint.counts.checkpoints, 2);

        let reopened = Store::open(dir.path()).expect("open");
        assert_eq!(reopened.version(), 5);
        assert_eq!(reopened.state(), store.state());
        let ids: Vec<_> = reopened.state().memories.iter().map(|m| &m.id).collect();
        assert_eq!(ids, ["mem_00000002", "mem_00000003"]);
        assert_eq!(reopened.state().memories[1].claim, "second");
    }

    #[test]
    fn stale_expected_version_conflicts_and_changes_nothing() {
        let dir = test_dir("conflict");
        let mut store = Store::init(dir.path(), true).expect("init");
        store.memorize("moves it to 2", "test", Some(1)).expect("m");
        let before = bytes(&store);
        let state_before = store.state().clone();

        let err = store.memorize("stale", "test", Some(1)).expect_err("stale memorize");
        assert!(matches!(err, StoreError::Conflict { expected: 1, actual: 2 }));
        for action in ["save", "checkpoint", "status", "load"] {
            let err = store.persist(action, Some(7)).expect_err(action);
            assert!(matches!(err, StoreError::Conflict { .. }), "{action}: {err}");
        }
        assert_eq!(bytes(&store), before);
        assert_eq!(store.state(), &state_before);
    }

    #[test]
    fn another_writer_makes_a_held_version_stale() {
        let dir = test_dir("two-writers");
        let mut a = Store::init(dir.path(), false).expect("init");
        let mut b = Store::open(dir.path()).expect("open");
        b.memorize("b wins", "b", Some(1)).expect("b");
        let before = bytes(&b);
        let err = a.memorize("a loses", "a", Some(a.version())).expect_err("a");
        assert!(matches!(err, StoreError::Conflict { expected: 1, actual: 2 }));
        assert_eq!(bytes(&b), before);
        // Without an expectation, a writes on top of b's change, not over it.
        assert_eq!(a.memorize("a after", "a", None).expect("a"), 3);
        assert_eq!(a.state().memories.len(), 2);
    }

    /// Two writers, each with its own open store, racing without an expected
    /// version: every write lands on top of the other's, none is lost, and the
    /// version rises once per write.
    #[test]
    fn concurrent_writers_lose_nothing() {
        const WRITERS: usize = 2;
        const EACH: usize = 25;
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
                        store.memorize(&format!("claim {writer}.{n}"), "race", None).expect("memorize");
                    }
                });
            }
        });
        let store = Store::open(dir.path()).expect("open");
        let total = WRITERS * EACH;
        assert_eq!(store.version(), 1 + total as u64);
        let mut claims: Vec<&str> = store.state().memories.iter().map(|m| m.claim.as_str()).collect();
        claims.sort_unstable();
        let mut expected: Vec<String> =
            (0..WRITERS).flat_map(|w| (0..EACH).map(move |n| format!("claim {w}.{n}"))).collect();
        expected.sort_unstable();
        assert_eq!(claims, expected);
        let mut ids: Vec<&str> = store.state().memories.iter().map(|m| m.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), total, "two writes produced the same memory id");
    }

    #[test]
    fn status_and_load_never_write() {
        let dir = test_dir("status");
        let mut store = Store::init(dir.path(), true).expect("init");
        let before = bytes(&store);
        let status = store.persist("status", Some(1)).expect("status");
        assert_eq!(status.store_version, 1);
        assert!(!status.wrote);
        assert_eq!(status.counts, store.state().counts());
        assert_eq!(status.counts.memories, 7);
        let load = store.persist("load", None).expect("load");
        assert_eq!((load.store_version, load.wrote), (1, false));
        assert_eq!(bytes(&store), before);
        assert_eq!(Store::open(dir.path()).expect("open").version(), 1);
    }

    #[test]
    fn load_picks_up_changes_from_disk() {
        let dir = test_dir("load");
        let mut a = Store::init(dir.path(), false).expect("init");
        Store::open(dir.path()).expect("open").memorize("elsewhere", "b", None).expect("b");
        assert_eq!(a.state().memories.len(), 0);
        let memories = |store: &Store| store.read_named("boot_memory", &[]).expect("read").number("memories");
        assert_eq!(memories(&a), 0);
        let outcome = a.persist("load", Some(2)).expect("load");
        assert_eq!(outcome.counts.memories, 1);
        assert_eq!(a.version(), 2);
        assert_eq!(memories(&a), 1, "a reading of the old state outlived the load");
    }

    #[test]
    fn bad_arguments_change_nothing() {
        let dir = test_dir("bad-args");
        let mut store = Store::init(dir.path(), true).expect("init");
        let before = bytes(&store);
        let huge = "x".repeat(1024 * 1024);
        let cases = [
            store.memorize(&huge, "test", None),
            store.memorize(&"y".repeat(MAX_CLAIM_CHARS + 1), "test", None),
            store.memorize("", "test", None),
            store.memorize(" \n\t", "test", None),
            store.memorize("ok", "  ", None),
            store.memorize("ok", &"s".repeat(MAX_SOURCE_CHARS + 1), None),
        ];
        for result in cases {
            assert!(matches!(result, Err(StoreError::BadArgument(_))), "{result:?}");
        }
        for action in ["", "STATUS", "delete", "save now"] {
            let err = store.persist(action, None).expect_err(action);
            assert!(matches!(err, StoreError::BadArgument(_)));
        }
        assert_eq!(bytes(&store), before);
        assert_eq!(store.version(), 1);
        // The limit itself is accepted.
        let at_limit = "z".repeat(MAX_CLAIM_CHARS);
        assert_eq!(store.memorize(&at_limit, "test", Some(1)).expect("limit"), 2);
    }

    #[test]
    fn a_corrupt_store_is_never_overwritten() {
        let dir = test_dir("corrupt-write");
        let mut store = Store::init(dir.path(), true).expect("init");
        let good = bytes(&store);
        let cases: [&[u8]; 4] = [b"garbage", &good[..good.len() - 10], b"{\"format\": \"m1nd-store-v2\"}", b""];
        for corrupt in cases {
            fs::write(store.path(), corrupt).expect("corrupt it");
            for result in [
                store.memorize("claim", "test", None).map(|_| ()),
                store.persist("save", None).map(|_| ()),
                store.persist("checkpoint", Some(1)).map(|_| ()),
                store.persist("status", None).map(|_| ()),
                store.persist("load", None).map(|_| ()),
            ] {
                let err = result.expect_err("write on corrupt store");
                assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
                assert!(err.to_string().contains(&store.path().display().to_string()));
            }
            assert_eq!(bytes(&store), corrupt);
        }
        // The state held in memory is untouched by the failed attempts.
        assert_eq!(store.version(), 1);
    }

    #[test]
    fn a_deleted_store_is_not_recreated_by_a_write() {
        let dir = test_dir("deleted");
        let mut store = Store::init(dir.path(), false).expect("init");
        fs::remove_file(store.path()).expect("delete");
        let err = store.memorize("claim", "test", None).expect_err("gone");
        assert!(matches!(err, StoreError::NotFound { .. }));
        assert!(!store.path().exists());

        // Nor is a deleted store directory: the lock never creates one.
        fs::remove_dir_all(dir.path()).expect("delete dir");
        let err = store.persist("save", None).expect_err("gone");
        assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
        assert!(!dir.path().exists());
    }

    #[test]
    fn a_missing_lock_file_is_created_by_the_next_write() {
        let dir = test_dir("no-lock");
        let mut store = Store::init(dir.path(), false).expect("init");
        let lock = dir.path().join(disk::LOCK_FILE);
        // A store made before writers took a lock has no lock file.
        fs::remove_file(&lock).expect("remove lock");
        assert_eq!(store.memorize("claim", "test", Some(1)).expect("memorize"), 2);
        assert!(lock.is_file());
    }

    #[test]
    fn memory_ids_avoid_existing_ones() {
        let mut state = State::empty();
        state.memories.push(Memory {
            id: "mem_00000002".into(),
            claim: "c".into(),
            source: "s".into(),
            at: "t".into(),
        });
        assert_eq!(memory_id(&state, 2), "mem_00000002_2");
        assert_eq!(memory_id(&state, 3), "mem_00000003");
    }
}
