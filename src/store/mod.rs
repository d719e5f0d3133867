//! The embedded default store: a `.m1nd/` directory holding one SQLite
//! database, `state.db`.
//!
//! It serves the read verbs the cockpit composes (see [`reads`]) and a few
//! writes (`memorize`, `persist`) so that state can actually move. Every
//! successful write bumps `store_version` exactly once, in the same
//! transaction; a write that names a stale version changes nothing. A store
//! is never created by opening it, and a file this build cannot read is
//! reported, never overwritten.
//!
//! # Journal mode: rollback journal (`DELETE`), `synchronous = EXTRA`
//!
//! - **A read writes nothing.** In rollback-journal mode a reader takes a
//!   shared lock on `state.db` and reads pages; no file is created or
//!   changed. Write-ahead logging would not do: even a reader maps and
//!   writes the `-shm` index and may create `-wal`, so a refused call or a
//!   read could not leave the directory byte-for-byte unchanged. A refused
//!   write (a conflict, a bad argument, the size limit) rolls back before
//!   the journal is created or restores every page it touched.
//! - **At rest the directory holds one file.** `DELETE` removes
//!   `state.db-journal` when a write commits. After a crash the journal left
//!   behind is "hot" and the next opener rolls it back and deletes it; a
//!   journal the crash left before anything was in it is ignored and taken
//!   over (then deleted) by the next write. So at most one journal is ever
//!   there and nothing accumulates (`TRUNCATE` and `PERSIST` would keep a
//!   journal file around for good).
//! - **An acknowledged write survives power loss.** With `DELETE`, deleting
//!   the journal is the commit; `EXTRA` also syncs the directory after the
//!   delete, so the commit cannot be undone by a journal that reappears.
//! - **Writers take turns.** Each write is one `BEGIN IMMEDIATE` transaction
//!   (the version check, the change and the bump inside it), and every
//!   connection waits up to [`BUSY_TIMEOUT`] for another's write to finish.
//!   Within one process readers are not starved by back-to-back writes: a
//!   reader blocked by a commit is woken when it ends, and the next write
//!   lets waiting readers take their lock first (`turnstile.rs`).
//!   The locks are on `state.db` itself, so there is no lock file that could
//!   be deleted from under running servers.
//!
//! # The file under a running server
//!
//! Every open checks the database and journal paths first ([`file`]): a
//! FIFO, symlink, directory or non-SQLite file is refused with its path.
//! A write compares the file at the path with the one its connection opened,
//! after taking the write lock and again after committing; if the store's
//! file was deleted or replaced meanwhile the write is not acknowledged
//! ([`StoreError::Moved`]), because it went to a file the path no longer
//! shows.
//!
//! # Damage on disk
//!
//! 1. **A damaged page is an error, never an answer.** Every connection
//!    opens the file through our page-checksum VFS shim (`checksum.rs`,
//!    `checksum_vfs.c`): each page ends in an 8-byte checksum
//!    (64-bit FNV-1a) of the rest, written with the page and
//!    verified on every read, so bytes changed on disk after SQLite wrote
//!    them fail the read ([`StoreError::Corrupt`], naming the file and the
//!    checksum) instead of being returned.
//! 2. **Every store this build makes has them**: `init`, `import` and
//!    `store backup` write page 1 with the checksum layout before any other
//!    page. A store made before has none (the shim then passes reads
//!    through) until `m1nd store add-checksums` rewrites it in place, in one
//!    transaction (`upkeep.rs`).
//! 3. **Checking is a read.** `m1nd store check` ([`check`]) verifies every
//!    page's checksum and runs `PRAGMA integrity_check` on a read-only
//!    connection; it writes nothing.
//!
//! # Size
//!
//! A store declares its largest size, its size cap (`max_bytes`, set by
//! `init` or `import`, changed by `m1nd store set-max-bytes`); every
//! connection sets SQLite's `max_page_count` from it, so a write that would
//! grow the file past it fails inside its transaction and is rolled back
//! ([`StoreError::Full`]). SQLite reports a full disk, and a file-size limit
//! (`RLIMIT_FSIZE`) stops a write, in ways that look alike; the refusal
//! measures all three limits when it happens and names the ones that could
//! have refused it (`room.rs`), with what to do.

