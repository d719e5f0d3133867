//! The store connection a session keeps between calls.
//!
//! Reopening the store for every call would cost a schema parse and a cold
//! page cache each time. Keeping one connection keeps SQLite's cache warm
//! (it stays valid across this connection's own writes and is dropped by
//! SQLite itself when another process writes). Before every use the files
//! are checked again, exactly as an open would check them
//! ([`Store::still_at_path`]): if the path no longer names the file the
//! connection has, or the journal is not a regular file, the connection is
//! dropped and the store opened afresh, which reports what is wrong. A call
//! that fails drops the connection too, so the next call starts clean.

use std::path::PathBuf;
use std::sync::Mutex;

use m1nd::store::Store;

pub struct Held {
    dir: PathBuf,
    store: Mutex<Option<Store>>,
}

impl Held {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, store: Mutex::new(None) }
    }

    /// Run `use_it` on the store (never creating one).
    pub fn with<T>(&self, use_it: impl FnOnce(&mut Store) -> Result<T, String>) -> Result<T, String> {
        let mut held = self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let store = match held.take() {
            Some(store) if store.still_at_path().is_ok() => store,
            _ => Store::open(&self.dir).map_err(|e| e.to_string())?,
        };
        let store = held.insert(store);
        let result = use_it(store);
        if result.is_err() {
            *held = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use m1nd::store::DB_FILE;

    use super::*;

    #[test]
    fn a_replaced_store_is_opened_afresh_and_a_missing_one_is_an_error() {
        let dir = tempfile::Builder::new().prefix("m1nd-held-").tempdir().expect("dir");
        let held = Held::new(dir.path().to_owned());
        assert!(held.with(|_| Ok(())).expect_err("missing").contains("m1nd init"));
        Store::init(dir.path(), false).expect("init");
        let version = |held: &Held| held.with(|s| s.version().map_err(|e| e.to_string()));
        assert_eq!(version(&held), Ok(1));
        held.with(|s| s.memorize("kept connection", "test", None, None).map_err(|e| e.to_string())).expect("write");
        assert_eq!(version(&held), Ok(2));

        let other = tempfile::Builder::new().prefix("m1nd-held-other-").tempdir().expect("dir");
        Store::init(other.path(), false).expect("other");
        fs::rename(other.path().join(DB_FILE), dir.path().join(DB_FILE)).expect("replace");
        assert_eq!(version(&held), Ok(1), "the replacement is read, not the held file");
        fs::remove_file(dir.path().join(DB_FILE)).expect("remove");
        assert!(version(&held).is_err());
    }
}
