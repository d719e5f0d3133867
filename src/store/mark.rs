//! Has the store changed? Asked without a connection, in two system calls.
//!
//! In rollback-journal mode SQLite adds one to the file change counter
//! (offset 24 of the database header) in every transaction that commits a
//! change, whoever commits it. A [`Mark`] is the file's identity (device and
//! inode) and that counter: while the mark a reading was taken at is still
//! the mark of the file at the store's path, nothing has been committed
//! since, so what was composed from that reading is still the answer.
//!
//! A mark read while another process commits is either the old one (the
//! commit has not written its first page; the old state is still the
//! committed one) or the new one (the caller then reads the store, and
//! SQLite's locks make it wait for the commit or roll a crashed one back).
//! Either way no answer is given for a state that was never committed.
//!
//! The counter is read through the descriptor the store keeps for the file
//! (`kept.rs`): closing a descriptor of the database file would drop every
//! lock this process holds on it, SQLite's included.
//!
//! A PostgreSQL store has no file to look at. Its mark is the newest
//! `store_version` this replica has heard of ([`NewestHeard`]): its own commits,
//! and the others' through `LISTEN` (`service/listen.rs`), which tells the
//! probe when it loses the database and only vouches again once it has
//! read the version afresh. An answer is kept under the version of the
//! snapshot it was composed from, so it is handed out only while that is
//! the newest version heard; a commit elsewhere stops that within the time
//! its notification takes to arrive, and while the listener is not
//! listening there is no mark at all, so every cockpit is read.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use super::file::{FileId, db_path};
use super::kept;
use super::location::Location;

/// The state a kept answer was composed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// SQLite: which file, and how many commits it has seen.
    File { file: FileId, changes: u32 },
    /// PostgreSQL: the store version.
    Version(u64),
}

/// Reads marks of the store at one location.
pub enum Probe {
    File(PathBuf),
    Postgres(NewestHeard),
}

/// The newest store version a PostgreSQL replica has heard of, while it
/// listens for the others' commits.
#[derive(Default)]
pub struct NewestHeard {
    /// The version, while it can be vouched for.
    version: std::sync::Mutex<Option<u64>>,
}

impl NewestHeard {
    /// `version` was committed (here, or heard of): the newest wins.
    pub fn heard(&self, version: u64) {
        let mut held = self.version.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(known) = held.as_mut() {
            *known = (*known).max(version);
        }
    }

    /// The listener read `version` afresh (at its start, or after a loss):
    /// from now on it vouches for what it hears.
    pub fn listening_at(&self, version: u64) {
        let mut held = self.version.lock().unwrap_or_else(|p| p.into_inner());
        *held = Some(held.map_or(version, |known| known.max(version)));
    }

    /// The listener lost the database: commits may go unheard, so nothing
    /// is vouched for until it reads the version again.
    pub fn deaf(&self) {
        *self.version.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn now(&self) -> Option<u64> {
        *self.version.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Probe {
    pub fn new(at: &Location) -> Self {
        match at {
            Location::Dir(dir) => Probe::File(db_path(dir)),
            Location::Postgres(_) => Probe::Postgres(NewestHeard::default()),
        }
    }

    /// What a PostgreSQL replica has heard, for its listener and writer to tell.
    pub fn newest(&self) -> Option<&NewestHeard> {
        match self {
            Probe::Postgres(heard) => Some(heard),
            Probe::File(_) => None,
        }
    }

    /// The mark of the store now, if it can be read cheaply: `None` (read
    /// through a connection instead) when there is no file, it is not a
    /// regular one or too many files were opened, or a PostgreSQL replica
    /// is not listening.
    pub fn mark(&self) -> Option<Mark> {
        let path = match self {
            Probe::File(path) => path,
            Probe::Postgres(heard) => return heard.now().map(Mark::Version),
        };
        let meta = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        let seen = FileId::of(&meta);
        let (opened, file) = kept::descriptor(path, seen).ok()?;
        // The path may have been replaced between the look and the open.
        if opened != seen {
            return None;
        }
        let mut counter = [0u8; 4];
        file.read_exact_at(&mut counter, 24).ok()?;
        Some(Mark::File { file: seen, changes: u32::from_be_bytes(counter) })
    }

    /// The mark to keep an answer under, composed inside a read transaction
    /// whose store version is `version`: the file's mark on SQLite (no
    /// commit can be under way inside the transaction), the version itself
    /// on PostgreSQL.
    pub fn mark_of(&self, version: u64) -> Option<Mark> {
        match self {
            Probe::File(_) => self.mark(),
            Probe::Postgres(_) => Some(Mark::Version(version)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_dir::test_dir;
    use super::*;
    use crate::store::{DB_FILE, Store};

    #[test]
    fn a_commit_by_anyone_changes_the_mark_and_a_read_does_not() {
        let dir = test_dir("mark");
        let mut store = Store::init(dir.path(), true).expect("init");
        let probe = Probe::new(&dir.path().into());
        let first = probe.mark().expect("a mark");
        assert_eq!(probe.mark(), Some(first), "nothing happened");
        store.snapshot().expect("read").counts().expect("counts");
        assert_eq!(probe.mark(), Some(first), "a read commits nothing");
        store.memorize("moves the mark", "test", None, None).expect("write");
        let second = probe.mark().expect("a mark");
        assert_ne!(second, first);
        let mut other = Store::open(dir.path()).expect("open");
        other.memorize("another connection", "test", None, None).expect("write");
        assert_ne!(probe.mark(), Some(second), "another connection's commit");
        // The store still works after the probe looked: its locks are intact.
        store.memorize("still writes", "test", None, None).expect("write");
    }

    #[test]
    fn a_postgresql_mark_is_vouched_for_only_while_listening() {
        let at: Location = "postgres://m1nd@db.invalid/m1nd".parse().unwrap_or_else(|never| match never {});
        let probe = Probe::new(&at);
        let heard = probe.newest().expect("a PostgreSQL probe");
        assert_eq!(probe.mark(), None, "nothing is vouched for before the listener reads");
        heard.heard(4);
        assert_eq!(probe.mark(), None, "a commit heard before listening vouches for nothing");
        heard.listening_at(5);
        assert_eq!(probe.mark(), Some(Mark::Version(5)));
        heard.heard(7);
        heard.heard(6);
        assert_eq!(probe.mark(), Some(Mark::Version(7)), "the newest heard wins");
        heard.deaf();
        heard.heard(8);
        assert_eq!(probe.mark(), None, "while deaf, every cockpit is read");
        heard.listening_at(9);
        assert_eq!(probe.mark(), Some(Mark::Version(9)));
        assert_eq!(probe.mark_of(3), Some(Mark::Version(3)), "an answer is kept under its snapshot's version");
    }

    #[test]
    fn a_replaced_file_has_another_mark_and_no_file_none() {
        let dir = test_dir("mark-replace");
        Store::init(dir.path(), false).expect("init");
        let probe = Probe::new(&dir.path().into());
        let first = probe.mark().expect("a mark");
        let other = test_dir("mark-other");
        Store::init(other.path(), false).expect("other");
        std::fs::rename(other.path().join(DB_FILE), dir.path().join(DB_FILE)).expect("replace");
        let second = probe.mark().expect("a mark");
        assert_ne!(second, first, "same counter, another file");
        std::fs::remove_file(dir.path().join(DB_FILE)).expect("remove");
        assert_eq!(probe.mark(), None);
    }
}
