//! The read verbs this store serves, over one read transaction. They are
//! named in [`super::verbs::VERBS`]; here is only what each one computes.
//!
//! A [`Snapshot`] holds a read transaction (SQLite's shared lock), so every
//! reading taken from it sees the same state, and it writes nothing. Item
//! field names match the facet registry (`m1nd_policy::facets`), so the
//! composer can render them without a mapping. Values are untrusted text;
//! the composer sanitises and caps them.
//!
//! Every reading costs the same whatever the store holds: numbers are
//! `tally` lookups, and items are the first [`LISTED`] rows
//! of an index. The reads whose answer depends on an argument (`impact`,
//! `why`, `trace`) search the small tables (blocks, modules, drift, alerts),
//! never the memories. Readings that depend on the state alone are computed
//! once per snapshot, on first use, and lent (`Cow::Borrowed`) after that.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::path::Path;

use m1nd_policy::ReadVerb;
use m1nd_policy::runtime::{Item, ReadError, Reader, Reading};

use super::db::{Db, DbError, args};
use super::error::StoreError;
use super::file::FileId;
use super::pg_wire::conn::PgRead;
use super::state::{BlockStatus, Counts, Phase};
use super::verbs::{self, Read};
use super::{Conn, Store, sql, tally};

mod search;

/// The most items a reading lists: the limit written into every listing's
/// SQL (`sql::listed!`), read from the same text.
pub const LISTED: usize = sql::decimal(sql::listed!());

/// What identifies the state a snapshot sees: the file and its version.
/// Every write by the store bumps the version in the same transaction, so
/// equal stamps mean equal states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub file: FileId,
    pub store_version: u64,
}

/// One consistent view of the store, for reading.
pub struct Snapshot<'s> {
    store: &'s Store,
    tx: ReadTx<'s>,
    version: u64,
    memo: [OnceCell<Reading>; Read::COUNT],
    /// Every count, read when a second one is asked for.
    tallies: OnceCell<tally::Tallies>,
    /// Whether a count was looked up alone already.
    counted: Cell<bool>,
}

/// A read transaction of either backend: SQLite's shared lock, or one
/// PostgreSQL snapshot (`REPEATABLE READ`, read-only).
enum ReadTx<'s> {
    Sqlite(rusqlite::Transaction<'s>),
    Postgres(PgRead<'s>),
}

impl ReadTx<'_> {
    fn db(&self) -> Db<'_> {
        match self {
            ReadTx::Sqlite(tx) => Db::Sqlite(tx),
            ReadTx::Postgres(read) => Db::Postgres(read.conn()),
        }
    }
}

/// `store_version` as `db` sees it (inside its transaction, if one is
/// open): what every snapshot, write frame and listener reads first.
pub(super) fn store_version(db: Db<'_>, path: &Path) -> Result<u64, StoreError> {
    let version = db.row(sql::STORE_VERSION, args![], |r| r.get::<i64>(0));
    let version =
        version.map_err(|e| StoreError::db(path, "read", &e))?.ok_or_else(|| StoreError::no_store_row(path))?;
    u64::try_from(version).map_err(|_| StoreError::corrupt(path, "store_version < 0"))
}

impl Store {
    /// Begin a read transaction. Nothing is written, now or when it ends.
    pub fn snapshot(&self) -> Result<Snapshot<'_>, StoreError> {
        let fail = |e: DbError| StoreError::db(&self.path, "read", &e);
        // Counted as waiting until its first read holds the read lock, so a
        // write of this process lets it in first (turnstile.rs).
        let arriving = super::turnstile::Arriving::new();
        let tx = match &self.conn {
            Conn::Sqlite(conn) => ReadTx::Sqlite(conn.unchecked_transaction().map_err(|e| fail(e.into()))?),
            Conn::Postgres(conn) if conn.should_stop() => return Err(StoreError::Stopped),
            Conn::Postgres(conn) => ReadTx::Postgres(conn.read().map_err(|e| fail(e.into()))?),
        };
        let version = store_version(tx.db(), &self.path)?;
        drop(arriving);
        Ok(Snapshot {
            store: self,
            tx,
            version,
            memo: Default::default(),
            tallies: OnceCell::new(),
            counted: Cell::new(false),
        })
    }
}

