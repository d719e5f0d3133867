//! One way to run the store's statements on either backend.
//!
//! The store's logic (reads, the loader, the counts) is written once, over
//! a [`Db`]: a borrowed SQLite connection or PostgreSQL connection. Every
//! statement is a `&'static str` of `sql.rs`, written with SQLite's
//! numbered placeholders (`?1`); the PostgreSQL arm rewrites them to `$1`
//! once per connection and keeps the prepared statement (`pg_wire::conn`), as
//! rusqlite's `prepare_cached` does for SQLite.
//!
//! Values go in as [`Arg`]s and come out as [`Column`]s: types both
//! drivers carry alike. PostgreSQL's types are exact (an `i64` binds to a
//! `BIGINT`, never to an `INTEGER`), which is why every integer the store
//! binds or reads is an `i64`.

use std::path::Path;

use super::error::{StoreError, postgres_message};
use super::pg_wire::conn::PgConn;

/// A value bound to a statement, on either backend.
pub(super) trait Arg: rusqlite::ToSql + postgres::types::ToSql + Sync {
    fn sqlite(&self) -> &dyn rusqlite::ToSql;
    fn postgres(&self) -> &(dyn postgres::types::ToSql + Sync);
}

impl<T: rusqlite::ToSql + postgres::types::ToSql + Sync> Arg for T {
    fn sqlite(&self) -> &dyn rusqlite::ToSql {
        self
    }

    fn postgres(&self) -> &(dyn postgres::types::ToSql + Sync) {
        self
    }
}

/// A value read from a row, on either backend.
pub(super) trait Column: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>> Column for T {}

/// The arguments of one statement: `args![a, b]` is `&[&a, &b]` as [`Arg`]s.
macro_rules! args {
    () => { &[] as &[&dyn $crate::store::db::Arg] };
    ($($value:expr),+ $(,)?) => { &[$(&$value as &dyn $crate::store::db::Arg),+] as &[&dyn $crate::store::db::Arg] };
}
pub(super) use args;

/// A failure of either driver.
#[derive(Debug, thiserror::Error)]
pub(super) enum DbError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error("{}", postgres_message(.0))]
    Postgres(#[from] postgres::Error),
    /// A statement did what the store's own logic rules out.
    #[error("{0}; nothing was written")]
    Unexpected(&'static str),
    /// The reader's budget ran out, or its caller left, before a statement.
    #[error("the read was stopped")]
    Stopped,
}

impl StoreError {
    /// A failure of either backend's driver while doing `op`.
    pub(super) fn db(path: &Path, op: &'static str, e: &DbError) -> Self {
        match e {
            DbError::Sqlite(e) => StoreError::sql(path, op, e),
            DbError::Postgres(e) => StoreError::postgres(path, op, e),
            DbError::Unexpected(_) => StoreError::Sql { path: path.to_owned(), op, message: e.to_string() },
            DbError::Stopped => StoreError::Stopped,
        }
    }
}

/// One row of a result, on either backend.
pub(super) enum Row<'r, 's> {
    Sqlite(&'r rusqlite::Row<'s>),
    Postgres(&'r postgres::Row),
}

impl Row<'_, '_> {
    /// Column `i` (from 0) as a `T`.
    pub(super) fn get<T: Column>(&self, i: usize) -> Result<T, DbError> {
        match self {
            Row::Sqlite(row) => Ok(row.get(i)?),
            Row::Postgres(row) => Ok(row.try_get(i)?),
        }
    }
}

/// A connection of either backend, borrowed for some statements.
#[derive(Clone, Copy)]
pub(super) enum Db<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(&'c PgConn),
}

impl Db<'_> {
    /// Every row of `sql`, each made a `T` by `read`.
    pub(super) fn rows<T>(
        self,
        sql: &'static str,
        args: &[&dyn Arg],
        mut read: impl FnMut(&Row<'_, '_>) -> Result<T, DbError>,
    ) -> Result<Vec<T>, DbError> {
        match self {
            Db::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let bound: Vec<&dyn rusqlite::ToSql> = args.iter().map(|a| a.sqlite()).collect();
                let mut rows = statement.query(&*bound)?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(read(&Row::Sqlite(row))?);
                }
                Ok(out)
            }
            Db::Postgres(conn) => {
                if conn.should_stop() {
                    return Err(DbError::Stopped);
                }
                let bound: Vec<&(dyn postgres::types::ToSql + Sync)> = args.iter().map(|a| a.postgres()).collect();
                conn.query(sql, &bound)?.iter().map(|row| read(&Row::Postgres(row))).collect()
            }
        }
    }

    /// The first row of `sql` made a `T` by `read`, or `None` without one.
    pub(super) fn row<T>(
        self,
        sql: &'static str,
        args: &[&dyn Arg],
        read: impl FnOnce(&Row<'_, '_>) -> Result<T, DbError>,
    ) -> Result<Option<T>, DbError> {
        let mut read = Some(read);
        let mut first = self.rows(sql, args, |row| match read.take() {
            Some(read) => read(row).map(Some),
            None => Ok(None),
        })?;
        Ok(if first.is_empty() { None } else { first.swap_remove(0) })
    }

    /// Run one statement that takes no arguments and returns no rows (a
    /// savepoint's). SQLite keeps it prepared, as every other statement:
    /// each write runs two of them, and parsing them again cost more than
    /// the insert they wrap.
    pub(super) fn batch(self, sql: &'static str) -> Result<(), DbError> {
        match self {
            Db::Sqlite(conn) => Ok(conn.prepare_cached(sql)?.execute([]).map(drop)?),
            Db::Postgres(conn) => Ok(conn.batch(sql)?),
        }
    }

    /// Whether a transaction is still open on this connection. SQLite ends
    /// one by itself on some failures (a full disk); a PostgreSQL
    /// transaction ends with its connection.
    pub(super) fn in_transaction(self) -> bool {
        match self {
            Db::Sqlite(conn) => !conn.is_autocommit(),
            Db::Postgres(conn) => !conn.is_closed(),
        }
    }

    /// Run `sql` for its effect: how many rows it changed.
    pub(super) fn execute(self, sql: &'static str, args: &[&dyn Arg]) -> Result<u64, DbError> {
        match self {
            Db::Sqlite(conn) => {
                let bound: Vec<&dyn rusqlite::ToSql> = args.iter().map(|a| a.sqlite()).collect();
                let changed = conn.prepare_cached(sql)?.execute(&*bound)?;
                Ok(u64::try_from(changed).unwrap_or(u64::MAX))
            }
            Db::Postgres(conn) => {
                let bound: Vec<&(dyn postgres::types::ToSql + Sync)> = args.iter().map(|a| a.postgres()).collect();
                Ok(conn.execute(sql, &bound)?)
            }
        }
    }
}

