//! Store failures. Every one that concerns a file names it, so a human can go
//! and look at (or restore) exactly that file.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

#[derive(Debug)]
pub enum StoreError {
    /// No store file where one was expected. Opening never creates a store,
    /// so a typo in a path cannot silently start an empty one.
    NotFound {
        path: PathBuf,
    },
    /// `init` or `import` found a store already; they never overwrite one.
    AlreadyExists {
        path: PathBuf,
    },
    /// The file is not a valid store. `line`/`column` are 1-based; 0 means the
    /// problem is not at one place in the text (e.g. two items share an id).
    Corrupt {
        path: PathBuf,
        line: usize,
        column: usize,
        reason: String,
    },
    /// A path in the store directory is something SQLite must not open.
    NotRegular {
        path: PathBuf,
        kind: &'static str,
    },
    Io {
        path: PathBuf,
        op: &'static str,
        source: io::Error,
    },
    /// SQLite refused; `op` says what the store was doing.
    Sql {
        path: PathBuf,
        op: &'static str,
        message: String,
    },
    /// Another writer held the store for longer than the busy timeout.
    Busy {
        path: PathBuf,
    },
    /// The write would take the store past its declared size limit, or the
    /// disk (or a file-size limit) has no room for it. Nothing was written.
    Full {
        path: PathBuf,
        limit: u64,
    },
    /// The file at the store's path is no longer the one this write went to
    /// (it was deleted, replaced or moved meanwhile): the write is not
    /// acknowledged, because it is not durable in the store at its path.
    Moved {
        path: PathBuf,
    },
    /// The caller's `expected_store_version` is not the store's: someone else
    /// wrote in between, so the caller's view is stale.
    Conflict {
        expected: u64,
        actual: u64,
    },
    BadArgument(String),
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        StoreError::Io { path: path.into(), op, source }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        StoreError::Corrupt { path: path.into(), line: 0, column: 0, reason: reason.into() }
    }

    /// A SQLite failure while doing `op` on the store at `path`, sorted into
    /// the kinds a caller can act on.
    pub(crate) fn sql(path: &Path, op: &'static str, e: &rusqlite::Error) -> Self {
        let path = path.to_owned();
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                StoreError::Corrupt { path, line: 0, column: 0, reason: e.to_string() }
            }
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy { path },
            Some(ErrorCode::CannotOpen) => StoreError::Sql { path, op, message: format!("{e} (is it readable?)") },
            _ => StoreError::Sql { path, op, message: e.to_string() },
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NotFound { path } => write!(
                f,
                "no m1nd store at {}: run `m1nd init` (or `m1nd init --demo` for a sample) to create one",
                path.display()
            ),
            StoreError::AlreadyExists { path } => {
                write!(f, "a store already exists at {}; refusing to overwrite it", path.display())
            }
            StoreError::Corrupt { path, line, column, reason } => {
                if *line > 0 {
                    write!(f, "corrupt store {}:{line}:{column}: {reason}", path.display())
                } else {
                    write!(f, "corrupt store {}: {reason}", path.display())
                }
            }
            StoreError::NotRegular { path, kind } => write!(
                f,
                "{} is {kind}, not a regular file; the store refuses to open it (restore the file or remove it)",
                path.display()
            ),
            StoreError::Io { path, op, source } => write!(f, "cannot {op} {}: {source}", path.display()),
            StoreError::Sql { path, op, message } => write!(f, "cannot {op} {}: {message}", path.display()),
            StoreError::Busy { path } => write!(
                f,
                "the store {} is busy: another writer held it past the timeout; nothing changed, retry",
                path.display()
            ),
            StoreError::Full { path, limit } => write!(
                f,
                "the store {} has no room for this write (its declared limit is {limit} bytes, or the disk or a \
                 file-size limit is full); nothing changed",
                path.display()
            ),
            StoreError::Moved { path } => write!(
                f,
                "the store file {} was deleted or replaced during the write, so the write is not in the store at \
                 that path; it is not acknowledged",
                path.display()
            ),
            StoreError::Conflict { expected, actual } => {
                write!(f, "state moved: expected store_version {expected}, the store is at {actual}; re-read and retry")
            }
            StoreError::BadArgument(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            _ => None,
        }
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
        assert!(not_found.contains("m1nd init --demo"));
        let corrupt =
            StoreError::Corrupt { path: path.clone(), line: 3, column: 7, reason: "expected value".into() }.to_string();
        assert!(corrupt.contains("/tmp/x/.m1nd/state.db:3:7: expected value"));
        let io = StoreError::io(path.clone(), "read", io::Error::other("boom")).to_string();
        assert!(io.contains("cannot read /tmp/x/.m1nd/state.db: boom"));
        for error in [
            StoreError::NotRegular { path: path.clone(), kind: "a FIFO" },
            StoreError::Busy { path: path.clone() },
            StoreError::Full { path: path.clone(), limit: 10 },
            StoreError::Moved { path: path.clone() },
            StoreError::Sql { path, op: "write", message: "disk I/O error".into() },
        ] {
            assert!(error.to_string().contains(shown), "{error}");
        }
    }
}
