//! A small file read again whenever its modification time changes: the
//! JWKS (keys rotate) and the revoked agents (one is shut out), without a
//! restart. A change that cannot be read keeps what was read last, with a
//! warning: a bad edit never drops a key set or a revocation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The largest file read.
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The file's last good reading.
pub(super) struct Watched<T> {
    path: PathBuf,
    parse: fn(&str) -> Result<T, String>,
    held: Mutex<(Stamp, Arc<T>)>,
}

impl<T> Watched<T> {
    /// Read `path` now; a file that cannot be read or parsed is an error.
    pub(super) fn load(path: PathBuf, parse: fn(&str) -> Result<T, String>) -> Result<Watched<T>, String> {
        let modified = modified(&path)?;
        let value = parse(&read_bounded(&path)?)?;
        Ok(Watched { path, parse, held: Mutex::new((modified, Arc::new(value))) })
    }

    /// The reading now: the file again if it changed and reads well, else the last.
    pub(super) fn current(&self) -> Arc<T> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let now = modified(&self.path);
        if now.as_ref().is_ok_and(|now| *now == held.0) {
            return Arc::clone(&held.1);
        }
        match now.and_then(|now| Ok((now, (self.parse)(&read_bounded(&self.path)?)?))) {
            Ok((now, value)) => *held = (now, Arc::new(value)),
            Err(e) => tracing::warn!("{}: {e}; keeping what it said before", self.path.display()),
        }
        Arc::clone(&held.1)
    }
}

/// What tells a changed file: its modification time and its length (two
/// writes within one tick of the file system's clock share a time, but a
/// half-written file seldom has the whole one's length).
type Stamp = (Option<SystemTime>, u64);

fn modified(path: &Path) -> Result<Stamp, String> {
    std::fs::metadata(path).map(|m| (m.modified().ok(), m.len())).map_err(|e| e.to_string())
}

/// A file's text, refused past [`MAX_FILE_BYTES`].
fn read_bounded(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_FILE_BYTES {
        return Err(format!("{size} bytes, more than the {MAX_FILE_BYTES} read"));
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}