mod batch;
mod check;
mod checksum;
#[cfg(test)]
mod checksum_tests;
use crate::clock;
mod connection;
mod create;
mod db;
mod demo;
mod error;
mod file;
mod frame;
#[cfg(test)]
mod integrity_tests;
pub(crate) mod json;
mod kept;
mod load;
mod location;
mod mark;
mod pg;
mod pg_wire;
pub mod reads;
mod room;
mod schema;
mod sql;
mod state;
mod tally;
#[cfg(test)]
mod test_dir;
pub mod tray;
mod turnstile;
mod upkeep;
pub mod verbs;
mod writes;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use pg_wire::conn::PgConn;

use connection::{configure, connect, limit_pages};
use create::{build, discard, place_new, sync_dir, temp_path};

pub use crate::clock::now_utc;
pub use batch::{Change, Done, MAX_CLAIMS_PER_CALL, Refusal};
pub use check::{DamagedPage, Report, check, check_file};
pub use error::StoreError;
pub use file::{DB_FILE, FileId, JOURNAL_FILE};
pub use json::STATE_JSON;
pub use location::{Location, LocationError, PostgresUrl};
pub use mark::{Mark, NewestHeard, Probe};
pub use pg::listen::{Heard, Listener};
pub use reads::{LISTED, Snapshot, Stamp};
pub use room::{Cause, NoRoom, ONE_WRITE_BYTES, Room};
pub use state::MAX_BATCH;
pub use state::{
    Alert, Block, BlockStatus, Counts, Drift, FORMAT, Format, MAX_CLAIM_CHARS, MAX_SOURCE_CHARS, Memory, Mission,
    Module, Phase, Presence, State,
};
pub use upkeep::Checksums;
pub use verbs::{Op, Read, VERBS, Write, serves};
pub use writes::{PersistAction, PersistOutcome};

/// The store directory used when none is given.
pub const DEFAULT_DIR: &str = ".m1nd";

/// The size limit a store declares when `init` or `import` is given none.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// The smallest size limit a store may declare: room for the schema and a
/// little state.
pub const MIN_MAX_BYTES: u64 = 256 * 1024;

/// How often a running statement looks whether it should stop (SQLite steps).
pub const STOP_CHECK_STEPS: i32 = 4_000;

/// How long a connection waits for another's write before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An open store: a connection to `state.db`, bound to the file it opened,
/// or to a PostgreSQL database holding a store (`pg/`).
///
/// Reads go through a [`Snapshot`] (one read transaction, one at a time per
/// store), so one request sees one state; writes are methods on the store
/// (see the `writes` module).
#[derive(Debug)]
pub struct Store {
    /// The store directory; for a PostgreSQL store, its location as shown
    /// (password hidden), as is `path`: what messages name.
    dir: PathBuf,
    path: PathBuf,
    conn: Conn,
    /// The file the connection opened; writes check the path still names it.
    /// A PostgreSQL store's is made from its incarnation.
    file: FileId,
    max_bytes: u64,
}

/// The connection of either backend. PostgreSQL's client, with its own
/// small runtime, is boxed so a SQLite store stays small.
#[derive(Debug)]
enum Conn {
    Sqlite(Connection),
    Postgres(Box<PgConn>),
}

