//! `m1nd store check`: is the store's file sound?
//!
//! 1. **Checking writes nothing.** The file is opened read-only (no journal
//!    is created, a crashed write's journal is not rolled back but named,
//!    with the command that rolls it back), and the raw
//!    pages are read with plain reads under SQLite's shared lock, so every
//!    file of the store directory is byte for byte what it was.
//! 2. **Every page is looked at.** With checksums, each page of the file is
//!    checked against its checksum (free pages included, which no query
//!    reads); then SQLite's `PRAGMA integrity_check` checks the structure
//!    (every b-tree, index and free-list page it can reach). A damaged page is
//!    reported by number, with the table or index it belongs to when SQLite
//!    can still tell.
//! 3. **A store without checksums says so**, and how to add them: its
//!    structure can be checked, but bytes changed inside a row cannot be seen.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::checksum::{self, RESERVED_BYTES, RESERVED_BYTES_OFFSET};
use super::error::StoreError;
use super::{BUSY_TIMEOUT, connect};
use super::{file, sql};
use crate::invocation;

/// SQLite never writes the page holding this offset (its lock bytes).
const PENDING_BYTE: u64 = 0x4000_0000;

/// What `store check` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub path: PathBuf,
    pub page_size: u32,
    pub pages: u64,
    /// Bytes reserved at the end of each page: 8 (the checksum) when the
    /// store has checksums, 0 for a store made before them.
    pub reserved: u8,
    /// Pages whose contents do not match their checksum.
    pub damaged: Vec<DamagedPage>,
    /// What `PRAGMA integrity_check` reported, when not "ok".
    pub problems: Vec<String>,
}

/// One page that failed its checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedPage {
    /// 1-based, as SQLite numbers them.
    pub page: u64,
    /// The table or index the page belongs to, when SQLite can still tell.
    pub owner: Option<String>,
}

impl Report {
    pub fn has_checksums(&self) -> bool {
        self.reserved == RESERVED_BYTES
    }

    /// No damaged page and nothing wrong in the structure.
    pub fn is_sound(&self) -> bool {
        self.damaged.is_empty() && self.problems.is_empty()
    }
}

/// Check the store in `dir`. Errors are what kept the check from running
/// (no store, not a SQLite file, unreadable); damage is in the [`Report`].
pub fn check(dir: &Path) -> Result<Report, StoreError> {
    file::check_journal(dir)?;
    check_file(&file::db_path(dir)).map_err(|e| unfinished_write(dir, e))
}

/// A read-only open that meets a hot journal fails with SQLite's words
/// (`SQLITE_READONLY_ROLLBACK`, "attempt to write a readonly database", or
/// `SQLITE_CANTOPEN`), which name neither the journal nor the way out. When
/// SQLite refused and the journal beside the file is not empty, that journal
/// is the reason: say so, with the command that rolls it back. (A writer
/// still running holds its lock, and the check is `Busy` instead.)
fn unfinished_write(dir: &Path, e: StoreError) -> StoreError {
    let StoreError::Sql { path, .. } = &e else { return e };
    let journal = file::journal_path(dir);
    match fs::symlink_metadata(&journal) {
        Ok(meta) if meta.is_file() && meta.len() > 0 => StoreError::HotJournal {
            path: path.clone(),
            journal,
            bytes: meta.len(),
            reopen: invocation::m1nd(&format!("cockpit --store {}", invocation::shell_word(&dir.to_string_lossy()))),
        },
        _ => e,
    }
}

/// Check the database file at `path` (a store's `state.db`, or a backup of one).
pub fn check_file(path: &Path) -> Result<Report, StoreError> {
    let path = path.to_owned();
    file::probe(&path)?;
    let header = read_header(&path)?;
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => u32::from(n),
    };
    if !page_size.is_power_of_two() || page_size < 512 {
        return Err(StoreError::corrupt(
            &path,
            format!("the header's page size {page_size} is not a SQLite page size"),
        ));
    }
    let reserved = header[RESERVED_BYTES_OFFSET];
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let conn = connect(&path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| StoreError::sql(&path, "configure", &e))?;
    // Hold the shared lock for the whole check, so no writer changes pages
    // under it. If page 1 itself is damaged the lock cannot be taken through
    // SQLite; the page scan then runs without it (and reports page 1).
    let locked = hold_shared_lock(&conn, &path)?;
    let mut report =
        Report { path: path.clone(), page_size, pages: 0, reserved, damaged: Vec::new(), problems: Vec::new() };
    let (pages, damaged) = scan(&path, page_size, reserved == RESERVED_BYTES)?;
    report.pages = pages;
    // Structure next, with the checksum layer's verification off on this
    // connection only, so integrity_check reports what it finds instead of
    // stopping at the first damaged page (the scan has listed those).
    let _ = conn.pragma_update_and_check(None, "checksum_verification", "OFF", |_| Ok(()));
    report.problems = integrity(&conn, &path)?;
    let owners = if damaged.is_empty() { BTreeMap::new() } else { owners(&conn) };
    report.damaged = damaged.into_iter().map(|page| DamagedPage { page, owner: owners.get(&page).cloned() }).collect();
    if locked {
        let _ = conn.execute_batch(sql::COMMIT);
    }
    Ok(report)
}

