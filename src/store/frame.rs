//! What a write transaction's body works with, on either backend: the
//! connection inside the transaction, the store's version, one clock for
//! the whole group, a savepoint per change, and the size cap.
//!
//! The transaction itself is begun and committed by the backend's own
//! frame (`writes.rs` for SQLite, `pg/write.rs` for PostgreSQL), because
//! what makes a commit durable and acknowledged differs. Everything a
//! change does between them is written once, here and in its callers.
//!
//! # The size cap on each backend
//!
//! SQLite caps the file's pages (`max_page_count`), so a write past the cap
//! fails inside its statement. A database has no such cap, and its files
//! never shrink when a write rolls back, so on PostgreSQL `max_bytes` caps
//! what the store holds instead: every row a write inserts adds its bytes
//! ([`stored_bytes`]) to `store.used_bytes`, claimed when the change lands
//! ([`Frame::bump`]); a claim past the cap refuses that change alone.

use std::cell::Cell;
use std::path::Path;

use super::db::{Arg, Db, DbError, args, stored_bytes};
use super::error::StoreError;
use super::reads::store_version;
use super::room::NoRoom;
use super::sql;

/// One write transaction's connection, clock and size accounting.
pub(super) struct Frame<'c> {
    db: Db<'c>,
    path: &'c Path,
    max_bytes: u64,
    /// When the group is written: one instant for every change in it. On
    /// PostgreSQL the database's clock, so replicas agree on the order.
    now: String,
    /// Bytes the current change stored so far (PostgreSQL's cap counts them).
    pending: Cell<u64>,
}

impl<'c> Frame<'c> {
    pub(super) fn new(db: Db<'c>, path: &'c Path, max_bytes: u64, now: String) -> Self {
        Frame { db, path, max_bytes, now, pending: Cell::new(0) }
    }

    /// The connection, inside the transaction.
    pub(super) fn db(&self) -> Db<'c> {
        self.db
    }

    /// The instant this write records (`YYYY-MM-DDTHH:MM:SSZ`).
    pub(super) fn now(&self) -> &str {
        &self.now
    }

    /// A failure of the driver during the write, as a store error.
    /// SQLite's is measured for "no room" first (the page cap, the disk).
    pub(super) fn fail(&self, e: DbError) -> StoreError {
        match e {
            DbError::Sqlite(e) => StoreError::write(self.path, "write", self.max_bytes, &e),
            other => StoreError::db(self.path, "write", &other),
        }
    }

    /// Insert a row, counting the bytes it stores against the cap.
    pub(super) fn insert(&self, sql: &'static str, args: &[&dyn Arg]) -> Result<(), DbError> {
        self.db.execute(sql, args)?;
        self.pending.set(self.pending.get().saturating_add(stored_bytes(args)));
        Ok(())
    }

    /// `store_version` as the transaction sees it.
    pub(super) fn version(&self) -> Result<u64, StoreError> {
        store_version(self.db, self.path)
    }

    /// The version after `actual`, if the store can hold it.
    pub(super) fn next(&self, actual: u64) -> Result<u64, StoreError> {
        actual
            .checked_add(1)
            .filter(|v| i64::try_from(*v).is_ok())
            .ok_or_else(|| StoreError::corrupt(self.path, "store_version is at its maximum and cannot grow"))
    }

    /// The change has landed: claim the room it took, then move
    /// `store_version` to `version`. A claim past the cap is
    /// [`StoreError::Full`], and the caller rolls the change back.
    pub(super) fn bump(&self, version: u64) -> Result<(), StoreError> {
        let bytes = self.pending.replace(0);
        if let Db::Postgres(_) = self.db {
            let claim = i64::try_from(bytes).unwrap_or(i64::MAX);
            if self.db.execute(sql::PG_CLAIM_BYTES, args![claim]).map_err(|e| self.fail(e))? == 0 {
                return Err(self.over_cap());
            }
        }
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        self.db.execute(sql::SET_STORE_VERSION, args![version]).map(drop).map_err(|e| self.fail(e))
    }

    /// The refusal of a claim past the cap, with what the store holds.
    fn over_cap(&self) -> StoreError {
        let read = self.db.row(sql::PG_USED_BYTES, args![], |r| Ok((r.get::<i64>(0)?, r.get::<i64>(1)?)));
        match read {
            Ok(Some((used, cap))) => {
                let (used, cap) = (u64::try_from(used).unwrap_or(0), u64::try_from(cap).unwrap_or(0));
                StoreError::Full { path: self.path.to_owned(), why: NoRoom::size_cap(cap, used) }
            }
            Ok(None) => StoreError::no_store_row(self.path),
            Err(e) => self.fail(e),
        }
    }

    /// Begin a change of a group: a savepoint it can be rolled back to alone.
    pub(super) fn savepoint(&self) -> Result<Savepoint<'_, 'c>, StoreError> {
        self.pending.set(0);
        self.db.batch(sql::SAVEPOINT).map_err(|e| self.fail(e))?;
        Ok(Savepoint { frame: self, open: true })
    }
}

/// One change's savepoint. Dropping it without [`Savepoint::keep`] rolls the
/// change back.
pub(super) struct Savepoint<'f, 'c> {
    frame: &'f Frame<'c>,
    open: bool,
}

impl Savepoint<'_, '_> {
    /// Keep the change in the group.
    pub(super) fn keep(mut self) -> Result<(), StoreError> {
        self.open = false;
        self.frame.db.batch(sql::RELEASE_SAVEPOINT).map_err(|e| self.frame.fail(e))
    }

    /// Undo the change; the rest of the group goes on. Fails when there is
    /// no transaction left to go on in: SQLite ends one by itself on some
    /// failures (a full disk), and a PostgreSQL transaction ends with its
    /// connection. A failed undo must fail the whole group: PostgreSQL
    /// would turn its COMMIT into a rollback without an error.
    pub(super) fn undo(mut self) -> Result<(), StoreError> {
        self.open = false;
        self.roll_back()?;
        if self.frame.db.in_transaction() { Ok(()) } else { Err(StoreError::Interrupted) }
    }

    fn roll_back(&self) -> Result<(), StoreError> {
        self.frame.pending.set(0);
        let db = self.frame.db;
        db.batch(sql::ROLLBACK_TO_SAVEPOINT)
            .and_then(|()| db.batch(sql::RELEASE_SAVEPOINT))
            .map_err(|e| self.frame.fail(e))
    }
}

impl Drop for Savepoint<'_, '_> {
    fn drop(&mut self) {
        // Only reached when the group fails anyway (an error is on its way
        // out), so a failure here has nothing to add.
        if self.open {
            let _ = self.roll_back();
        }
    }
}
