//! Descriptors of database files that the store reads outside SQLite, kept
//! open until the process exits.
//!
//! POSIX record locks belong to a process and a file: closing *any*
//! descriptor of a database file drops every lock the process holds on it,
//! SQLite's included, whichever thread holds them. A reader thread that
//! opened `state.db` to check its header and closed it again would take the
//! writer thread's lock away mid-commit, and a writer in another process
//! sharing the store (a second server, a replica) could then write at the
//! same time: writes lost, journals rolled back under a live transaction.
//!
//! So the store never closes a descriptor of a database file it opened
//! itself. Each file (by device and inode) is opened once, here, and shared
//! by every later look: the header checks of `file::probe` and the commit
//! counter of `mark::Probe`. That is one descriptor per store file a process
//! has looked at: a server holds one, and one more each time its file is
//! replaced, up to [`MAX_KEPT`], past which a new file is refused rather
//! than read at the cost of the locks.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Which file a path named when it was looked at: (device, inode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    #[cfg(unix)]
    pub(super) fn of(meta: &Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId { dev: meta.dev(), ino: meta.ino() }
    }

    /// A PostgreSQL store's identity: its incarnation (32 hex digits, drawn
    /// when it was made), so a store made again in its place is another.
    pub(super) fn of_incarnation(incarnation: &str) -> FileId {
        let n = u128::from_str_radix(incarnation, 16).unwrap_or(0);
        FileId { dev: (n >> 64) as u64, ino: n as u64 }
    }

    /// Without inode numbers a replaced file cannot be told apart from the
    /// original (length and times change with every write), so every file
    /// is the same file: the identity checks pass and only the type and
    /// header checks protect a store there.
    #[cfg(not(unix))]
    pub(super) fn of(_meta: &Metadata) -> FileId {
        FileId { dev: 0, ino: 0 }
    }
}

/// Opening a FIFO for reading blocks until a writer appears; non-blocking, it
/// returns at once and the type check refuses it.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

/// The most database files one process keeps open.
pub const MAX_KEPT: usize = 1024;

static KEPT: Mutex<Vec<(FileId, Arc<File>)>> = Mutex::new(Vec::new());

/// A descriptor of the regular file `path` names, which a look a moment ago
/// found to be `seen`, and the identity of the file actually opened (another,
/// if the path was replaced in between; the caller compares). Opened once
/// per file and never closed.
pub fn descriptor(path: &Path, seen: FileId) -> io::Result<(FileId, Arc<File>)> {
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((id, file)) = kept.iter().find(|(id, _)| *id == seen) {
        return Ok((*id, Arc::clone(file)));
    }
    let file = open_no_follow(path)?;
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(e) => {
            // Which file it is cannot be told, so it may be one a
            // connection holds: left open rather than closed.
            std::mem::forget(file);
            return Err(e);
        }
    };
    // Not a regular file (replaced by a FIFO since the look): closing it
    // cannot touch a database's locks, so it is not kept.
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let opened = FileId::of(&meta);
    // Elsewhere files have no inode numbers to tell them apart, and closing
    // a handle drops only that handle's locks: nothing is kept.
    if cfg!(not(unix)) {
        return Ok((opened, Arc::new(file)));
    }
    if let Some((id, kept_file)) = kept.iter().find(|(id, _)| *id == opened) {
        // A file kept already, reached after its path was replaced again:
        // this second descriptor must not be closed either (rare: it is
        // left open, not kept).
        std::mem::forget(file);
        return Ok((*id, Arc::clone(kept_file)));
    }
    if kept.len() >= MAX_KEPT {
        // Left open, not closed: a connection opened in the instant after a
        // replace may hold this file without it having been kept.
        std::mem::forget(file);
        return Err(io::Error::other(format!(
            "this process has opened {MAX_KEPT} different store files; restart it to open another"
        )));
    }
    let file = Arc::new(file);
    kept.push((opened, Arc::clone(&file)));
    Ok((opened, file))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::super::file::{db_path, probe};
    use super::super::mark::Probe;
    use super::super::test_dir::test_dir;
    use super::super::{Store, check};

    /// Whether another process can take the store's write lock now (a
    /// Python sqlite3 connection that does not wait).
    fn another_process_can_write(path: &std::path::Path) -> bool {
        let script = "import sqlite3, sys\n\
                      c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)\n\
                      c.execute('BEGIN IMMEDIATE')\n\
                      c.execute('ROLLBACK')";
        let done = Command::new("python3").args(["-c", script]).arg(path).output().expect("python3");
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success() || stderr.contains("database is locked"), "{stderr}");
        done.status.success()
    }

    /// Every way the store looks at its file outside SQLite (the header
    /// check of every job, the commit counter of kept answers, `store
    /// check`'s reads) leaves this process's lock in place, so no other
    /// process writes while a commit of this one is under way.
    #[test]
    fn looking_at_the_file_keeps_this_process_s_locks() {
        let dir = test_dir("kept-locks");
        let store = Store::init(dir.path(), true).expect("init");
        let path = db_path(dir.path());
        assert!(another_process_can_write(&path), "nothing holds the lock yet");

        let holder = rusqlite::Connection::open(&path).expect("open");
        holder.execute_batch("BEGIN IMMEDIATE").expect("take the write lock");
        for _ in 0..3 {
            probe(&path).expect("probe");
            store.still_at_path().expect("still at its path");
            Probe::new(&dir.path().into()).mark().expect("a mark");
        }
        assert!(!another_process_can_write(&path), "a look at the file dropped this process's lock");
        holder.execute_batch("ROLLBACK").expect("release");
        check::check_file(&path).expect("check");
        assert!(another_process_can_write(&path), "the lock is released with its transaction");
    }
}
