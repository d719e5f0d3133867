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

use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use super::file::{FileId, db_path};
use super::kept;
use super::location::Location;

/// Which file, and how many commits it has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mark {
    file: FileId,
    changes: u32,
}

/// Reads marks of the store at one path.
pub struct Probe {
    /// `None` for a PostgreSQL store, which has no file to look at: every
    /// answer is then composed from a reading.
    path: Option<PathBuf>,
}

impl Probe {
    pub fn new(at: &Location) -> Self {
        match at {
            Location::Dir(dir) => Self { path: Some(db_path(dir)) },
            Location::Postgres(_) => Self { path: None },
        }
    }

    /// The mark of the file at the store's path now, if it can be read
    /// cheaply: `None` (read through a connection instead) when there is no
    /// file, it is not a regular one, or too many files were opened.
    pub fn mark(&self) -> Option<Mark> {
        let path = self.path.as_deref()?;
        let meta = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        let seen = FileId::of(&meta);
        let (opened, file) = kept::descriptor(path, seen).ok()?;
        // The path may have been replaced between the look and the open.
        if opened != seen {
            return None;
        }
        let mut counter = [0u8; 4];
        file.read_exact_at(&mut counter, 24).ok()?;
        Some(Mark { file: seen, changes: u32::from_be_bytes(counter) })
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
