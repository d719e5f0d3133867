//! Making a new store file: built complete under a temporary name, then
//! linked in under its own name.
//!
//! Invariant: `state.db` never exists half-made. A store is built at a
//! unique temporary path, linked in only once complete (a link never
//! replaces an existing file), and the directory is synced so the new entry
//! is durable.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::{OpenFlags, TransactionBehavior};

use super::connection::{configure, connect, limit_pages};
use super::db::{Db, DbError};
use super::error::StoreError;
use super::file::DB_FILE;
use super::state::State;
use super::{checksum, load, schema};

/// Make a complete store at `temp` (a new file).
pub(super) fn build(temp: &Path, state: &State, max_bytes: u64, checksums: bool) -> Result<(), StoreError> {
    let fail = |e: rusqlite::Error| StoreError::sql(temp, "create", &e);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut conn = connect(temp, flags)?;
    configure(&mut conn, temp)?;
    // Before the first table: the empty database takes the page layout with
    // room for a checksum on every page.
    if checksums {
        checksum::reserve(&conn).map_err(fail)?;
    }
    conn.pragma_update(None, "journal_mode", "DELETE").map_err(fail)?;
    // The tables first, in a transaction of their own: its commit writes
    // page 1, and from then on the checksum layer checksums every page this
    // connection writes. In the same transaction as a large state, pages
    // spilled from the cache could reach the file before page 1 did, and
    // without their checksums. (The file is only linked in once complete.)
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
    schema::migrate(&tx, 0, schema::VERSION).map_err(fail)?;
    tx.commit().map_err(fail)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
    limit_pages(&tx, temp, max_bytes)?;
    load::load(Db::Sqlite(&tx), state, max_bytes).map_err(|e| match e {
        DbError::Sqlite(e) => StoreError::write(temp, "create", max_bytes, &e),
        other => StoreError::db(temp, "create", &other),
    })?;
    tx.commit().map_err(fail)?;
    conn.close().map_err(|(_, e)| fail(e))
}

/// Link the finished `temp` in as `path`; a hard link never replaces an
/// existing file, which closes the race between two `init`s.
pub(super) fn place_new(temp: &Path, path: &Path) -> Result<(), StoreError> {
    match fs::hard_link(temp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(StoreError::AlreadyExists { path: path.to_owned() }),
        // Some filesystems have no hard links: fall back to check-then-rename.
        Err(_) => {
            if path.try_exists().map_err(|e| StoreError::io(path, "inspect", e))? {
                return Err(StoreError::AlreadyExists { path: path.to_owned() });
            }
            fs::rename(temp, path).map_err(|e| StoreError::io(path, "create", e))
        }
    }
}

/// Unique per process and call, so concurrent `init`s never share one.
pub(super) fn temp_path(dir: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{DB_FILE}.{}.{n}.new", std::process::id()))
}

/// Best effort: the temp name (and a journal SQLite may have left) goes.
pub(super) fn discard(temp: &Path) {
    let _ = fs::remove_file(temp);
    let mut journal = temp.as_os_str().to_owned();
    journal.push("-journal");
    let _ = fs::remove_file(journal);
}

/// Make the new directory entry itself durable.
#[cfg(unix)]
pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| StoreError::io(dir, "sync", e))
}

#[cfg(not(unix))]
pub(super) fn sync_dir(_dir: &Path) -> Result<(), StoreError> {
    Ok(())
}
