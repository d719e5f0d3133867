//! The store connection a thread keeps between jobs.
//!
//! Reopening the store for every job would cost a schema parse and a cold
//! page cache each time. Keeping one connection keeps SQLite's cache warm
//! (it stays valid across this connection's own writes and is dropped by
//! SQLite itself when another process writes). Before every use the files
//! are checked again, exactly as an open would check them
//! ([`Store::still_at_path`]): if the path no longer names the file the
//! connection has, or the journal is not a regular file, the connection is
//! dropped and the store opened afresh, which reports what is wrong. A job
//! that fails drops the connection too, so the next one starts clean.
//!
//! Each thread that uses the store (the writer, each reader) holds a `Held`
//! of its own, so it needs no lock.

use crate::store::{Location, Store, StoreError};

pub struct Held {
    at: Location,
    store: Option<Store>,
}

impl Held {
    pub fn new(at: Location) -> Self {
        Self { at, store: None }
    }

    /// Run `use_it` on the store (never creating one).
    pub fn with<T, E: From<StoreError>>(&mut self, use_it: impl FnOnce(&mut Store) -> Result<T, E>) -> Result<T, E> {
        let store = match self.store.take() {
            Some(store) if store.still_at_path().is_ok() => store,
            _ => Store::open_at(&self.at)?,
        };
        let store = self.store.insert(store);
        let result = use_it(store);
        if result.is_err() {
            self.store = None;
        }
        result
    }

    /// Drop the connection: the next use opens the store afresh.
    pub fn reset(&mut self) {
        self.store = None;
    }

    /// The store if a connection is open and still names the file at its path.
    pub fn open_and_current(&mut self) -> Option<&mut Store> {
        if self.store.as_ref().is_some_and(|s| s.still_at_path().is_err()) {
            self.store = None;
        }
        self.store.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::store::DB_FILE;

    #[test]
    fn a_replaced_store_is_opened_afresh_and_a_missing_one_is_an_error() {
        let dir = tempfile::Builder::new().prefix("m1nd-held-").tempdir().expect("dir");
        let mut held = Held::new(dir.path().into());
        let missing = held.with(|_| Ok::<_, StoreError>(())).expect_err("missing");
        assert!(missing.to_string().contains(&crate::invocation::m1nd("init")), "{missing}");
        Store::init(dir.path(), false).expect("init");
        let version = |held: &mut Held| held.with(|s| s.version()).expect("version");
        assert_eq!(version(&mut held), 1);
        held.with(|s| s.memorize("kept connection", "test", None, None)).expect("write");
        assert_eq!(version(&mut held), 2);

        let other = tempfile::Builder::new().prefix("m1nd-held-other-").tempdir().expect("dir");
        Store::init(other.path(), false).expect("other");
        fs::rename(other.path().join(DB_FILE), dir.path().join(DB_FILE)).expect("replace");
        assert!(held.open_and_current().is_none(), "the held connection is to the replaced file");
        assert_eq!(version(&mut held), 1, "the replacement is read, not the held file");
        fs::remove_file(dir.path().join(DB_FILE)).expect("remove");
        assert!(held.with(|s| s.version()).is_err());
    }
}
