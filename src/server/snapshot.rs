//! The store as it is on disk now, parsed only when its bytes changed.
//!
//! Every read re-reads `state.json`; if the bytes are the ones parsed last
//! time, that parse is reused, otherwise the store is opened afresh. The key
//! is read *before* opening, so a write landing in between can only make the
//! key older than the parse, which forces one more open next time, never a
//! stale answer.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use m1nd::store::{STATE_FILE, Store};

/// Files larger than this are left to `Store::open`, which refuses them.
const MAX_CACHED_BYTES: u64 = 64 * 1024 * 1024;

pub struct Snapshots {
    dir: PathBuf,
    last: Mutex<Option<(Vec<u8>, Arc<Store>)>>,
}

impl Snapshots {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, last: Mutex::new(None) }
    }

    pub fn dir(&self) -> &PathBuf {
        &self.dir
    }

    /// The current store, for reading.
    pub fn current(&self) -> Result<Arc<Store>, String> {
        let Some(bytes) = self.bytes() else {
            return Store::open(&self.dir).map(Arc::new).map_err(|e| e.to_string());
        };
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((seen, store)) = last.as_ref()
            && *seen == bytes
        {
            return Ok(Arc::clone(store));
        }
        let store = Arc::new(Store::open(&self.dir).map_err(|e| e.to_string())?);
        *last = Some((bytes, Arc::clone(&store)));
        Ok(store)
    }

    fn bytes(&self) -> Option<Vec<u8>> {
        let file = File::open(self.dir.join(STATE_FILE)).ok()?;
        let mut bytes = Vec::new();
        file.take(MAX_CACHED_BYTES + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= MAX_CACHED_BYTES).then_some(bytes)
    }
}
