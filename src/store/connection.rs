//! Opening a connection to the store's file: through the page-checksum
//! layer, with the settings every connection needs.
//!
//! Invariant: every connection m1nd opens on `state.db` goes through
//! [`connect`] (so the checksum layer checks every page it reads) and
//! [`configure`] (so it waits its turn on the lock and syncs as the store's
//! durability needs); none of them writes to the file.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::error::StoreError;
use super::{checksum, turnstile};

/// How many prepared statements a connection keeps (rusqlite keeps 16
/// unless told). A reader composing the cockpit runs a few dozen, and a
/// statement pushed out of the cache is parsed again on its next use, so
/// every statement of `sql.rs` fits (a test in `sql/tests.rs` says so).
pub(super) const STATEMENT_CACHE: usize = 128;

/// `max_page_count` is per connection: set it from the declared limit, so a
/// write that would grow the file past it fails inside its transaction.
pub(super) fn limit_pages(conn: &Connection, path: &Path, max_bytes: u64) -> Result<(), StoreError> {
    let fail = |e: rusqlite::Error| StoreError::sql(path, "configure", &e);
    let page: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0)).map_err(fail)?;
    let pages = max_bytes / u64::try_from(page.max(1)).unwrap_or(4096);
    conn.pragma_update(None, "max_page_count", i64::try_from(pages).unwrap_or(i64::MAX)).map_err(fail)
}

/// Open a connection to `path` through the page-checksum layer, which is
/// registered first (once per process).
pub(super) fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, StoreError> {
    checksum::register().map_err(|rc| StoreError::Sql {
        path: path.to_owned(),
        op: "open",
        message: format!("the page-checksum layer could not be registered (SQLite result {rc})"),
    })?;
    Connection::open_with_flags(path, flags).map_err(|e| StoreError::sql(path, "open", &e))
}

/// Per-connection settings; none of them writes to the file.
pub(super) fn configure(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let fail = |e: rusqlite::Error| StoreError::sql(path, "configure", &e);
    // Waits up to BUSY_TIMEOUT, woken by this process's commits (turnstile.rs).
    conn.busy_handler(Some(turnstile::wait_for_lock)).map_err(fail)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.pragma_update(None, "synchronous", "EXTRA").map_err(fail)?;
    conn.pragma_update(None, "foreign_keys", false).map_err(fail)
}
