//! Reading and atomically replacing `state.json`.
//!
//! The whole state is one file so that a write is all-or-nothing: the new
//! bytes go to a temp file in the same directory, are fsynced, renamed over
//! the old file, and the directory is fsynced so the rename itself survives a
//! crash. A reader therefore sees the old state or the new one, never a mix.
//!
//! Writers also exclude each other: a write holds [`lock`] on `state.lock`
//! from re-reading the state until its replacement is in place, so two
//! writers (threads or processes) never both build on the same version.
//! Readers take no lock; the rename already gives them a whole file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::StoreError;
use super::state::State;

pub const STATE_FILE: &str = "state.json";

/// The file writers lock; see [`lock`].
pub const LOCK_FILE: &str = "state.lock";

/// A state file larger than this is refused instead of read into memory.
const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

pub fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// Read, parse and validate a state file.
pub fn load(path: &Path) -> Result<State, StoreError> {
    load_from(path, &open(path)?)
}

/// Open a state file for reading. A missing file is `NotFound`.
pub fn open(path: &Path) -> Result<File, StoreError> {
    File::open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ => StoreError::io(path, "open", e),
    })
}

/// Read, parse and validate the state file `file`, opened from `path` (which
/// is only named in errors). The file is read from its start.
pub fn load_from(path: &Path, mut file: &File) -> Result<State, StoreError> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).map_err(|e| StoreError::io(path, "read", e))?;
    file.take(MAX_STATE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| StoreError::io(path, "read", e))?;
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return Err(StoreError::corrupt(path, format!("the file is larger than {MAX_STATE_BYTES} bytes")));
    }
    decode(path, &bytes)
}

pub fn decode(path: &Path, bytes: &[u8]) -> Result<State, StoreError> {
    let state: State = serde_json::from_slice(bytes).map_err(|e| parse_error(path, &e))?;
    state.validate().map_err(|reason| StoreError::corrupt(path, reason))?;
    Ok(state)
}

pub fn encode(path: &Path, state: &State) -> Result<Vec<u8>, StoreError> {
    let mut bytes = serde_json::to_vec_pretty(state)
        .map_err(|e| StoreError::corrupt(path, format!("cannot encode the state: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Take the store's write lock: an exclusive [`File::lock`] on
/// `dir/state.lock`, created (empty) if missing, held until the returned file
/// is dropped. Blocks while another writer holds it.
///
/// The lock belongs to the open file, not to the file's existence: the
/// operating system releases it when the file is closed, including when the
/// holder crashes or is killed (`flock` semantics on Unix, `LockFileEx` on
/// Windows). So there is no stale lock to detect or clean up, and the file is
/// never deleted (deleting it would let a newcomer lock a fresh file while an
/// old holder still locks the unlinked one). It holds no data.
///
/// The lock is advisory: it orders the store's own writers, all of which take
/// it, and does not stop other programs from writing `state.json`. A store
/// directory that is missing is `NotFound` (the lock never creates one).
pub fn lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let opened = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path);
    let file = opened.map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: state_path(dir) },
        _ => StoreError::io(&path, "open the lock file", e),
    })?;
    file.lock().map_err(|e| StoreError::io(&path, "lock", e))?;
    Ok(file)
}

/// Whether the write may replace an existing `state.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Replace,
    /// Fail with `AlreadyExists` if one is there, even if it appears between
    /// our check and our write.
    CreateNew,
}

pub fn write_atomic(dir: &Path, bytes: &[u8], mode: Mode) -> Result<(), StoreError> {
    let path = state_path(dir);
    let temp = temp_path(dir);
    write_synced(&temp, bytes).inspect_err(|_| discard(&temp))?;
    let placed = match mode {
        Mode::Replace => fs::rename(&temp, &path).map_err(|e| StoreError::io(&path, "replace", e)),
        Mode::CreateNew => place_new(&temp, &path),
    };
    discard(&temp);
    placed?;
    sync_dir(dir)
}

/// Link the temp file in as `state.json`; a hard link never replaces an
/// existing file, which closes the race between two `init`s.
fn place_new(temp: &Path, path: &Path) -> Result<(), StoreError> {
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

fn write_synced(temp: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file =
        OpenOptions::new().write(true).create_new(true).open(temp).map_err(|e| StoreError::io(temp, "create", e))?;
    file.write_all(bytes).map_err(|e| StoreError::io(temp, "write", e))?;
    file.sync_all().map_err(|e| StoreError::io(temp, "sync", e))
}

/// Best effort: a leftover temp file is harmless, it is never read.
fn discard(temp: &Path) {
    let _ = fs::remove_file(temp);
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| StoreError::io(dir, "sync directory", e))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), StoreError> {
    Ok(())
}

/// Unique per process and call, so concurrent writers never share a temp file.
fn temp_path(dir: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    dir.join(format!(".{STATE_FILE}.{}.{nanos}.{n}.tmp", std::process::id()))
}

fn parse_error(path: &Path, e: &serde_json::Error) -> StoreError {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let reason = text.strip_suffix(&position).unwrap_or(&text).to_owned();
    StoreError::Corrupt { path: path.to_owned(), line: e.line(), column: e.column(), reason }
}

#[cfg(test)]
mod tests {
    use super::super::test_dir::test_dir;
    use super::*;

    #[test]
    fn write_then_load_round_trips_and_leaves_no_temp_files() {
        let dir = test_dir("disk-round-trip");
        let state = State::empty();
        let bytes = encode(&state_path(dir.path()), &state).expect("encode");
        write_atomic(dir.path(), &bytes, Mode::CreateNew).expect("write");
        assert_eq!(load(&state_path(dir.path())).expect("load"), state);
        let names: Vec<_> =
            fs::read_dir(dir.path()).expect("list").filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from(STATE_FILE)]);
    }

    #[test]
    fn create_new_never_replaces() {
        let dir = test_dir("disk-create-new");
        fs::write(state_path(dir.path()), b"keep me").expect("seed");
        let err = write_atomic(dir.path(), b"{}", Mode::CreateNew).expect_err("exists");
        assert!(matches!(err, StoreError::AlreadyExists { .. }));
        assert_eq!(fs::read(state_path(dir.path())).expect("read"), b"keep me");
    }

    #[test]
    fn parse_errors_carry_position_without_repeating_it() {
        let path = Path::new("/x/state.json");
        let err = decode(path, b"{\n  \"format\": \"m1nd-store-v1\",\n  oops").expect_err("bad");
        match err {
            StoreError::Corrupt { line, column, reason, .. } => {
                assert_eq!(line, 3);
                assert!(column > 0);
                assert!(!reason.contains("at line"), "{reason}");
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }
}