impl Store {
    /// Open an existing store. A missing `state.db` is `NotFound`. A store
    /// written by an older build is migrated (one write transaction); one
    /// from a newer build is refused.
    pub fn open(dir: impl AsRef<Path>) -> Result<Store, StoreError> {
        let dir = dir.as_ref().to_owned();
        let path = file::db_path(&dir);
        file::check_journal(&dir)?;
        let before = file::probe(&path)?;
        let flags =
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = connect(&path, flags)?;
        configure(&mut conn, &path)?;
        check_schema(&mut conn, &path)?;
        let max_bytes = declared_max_bytes(&conn, &path)?;
        limit_pages(&conn, &path, max_bytes)?;
        // The first query opened the file for real; it must be the one probed.
        if file::id_of(&path)? != before {
            return Err(StoreError::Moved { path });
        }
        Ok(Store { dir, path, conn: Conn::Sqlite(conn), file: before, max_bytes })
    }

    /// Open the store at `location`: a directory ([`Store::open`]) or a
    /// PostgreSQL database. A database without a store is `NotFound`, and
    /// one a newer build migrated is refused, as a file would be.
    pub fn open_at(location: &Location) -> Result<Store, StoreError> {
        match location {
            Location::Dir(dir) => Store::open(dir),
            Location::Postgres(url) => {
                let opened = pg::open::open(url)?;
                let at = pg_wire::conn::shown(url);
                Ok(Store {
                    dir: at.clone(),
                    path: at,
                    conn: Conn::Postgres(Box::new(opened.conn)),
                    file: FileId::of_incarnation(&opened.incarnation),
                    max_bytes: opened.max_bytes,
                })
            }
        }
    }

    /// [`Store::create`] at `location`: in a directory, or in a PostgreSQL
    /// database's current schema (one transaction: all or nothing).
    pub fn create_at(location: &Location, state: &State, max_bytes: u64) -> Result<Store, StoreError> {
        match location {
            Location::Dir(dir) => Store::create(dir, state, max_bytes),
            Location::Postgres(url) => {
                check_new(&pg_wire::conn::shown(url), state, max_bytes)?;
                pg::open::create(url, state, max_bytes)?;
                Store::open_at(location)
            }
        }
    }

    /// [`Store::import`] at `location`.
    pub fn import_at(location: &Location, json: &Path, max_bytes: u64) -> Result<Store, StoreError> {
        match location {
            Location::Dir(dir) => Store::import(dir, json, max_bytes),
            Location::Postgres(_) => {
                let state = json::read(json).map_err(|e| match e {
                    StoreError::NotFound { path } => StoreError::ImportMissing { path, store: None },
                    other => other,
                })?;
                Store::create_at(location, &state, max_bytes)
            }
        }
    }

    /// Create a store at version 1: empty, or the demo seed. Refuses if a
    /// `state.db` is already there, whatever its contents.
    pub fn init(dir: impl AsRef<Path>, demo: bool) -> Result<Store, StoreError> {
        let state = if demo { demo::state()? } else { State::empty() };
        Store::create(dir, &state, DEFAULT_MAX_BYTES)
    }

    /// The demo seed, as `init --demo` loads it.
    pub fn demo_state() -> Result<State, StoreError> {
        demo::state()
    }

    /// Create a store holding `state` (its versions included), declaring
    /// `max_bytes` as its size limit. Refuses if a store is already there.
    ///
    /// The database is built under a temporary name and linked into place
    /// only when complete, so a store is never seen half-made, and a hard
    /// link never replaces a file that appeared meanwhile.
    pub fn create(dir: impl AsRef<Path>, state: &State, max_bytes: u64) -> Result<Store, StoreError> {
        Store::create_with(dir, state, max_bytes, true)
    }

    /// A store laid out as builds before page checksums made them (no bytes
    /// reserved per page), so the way they get checksums can be tested.
    #[doc(hidden)]
    pub fn create_without_checksums(dir: impl AsRef<Path>, state: &State, max_bytes: u64) -> Result<Store, StoreError> {
        Store::create_with(dir, state, max_bytes, false)
    }