impl Snapshot<'_> {
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn stamp(&self) -> Stamp {
        Stamp { file: self.store.file, store_version: self.version }
    }

    /// How much of each kind the store holds.
    pub fn counts(&self) -> Result<Counts, StoreError> {
        let checkpoints: i64 = self
            .db()
            .row(sql::CHECKPOINTS, args![], |r| r.get(0))
            .map_err(|e| self.error(e))?
            .ok_or_else(|| self.store.no_store_row())?;
        let tallies = self.tallies().map_err(|e| self.error(e))?;
        Ok(Counts::from_tallies(tallies, u64::try_from(checkpoints).unwrap_or(0)))
    }

    /// Run `read` with `arguments` (the first value given for a name wins).
    /// Only `boot_memory`'s `action` matters to a state-only read.
    pub fn read(&self, read: Read, arguments: &[(&str, &str)]) -> Result<Cow<'_, Reading>, StoreError> {
        let arg = |name: &str| argument(arguments, name);
        let verb = read.name();
        if read.plain() {
            admits(read, arguments)?;
            let cell = &self.memo[read as usize];
            if let Some(reading) = cell.get() {
                return Ok(Cow::Borrowed(reading));
            }
            let reading = self.plain(read).map_err(|e| self.error(e))?;
            return Ok(Cow::Borrowed(cell.get_or_init(|| reading)));
        }
        let reading = match read {
            Read::Impact => self.impact(required(arg("node_id"), verb, "node_id")?),
            Read::Why => self.why(required(arg("source"), verb, "source")?, required(arg("target"), verb, "target")?),
            _ => self.trace(required(arg("error_text"), verb, "error_text")?),
        };
        reading.map(Cow::Owned).map_err(|e| self.error(e))
    }

    fn error(&self, e: DbError) -> StoreError {
        StoreError::db(&self.store.path, "read", &e)
    }

    /// The read transaction's connection.
    pub(super) fn db(&self) -> Db<'_> {
        self.tx.db()
    }

    /// A count. The first is looked up alone (a plain read like `north`
    /// wants one); from the second on, every count is read in one statement,
    /// once per snapshot (the cockpit wants a dozen).
    fn tally(&self, name: &str) -> Result<u64, DbError> {
        if let Some(all) = self.tallies.get() {
            return Ok(all.get(name));
        }
        if !self.counted.replace(true) {
            return tally::get(self.db(), name);
        }
        Ok(self.tallies()?.get(name))
    }

    /// Every count, read in one statement, once per snapshot.
    fn tallies(&self) -> Result<&tally::Tallies, DbError> {
        if let Some(all) = self.tallies.get() {
            return Ok(all);
        }
        let all = tally::Tallies::read(self.db())?;
        Ok(self.tallies.get_or_init(|| all))
    }

    /// The rows of `sql` (its columns are `fields`, in order) as items.
    fn items(&self, sql: &'static str, fields: &[&str]) -> Result<Vec<Item>, DbError> {
        self.db().rows(sql, args![], |row| {
            let values: Vec<String> = (0..fields.len()).map(|i| row.get(i)).collect::<Result<_, _>>()?;
            Ok(Item::new(fields.iter().copied().zip(values)))
        })
    }

    /// A state-only reading: its numbers and its listing.
    fn plain(&self, read: Read) -> Result<Reading, DbError> {
        let mut reading = self.numbers(read)?;
        if let Some((sql, fields)) = listing(read) {
            reading.items = self.items(sql, fields)?;
        }
        Ok(reading)
    }

    /// A state-only reading's numbers alone: tally lookups, no rows.
    fn numbers(&self, read: Read) -> Result<Reading, DbError> {
        let reading = Reading::default();
        Ok(match read {
            Read::North => reading.with("count", self.tally(&tally::phase(Phase::MergeWait))?),
            Read::Blocks => {
                let status = |s: BlockStatus| self.tally(&tally::status(s));
                let (fresh, stale) = (status(BlockStatus::Fresh)?, status(BlockStatus::Stale)?);
                reading
                    .with("blocks", fresh + stale)
                    .with("stale", stale)
                    .with("candidates", status(BlockStatus::Candidate)?)
            }
            Read::Orient => {
                let mut flight = 0;
                for phase in Phase::ALL.into_iter().filter(|p| p.in_flight()) {
                    flight += self.tally(&tally::phase(phase))?;
                }
                reading.with("flight", flight).with("waiting", self.tally(&tally::phase(Phase::MergeWait))?)
            }
            Read::Doctor => reading.with("alerts", self.tally(tally::ALERTS)?),
            Read::Trust => {
                reading.with("modules", self.tally(tally::MODULES)?).with("low", self.tally(tally::LOW_MODULES)?)
            }
            Read::Memories => reading.with("memories", self.tally(tally::MEMORIES)?),
            Read::Drift => reading.with("nodes", self.tally(tally::DRIFT)?),
            Read::Presences => reading.with("agents", self.tally(tally::PRESENCES)?),
            Read::Impact | Read::Why | Read::Trace => reading,
        })
    }
}

