//! The embedded default store: a `.m1nd/` directory holding one `state.json`
//! (and an empty `state.lock`, which only orders writers).
//!
//! It serves the read verbs the cockpit composes (see [`reads`]) and a few
//! writes (`memorize`, `persist`) so that state can actually move. Every
//! successful write bumps `store_version` exactly once; a write that names a
//! stale version changes nothing. A store is never created by opening it, and
//! a file this build cannot read is reported, never overwritten.

mod clock;
mod demo;
mod disk;
mod error;
pub mod reads;
mod state;
#[cfg(test)]
mod test_dir;
pub mod verbs;
mod writes;

use std::fs::{self, File};
use std::path::{Path, PathBuf};

pub use disk::{LOCK_FILE, STATE_FILE};
pub use error::StoreError;
pub use state::{
    Alert, Block, BlockStatus, Counts, Drift, FORMAT, Format, MAX_CLAIM_CHARS, MAX_SOURCE_CHARS, Memory, Mission,
    Module, Phase, Presence, State,
};
pub use verbs::{Op, Read, VERBS, Write, serves};
pub use writes::{PersistAction, PersistOutcome};

/// The store directory used when none is given.
pub const DEFAULT_DIR: &str = ".m1nd";

/// An open store: its directory and the state read from it.
///
/// Reads answer from the state held in memory (loaded at `open`, refreshed by
/// `reload` and by this value's own writes), so one request sees one state.
/// The readings that depend on that state alone are computed once per loaded
/// state, on first use, and lent out after that (see [`reads`]).
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    path: PathBuf,
    state: State,
    memo: reads::Memo,
}

