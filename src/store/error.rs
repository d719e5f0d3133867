//! Store failures. Every one that concerns a file names it, so a human can go
//! and look at (or restore) exactly that file.

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug)]
pub enum StoreError {
    /// No `state.json` where one was expected. Opening never creates a store,
    /// so a typo in a path cannot silently start an empty one.
    NotFound {
        path: PathBuf,
    },
    /// `init` found a `state.json` already; it never overwrites one.
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
    Io {
        path: PathBuf,
        op: &'static str,
        source: io::Error,
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
            StoreError::Io { path, op, source } => {
                write!(f, "cannot {op} {}: {source}", path.display())
            }
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
        let path = PathBuf::from("/tmp/x/.m1nd/state.json");
        let not_found = StoreError::NotFound { path: path.clone() }.to_string();
        assert!(not_found.contains("/tmp/x/.m1nd/state.json"));
        assert!(not_found.contains("m1nd init --demo"));
        let corrupt =
            StoreError::Corrupt { path: path.clone(), line: 3, column: 7, reason: "expected value".into() }.to_string();
        assert!(corrupt.contains("/tmp/x/.m1nd/state.json:3:7: expected value"));
        let io = StoreError::io(path, "read", io::Error::other("boom")).to_string();
        assert!(io.contains("cannot read /tmp/x/.m1nd/state.json: boom"));
    }
}
