//! Making and opening a store in a PostgreSQL database.
//!
//! A store lives in the connection's current schema (the first of its
//! `search_path` that exists: `public` by default), so one database can
//! hold several stores, each given its own schema with
//! `options=-c search_path=NAME` in the location. `m1nd_schema` records
//! which migration steps the tables have had and which build wrote them:
//! without it the schema holds no store, and a version newer than this
//! build's is refused rather than guessed at.
//!
//! Creating and migrating each run in one transaction under an advisory
//! lock named after the schema, so replicas starting together, or `init`s
//! racing, make one store and migrate it once.

use super::super::db::{Db, args};
use super::super::error::StoreError;
use super::super::load;
use super::super::location::PostgresUrl;
use super::super::pg_wire::conn::{PgConn, connect, shown};
use super::super::room::NoRoom;
use super::super::schema::{self, VERSION};
use super::super::sql;
use super::super::state::State;
use super::terms::count_words;

/// An open store's connection and what it declares.
pub(in crate::store) struct Opened {
    pub conn: PgConn,
    pub max_bytes: u64,
    /// Tells this store from another later made in its place.
    pub incarnation: String,
}

/// What `m1nd_schema` says of the build that wrote the tables.
const WRITTEN_BY: &str = concat!("m1nd ", env!("CARGO_PKG_VERSION"));

/// Open the store at `url`: refused when the database holds none, or one
/// a newer build wrote; migrated (once, whoever else is opening it) when an
/// older build wrote it.
pub(in crate::store) fn open(url: &PostgresUrl) -> Result<Opened, StoreError> {
    let at = shown(url);
    let conn = connect(url)?;
    let fail = |op| move |e: postgres::Error| StoreError::postgres(&shown(url), op, &e);
    if !store_exists(&conn).map_err(fail("open"))? {
        return Err(StoreError::NotFound { path: at });
    }
    let (found, written_by) = schema_version(&conn).map_err(fail("open"))?;
    if found > i64::from(VERSION) {
        return Err(StoreError::corrupt(
            at,
            format!(
                "schema version {found}, written by {written_by}, is newer than this build reads ({VERSION}); \
                 upgrade m1nd"
            ),
        ));
    }
    if found < i64::from(VERSION) {
        in_transaction(&conn, |conn| {
            conn.query(sql::PG_LOCK_SCHEMA, &[])?;
            // Another replica may have migrated it while we waited.
            let (now, _) = schema_version(conn)?;
            if now < i64::from(VERSION) {
                let from = u32::try_from(now).unwrap_or(0);
                for step in schema::postgres_steps(from, VERSION).map_err(|e| Failed::Other(e.to_string()))? {
                    conn.batch(&step)?;
                }
                index_alerts(conn)?;
                conn.execute(sql::PG_SET_SCHEMA_VERSION, &[&i64::from(VERSION), &WRITTEN_BY])?;
            }
            Ok(())
        })
        .map_err(|e| e.into_store_error(url, "migrate"))?;
    }
    let row = conn.query(sql::PG_STORE_IDENT, &[]).map_err(fail("open"))?;
    let Some(row) = row.first() else {
        return Err(StoreError::no_store_row(at));
    };
    let (max_bytes, incarnation): (i64, String) = (row.get(0), row.get(1));
    Ok(Opened { conn, max_bytes: u64::try_from(max_bytes).unwrap_or(u64::MAX), incarnation })
}

/// Make a store holding `state` at `url`, in one transaction: all of it,
/// or nothing when anything fails. Refused when the schema holds a store.
pub(in crate::store) fn create(url: &PostgresUrl, state: &State, max_bytes: u64) -> Result<(), StoreError> {
    let conn = connect(url)?;
    in_transaction(&conn, |conn| {
        conn.query(sql::PG_LOCK_SCHEMA, &[])?;
        if store_exists(conn)? {
            return Err(Failed::Exists);
        }
        conn.batch(schema::PG_VERSION_TABLE)?;
        for step in schema::postgres_steps(0, VERSION).map_err(|e| Failed::Other(e.to_string()))? {
            conn.batch(&step)?;
        }
        conn.execute(sql::PG_SET_SCHEMA_VERSION, &[&i64::from(VERSION), &WRITTEN_BY])?;
        let stored = load::load(Db::Postgres(conn), state, max_bytes).map_err(Failed::Db)?;
        if stored > max_bytes {
            return Err(Failed::Full { stored, max_bytes });
        }
        conn.execute(sql::PG_SET_USED_BYTES, &[&i64::try_from(stored).unwrap_or(i64::MAX)])?;
        index_alerts(conn)
    })
    .map_err(|e| e.into_store_error(url, "create"))
}

