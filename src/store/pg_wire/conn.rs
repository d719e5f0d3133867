//! One connection to the PostgreSQL database that holds a store, set up
//! the way the store relies on, with its statements prepared once.
//!
//! Each store thread keeps its own connection (as it keeps its own SQLite
//! connection), so this is a plain synchronous `postgres::Client` in a
//! `RefCell`: the store's reads take `&self`, and one thread never runs two
//! statements at once. The client runs a small runtime of its own, so it
//! must never be called from inside an async task; the store's threads and
//! the CLI are plain threads.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};

use super::super::error::{StoreError, postgres_message};
use super::super::location::{POSTGRES_KEYS, PostgresUrl};
use super::super::sql;
use super::ssl_keys::{self, SslMode};
use super::{dollar_placeholders, tls};
use m1nd_policy::names::{did_you_mean, suggest};

/// How long connecting may take before the server counts as unreachable,
/// unless the location sets `connect_timeout` itself.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What every session of the store sets, after anything the location's own
/// `options` say:
/// - `synchronous_commit = on`: a COMMIT returns once the server has the
///   write on disk, so acknowledged means durable whatever the server's
///   default;
/// - `lock_timeout`: a write waiting for another replica's past the busy
///   timeout gives up, as SQLite's busy handler does ([`super::super::BUSY_TIMEOUT`]);
/// - `idle_in_transaction_session_timeout`: a replica frozen inside a
///   transaction (stopped, or cut off) does not hold the store's row lock
///   for ever.
const SESSION: &str = "-c synchronous_commit=on -c lock_timeout=5s -c idle_in_transaction_session_timeout=10s";

/// A connection and the statements it has prepared, by their `sql.rs` text.
pub(in crate::store) struct PgConn {
    /// Where it connected, to connect again (a lost commit's outcome is
    /// asked on a new connection: `pg/write.rs`).
    url: PostgresUrl,
    client: RefCell<Client>,
    prepared: RefCell<HashMap<&'static str, Statement>>,
    /// When reads stop (`Store::stop_when`).
    stop: RefCell<Option<Stop>>,
}

/// A reader's budget: a deadline, and whether to stop now.
struct Stop {
    deadline: Instant,
    now: Box<dyn Fn() -> bool + Send>,
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConn").field("prepared", &self.prepared.borrow().len()).finish_non_exhaustive()
    }
}

/// What errors name for the store at `url`: its location, password hidden.
pub(in crate::store) fn shown(url: &PostgresUrl) -> PathBuf {
    PathBuf::from(url.to_string())
}

/// Connect to the database at `url` as the store needs it: the session
/// settings above, and a server that keeps what it acknowledges (`fsync`
/// on). An unreachable server is [`StoreError::Unavailable`], worth a
/// retry; a server that answered and refused (a wrong password, no such
/// database) is [`StoreError::Sql`] with the server's words, which never
/// hold the password.
pub(in crate::store) fn connect(url: &PostgresUrl) -> Result<PgConn, StoreError> {
    let roots = std::env::var_os(tls::ROOT_CERT_ENV).map(PathBuf::from).or_else(tls::home_root_cert);
    connect_trusting(url, roots.as_deref())
}