    fn create_with(dir: impl AsRef<Path>, state: &State, max_bytes: u64, checksums: bool) -> Result<Store, StoreError> {
        let dir = dir.as_ref().to_owned();
        let path = file::db_path(&dir);
        check_new(&path, state, max_bytes)?;
        fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, "create directory", e))?;
        if fs::symlink_metadata(&path).is_ok() {
            return Err(StoreError::AlreadyExists { path });
        }
        let temp = temp_path(&dir);
        let built = build(&temp, state, max_bytes, checksums).and_then(|()| place_new(&temp, &path));
        discard(&temp);
        built?;
        sync_dir(&dir)?;
        Store::open(&dir)
    }

    /// Create a store from the JSON store's file `json` (a `state.json`),
    /// keeping its versions, so callers holding a `store_version` from the
    /// old store keep a meaningful one. The file is only read.
    pub fn import(dir: impl AsRef<Path>, json: &Path, max_bytes: u64) -> Result<Store, StoreError> {
        let state = json::read(json).map_err(|e| match e {
            StoreError::NotFound { path } => {
                let db = dir.as_ref().join(DB_FILE);
                StoreError::ImportMissing { path, store: db.exists().then_some(db) }
            }
            other => other,
        })?;
        Store::create(dir, &state, max_bytes)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The `state.db` inside [`Store::dir`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size limit this store declares.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Whether this connection may still be used for the store at its path:
    /// the journal is absent or regular, and the path names the very file
    /// the connection opened, still a SQLite database in rollback mode. A
    /// PostgreSQL connection may, while the server has not closed it.
    pub fn still_at_path(&self) -> Result<(), StoreError> {
        if let Conn::Postgres(conn) = &self.conn {
            return match conn.is_closed() {
                false => Ok(()),
                true => Err(StoreError::Unavailable {
                    path: self.path.clone(),
                    reason: "the server closed the connection".into(),
                }),
            };
        }
        file::check_journal(&self.dir)?;
        if file::probe(&self.path)? == self.file { Ok(()) } else { Err(StoreError::Moved { path: self.path.clone() }) }
    }

    /// Stop the reads of this connection once `stop` says so, or at
    /// `deadline` (which `stop` also watches); the read then fails with
    /// [`StoreError::Stopped`]. Reads use it for their time budget and for
    /// callers that left. SQLite looks at `stop` every [`STOP_CHECK_STEPS`]
    /// steps of a statement. PostgreSQL looks before every statement, and
    /// the server itself ends a statement still running at the deadline
    /// (each read transaction's `statement_timeout`).
    pub fn stop_when(
        &mut self,
        deadline: std::time::Instant,
        stop: impl Fn() -> bool + Send + std::panic::RefUnwindSafe + 'static,
    ) {
        match &mut self.conn {
            // Only fails for a connection that is already closed, which a Store never holds.
            Conn::Sqlite(conn) => drop(conn.progress_handler(STOP_CHECK_STEPS, Some(stop))),
            Conn::Postgres(conn) => conn.stop_when(deadline, stop),
        }
    }

    /// SQLite's `data_version` on this connection: it changes whenever
    /// another connection (in this process or another) commits to the file,
    /// and not for this connection's own commits. Reading it writes nothing
    /// and begins no transaction, so it is the cheap way to ask "did anyone
    /// else write?". On PostgreSQL it is the store's version itself, read
    /// outside any transaction, which also changes with every commit.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        match &self.conn {
            Conn::Sqlite(conn) => conn
                .pragma_query_value(None, "data_version", |r| r.get(0))
                .map_err(|e| StoreError::sql(&self.path, "read", &e)),
            // A version past i64 is refused by the store's CHECK long before.
            Conn::Postgres(_) => reads::store_version(self.db(), &self.path).map(|v| v as i64),
        }
    }

    /// How far this machine's clock is ahead of the database's (behind when
    /// negative), in milliseconds; `None` for a SQLite store, whose only
    /// clock is this machine's. Writes on PostgreSQL record the database's
    /// time, so a wrong clock here cannot misorder them; it is still worth
    /// a warning, since this machine's logs and timeouts use it.
    pub fn clock_skew_millis(&self) -> Result<Option<i64>, StoreError> {
        let Conn::Postgres(_) = &self.conn else { return Ok(None) };
        let database = self.db().row(sql::PG_CLOCK_MILLIS, db::args![], |r| r.get::<i64>(0));
        let database = database.map_err(|e| StoreError::db(&self.path, "read", &e))?.unwrap_or_default();
        let here = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        Ok(Some(here.saturating_sub(database)))
    }

    /// The current `store_version`.
    pub fn version(&self) -> Result<u64, StoreError> {
        Ok(self.snapshot()?.version())
    }

    /// The connection, for statements both backends run alike.
    fn db(&self) -> db::Db<'_> {
        match &self.conn {
            Conn::Sqlite(conn) => db::Db::Sqlite(conn),
            Conn::Postgres(conn) => db::Db::Postgres(conn),
        }
    }

    /// The SQLite connection, for what only a SQLite store does (`what`).
    fn sqlite(&self, what: &'static str) -> Result<&Connection, StoreError> {
        match &self.conn {
            Conn::Sqlite(conn) => Ok(conn),
            Conn::Postgres(_) => Err(StoreError::NotOnPostgres { what }),
        }
    }

    fn no_store_row(&self) -> StoreError {
        StoreError::no_store_row(&self.path)
    }

    fn limit_pages(&self) -> Result<(), StoreError> {
        limit_pages(self.sqlite("a size limit in pages")?, &self.path, self.max_bytes)
    }
}

