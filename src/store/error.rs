//! Store failures. Every one that concerns a file names it, so a human can go
//! and look at (or restore) exactly that file.

use std::io;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

use super::checksum;
use super::room::{NoRoom, Room};

/// What a read that met a page with a wrong checksum says.
pub const CHECKSUM_FAULT: &str = "a page's checksum does not match its contents: the file was changed after m1nd \
     wrote it (damage on disk, or a program without m1nd's checksum layer, such as the sqlite3 shell, writing to \
     it), so nothing was read from that page";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No store file where one was expected. Opening never creates a store,
    /// so a typo in a path cannot silently start an empty one.
    #[error(
        "no m1nd store at {}: create one with `{}` (or `{}` for a sample), or give the store that exists with \
         --store",
        shown_path(.path).display(),
        crate::invocation::m1nd(&format!("init {}", store_flag(.path))),
        crate::invocation::m1nd(&format!("init --demo {}", store_flag(.path)))
    )]
    NotFound { path: PathBuf },
    /// `store import` was given a file that is not there. Nothing was
    /// created; `store`, when set, is the SQLite store already at the
    /// destination (so there is nothing left to import).
    #[error("{}", import_missing(path, store.as_deref()))]
    ImportMissing { path: PathBuf, store: Option<PathBuf> },
    /// `init` or `import` found a store already; they never overwrite one.
    #[error(
        "a store already exists at {}; refusing to overwrite it: open it with `{}`, or give `init` another \
         --store",
        shown_path(.path).display(),
        crate::invocation::m1nd(&format!("cockpit {}", store_flag(.path)))
    )]
    AlreadyExists { path: PathBuf },
    /// The file is not a valid store. `line`/`column` are 1-based; 0 means the
    /// problem is not at one place in the text (e.g. two items share an id).
    #[error("corrupt store {}{}: {reason}", .path.display(), at(*.line, *.column))]
    Corrupt { path: PathBuf, line: usize, column: usize, reason: String },
    /// A path in the store directory is something SQLite must not open.
    #[error(
        "{} is {kind}, not a regular file; the store refuses to open it (restore the file or remove it)",
        .path.display()
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    /// A write that did not finish (a crash, a killed process) left its
    /// rollback journal beside the file, and this open is read-only, so it
    /// cannot roll the journal back; SQLite's own words ("attempt to write a
    /// readonly database") name neither. `reopen` is the command that can.
    #[error(
        "{} holds a write that did not finish: {bytes} bytes of rollback journal beside {}, left by a crash or \
         a killed process. A read-only open such as `store check` cannot roll it back, and changed nothing. Run \
         `{reopen}` once (any command that opens the store read-write, a server included, does the same): it \
         rolls the unfinished write back and removes the journal; then check again",
        .journal.display(),
        .path.display()
    )]
    HotJournal { path: PathBuf, journal: PathBuf, bytes: u64, reopen: String },
    #[error("cannot {op} {}: {source}{}", .path.display(), io_advice(.path, source))]
    Io { path: PathBuf, op: &'static str, source: io::Error },
    /// SQLite refused; `op` says what the store was doing.
    #[error("cannot {op} {}: {message}", .path.display())]
    Sql { path: PathBuf, op: &'static str, message: String },
    /// Another writer held the store for longer than the busy timeout.
    #[error(
        "the store {} is busy: another writer held it past the timeout; nothing changed, retry",
        .path.display()
    )]
    Busy { path: PathBuf },
    /// The write would take the store past its size cap, or the disk or a
    /// file-size limit has no room for it; `why` says which, measured when
    /// it was refused (see `store/room.rs`). Nothing was written.
    #[error("the store {} has no room for this write, nothing changed: {why}", .path.display())]
    Full { path: PathBuf, why: NoRoom },
    /// The PostgreSQL server holding the store ran out of disk for this
    /// write (SQLSTATE 53100). The server rolled the write back; `reason`
    /// is the server's own words, which name the file it could not extend.
    #[error(
        "the database server holding the store {} has no disk room for this write, nothing changed: {reason}; \
         free space on that server's disk (or raise its quota), then retry",
        .path.display()
    )]
    DatabaseFull { path: PathBuf, reason: String },
    /// The file at the store's path is no longer the one this write went to
    /// (it was deleted, replaced or moved meanwhile): the write is not
    /// acknowledged, because it is not durable in the store at its path.
    #[error(
        "the store file {} was deleted or replaced during the write, so the write is not in the store at \
         that path; it is not acknowledged",
        .path.display()
    )]
    Moved { path: PathBuf },
    /// The caller's `expected_store_version` is not the store's: someone else
    /// wrote in between, so the caller's view is stale.
    #[error("state moved: expected store_version {expected}, the store is at {actual}; re-read and retry")]
    Conflict { expected: u64, actual: u64 },
    /// The caller asked for something the store does not do or hold.
    #[error("{0}")]
    BadArgument(String),
    /// A read was stopped at a checkpoint: its time budget ran out (or its
    /// caller left, who hears nothing). Reads change nothing.
    #[error("the read was stopped: it ran past its time budget (--call-budget); nothing changed")]
    Stopped,
    /// The database server could not be reached, or dropped the connection
    /// (a restart, a network fault): nothing was acknowledged, and the same
    /// request may be sent again once it is back.
    #[error("the store {} cannot be reached: {reason}; nothing changed, retry when it is back", .path.display())]
    Unavailable { path: PathBuf, reason: String },
    /// The connection to the database was lost while a COMMIT was on its
    /// way, and a new connection could not learn whether it landed. The
    /// write happened exactly once or not at all.
    #[error(
        "the connection to the store {} was lost during a commit, and whether the write landed could not be \
         learned ({reason}); read the store to see, or send the write again with its expected_store_version, \
         which can never apply it twice",
        .path.display()
    )]
    OutcomeUnknown { path: PathBuf, reason: String },
    /// Something this build does on a SQLite store only; `what` says what.
    #[error(
        "{what} is not built for a PostgreSQL store yet; nothing changed (a store in a directory does it: \
         `--store DIR`)"
    )]
    NotOnPostgres { what: &'static str },
    /// The transaction a change waited in ended before the change was tried.
    #[error("the write transaction ended before this change was applied; nothing of it was written")]
    Interrupted,
}