/// [`connect`], with `roots` the CA file to trust when the location names
/// none (`PGSSLROOTCERT`, else libpq's `~/.postgresql/root.crt`).
pub(in crate::store) fn connect_trusting(url: &PostgresUrl, roots: Option<&Path>) -> Result<PgConn, StoreError> {
    let at = shown(url);
    let unreadable = |message: String| StoreError::Sql { path: at.clone(), op: "read the location", message };
    let keys = ssl_keys::split(url.connection_string()).map_err(&unreadable)?;
    let mut config: Config = keys.rest.parse().map_err(|e: postgres::Error| unreadable(location_error(&e)))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name(concat!("m1nd/", env!("CARGO_PKG_VERSION")));
    }
    config.keepalives_idle(Duration::from_secs(10));
    let options = format!("{} {SESSION}", config.get_options().unwrap_or_default());
    config.options(options.trim_start());
    let plan = tls::plan(&at, &keys, config.get_hosts(), roots)?;
    config.ssl_mode(plan.driver_mode());
    let connected = match plan {
        tls::Plan::Tls { connector, .. } => config.connect(connector),
        tls::Plan::Cleartext => config.connect(NoTls),
    };
    let mut client = connected.map_err(|e| refused_or_unreachable(&at, &e, keys.mode))?;
    let facts = client.query_one(sql::PG_SESSION_FACTS, &[]).map_err(|e| StoreError::Sql {
        path: at.clone(),
        op: "read the settings of",
        message: postgres_message(&e),
    })?;
    let (fsync, schema, search_path): (String, Option<String>, String) = (facts.get(0), facts.get(1), facts.get(2));
    if fsync != "on" {
        return Err(StoreError::Sql {
            path: at,
            op: "use",
            message: format!(
                "the server runs with fsync = {fsync}, so a write it acknowledged might not survive a crash; \
                 the store refuses to run on it (set fsync = on)"
            ),
        });
    }
    if schema.is_none() {
        return Err(StoreError::Sql {
            path: at,
            op: "use",
            message: format!(
                "no schema on the session's search_path ({search_path}) exists in this database, so the store \
                 has nowhere to be: create it (CREATE SCHEMA name), or name an existing one with \
                 options=-c search_path=NAME (in a URL, percent-encoded: options=-c%20search_path%3DNAME)"
            ),
        });
    }
    Ok(PgConn {
        url: url.clone(),
        client: RefCell::new(client),
        prepared: RefCell::new(HashMap::new()),
        stop: RefCell::new(None),
    })
}

/// A failed connect, sorted: a server that cannot serve now (none there, or
/// starting, shutting down, full of connections) is worth a retry; one that
/// answered and said no (a wrong password, no such database) is not.
fn refused_or_unreachable(at: &Path, e: &postgres::Error, mode: Option<SslMode>) -> StoreError {
    match tls::handshake_refusal(e, mode) {
        Some(message) => StoreError::Sql { path: at.to_owned(), op: "connect to", message },
        None => StoreError::postgres(at, "connect to", e),
    }
}

/// The driver's refusal of a location, with the nearest known key when it
/// named one it does not know. The driver's words never hold the password.
fn location_error(e: &postgres::Error) -> String {
    let said = match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    };
    let unknown = said.split_once("unknown option `").and_then(|(_, rest)| rest.split_once('`')).map(|(key, _)| key);
    match unknown {
        Some(key) => format!(
            "the location has the key `{key}`, which PostgreSQL's clients do not know; {}",
            did_you_mean(suggest(key, POSTGRES_KEYS), "", || format!("the keys are {}", POSTGRES_KEYS.join(", ")))
        ),
        None => format!("{said}: give a postgres:// URL or a libpq keyword string"),
    }
}

impl PgConn {
    /// `sql`'s prepared statement, prepared on first use.
    fn statement(&self, client: &mut Client, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.prepared.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(&dollar_placeholders(sql))?;
        self.prepared.borrow_mut().insert(sql, statement.clone());
        Ok(statement)
    }

    /// Every row of `sql`.
    pub(in crate::store) fn query(
        &self,
        sql: &'static str,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let mut client = self.client.borrow_mut();
        let statement = self.statement(&mut client, sql)?;
        client.query(&statement, args)
    }

    /// Run `sql`: how many rows it changed.
    pub(in crate::store) fn execute(
        &self,
        sql: &'static str,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let mut client = self.client.borrow_mut();
        let statement = self.statement(&mut client, sql)?;
        client.execute(&statement, args)
    }

    /// Run statements that take no arguments (transaction control, a
    /// migration step), unprepared.
    pub(in crate::store) fn batch(&self, sql: &str) -> Result<(), postgres::Error> {
        self.client.borrow_mut().batch_execute(sql)
    }

    /// The location this connection was made to.
    pub(in crate::store) fn url(&self) -> &PostgresUrl {
        &self.url
    }

