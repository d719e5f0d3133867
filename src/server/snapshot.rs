//! The store as it is on disk now, parsed again only when the file changed.
//!
//! Every read looks at `state.json`'s metadata (one `stat`); if it is the
//! file parsed last time, unchanged, that parse is reused (with the readings
//! it has already computed), otherwise the store is opened afresh.
//!
//! # Why the metadata is enough
//!
//! - **The store never writes in place.** Every write puts the new bytes in a
//!   fresh temp file, fsyncs it and renames it over `state.json`
//!   (`store::disk::write_atomic`). After a write the path therefore names a
//!   different inode, and a file's bytes never change once it is `state.json`.
//! - **An inode we hold cannot be reused.** A snapshot keeps the file it
//!   parsed open. An inode that is still open is not freed when the path is
//!   renamed over, so while we hold it no other file on that device can get
//!   its number. If the path still resolves to the same (device, inode), it is
//!   the very file we parsed: a write by anyone, in this process or another,
//!   shows up as a new inode on the next read.
//! - **The key describes the bytes parsed.** It is taken from the open file
//!   (`fstat`) *before* its bytes are read, never from the path afterwards, so
//!   the key can only be older than the parse, which forces one more parse
//!   next time, never a stale answer.
//!
//! Length, modification and change times (with nanoseconds) are part of the
//! key too. The store never needs them, but they catch most in-place edits by
//! other tools (a hand edit that keeps the inode); an in-place edit that keeps
//! the length and lands within the filesystem's timestamp granularity of the
//! previous one would go unseen until the next change, which is why the store
//! itself only ever renames.

use std::fs::{self, File, Metadata};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use m1nd::store::{STATE_FILE, Store};

/// What identifies one version of `state.json` without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Key {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> Option<Key> {
        use std::os::unix::fs::MetadataExt;
        Some(Key {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Without inode numbers there is no sound key: parse on every read.
    #[cfg(not(unix))]
    fn of(_meta: &Metadata) -> Option<Key> {
        None
    }
}

/// The last parse, with the open file it came from (which keeps its inode
/// from being reused while the key names it).
struct Held {
    key: Key,
    _file: File,
    store: Arc<Store>,
}

pub struct Snapshots {
    dir: PathBuf,
    path: PathBuf,
    last: Mutex<Option<Held>>,
}

impl Snapshots {
    pub fn new(dir: PathBuf) -> Self {
        let path = dir.join(STATE_FILE);
        Self { dir, path, last: Mutex::new(None) }
    }

    pub fn dir(&self) -> &PathBuf {
        &self.dir
    }

    /// The current store, for reading.
    pub fn current(&self) -> Result<Arc<Store>, String> {
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(held) = last.as_ref()
            && fs::metadata(&self.path).ok().and_then(|m| Key::of(&m)) == Some(held.key)
        {
            return Ok(Arc::clone(&held.store));
        }
        let file = Store::open_state_file(&self.dir).map_err(|e| e.to_string())?;
        let key = file.metadata().ok().and_then(|m| Key::of(&m));
        let store = Arc::new(Store::open_from(&self.dir, &file).map_err(|e| e.to_string())?);
        *last = key.map(|key| Held { key, _file: file, store: Arc::clone(&store) });
        Ok(store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("m1nd-snapshot-{name}-")).tempdir().expect("create dir")
    }

    #[test]
    fn an_unchanged_file_is_parsed_once() {
        let dir = dir("same");
        Store::init(dir.path(), true).expect("init");
        let snapshots = Snapshots::new(dir.path().to_path_buf());
        let first = snapshots.current().expect("first");
        let second = snapshots.current().expect("second");
        assert!(Arc::ptr_eq(&first, &second));
    }

    #[test]
    fn a_write_through_another_store_is_seen_next_read() {
        let dir = dir("write");
        Store::init(dir.path(), true).expect("init");
        let snapshots = Snapshots::new(dir.path().to_path_buf());
        assert_eq!(snapshots.current().expect("before").version(), 1);
        let mut other = Store::open(dir.path()).expect("open");
        other.memorize("written elsewhere", "test", Some(1)).expect("memorize");
        let after = snapshots.current().expect("after");
        assert_eq!(after.version(), 2);
        assert_eq!(after.state().memories.last().map(|m| m.claim.as_str()), Some("written elsewhere"));
    }

    /// A replacement with the same length and the same modification time is
    /// still a new inode, and the held file keeps the old inode from being
    /// handed to it.
    #[test]
    fn a_rename_is_seen_even_with_the_same_length_and_mtime() {
        let dir = dir("rename");
        Store::init(dir.path(), true).expect("init");
        let path = dir.path().join(STATE_FILE);
        let snapshots = Snapshots::new(dir.path().to_path_buf());
        assert_eq!(snapshots.current().expect("before").version(), 1);

        let text = fs::read_to_string(&path).expect("read");
        let changed = text.replacen("\"store_version\": 1", "\"store_version\": 7", 1);
        assert_ne!(changed, text);
        assert_eq!(changed.len(), text.len());
        let mtime = fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
        let temp = dir.path().join("replacement.tmp");
        fs::write(&temp, &changed).expect("write temp");
        File::options().write(true).open(&temp).and_then(|f| f.set_modified(mtime)).expect("set mtime");
        fs::rename(&temp, &path).expect("rename");

        assert_eq!(snapshots.current().expect("after").version(), 7);
    }

    #[test]
    fn an_in_place_edit_of_another_length_is_seen() {
        let dir = dir("in-place");
        Store::init(dir.path(), true).expect("init");
        let path = dir.path().join(STATE_FILE);
        let snapshots = Snapshots::new(dir.path().to_path_buf());
        assert_eq!(snapshots.current().expect("before").version(), 1);
        let text = fs::read_to_string(&path).expect("read");
        fs::write(&path, text.replacen("\"store_version\": 1", "\"store_version\": 12", 1)).expect("edit");
        assert_eq!(snapshots.current().expect("after").version(), 12);
    }

    #[test]
    fn a_missing_or_corrupt_file_is_an_error_every_time() {
        let dir = dir("missing");
        let snapshots = Snapshots::new(dir.path().to_path_buf());
        for _ in 0..2 {
            assert!(snapshots.current().expect_err("missing").contains("m1nd init"));
        }
        Store::init(dir.path(), false).expect("init");
        assert_eq!(snapshots.current().expect("created").version(), 1);
        let path = dir.path().join(STATE_FILE);
        let temp = dir.path().join("garbage.tmp");
        fs::write(&temp, b"{").expect("write");
        fs::rename(&temp, &path).expect("rename");
        for _ in 0..2 {
            assert!(snapshots.current().is_err());
        }
        // A later good store is picked up again.
        fs::remove_file(&path).expect("remove");
        Store::init(dir.path(), true).expect("init again");
        assert_eq!(snapshots.current().expect("again").state().memories.len(), 7);
    }
}