/// What to do about an I/O failure a person can fix: a directory or file
/// this user may not read or write.
fn io_advice(path: &Path, source: &io::Error) -> String {
    if source.kind() != io::ErrorKind::PermissionDenied {
        return String::new();
    }
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(path);
    format!(
        "; the user m1nd runs as needs read and write permission on {} and the files in it (the owner can \
         grant it: `chmod u+rwx {}`), or give a store this user may use with --store",
        shown_path(dir).display(),
        crate::invocation::shell_word(&shown_path(dir).to_string_lossy())
    )
}

/// `--store` as a suggested command must spell it for the store at `path`
/// (its database file, or a database's shown location): the directory that
/// holds the file, made absolute because a client may start m1nd in any
/// directory; for a database, the variable that holds its URL, which is
/// never repeated because it may hold a password.
fn store_flag(path: &Path) -> String {
    match super::Location::from(path.as_os_str().to_owned()) {
        super::Location::Postgres(_) => "--store \"$M1ND_STORE\"".to_owned(),
        super::Location::Dir(_) => {
            let dir = if path.file_name() == Some(std::ffi::OsStr::new(super::DB_FILE)) {
                path.parent().unwrap_or(path)
            } else {
                path
            };
            format!("--store {}", crate::invocation::shell_word(&shown_path(dir).to_string_lossy()))
        }
    }
}

/// `path` made absolute, for a message read far from the directory m1nd
/// started in; a database's shown location as it is.
fn shown_path(path: &Path) -> PathBuf {
    match super::Location::from(path.as_os_str().to_owned()) {
        super::Location::Postgres(_) => path.to_owned(),
        super::Location::Dir(_) => std::path::absolute(path).unwrap_or_else(|_| path.to_owned()),
    }
}

