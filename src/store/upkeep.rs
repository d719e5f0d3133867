//! Changes to the store's file rather than its state: adding page
//! checksums to a store made before them, changing the size cap, and
//! copying the store to a backup.
//!
//! 1. **Nothing is lost and the result is durable.** Checksums are added
//!    by SQLite's own `VACUUM`, in place: in rollback-journal mode it is
//!    one write transaction (the journal holds every original page until
//!    the commit, `synchronous = EXTRA` syncs the file and the directory),
//!    so a crash at any point leaves the old store or the new one, never a
//!    mix. Done in place, the file keeps its identity, so running servers
//!    go on using it (their next read sees the new layout).
//! 2. **A backup is a whole, checked store or nothing.** It is written by
//!    SQLite's backup API through the checksum layer (so every page of the
//!    copy has its checksum; a copy made by a tool without the layer would
//!    leave page 1's stale), under a temporary name, synced, checked
//!    page by page, and only then linked in under its name, which it never
//!    replaces.
//! 3. **Only what is asked changes.** Adding checksums changes the layout,
//!    not the state: `store_version` stays. Changing the cap is a state
//!    write and bumps it once, like every other.

use std::fs;
use std::path::{Path, PathBuf};

use super::checksum::{self, RESERVED_BYTES, RESERVED_BYTES_OFFSET};
use super::error::StoreError;
use rusqlite::OpenFlags;
use rusqlite::backup::{Backup, StepResult};

use super::db::args;
use super::{Conn, MIN_MAX_BYTES, Store, check, configure, connect, discard, place_new, sql, sync_dir};

/// What [`Store::add_checksums`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checksums {
    /// The store already had them; nothing was written.
    AlreadyThere,
    /// Every page was rewritten with its checksum; the store has `pages` pages.
    Added { pages: u64 },
}

impl Store {
    /// Rewrite a store made before page checksums so that every page has
    /// one. Takes the write lock (waiting up to [`super::BUSY_TIMEOUT`] for
    /// other writers) and, for as long as the rewrite lasts, keeps readers
    /// out; needs free disk space of about the store's size for the journal.
    pub fn add_checksums(&mut self) -> Result<Checksums, StoreError> {
        self.sqlite("adding page checksums")?;
        let reserved = reserved_bytes(&self.path)?;
        if reserved == RESERVED_BYTES {
            return Ok(Checksums::AlreadyThere);
        }
        if reserved != 0 {
            return Err(StoreError::BadArgument(format!(
                "{} reserves {reserved} bytes per page for something else; checksums need exactly \
                 {RESERVED_BYTES} and SQLite cannot shrink the reserve, so this store cannot get checksums in place",
                self.path.display()
            )));
        }
        self.still_at_path()?;
        let fail = |e: rusqlite::Error| StoreError::write(&self.path, "add checksums to", self.max_bytes, &e);
        let conn = self.sqlite("adding page checksums")?;
        checksum::reserve(conn).map_err(fail)?;
        // The checksum layer starts checksumming the file's pages once it sees
        // the new page 1 written; pages spilled from the cache before that
        // would be written without. With spilling off, every page is written
        // at the commit, in page order, page 1 first (the rewrite holds the
        // store in memory meanwhile).
        conn.pragma_update(None, "cache_spill", false).map_err(fail)?;
        let vacuumed = conn.execute_batch(sql::VACUUM).map_err(fail);
        conn.pragma_update(None, "cache_spill", true).map_err(fail)?;
        vacuumed?;
        self.still_at_path()?;
        let report = check::check(&self.dir)?;
        if !report.has_checksums() || !report.is_sound() {
            return Err(StoreError::corrupt(
                &self.path,
                format!("after adding checksums the store does not check out: {report:?}"),
            ));
        }
        Ok(Checksums::Added { pages: report.pages })
    }

    /// Declare a new size cap. A cap below what the store already holds, or
    /// below [`MIN_MAX_BYTES`], is refused. Servers started before keep the
    /// cap they opened the store with until they are restarted.
    pub fn set_max_bytes(&mut self, max_bytes: u64) -> Result<u64, StoreError> {
        if max_bytes < MIN_MAX_BYTES {
            return Err(StoreError::BadArgument(format!(
                "a store's size cap must be at least {MIN_MAX_BYTES} bytes, not {max_bytes}"
            )));
        }
        let held = self.held_bytes()?;
        if max_bytes < held {
            return Err(StoreError::BadArgument(format!(
                "{} already holds {held} bytes; a cap of {max_bytes} is below that",
                self.path.display()
            )));
        }
        let cap = i64::try_from(max_bytes).map_err(|_| {
            StoreError::BadArgument(format!("a size cap of {max_bytes} bytes is past what a store holds"))
        })?;
        let version =
            self.commit(None, None, |frame, _| frame.db().execute(sql::SET_MAX_BYTES, args![cap]).map(drop))?;
        self.max_bytes = max_bytes;
        if let Conn::Sqlite(_) = self.conn {
            self.limit_pages()?;
        }
        Ok(version)
    }