/// Whether the current schema holds a store (its `m1nd_schema` table).
fn store_exists(conn: &PgConn) -> Result<bool, postgres::Error> {
    Ok(conn.query(sql::PG_STORE_EXISTS, &[])?.first().is_some_and(|row| row.get(0)))
}

/// The version `m1nd_schema` records, and the build that wrote it.
fn schema_version(conn: &PgConn) -> Result<(i64, String), postgres::Error> {
    let rows = conn.query(sql::PG_SCHEMA_VERSION, &[])?;
    Ok(rows.first().map_or((0, String::new()), |row| (row.get(0), row.get(1))))
}

/// Count every alert's words into the word index (`alert_terms`,
/// `alert_vocab`, `alerts.words`) afresh, as SQLite's FTS5 counts them.
/// The loader and the migration to step 4 are the only callers: nothing
/// else writes alerts.
fn index_alerts(conn: &PgConn) -> Result<(), Failed> {
    let alerts: Vec<(i64, String)> =
        Db::Postgres(conn).rows(sql::ALERT_TEXTS, args![], |r| Ok((r.get(0)?, r.get(1)?))).map_err(Failed::Db)?;
    let counted = count_words(alerts.iter().map(|(seq, text)| (*seq, text.as_str())))
        .map_err(|e| Failed::Other(format!("count the alerts' words: {e}")))?;
    conn.execute(sql::PG_CLEAR_TERMS, &[])?;
    conn.execute(sql::PG_CLEAR_VOCAB, &[])?;
    for (seq, words) in &counted {
        conn.execute(sql::PG_ALERT_WORDS, &[seq, &words.words])?;
        for (term, tf) in &words.terms {
            conn.execute(sql::PG_ALERT_TERM, &[term, seq, tf])?;
        }
    }
    conn.execute(sql::PG_BUILD_VOCAB, &[])?;
    Ok(())
}

/// Why a transaction of this file failed.
enum Failed {
    Exists,
    /// The state holds more than the cap lets a store hold.
    Full {
        stored: u64,
        max_bytes: u64,
    },
    Pg(postgres::Error),
    Db(super::super::db::DbError),
    Other(String),
}

impl From<postgres::Error> for Failed {
    fn from(e: postgres::Error) -> Self {
        Failed::Pg(e)
    }
}

impl Failed {
    fn into_store_error(self, url: &PostgresUrl, op: &'static str) -> StoreError {
        let at = shown(url);
        match self {
            Failed::Exists => StoreError::AlreadyExists { path: at },
            Failed::Full { stored, max_bytes } => {
                StoreError::Full { path: at, why: NoRoom::size_cap(max_bytes, stored) }
            }
            Failed::Pg(e) => StoreError::postgres(&at, op, &e),
            Failed::Db(e) => StoreError::db(&at, op, &e),
            Failed::Other(message) => StoreError::Sql { path: at, op, message },
        }
    }
}

/// Run `body` in one transaction: committed when it succeeds, rolled back
/// (nothing written) when it fails.
fn in_transaction(conn: &PgConn, body: impl FnOnce(&PgConn) -> Result<(), Failed>) -> Result<(), Failed> {
    conn.batch(sql::BEGIN)?;
    match body(conn) {
        Ok(()) => Ok(conn.batch(sql::COMMIT)?),
        Err(e) => {
            let _ = conn.batch(sql::ROLLBACK);
            Err(e)
        }
    }
}
