//! What must be true of the files in a store directory before SQLite may
//! touch them, and which file a connection is bound to.
//!
//! SQLite opens its files by path and trusts what it finds. A FIFO there
//! would block a read forever; a symlink would let a write land somewhere
//! other than the store's path; a file that was swapped while a server ran
//! would take a write that the path no longer shows. So every open first
//! [`probe`]s the database file (opened non-blocking and without following a
//! symlink, then checked to be a regular file holding a SQLite header in
//! rollback-journal mode) and [`check_journal`]s the journal beside it, and
//! every write compares the path's [`FileId`] with the one the connection
//! was opened on, before it starts and after it commits.

use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::error::StoreError;

/// The database file inside a store directory.
pub const DB_FILE: &str = "state.db";

/// The rollback journal SQLite keeps beside the database during a write.
pub const JOURNAL_FILE: &str = "state.db-journal";

/// The 16 bytes every SQLite database file starts with.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

pub use super::kept::FileId;

pub fn db_path(dir: &Path) -> PathBuf {
    dir.join(DB_FILE)
}

pub fn journal_path(dir: &Path) -> PathBuf {
    dir.join(JOURNAL_FILE)
}

/// Check that `path` is a store's database file SQLite may open, and return
/// which file it is. A missing file is `NotFound`. The type is judged from a
/// look that opens nothing; the header is read through the descriptor kept
/// for the file (`kept.rs`: closing one would drop this process's locks).
pub fn probe(path: &Path) -> Result<FileId, StoreError> {
    let meta = fs::symlink_metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ => StoreError::io(path, "inspect", e),
    })?;
    regular(path, &meta)?;
    may_read(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ if is_symlink(path) => StoreError::NotRegular { path: path.to_owned(), kind: "a symbolic link" },
        _ => StoreError::io(path, "open", e),
    })?;
    let (id, file) = super::kept::descriptor(path, FileId::of(&meta)).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ if is_symlink(path) => StoreError::NotRegular { path: path.to_owned(), kind: "a symbolic link" },
        io::ErrorKind::InvalidInput => StoreError::NotRegular { path: path.to_owned(), kind: "not a regular file" },
        _ => StoreError::io(path, "open", e),
    })?;
    let mut header = [0u8; 20];
    let read = read_up_to(&file, &mut header).map_err(|e| StoreError::io(path, "read", e))?;
    if read == 0 {
        return Err(StoreError::corrupt(path, "the file is empty; it is not an m1nd store"));
    }
    if read < header.len() || &header[..16] != MAGIC {
        return Err(StoreError::corrupt(path, "not a SQLite database, so not an m1nd store"));
    }
    // Bytes 18 and 19 are the write and read format: 1 is a rollback journal,
    // 2 is write-ahead logging, which this store never uses (see `super`).
    if header[18] != 1 || header[19] != 1 {
        return Err(StoreError::corrupt(
            path,
            "the database is in write-ahead-log mode; an m1nd store uses a rollback journal",
        ));
    }
    Ok(id)
}

/// The descriptor this process keeps for the regular file `path` names
/// (`kept.rs`): read it with positioned reads; it is never closed, since
/// closing a descriptor of a database file drops this process's locks on it.
pub fn descriptor(path: &Path) -> io::Result<std::sync::Arc<File>> {
    let meta = fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    super::kept::descriptor(path, FileId::of(&meta)).map(|(_, file)| file)
}

/// Whether this process may open the file for reading now, asked without
/// opening it: a file made unreadable under a running server is refused
/// loudly, as an open would refuse it, though the descriptors already open
/// could still read it. `access(2)`, not `faccessat` with `AT_EACCESS`:
/// glibc makes the latter the newer `faccessat2` call, which some container
/// sandboxes refuse outright (m1nd is never set-uid, so the real and
/// effective ids it checks are the same).
#[cfg(unix)]
fn may_read(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path holds a NUL byte"))?;
    // SAFETY: `name` is a NUL-terminated path that outlives the call;
    // access reads it and has no other precondition.
    let found = unsafe { libc::access(name.as_ptr(), libc::R_OK) };
    if found == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(not(unix))]
fn may_read(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Which file `path` names now, without following a symlink.
pub fn id_of(path: &Path) -> Result<FileId, StoreError> {
    let meta = fs::symlink_metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ => StoreError::io(path, "inspect", e),
    })?;
    regular(path, &meta)?;
    Ok(FileId::of(&meta))
}

/// The journal may be absent (between writes) or a regular file (a write in
/// progress, or a crashed one that SQLite will roll back); nothing else.
pub fn check_journal(dir: &Path) -> Result<(), StoreError> {
    let path = journal_path(dir);
    match fs::symlink_metadata(&path) {
        Ok(meta) => regular(&path, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io(&path, "inspect", e)),
    }
}

fn regular(path: &Path, meta: &Metadata) -> Result<(), StoreError> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let kind = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if is_fifo(meta) {
        "a FIFO"
    } else {
        "not a regular file"
    };
    Err(StoreError::NotRegular { path: path.to_owned(), kind })
}

#[cfg(unix)]
fn is_fifo(meta: &Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_meta: &Metadata) -> bool {
    false
}

fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The first bytes of `file`, up to `buf`'s length, read at offset 0
/// whatever its position (the descriptor is shared).
#[cfg(unix)]
fn read_up_to(file: &File, buf: &mut [u8]) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(not(unix))]
fn read_up_to(file: &File, buf: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    let mut file = file;
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::super::test_dir::test_dir;
    use super::*;

    #[test]
    fn refuses_what_sqlite_must_not_open() {
        let dir = test_dir("probe");
        let path = dir.path().join(DB_FILE);
        assert!(matches!(probe(&path), Err(StoreError::NotFound { .. })));

        fs::write(&path, b"").expect("empty");
        assert!(probe(&path).expect_err("empty").to_string().contains("is empty"));
        fs::write(&path, b"{\"format\": \"m1nd-store-v1\"}").expect("json");
        assert!(probe(&path).expect_err("json").to_string().contains("not a SQLite database"));
        let mut wal = MAGIC.to_vec();
        wal.extend_from_slice(&[0x10, 0x00, 2, 2]);
        fs::write(&path, &wal).expect("wal");
        assert!(probe(&path).expect_err("wal").to_string().contains("write-ahead-log"));
        fs::remove_file(&path).expect("remove");

        fs::create_dir(&path).expect("dir");
        assert!(probe(&path).expect_err("dir").to_string().contains("a directory"));
        fs::remove_dir(&path).expect("remove dir");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_symlink_is_refused_without_blocking() {
        let dir = test_dir("probe-fifo");
        let path = dir.path().join(DB_FILE);
        let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(made.success());
        let err = probe(&path).expect_err("fifo");
        assert!(matches!(err, StoreError::NotRegular { kind: "a FIFO", .. }), "{err:?}");
        assert!(err.to_string().contains(&path.display().to_string()));
        fs::remove_file(&path).expect("remove fifo");

        let target = dir.path().join("elsewhere.db");
        fs::write(&target, b"x").expect("target");
        std::os::unix::fs::symlink(&target, &path).expect("symlink");
        let err = probe(&path).expect_err("symlink");
        assert!(matches!(err, StoreError::NotRegular { kind: "a symbolic link", .. }), "{err:?}");
        assert!(matches!(id_of(&path), Err(StoreError::NotRegular { .. })));

        std::process::Command::new("mkfifo").arg(journal_path(dir.path())).status().expect("mkfifo");
        assert!(matches!(check_journal(dir.path()), Err(StoreError::NotRegular { kind: "a FIFO", .. })));
    }
}