impl Store {
    /// Open an existing store. A missing `state.json` is `NotFound`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Store, StoreError> {
        let file = Store::open_state_file(&dir)?;
        Store::open_from(dir, &file)
    }

    /// Open `dir`'s `state.json` for reading, for [`Store::open_from`]. Fails
    /// as [`Store::open`] would (a missing file is `NotFound`).
    pub fn open_state_file(dir: impl AsRef<Path>) -> Result<File, StoreError> {
        disk::open(&disk::state_path(dir.as_ref()))
    }

    /// Open the store whose `state.json` is already open as `file` (read from
    /// its start). The state held is that file's, even if the path has been
    /// replaced since it was opened, so the file's metadata describes it.
    pub fn open_from(dir: impl AsRef<Path>, file: &File) -> Result<Store, StoreError> {
        let dir = dir.as_ref().to_owned();
        let path = disk::state_path(&dir);
        let state = disk::load_from(&path, file)?;
        Ok(Store::with_state(dir, path, state))
    }

    fn with_state(dir: PathBuf, path: PathBuf, state: State) -> Store {
        Store { dir, path, state, memo: reads::Memo::default() }
    }

    /// Hold `state` from now on; readings of the previous state are dropped.
    fn set_state(&mut self, state: State) {
        self.state = state;
        self.memo = reads::Memo::default();
    }

    /// Create a store (empty, or the demo seed) at version 1, with its
    /// `state.lock` beside it. Refuses if a `state.json` is already there,
    /// whatever its contents.
    pub fn init(dir: impl AsRef<Path>, demo: bool) -> Result<Store, StoreError> {
        let dir = dir.as_ref().to_owned();
        let path = disk::state_path(&dir);
        fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, "create directory", e))?;
        // Like every write, under the write lock; this also creates the lock
        // file, so a store's files are all there from the start.
        let _lock = disk::lock(&dir)?;
        if path.try_exists().map_err(|e| StoreError::io(&path, "inspect", e))? {
            return Err(StoreError::AlreadyExists { path });
        }
        let state = if demo { demo::state() } else { State::empty() };
        state.validate().map_err(|reason| StoreError::corrupt(&path, reason))?;
        let bytes = disk::encode(&path, &state)?;
        disk::write_atomic(&dir, &bytes, disk::Mode::CreateNew)?;
        Ok(Store::with_state(dir, path, state))
    }

    /// Re-read `state.json`. On failure the previously loaded state is kept.
    pub fn reload(&mut self) -> Result<(), StoreError> {
        let state = disk::load(&self.path)?;
        self.set_state(state);
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The `state.json` inside [`Store::dir`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn version(&self) -> u64 {
        self.state.store_version
    }
}

#[cfg(test)]
mod tests {
    use super::test_dir::test_dir;
    use super::*;

    #[test]
    fn init_then_open_round_trips() {
        let dir = test_dir("init-open");
        let store_dir = dir.path().join(DEFAULT_DIR);
        let created = Store::init(&store_dir, false).expect("init");
        assert_eq!(created.version(), 1);
        assert_eq!(created.path(), store_dir.join(STATE_FILE));
        assert_eq!(fs::read(store_dir.join(LOCK_FILE)).expect("lock file"), b"");
        let opened = Store::open(&store_dir).expect("open");
        assert_eq!(opened.state(), created.state());
        assert_eq!(opened.dir(), store_dir);

        let demo_dir = dir.path().join("demo");
        let demo = Store::init(&demo_dir, true).expect("init demo");
        assert_eq!(demo.version(), 1);
        assert_eq!(Store::open(&demo_dir).expect("open").state(), demo.state());
    }

    #[test]
    fn open_never_creates() {
        let dir = test_dir("open-missing");
        let missing = dir.path().join("nowhere");
        let err = Store::open(&missing).expect_err("missing");
        assert!(matches!(err, StoreError::NotFound { .. }));
        let text = err.to_string();
        assert!(text.contains(&missing.join(STATE_FILE).display().to_string()));
        assert!(text.contains("m1nd init"));
        assert!(!missing.exists());
    }

    #[test]
    fn init_refuses_to_overwrite() {
        let dir = test_dir("init-twice");
        Store::init(dir.path(), true).expect("first init");
        let path = dir.path().join(STATE_FILE);
        let before = fs::read(&path).expect("read");
        for demo in [false, true] {
            let err = Store::init(dir.path(), demo).expect_err("second init");
            assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
            assert!(err.to_string().contains(&path.display().to_string()));
        }
        // Even a corrupt file is not replaced by init.
        fs::write(&path, b"garbage").expect("corrupt");
        assert!(matches!(Store::init(dir.path(), false), Err(StoreError::AlreadyExists { .. })));
        assert_eq!(fs::read(&path).expect("read"), b"garbage");
        assert_ne!(before, b"garbage");
    }

    #[test]
    fn corrupt_files_are_reported_with_their_path() {
        let dir = test_dir("corrupt");
        let good = Store::init(dir.path(), true).expect("init");
        let path = good.path().to_owned();
        let text = fs::read_to_string(&path).expect("read");
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("garbage", b"\x00\xffnot json at all".to_vec()),
            ("empty", Vec::new()),
            ("truncated", text.as_bytes()[..text.len() / 2].to_vec()),
            ("wrong format", text.replace(FORMAT, "m1nd-store-v0").into_bytes()),
            ("unknown field", text.replacen("\"checkpoints\"", "\"extra\": 1,\n  \"checkpoints\"", 1).into_bytes()),
            ("unknown nested field", text.replacen("\"claim\"", "\"mood\": \"x\", \"claim\"", 1).into_bytes()),
            ("not an object", b"[1, 2, 3]".to_vec()),
        ];
        for (name, bytes) in cases {
            fs::write(&path, &bytes).expect("write case");
            let err = Store::open(dir.path()).expect_err(name);
            assert!(matches!(err, StoreError::Corrupt { .. }), "{name}: expected Corrupt, got {err:?}");
            assert!(err.to_string().contains(&path.display().to_string()), "{name}: {err}");
        }
    }

    #[test]
    fn reload_sees_other_writers_and_keeps_state_on_failure() {
        let dir = test_dir("reload");
        let mut reader = Store::init(dir.path(), false).expect("init");
        let mut writer = Store::open(dir.path()).expect("open");
        let memories = |store: &Store| store.read_named("boot_memory", &[]).expect("read").number("memories");
        assert_eq!(memories(&reader), 0);
        writer.memorize("a claim", "test", None).expect("memorize");
        assert_eq!(reader.version(), 1);
        reader.reload().expect("reload");
        assert_eq!(reader.version(), 2);
        assert_eq!(memories(&reader), 1, "a reading of the old state outlived the reload");

        fs::write(reader.path(), b"{").expect("corrupt");
        assert!(reader.reload().is_err());
        assert_eq!(reader.version(), 2);
    }
}