/// What to say when `store import FILE` finds no FILE: what the command
/// reads, and, when the destination already holds a SQLite store, that
/// there is nothing to import, never advice to create a store.
fn import_missing(path: &Path, store: Option<&Path>) -> String {
    let what = format!(
        "no file at {}: `store import` reads the JSON store's file (`state.json`, which m1nd wrote before its \
         store became SQLite) and creates a new store from it; nothing was created",
        path.display()
    );
    match store {
        Some(db) => format!("{what}. {} is already a SQLite store: there is nothing to import", db.display()),
        None => format!("{what}. Check the path of the JSON file"),
    }
}

/// A failure shared by every change of one transaction is given to each.
impl Clone for StoreError {
    fn clone(&self) -> Self {
        match self {
            StoreError::NotFound { path } => StoreError::NotFound { path: path.clone() },
            StoreError::ImportMissing { path, store } => {
                StoreError::ImportMissing { path: path.clone(), store: store.clone() }
            }
            StoreError::AlreadyExists { path } => StoreError::AlreadyExists { path: path.clone() },
            StoreError::Corrupt { path, line, column, reason } => {
                StoreError::Corrupt { path: path.clone(), line: *line, column: *column, reason: reason.clone() }
            }
            StoreError::NotRegular { path, kind } => StoreError::NotRegular { path: path.clone(), kind },
            StoreError::HotJournal { path, journal, bytes, reopen } => StoreError::HotJournal {
                path: path.clone(),
                journal: journal.clone(),
                bytes: *bytes,
                reopen: reopen.clone(),
            },
            StoreError::Io { path, op, source } => {
                StoreError::Io { path: path.clone(), op, source: io::Error::new(source.kind(), source.to_string()) }
            }
            StoreError::Sql { path, op, message } => {
                StoreError::Sql { path: path.clone(), op, message: message.clone() }
            }
            StoreError::Busy { path } => StoreError::Busy { path: path.clone() },
            StoreError::Full { path, why } => StoreError::Full { path: path.clone(), why: why.clone() },
            StoreError::DatabaseFull { path, reason } => {
                StoreError::DatabaseFull { path: path.clone(), reason: reason.clone() }
            }
            StoreError::Moved { path } => StoreError::Moved { path: path.clone() },
            StoreError::Conflict { expected, actual } => StoreError::Conflict { expected: *expected, actual: *actual },
            StoreError::BadArgument(why) => StoreError::BadArgument(why.clone()),
            StoreError::Unavailable { path, reason } => {
                StoreError::Unavailable { path: path.clone(), reason: reason.clone() }
            }
            StoreError::OutcomeUnknown { path, reason } => {
                StoreError::OutcomeUnknown { path: path.clone(), reason: reason.clone() }
            }
            StoreError::NotOnPostgres { what } => StoreError::NotOnPostgres { what },
            StoreError::Interrupted => StoreError::Interrupted,
            StoreError::Stopped => StoreError::Stopped,
        }
    }
}

/// The server's own words when it sent some (`ERROR: ...` with its code),
/// else the client's: never the connection string, which the client does
/// not put in its errors.
pub(super) fn postgres_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

/// `:line:column` when the problem has a place in the text.
fn at(line: usize, column: usize) -> String {
    if line > 0 { format!(":{line}:{column}") } else { String::new() }
}