/// The bytes a row of `args` stores, as a size cap counts them on a
/// backend without pages to cap (PostgreSQL, see `frame.rs`): the UTF-8
/// length of each text or blob, 8 for a number, and [`ROW_BYTES`] for the
/// row itself, so a flood of tiny rows fills a store too.
pub(super) fn stored_bytes(args: &[&dyn Arg]) -> u64 {
    use rusqlite::types::{ToSqlOutput, Value, ValueRef};
    let of = |value: ValueRef<'_>| match value {
        ValueRef::Null => 0,
        ValueRef::Integer(_) | ValueRef::Real(_) => 8,
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.len() as u64,
    };
    let values = args.iter().map(|arg| match arg.sqlite().to_sql() {
        Ok(ToSqlOutput::Borrowed(value)) => of(value),
        Ok(ToSqlOutput::Owned(value)) => match &value {
            Value::Text(text) => text.len() as u64,
            Value::Blob(bytes) => bytes.len() as u64,
            Value::Null => 0,
            Value::Integer(_) | Value::Real(_) => 8,
        },
        // A value that cannot be bound fails its statement; it stores nothing.
        Ok(_) | Err(_) => 0,
    });
    values.fold(ROW_BYTES, u64::saturating_add)
}

/// What a row costs beyond its values, as [`stored_bytes`] counts.
pub(super) const ROW_BYTES: u64 = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_statement_reads_and_writes_through_the_sqlite_arm() {
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        conn.execute_batch("CREATE TABLE t (name TEXT, n INTEGER, x REAL, maybe TEXT)").expect("table");
        let db = Db::Sqlite(&conn);
        const INSERT: &str = "INSERT INTO t (name, n, x, maybe) VALUES (?1, ?2, ?3, ?4)";
        const ALL: &str = "SELECT name, n, x, maybe FROM t ORDER BY n";
        assert_eq!(db.execute(INSERT, args!["b", 2_i64, 0.5_f64, None::<String>]).expect("insert"), 1);
        assert_eq!(db.execute(INSERT, args!["a", 1_i64, 1.5_f64, Some("y")]).expect("insert"), 1);
        type Read = (String, i64, f64, Option<String>);
        let rows: Vec<Read> =
            db.rows(ALL, args![], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).expect("rows");
        assert_eq!(rows, [("a".into(), 1, 1.5, Some("y".into())), ("b".into(), 2, 0.5, None)]);
        let first = db.row(ALL, args![], |r| r.get::<String>(0)).expect("row");
        assert_eq!(first.as_deref(), Some("a"));
        const NONE: &str = "SELECT name FROM t WHERE n > ?1";
        assert_eq!(db.row(NONE, args![9_i64], |r| r.get::<String>(0)).expect("no row"), None);
    }

    #[test]
    fn a_row_stores_the_bytes_of_its_text_and_numbers() {
        assert_eq!(stored_bytes(args![]), ROW_BYTES);
        assert_eq!(stored_bytes(args!["é", 7_i64, None::<String>, Some("abc")]), ROW_BYTES + 2 + 8 + 3);
        assert_eq!(stored_bytes(args![String::from("x").repeat(1000), 0.5_f64]), ROW_BYTES + 1000 + 8);
    }
}