/// The first 100 bytes of the file (the SQLite header).
fn read_header(path: &Path) -> Result<[u8; 100], StoreError> {
    let mut header = [0u8; 100];
    file::descriptor(path).and_then(|f| f.read_exact_at(&mut header, 0)).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => StoreError::corrupt(path, "the file is shorter than a SQLite header"),
        _ => StoreError::io(path, "read", e),
    })?;
    Ok(header)
}

/// Begin a read transaction and read the schema, which takes SQLite's
/// shared lock. `false` when page 1 fails its checksum.
fn hold_shared_lock(conn: &Connection, path: &Path) -> Result<bool, StoreError> {
    conn.execute_batch(sql::BEGIN).map_err(|e| StoreError::sql(path, "read", &e))?;
    match conn.query_row(sql::SCHEMA_OBJECTS, [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(true),
        Err(e) if checksum::is_checksum_fault(&e) => {
            let _ = conn.execute_batch(sql::ROLLBACK);
            Ok(false)
        }
        Err(e) => Err(StoreError::sql(path, "read", &e)),
    }
}

/// Read every page of the file; with checksums, return the numbers of the
/// pages that fail theirs (asked of the checksum layer's own function).
fn scan(path: &Path, page_size: u32, checksums: bool) -> Result<(u64, Vec<u64>), StoreError> {
    // Through the kept descriptor: closing one would drop the shared lock
    // this check holds (see `kept.rs`).
    let file = file::descriptor(path).map_err(|e| StoreError::io(path, "read", e))?;
    let len = file.metadata().map_err(|e| StoreError::io(path, "inspect", e))?.len();
    let size = u64::from(page_size);
    let pages = len / size;
    let lock_page = PENDING_BYTE / size + 1;
    // The checksum layer's function, on a connection of its own: preparing a
    // statement on the store's connection would read its schema from page 1,
    // which may be the damaged one.
    let verifier = Connection::open_in_memory().map_err(|e| StoreError::sql(path, "check", &e))?;
    let mut verify = verifier.prepare(sql::VERIFY_PAGE).map_err(|e| StoreError::sql(path, "check", &e))?;
    let mut buf = vec![0u8; page_size as usize];
    let mut damaged = Vec::new();
    for page in 1..=pages {
        file.read_exact_at(&mut buf, (page - 1) * size).map_err(|e| StoreError::io(path, "read", e))?;
        if !checksums || page == lock_page {
            continue;
        }
        let intact: Option<bool> =
            verify.query_row([&buf[..]], |r| r.get(0)).map_err(|e| StoreError::sql(path, "read", &e))?;
        if intact != Some(true) {
            damaged.push(page);
        }
    }
    Ok((pages, damaged))
}

/// `PRAGMA integrity_check`'s findings; empty when it says "ok". An error
/// that stops it is itself a finding.
fn integrity(conn: &Connection, path: &Path) -> Result<Vec<String>, StoreError> {
    let run = || -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare("PRAGMA integrity_check")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    };
    match run() {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => Ok(Vec::new()),
        Ok(rows) => Ok(rows),
        Err(e) => match StoreError::sql(path, "check", &e) {
            StoreError::Corrupt { reason, .. } => Ok(vec![reason]),
            StoreError::Sql { message, .. } => Ok(vec![message]),
            other => Err(other),
        },
    }
}

/// Which table or index each page belongs to, from SQLite's `dbstat`
/// (best effort: a b-tree too damaged to walk names none).
fn owners(conn: &Connection) -> BTreeMap<u64, String> {
    let walk = || -> rusqlite::Result<BTreeMap<u64, String>> {
        let mut stmt = conn.prepare(sql::PAGE_OWNERS)?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        let mut map = BTreeMap::new();
        // Stop at the first page the walk cannot read.
        for (page, name) in rows.map_while(Result::ok) {
            if let Ok(page) = u64::try_from(page) {
                map.insert(page, name);
            }
        }
        Ok(map)
    };
    walk().unwrap_or_default()
}
