//! The write frame on PostgreSQL: what SQLite's `BEGIN IMMEDIATE` and the
//! file checks give a write (`writes.rs`), for a store that many replicas
//! share.
//!
//! - **Writers take turns.** The first statement locks the store row
//!   (`FOR UPDATE`), so the writes of every replica on the store run one at
//!   a time; one waiting past `lock_timeout` is refused as busy, having
//!   written nothing. The transaction is `READ COMMITTED`, so once the lock
//!   is granted every later statement sees every write committed before it.
//! - **The store is still the one opened.** The same statement reads the
//!   store's incarnation and schema version: a store made anew in its place,
//!   or migrated by a newer build, is not written through this connection.
//! - **One clock.** Every change of the group records the database's time,
//!   so replicas with drifting clocks still agree on the order.
//! - **Acknowledged means durable.** The session commits with
//!   `synchronous_commit = on` on a server with `fsync` on (`conn.rs`), and
//!   the result is returned only after COMMIT has answered.
//! - **A COMMIT that fails is resolved, not guessed.** Once COMMIT is sent,
//!   no failure says by itself whether the write landed: a connection lost
//!   on the way says nothing, and a server shutting down (`57P01`,
//!   `pg_ctl stop -m fast`) may end the session with an error after the
//!   commit is durable. So whatever the failure, the frame (which read its
//!   transaction's id first) asks a new connection (`txid_status`):
//!   committed is acknowledged, aborted is refused as "nothing changed"
//!   (with the server's own reason when it gave one); if no answer comes
//!   within [`RESOLVE_WITHIN`] the caller is told exactly that
//!   ([`StoreError::OutcomeUnknown`]).

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use super::super::db::Db;
use super::super::error::StoreError;
use super::super::frame::Frame;
use super::super::pg_wire::conn::{PgConn, connect};
use super::super::schema::VERSION;
use super::super::{FileId, sql};

/// How long a lost commit's outcome is asked after, before the caller is
/// told it is unknown.
pub const RESOLVE_WITHIN: Duration = Duration::from_secs(5);

/// Run `body` in one write transaction on `conn`, the store `opened` (its
/// incarnation) at `path` (its location as shown).
pub(in crate::store) fn transaction<T>(
    conn: &PgConn,
    path: &Path,
    opened: FileId,
    body: impl FnOnce(&Frame<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let fail = |e: postgres::Error| StoreError::postgres(path, "write", &e);
    conn.batch(sql::PG_BEGIN_WRITE).map_err(fail)?;
    let open = Open(Some(conn));
    let rows = conn.query(sql::PG_WRITE_FRAME, &[]).map_err(fail)?;
    let Some(row) = rows.first() else {
        return Err(StoreError::no_store_row(path));
    };
    let read = || -> Result<(String, Option<i64>, i64, String, i64), postgres::Error> {
        Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?, row.try_get(3)?, row.try_get(4)?))
    };
    let (incarnation, schema, xid, now, max_bytes) = read().map_err(fail)?;
    if FileId::of_incarnation(&incarnation) != opened {
        return Err(StoreError::Moved { path: path.to_owned() });
    }
    if schema != Some(i64::from(VERSION)) {
        let found = schema.map_or("none".to_owned(), |v| v.to_string());
        return Err(StoreError::corrupt(
            path,
            format!(
                "the store's schema version is now {found}, not the {VERSION} this build writes (another build \
                 migrated it); upgrade m1nd, then restart"
            ),
        ));
    }
    let max_bytes = u64::try_from(max_bytes).unwrap_or(0);
    let value = body(&Frame::new(Db::Postgres(conn), path, max_bytes, now))?;
    // Delivered to every replica's listener only if the write commits.
    conn.query(sql::PG_NOTIFY, &[]).map_err(fail)?;
    open.commit(path, xid)?;
    Ok(value)
}

/// A write transaction that is rolled back when dropped before its commit.
struct Open<'c>(Option<&'c PgConn>);

impl Open<'_> {
    /// COMMIT, and say whether the write landed: when the server answers
    /// that it did, it did; on any failure, a new connection asks what
    /// became of `xid` (see the module's documentation for why even an
    /// error from the server is not taken at its word).
    fn commit(mut self, path: &Path, xid: i64) -> Result<(), StoreError> {
        let Some(conn) = self.0.take() else { return Err(StoreError::Interrupted) };
        match conn.batch(sql::COMMIT) {
            Ok(()) => Ok(()),
            Err(failed) => resolve(conn, path, xid, &failed),
        }
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.0.take() {
            // Nothing of an unfinished write is kept; if the connection is
            // gone, so is the transaction.
            let _ = conn.batch(sql::ROLLBACK);
        }
    }
}

/// What became of transaction `xid`, whose COMMIT was sent on `conn` and
/// `failed`. One new connection asks, while it lasts; another is made only
/// if it is lost too.
fn resolve(conn: &PgConn, path: &Path, xid: i64, failed: &postgres::Error) -> Result<(), StoreError> {
    let deadline = Instant::now() + RESOLVE_WITHIN;
    let mut asking: Option<PgConn> = None;
    loop {
        let last = match status(&mut asking, conn, path, xid) {
            Ok(Some(status)) if status == "committed" => return Ok(()),
            // The server's own reason when it gave one (a deferred check, a
            // shutdown that came first), else the lost connection.
            Ok(Some(status)) if status == "aborted" => {
                return Err(match failed.as_db_error() {
                    Some(_) => StoreError::postgres(path, "commit", failed),
                    None => StoreError::Unavailable {
                        path: path.to_owned(),
                        reason: format!("the connection was lost before the commit landed ({failed})"),
                    },
                });
            }
            // The server has not yet seen the old connection go.
            Ok(Some(status)) => format!("the transaction was still {status}"),
            Ok(None) => {
                let reason = "the server no longer knows the transaction".to_owned();
                return Err(StoreError::OutcomeUnknown { path: path.to_owned(), reason });
            }
            Err(e) => {
                asking = None;
                e.to_string()
            }
        };
        if Instant::now() >= deadline {
            return Err(StoreError::OutcomeUnknown { path: path.to_owned(), reason: last });
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// `txid_status(xid)`, asked on `asking`, connected first to where `conn` was.
fn status(asking: &mut Option<PgConn>, conn: &PgConn, path: &Path, xid: i64) -> Result<Option<String>, StoreError> {
    let fresh = match asking {
        Some(fresh) => fresh,
        None => asking.insert(connect(conn.url())?),
    };
    let rows = fresh.query(sql::PG_XACT_STATUS, &[&xid]).map_err(|e| StoreError::postgres(path, "read", &e))?;
    Ok(rows.first().and_then(|row| row.get::<_, Option<String>>(0)))
}