    /// The payloads of the notifications that arrive within `wait` of the
    /// call (once one has, with those already there), at most `most`.
    pub(in crate::store) fn notifications(&self, wait: Duration, most: usize) -> Result<Vec<String>, postgres::Error> {
        use postgres::fallible_iterator::FallibleIterator;
        let mut client = self.client.borrow_mut();
        let mut notifications = client.notifications();
        let mut payloads = Vec::new();
        if let Some(first) = notifications.timeout_iter(wait).next()? {
            payloads.push(first.payload().to_owned());
        }
        let mut pending = notifications.iter();
        while payloads.len() < most {
            match pending.next()? {
                Some(next) => payloads.push(next.payload().to_owned()),
                None => break,
            }
        }
        Ok(payloads)
    }

    /// Whether the server closed the connection (it then serves nothing
    /// more, and the store is opened afresh).
    pub(in crate::store) fn is_closed(&self) -> bool {
        self.client.borrow().is_closed()
    }

    /// Stop reads once `now` says so, or at `deadline`.
    pub(in crate::store) fn stop_when(&self, deadline: Instant, now: impl Fn() -> bool + Send + 'static) {
        *self.stop.borrow_mut() = Some(Stop { deadline, now: Box::new(now) });
    }

    /// Whether the reader's budget says to stop before the next statement
    /// (its deadline has passed, or its caller left).
    pub(in crate::store) fn should_stop(&self) -> bool {
        self.stop.borrow().as_ref().is_some_and(|stop| Instant::now() >= stop.deadline || (stop.now)())
    }

    /// Begin a read: one snapshot of the database (`REPEATABLE READ`),
    /// read-only, ended when the returned guard drops. Under a reader's
    /// budget the server ends any statement of it still running at the
    /// deadline (`statement_timeout`, set for this transaction only).
    pub(in crate::store) fn read(&self) -> Result<PgRead<'_>, postgres::Error> {
        let left = self.stop.borrow().as_ref().map(|stop| stop.deadline.saturating_duration_since(Instant::now()));
        match left {
            None => self.batch(sql::PG_BEGIN_READ)?,
            Some(left) => {
                // At least 1: a timeout of 0 would mean none.
                let millis = left.as_millis().clamp(1, i32::MAX as u128);
                self.batch(&format!("{}; {}{millis}", sql::PG_BEGIN_READ, sql::PG_LOCAL_STATEMENT_TIMEOUT))?;
            }
        }
        Ok(PgRead(self))
    }
}

/// An open read transaction; dropping it ends it, having written nothing.
pub(in crate::store) struct PgRead<'c>(&'c PgConn);

impl PgRead<'_> {
    pub(in crate::store) fn conn(&self) -> &PgConn {
        self.0
    }
}

impl Drop for PgRead<'_> {
    fn drop(&mut self) {
        // A read-only transaction has nothing to keep; if the connection is
        // gone, so is the transaction.
        let _ = self.0.batch(sql::ROLLBACK);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(location: &str) -> String {
        let url: PostgresUrl = match location.parse() {
            Ok(crate::store::Location::Postgres(url)) => url,
            _ => panic!("a database location: {location}"),
        };
        connect_trusting(&url, None).map(drop).expect_err(location).to_string()
    }

    #[test]
    fn a_key_no_client_knows_is_named_with_the_nearest_one() {
        let text = refusal("postgres://m1nd:Canary-pw@db.invalid/m1nd?sslmdoe=verify-full");
        assert!(text.contains("`sslmdoe`") && text.contains("did you mean `sslmode`?"), "{text}");
        let text = refusal("host=db.invalid password=Canary-pw frobnicate=1");
        assert!(text.contains("`frobnicate`") && text.contains("the keys are user, password"), "{text}");
        assert!(!text.contains("Canary-pw"), "{text}");
        let text = refusal("postgres://db.invalid/m1nd?sslmode=verify-fully");
        assert!(text.contains("`sslmode=verify-fully` is not one of disable, prefer"), "{text}");
    }
}