    /// What the size cap is held against: the file's length on SQLite, the
    /// bytes the rows store on PostgreSQL (`frame.rs`).
    fn held_bytes(&self) -> Result<u64, StoreError> {
        match self.conn {
            Conn::Sqlite(_) => {
                Ok(fs::metadata(&self.path).map_err(|e| StoreError::io(&self.path, "inspect", e))?.len())
            }
            Conn::Postgres(_) => {
                let used = self.db().row(sql::PG_USED_BYTES, args![], |r| r.get::<i64>(0));
                let used =
                    used.map_err(|e| StoreError::db(&self.path, "read", &e))?.ok_or_else(|| self.no_store_row())?;
                Ok(u64::try_from(used).unwrap_or(0))
            }
        }
    }
}

impl Store {
    /// Copy the store to a new file `dest` (which must not exist): a
    /// consistent snapshot, taken under a read lock (writers wait meanwhile,
    /// up to [`super::BUSY_TIMEOUT`] each), with a checksum on every page.
    /// Returns the copy's check report.
    pub fn backup(&self, dest: &Path) -> Result<check::Report, StoreError> {
        self.sqlite("`store backup`")?;
        if fs::symlink_metadata(dest).is_ok() {
            return Err(StoreError::AlreadyExists { path: dest.to_owned() });
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = dir.join(format!(".{name}.{}.backup", std::process::id()));
        discard(&temp);
        let made = self.copy_to(&temp).and_then(|()| {
            let report = check::check_file(&temp)?;
            if !report.is_sound() {
                return Err(StoreError::corrupt(dest, format!("the copy does not check out: {report:?}")));
            }
            place_new(&temp, dest)?;
            Ok(report)
        });
        discard(&temp);
        let mut report = made?;
        sync_dir(&dir)?;
        report.path = dest.to_owned();
        Ok(report)
    }

    /// Copy the store page for page into the new file `temp` with SQLite's
    /// backup API, in one step under one read lock.
    fn copy_to(&self, temp: &Path) -> Result<(), StoreError> {
        let fail = |e: rusqlite::Error| StoreError::write(temp, "write the backup", u64::MAX, &e);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut dest = connect(temp, flags)?;
        configure(&mut dest, temp)?;
        // Page 1 reaches the file first, in a commit of its own: once the
        // checksum layer has seen it say "checksums", every page this
        // connection writes gets one, in whatever order the copy writes them.
        if reserved_bytes(&self.path)? == RESERVED_BYTES {
            checksum::reserve(&dest).map_err(fail)?;
        }
        dest.pragma_update(None, "journal_mode", "DELETE").map_err(fail)?;
        dest.execute_batch(sql::WRITE_PAGE_ONE).map_err(fail)?;
        {
            let copy = Backup::new(self.sqlite("`store backup`")?, &mut dest).map_err(fail)?;
            match copy.step(-1).map_err(fail)? {
                StepResult::Done => {}
                StepResult::Busy | StepResult::Locked => return Err(StoreError::Busy { path: self.path.clone() }),
                _ => {
                    return Err(StoreError::Sql {
                        path: temp.to_owned(),
                        op: "write the backup",
                        message: "the copy stopped before its last page".to_owned(),
                    });
                }
            }
        }
        dest.close().map_err(|(_, e)| fail(e))?;
        fs::File::open(temp).and_then(|f| f.sync_all()).map_err(|e| StoreError::io(temp, "sync", e))
    }
}

/// Byte 20 of the header: the bytes each page reserves.
fn reserved_bytes(path: &Path) -> Result<u8, StoreError> {
    use std::os::unix::fs::FileExt;
    let mut header = [0u8; RESERVED_BYTES_OFFSET + 1];
    // Through the kept descriptor: this process may hold the store's locks (`kept.rs`).
    super::file::descriptor(path)
        .and_then(|f| f.read_exact_at(&mut header, 0))
        .map_err(|e| StoreError::io(path, "read", e))?;
    Ok(header[RESERVED_BYTES_OFFSET])
}
