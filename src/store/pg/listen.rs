//! Hearing other replicas' commits: `LISTEN` on a connection of its own.
//!
//! Every write on a PostgreSQL store sends one notification on the channel
//! `m1nd` (`sql::pg_channel!`) as part of its transaction (`pg/write.rs`), so it is
//! delivered only if the write commits, and after it has. Its payload names
//! the store's incarnation and the version it reached.
//!
//! A notification is a hint, never the news: the version is read from the
//! store. Payloads naming another store (several stores may share a
//! database, each in its own schema) or carrying anything else are
//! ignored without a read, so a storm of junk costs what parsing it costs;
//! the caller coalesces the real ones (`service/listen.rs`).

use std::path::PathBuf;
use std::time::Duration;

use super::super::db::Db;
use super::super::error::StoreError;
use super::super::location::PostgresUrl;
use super::super::pg_wire::conn::{PgConn, shown};
use super::super::reads::store_version;
use super::super::sql;
use super::open::open;

/// The most notifications taken from the connection at once; the rest wait
/// for the next call, so memory stays bounded whatever arrives.
const DRAIN: usize = 4_096;

/// What a wait heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Nothing about this store came before the timeout.
    Nothing,
    /// At least one write to this store committed.
    Commits,
}

/// A connection that listens for this store's commits.
pub struct Listener {
    conn: PgConn,
    incarnation: String,
    path: PathBuf,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Listener {
    /// Open the store at `url` (refused as `Store::open_at` refuses) and
    /// listen on a connection of its own.
    pub fn open(url: &PostgresUrl) -> Result<Listener, StoreError> {
        let opened = open(url)?;
        let path = shown(url);
        opened.conn.batch(sql::PG_LISTEN).map_err(|e| StoreError::postgres(&path, "listen on", &e))?;
        Ok(Listener { conn: opened.conn, incarnation: opened.incarnation, path })
    }

    /// Wait up to `timeout` for notifications, and say whether any was
    /// about a commit to this store.
    /// A connection the server closed hears nothing more: that is an error,
    /// and the caller listens afresh.
    pub fn wait(&self, timeout: Duration) -> Result<Heard, StoreError> {
        let payloads =
            self.conn.notifications(timeout, DRAIN).map_err(|e| StoreError::postgres(&self.path, "listen on", &e))?;
        if payloads.iter().any(|payload| self.is_ours(payload)) {
            return Ok(Heard::Commits);
        }
        if self.conn.is_closed() {
            return Err(StoreError::Unavailable {
                path: self.path.clone(),
                reason: "the server closed the listening connection".into(),
            });
        }
        Ok(Heard::Nothing)
    }

    /// The store's version now.
    pub fn version(&self) -> Result<u64, StoreError> {
        store_version(Db::Postgres(&self.conn), &self.path)
    }

    /// `INCARNATION:VERSION` of this store.
    fn is_ours(&self, payload: &str) -> bool {
        payload
            .split_once(':')
            .is_some_and(|(incarnation, version)| incarnation == self.incarnation && version.parse::<u64>().is_ok())
    }
}