impl StoreError {
    /// Whether the connection that met this error may go on being used: a
    /// refused write (a stale version, a bad argument, the size limit, a busy
    /// store) says nothing about the connection; anything else drops it.
    pub fn keeps_connection(&self) -> bool {
        matches!(
            self,
            StoreError::Conflict { .. }
                | StoreError::BadArgument(_)
                | StoreError::Full { .. }
                | StoreError::DatabaseFull { .. }
                | StoreError::Busy { .. }
                | StoreError::Stopped
                | StoreError::NotOnPostgres { .. }
        )
    }

    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        StoreError::Io { path: path.into(), op, source }
    }

    /// The store's one `store` row is gone: every read and write needs it.
    pub(crate) fn no_store_row(path: impl Into<PathBuf>) -> Self {
        StoreError::corrupt(path, "the `store` row is missing; it holds store_version")
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        StoreError::Corrupt { path: path.into(), line: 0, column: 0, reason: reason.into() }
    }

    /// A SQLite failure while doing `op` on the store at `path`, sorted into
    /// the kinds a caller can act on.
    pub(crate) fn sql(path: &Path, op: &'static str, e: &rusqlite::Error) -> Self {
        if checksum::is_checksum_fault(e) {
            return StoreError::corrupt(
                path,
                format!("{CHECKSUM_FAULT}; run `{}` to list the damaged pages", crate::invocation::m1nd("store check")),
            );
        }
        let path = path.to_owned();
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                StoreError::Corrupt { path, line: 0, column: 0, reason: e.to_string() }
            }
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy { path },
            Some(ErrorCode::OperationInterrupted) => StoreError::Stopped,
            Some(ErrorCode::CannotOpen) => StoreError::Sql { path, op, message: format!("{e} (is it readable?)") },
            _ => StoreError::Sql { path, op, message: e.to_string() },
        }
    }

    /// A PostgreSQL failure while doing `op` on the store at `path` (its
    /// location as shown, password hidden), sorted as [`StoreError::sql`]
    /// sorts SQLite's, by the server's SQLSTATE: a lost or refused
    /// connection is `Unavailable`, a lock wait past `lock_timeout` or a
    /// serialization failure `Busy`, a cancelled statement `Stopped`, a
    /// full disk on the server `DatabaseFull`.
    pub(crate) fn postgres(path: &Path, op: &'static str, e: &postgres::Error) -> Self {
        let path = path.to_owned();
        let Some(code) = e.code() else {
            return StoreError::Unavailable { path, reason: e.to_string() };
        };
        let code = code.code();
        match code {
            "55P03" | "40001" | "40P01" => StoreError::Busy { path },
            "57014" => StoreError::Stopped,
            "53100" => StoreError::DatabaseFull { path, reason: postgres_message(e) },
            "57P01" | "57P02" | "57P03" | "53300" => StoreError::Unavailable { path, reason: postgres_message(e) },
            _ if code.starts_with("08") => StoreError::Unavailable { path, reason: postgres_message(e) },
            _ => StoreError::Sql { path, op, message: postgres_message(e) },
        }
    }

    /// A failed write to the store at `path` declaring `cap` bytes: "no
    /// room" when SQLite says full, or when a write failed and the
    /// file-size limit is what stopped it; otherwise as [`StoreError::sql`].
    pub(crate) fn write(path: &Path, op: &'static str, cap: u64, e: &rusqlite::Error) -> Self {
        let full = e.sqlite_error_code() == Some(ErrorCode::DiskFull);
        let failed_write =
            matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_IOERR_WRITE);
        if full || failed_write {
            let why = Room::measure(path, cap).no_room();
            if full || why.file_size_limit() {
                return StoreError::Full { path: path.to_owned(), why };
            }
        }
        StoreError::sql(path, op, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file() {
        let path = PathBuf::from("/tmp/x/.m1nd/state.db");
        let shown = "/tmp/x/.m1nd/state.db";
        let not_found = StoreError::NotFound { path: path.clone() }.to_string();
        assert!(not_found.contains(shown));
        let create = crate::invocation::m1nd("init --demo --store /tmp/x/.m1nd");
        assert!(not_found.contains(&format!("`{create}`")), "{not_found}");
        let corrupt =
            StoreError::Corrupt { path: path.clone(), line: 3, column: 7, reason: "expected value".into() }.to_string();
        assert!(corrupt.contains("/tmp/x/.m1nd/state.db:3:7: expected value"));
        let io = StoreError::io(path.clone(), "read", io::Error::other("boom")).to_string();
        assert!(io.contains("cannot read /tmp/x/.m1nd/state.db: boom"));
        for error in [
            StoreError::NotRegular { path: path.clone(), kind: "a FIFO" },
            StoreError::Busy { path: path.clone() },
            StoreError::Full { path: path.clone(), why: Room::measure(&path, 10).no_room() },
            StoreError::Moved { path: path.clone() },
            StoreError::DatabaseFull { path: path.clone(), reason: "could not extend file (53100)".into() },
            StoreError::Sql { path, op: "write", message: "disk I/O error".into() },
        ] {
            assert!(error.to_string().contains(shown), "{error}");
        }
    }
}