/// What `init` and `import` refuse before anything is made: a size limit
/// too small, a state that is not valid, or versions past what a store holds.
fn check_new(path: &Path, state: &State, max_bytes: u64) -> Result<(), StoreError> {
    if max_bytes < MIN_MAX_BYTES {
        return Err(StoreError::BadArgument(format!(
            "a store's size limit must be at least {MIN_MAX_BYTES} bytes, not {max_bytes}"
        )));
    }
    state.validate().map_err(|reason| StoreError::corrupt(path, reason.to_string()))?;
    if i64::try_from(state.store_version.max(state.checkpoints)).is_err() {
        return Err(StoreError::BadArgument(format!(
            "store_version {} or checkpoints {} is past what the store can hold ({})",
            state.store_version,
            state.checkpoints,
            i64::MAX
        )));
    }
    Ok(())
}

/// Refuse a file without m1nd's schema or with a newer one; migrate an
/// older one (once, in one write transaction, whoever else opens it).
fn check_schema(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found = schema::version(conn).map_err(|e| StoreError::sql(path, "read", &e))?;
    if found == 0 {
        return Err(StoreError::corrupt(path, "the database has no m1nd schema; it is not an m1nd store"));
    }
    if found > schema::VERSION {
        return Err(StoreError::corrupt(
            path,
            format!("schema version {found} is newer than this build reads ({}); upgrade m1nd", schema::VERSION),
        ));
    }
    if found < schema::VERSION {
        let fail = |e: rusqlite::Error| StoreError::sql(path, "migrate", &e);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
        // Another process may have migrated it while we waited.
        let now = schema::version(&tx).map_err(fail)?;
        if now < schema::VERSION {
            schema::migrate(&tx, now, schema::VERSION).map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
    }
    Ok(())
}

fn declared_max_bytes(conn: &Connection, path: &Path) -> Result<u64, StoreError> {
    let row = conn.query_row(sql::MAX_BYTES, [], |r| r.get::<_, i64>(0));
    match row {
        Ok(n) => Ok(u64::try_from(n).unwrap_or(DEFAULT_MAX_BYTES)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(StoreError::no_store_row(path)),
        Err(e) => Err(StoreError::sql(path, "read", &e)),
    }
}

/// The SQLite connection of a store the test made in a directory.
#[cfg(test)]
impl Store {
    fn lite(&self) -> &Connection {
        match &self.conn {
            Conn::Sqlite(conn) => conn,
            Conn::Postgres(_) => panic!("a test reached for SQLite on a PostgreSQL store"),
        }
    }
}

#[cfg(test)]
mod tests;