/// Whether a state-only read takes these arguments: only `boot_memory`'s
/// `action` matters, and this store only lists.
fn admits(read: Read, arguments: &[(&str, &str)]) -> Result<(), StoreError> {
    if read == Read::Memories && !matches!(argument(arguments, "action"), None | Some("list")) {
        return Err(StoreError::BadArgument(format!(
            "{}: this store only lists memories (action = list)",
            read.name()
        )));
    }
    Ok(())
}

/// A state-only read's listing: its query and the item fields of its columns.
fn listing(read: Read) -> Option<(&'static str, &'static [&'static str])> {
    Some(match read {
        Read::Blocks => (sql::LIST_BLOCKS, &["id", "title", "status", "receipt", "hash", "node"]),
        Read::Orient => (sql::LIST_MISSIONS, &["id", "title", "phase", "agent"]),
        Read::Doctor => (sql::LIST_ALERTS, &["id", "level", "text", "node"]),
        Read::Trust => (sql::LIST_MODULES, &["id", "score", "defects"]),
        Read::Memories => (sql::LIST_MEMORIES, &["id", "claim", "source", "at"]),
        Read::Drift => (sql::LIST_DRIFT, &["id", "evidence", "cause"]),
        Read::Presences => (sql::LIST_PRESENCES, &["id", "doing", "since"]),
        Read::North | Read::Impact | Read::Why | Read::Trace => return None,
    })
}

#[cfg(test)]
impl Snapshot<'_> {
    /// The first column of `sql`'s rows, for tests that look past the readings.
    pub(super) fn column(&self, sql: &str) -> Vec<Option<String>> {
        let ReadTx::Sqlite(tx) = &self.tx else { panic!("a SQLite store's test") };
        let mut statement = tx.prepare(sql).expect("prepare");
        let rows = statement.query_map([], |r| r.get(0)).expect("query");
        rows.collect::<rusqlite::Result<_>>().expect("rows")
    }
}

impl Reader for Snapshot<'_> {
    /// The read is found by the verb's handle in the compiled table. A
    /// handle that names another verb than the read carries (a read from
    /// some other table) is refused rather than run as the wrong read.
    fn read(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        let op = verbs::read_of(read);
        let Some(op) = op else {
            let shown = m1nd_policy::sanitize::display(read.verb(), m1nd_policy::sanitize::cap::NAME);
            return Err(ReadError(format!("not a read this store serves: {shown}")));
        };
        let answered = if bound.is_empty() && read.arguments().is_empty() {
            Snapshot::read(self, op, &[])
        } else {
            // Bound values come from the selected item and win over fixed ones.
            let arguments: Vec<(&str, &str)> =
                bound.iter().copied().chain(read.arguments().iter().map(|a| (&*a.name, &*a.value))).collect();
            Snapshot::read(self, op, &arguments)
        };
        answered.map_err(|e| match e {
            StoreError::BadArgument(why) => ReadError(why),
            e => ReadError(format!("{}: {e}", op.name())),
        })
    }

    /// A state-only read's numbers without its rows: the root shows only
    /// counts. Anything else is the whole read.
    fn count(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        match verbs::read_of(read) {
            Some(op) if op.plain() && bound.is_empty() => {
                let fixed: Vec<(&str, &str)> = read.arguments().iter().map(|a| (&*a.name, &*a.value)).collect();
                admits(op, &fixed).map_err(|e| ReadError(e.to_string()))?;
                if let Some(whole) = self.memo[op as usize].get() {
                    return Ok(Cow::Borrowed(whole));
                }
                self.numbers(op).map(Cow::Owned).map_err(|e| ReadError(format!("{}: {}", op.name(), self.error(e))))
            }
            _ => Reader::read(self, read, bound),
        }
    }

    fn store_version(&self) -> u64 {
        self.version
    }
}

fn argument<'a>(arguments: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    arguments.iter().find(|(n, _)| *n == name).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

fn required<'a>(value: Option<&'a str>, verb: &str, name: &str) -> Result<&'a str, StoreError> {
    value.ok_or_else(|| StoreError::BadArgument(format!("{verb} needs a non-empty `{name}`")))
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests;
