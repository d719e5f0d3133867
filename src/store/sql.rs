//! Every statement the store runs, each written once, grouped by what it
//! serves.
//!
//! 1. **One text per statement.** The rest of the store names these
//!    constants; a test (`sql/tests.rs`) fails on a string literal that starts a
//!    statement anywhere else under `src/store/` (see its doc for the rule
//!    and what it exempts). A second backend then has one list to read, and
//!    a statement changed here is changed for every caller.
//! 2. **SQLite's `?N` placeholders**, numbered, so a value bound once can be
//!    used twice (`TALLY_ADD`, `UPSERT_PRESENCE`).
//! 3. **What stays elsewhere, and why.** The schema's history
//!    (`CREATE TABLE`, triggers, the FTS5 index) is in `schema.rs`, as
//!    frozen migration steps. `PRAGMA`s are SQLite's per-connection settings
//!    and checks, not statements over the store's tables: they stay where
//!    they are set (`connection.rs`, `schema.rs`, `check.rs`, `upkeep.rs`,
//!    `create.rs`), mostly through rusqlite's `pragma_update`.
//! 4. **Values that decide a plan are written into the text.** A bound
//!    `LIMIT ?` looks harmless, but the bundled SQLite is built with STAT4,
//!    and a statement whose plan a bound value could change (a LIMIT's can,
//!    and so can a value compared with an indexed column) is prepared again
//!    on every run. `prepare_cached` then keeps a statement that costs a
//!    fresh prepare each time, which was most of a freshly composed cockpit.
//!    With the limits ([`listed!`], [`tray_listed!`]) and the tray's filters
//!    in the text, each listing is prepared once per connection and only
//!    reset after that; tests count SQLite's re-prepares to hold it so.

// ---------------------------------------------------------------------------
// Limits written into the text
// ---------------------------------------------------------------------------

/// The most items a reading lists, as SQL text: the largest collection law
/// M008 admits, so every collection the policy can declare is filled.
macro_rules! listed {
    () => {
        "20"
    };
}
pub(super) use listed;

/// How many waiting missions and candidate blocks the tray lists, as SQL text.
macro_rules! tray_listed {
    () => {
        "50"
    };
}
pub(super) use tray_listed;

/// The tokenizer of the alerts' word index, as FTS5 names it: written once,
/// for step 4 and for the PostgreSQL backend, which counts an alert's words
/// with SQLite's own tokenizer so that both find the same words
/// (`pg/terms.rs`). It lives with the statements, which name it, and `schema`
/// takes it from here.
macro_rules! alert_tokenizer {
    () => {
        "unicode61 tokenchars '_' remove_diacritics 0"
    };
}
pub(super) use alert_tokenizer;

/// A decimal literal's value, at compile time: turns [`listed!`] and
/// [`tray_listed!`] into the numbers the Rust side compares with.
pub(super) const fn decimal(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut value = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "a limit is written in decimal digits");
        value = value * 10 + (bytes[i] - b'0') as usize;
        i += 1;
    }
    value
}

// ---------------------------------------------------------------------------
// The `store` row: version, checkpoints, size cap
// ---------------------------------------------------------------------------

/// The store's version: read by every snapshot, the tray and every write
/// frame (inside its transaction, before the version check).
pub(super) const STORE_VERSION: &str = "SELECT store_version FROM store WHERE one = 1";

/// How many checkpoints `persist` has recorded, for the counts.
pub(super) const CHECKPOINTS: &str = "SELECT checkpoints FROM store WHERE one = 1";

/// The size cap the store declares, read when it is opened.
pub(super) const MAX_BYTES: &str = "SELECT max_bytes FROM store WHERE one = 1";

/// The one `store` row of a new store: version, checkpoints and size cap.
pub(super) const INSERT_STORE: &str =
    "INSERT INTO store (one, store_version, checkpoints, max_bytes) VALUES (1, ?1, ?2, ?3)";

/// PostgreSQL's [`INSERT_STORE`], which also draws the store's
/// incarnation: 32 random hex digits that tell this store from another
/// later made in its place.
pub(super) const PG_INSERT_STORE: &str = "INSERT INTO store (one, store_version, checkpoints, max_bytes, incarnation) \
     VALUES (1, ?1, ?2, ?3, replace(gen_random_uuid()::text, '-', ''))";

/// PostgreSQL: what an open store reads of itself: its size cap and incarnation.
pub(super) const PG_STORE_IDENT: &str = "SELECT max_bytes, incarnation FROM store WHERE one = 1";

/// Move the version (`?1`): once per change that lands.
pub(super) const SET_STORE_VERSION: &str = "UPDATE store SET store_version = ?1 WHERE one = 1";

/// `persist save` / `persist checkpoint`: one more checkpoint.
pub(super) const ADD_CHECKPOINT: &str = "UPDATE store SET checkpoints = checkpoints + 1 WHERE one = 1";

/// `m1nd store set-max-bytes`: the new cap (`?1`).
pub(super) const SET_MAX_BYTES: &str = "UPDATE store SET max_bytes = ?1 WHERE one = 1";

// ---------------------------------------------------------------------------
// Tallies: the counts kept beside the rows they count (tally.rs)
// ---------------------------------------------------------------------------

/// The one lookup of a count (`?1` its name).
pub(super) const TALLY: &str = "SELECT n FROM tallies WHERE name = ?1";

/// Every count at once, by name: the table holds a few dozen rows, so one
/// scan costs less than a handful of lookups. Ordered by name, as
/// `Tallies::get` binary-searches it.
pub(super) const TALLIES: &str = "SELECT name, n FROM tallies ORDER BY name";

/// Add `?2` to the count `?1`, which is created when first counted. The
/// column is written `tallies.n`: PostgreSQL refuses a bare `n` there as
/// ambiguous (it could be the proposed row's), and SQLite reads both alike.
pub(super) const TALLY_ADD: &str =
    "INSERT INTO tallies (name, n) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET n = tallies.n + ?2";

/// Take one from the count `?1`, in place: the table's CHECK refuses a
/// negative insert, so [`TALLY_ADD`] cannot lower a count.
pub(super) const TALLY_DROP: &str = "UPDATE tallies SET n = n - 1 WHERE name = ?1";

// ---------------------------------------------------------------------------
// The cockpit's listings: the first `listed!()` rows of an index (reads.rs)
// ---------------------------------------------------------------------------

/// `blocks`: most urgent first (stale, candidate, fresh).
pub(super) const LIST_BLOCKS: &str =
    concat!("SELECT id, title, status, receipt, hash, node FROM blocks ORDER BY urgency, seq LIMIT ", listed!());

/// `orient`: the mission board, missions waiting for the human first.
pub(super) const LIST_MISSIONS: &str = concat!(
    "SELECT id, title, phase, agent FROM missions WHERE board IS NOT NULL ORDER BY board, seq LIMIT ",
    listed!()
);

/// `doctor`: the most severe alerts first.
pub(super) const LIST_ALERTS: &str =
    concat!("SELECT id, level, text, node FROM alerts ORDER BY severity, seq LIMIT ", listed!());

/// `trust`: the least trusted modules first.
pub(super) const LIST_MODULES: &str =
    concat!("SELECT id, score, defects FROM modules ORDER BY score_value, seq LIMIT ", listed!());

/// `boot_memory`: the newest memories first.
pub(super) const LIST_MEMORIES: &str =
    concat!("SELECT id, claim, source, at FROM memories ORDER BY seq DESC LIMIT ", listed!());

/// `drift`: in the order it was recorded.
pub(super) const LIST_DRIFT: &str = concat!("SELECT id, evidence, cause FROM drift ORDER BY seq LIMIT ", listed!());

/// `presences`: the agents seen most recently first.
pub(super) const LIST_PRESENCES: &str =
    concat!("SELECT id, doing, since FROM presences ORDER BY last_seen DESC, seq LIMIT ", listed!());

/// Every listing, for the tests that count prepares and runs.
#[cfg(test)]
pub(super) const LISTINGS: [&str; 7] =
    [LIST_BLOCKS, LIST_MISSIONS, LIST_ALERTS, LIST_MODULES, LIST_MEMORIES, LIST_DRIFT, LIST_PRESENCES];

// ---------------------------------------------------------------------------
// The reads that take an argument: `impact`, `why`, `trace` (reads/search.rs)
// ---------------------------------------------------------------------------

/// `impact`: every block and the node it is about, in insertion order.
pub(super) const BLOCK_NODES: &str = "SELECT id, node FROM blocks ORDER BY seq";

/// `impact`: every module's id (twice, as the pairs the search walks).
pub(super) const MODULE_IDS: &str = "SELECT id, id FROM modules ORDER BY seq";

/// `impact`: every drifted node and its cause.
pub(super) const DRIFT_CAUSES: &str = "SELECT id, cause FROM drift ORDER BY seq";

/// `why`: the first drift between `?1` and `?2`, either way round.
pub(super) const DRIFT_LINK: &str = "SELECT id, evidence FROM drift \
     WHERE (id = ?1 AND cause = ?2) OR (id = ?2 AND cause = ?1) ORDER BY seq LIMIT 1";

/// `trace`: how many alerts hold the word `?1` (FTS5's vocabulary table).
pub(super) const WORD_ALERTS: &str = "SELECT doc FROM alert_vocab WHERE term = ?1";

/// `trace`: how many alerts match the FTS5 query `?1`.
pub(super) const MATCH_COUNT: &str = "SELECT count(*) FROM alert_words WHERE alert_words MATCH ?1";

/// `trace`: the best-matching alerts for the FTS5 query `?1` (FTS5's bm25
/// rank, then the oldest first).
pub(super) const TRACE: &str = concat!(
    "SELECT a.id, a.node FROM alert_words JOIN alerts a ON a.seq = alert_words.rowid ",
    "WHERE alert_words MATCH ?1 ORDER BY alert_words.rank, a.seq LIMIT ",
    listed!()
);

// ---------------------------------------------------------------------------
// Agents' writes: memories and presences (writes.rs, batch.rs)
// ---------------------------------------------------------------------------

/// `memorize`: one memory, with the agent that wrote it (or NULL).
pub(super) const INSERT_MEMORY: &str =
    "INSERT INTO memories (id, claim, source, at, agent_id) VALUES (?1, ?2, ?3, ?4, ?5)";

/// Whether a memory id is taken (a new id is made from the version; an
/// imported one may have it already).
pub(super) const MEMORY_ID_TAKEN: &str = "SELECT 1 FROM memories WHERE id = ?1";

/// Whether the agent `?1` was seen before (its first sighting is counted).
pub(super) const PRESENCE_KNOWN: &str = "SELECT 1 FROM presences WHERE id = ?1";

/// The agent `?1` did `?2` at `?3`: first seen (`since`) stays, what it did
/// and when it was last seen move.
pub(super) const UPSERT_PRESENCE: &str = "INSERT INTO presences (id, doing, since, last_seen) VALUES (?1, ?2, ?3, ?3) \
     ON CONFLICT (id) DO UPDATE SET doing = excluded.doing, last_seen = excluded.last_seen";

// ---------------------------------------------------------------------------
// The tray: what waits for the human, and the human's acts (tray.rs)
// ---------------------------------------------------------------------------

/// Missions waiting for a stamp: board 0 is `merge_wait` (`load::board`).
pub(super) const WAITING_MISSIONS: &str =
    concat!("SELECT id, title, agent FROM missions WHERE board = 0 ORDER BY board, seq LIMIT ", tray_listed!());

/// Candidate blocks waiting for ratification: urgency 1 is `candidate`
/// (`load::urgency`); the status is written out too, and a test ties it to
/// `BlockStatus::Candidate`.
pub(super) const CANDIDATE_BLOCKS: &str = concat!(
    "SELECT id, title, receipt, hash, node FROM blocks WHERE urgency = 1 AND status = 'candidate' ",
    "ORDER BY urgency, seq LIMIT ",
    tray_listed!()
);

/// An earlier act `?1` on the target `?2`: the receipt it landed on, its
/// version and time.
pub(super) const EARLIER_ACT: &str =
    "SELECT receipt_hash, store_version, at FROM human_acts WHERE act = ?1 AND target = ?2";

/// A mission's record as the stamp judges it (`?1` its id).
pub(super) const MISSION_RECORD: &str = "SELECT title, phase, agent FROM missions WHERE id = ?1";

/// A block's record as the ratification judges it (`?1` its id).
pub(super) const BLOCK_RECORD: &str = "SELECT title, receipt, hash, node, status FROM blocks WHERE id = ?1";

/// A stamp: mission `?1` moves from phase `?3` to `?2` and leaves the board.
pub(super) const STAMP_MISSION: &str = "UPDATE missions SET phase = ?2, board = NULL WHERE id = ?1 AND phase = ?3";

/// A ratification: block `?1` moves from status `?3` to `?2` (urgency 2, fresh).
pub(super) const RATIFY_BLOCK: &str = "UPDATE blocks SET status = ?2, urgency = 2 WHERE id = ?1 AND status = ?3";

/// The act kept: act, target, receipt hash, the version the human saw, the
/// version it landed at, and when.
pub(super) const INSERT_ACT: &str = "INSERT INTO human_acts (act, target, receipt_hash, seen_version, store_version, at) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

// ---------------------------------------------------------------------------
// The loader: a `State` into a new store's tables (load.rs)
// ---------------------------------------------------------------------------

/// A mission, with its place on the board (`load::board`).
pub(super) const LOAD_MISSION: &str =
    "INSERT INTO missions (id, title, phase, agent, board) VALUES (?1, ?2, ?3, ?4, ?5)";

/// A block, with its urgency (`load::urgency`).
pub(super) const LOAD_BLOCK: &str =
    "INSERT INTO blocks (id, title, status, receipt, hash, node, urgency) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// A memory as exported (no agent id: `state.json` does not carry one).
pub(super) const LOAD_MEMORY: &str = "INSERT INTO memories (id, claim, source, at) VALUES (?1, ?2, ?3, ?4)";

/// An alert, with its severity rank (`load::severity`).
pub(super) const LOAD_ALERT: &str = "INSERT INTO alerts (id, level, text, node, severity) VALUES (?1, ?2, ?3, ?4, ?5)";

/// A module, with its score as a number to order by.
pub(super) const LOAD_MODULE: &str = "INSERT INTO modules (id, score, defects, score_value) VALUES (?1, ?2, ?3, ?4)";

/// A drift record.
pub(super) const LOAD_DRIFT: &str = "INSERT INTO drift (id, evidence, cause) VALUES (?1, ?2, ?3)";

/// A presence, last seen when it was first seen.
pub(super) const LOAD_PRESENCE: &str = "INSERT INTO presences (id, doing, since, last_seen) VALUES (?1, ?2, ?3, ?3)";

// ---------------------------------------------------------------------------
// SQLite's own file: checking and rewriting it (check.rs, checksum.rs, upkeep.rs)
// ---------------------------------------------------------------------------

/// `store check`: a read transaction, begun by hand on a read-only
/// connection whose first read ([`SCHEMA_OBJECTS`]) takes the shared lock.
pub(super) const BEGIN: &str = "BEGIN";

/// `store check`: the end of its read transaction.
pub(super) const COMMIT: &str = "COMMIT";

/// `store check`: the read transaction given up when page 1 is damaged.
pub(super) const ROLLBACK: &str = "ROLLBACK";

/// `store check`: reads the schema, which takes SQLite's shared lock.
pub(super) const SCHEMA_OBJECTS: &str = "SELECT count(*) FROM sqlite_schema";

/// `store check`: which table or index owns each page (SQLite's `dbstat`).
pub(super) const PAGE_OWNERS: &str = "SELECT pageno, name FROM dbstat";

/// Whether a whole page (bound as `?1`, as on disk) matches its checksum:
/// 1, 0, or NULL for a blob that is not a page. Asked of the checksum
/// shim's own `verify_checksum()`, so there is one implementation of the
/// checksum.
pub(super) const VERIFY_PAGE: &str = "SELECT verify_checksum(?1)";

/// `store add-checksums`: rewrite every page with the new reserve.
pub(super) const VACUUM: &str = "VACUUM";

/// `store backup`: one commit that writes page 1 (and so the checksum
/// layout) before the copy writes any other page, leaving no table behind.
pub(super) const WRITE_PAGE_ONE: &str = "CREATE TABLE m1nd_backup (x); DROP TABLE m1nd_backup;";

// ---------------------------------------------------------------------------
// PostgreSQL's search (docs/design/postgres-replicas.md §3): the word index
// the loader fills from SQLite's own tokenizer, and the two reads over it.
// ---------------------------------------------------------------------------

/// A scratch word index in a connection of its own (in memory), with the
/// alerts' own tokenizer: the PostgreSQL backend counts an alert's words
/// with SQLite's tokenizer itself, so both backends find the same words.
pub(super) const SCRATCH_WORD_INDEX: &str = concat!(
    "CREATE VIRTUAL TABLE scratch_words USING fts5(text, tokenize = \"",
    alert_tokenizer!(),
    "\"); CREATE VIRTUAL TABLE scratch_instances USING fts5vocab(scratch_words, instance);"
);

/// One alert's text into the scratch index, under its `seq`.
pub(super) const SCRATCH_WORD: &str = "INSERT INTO scratch_words (rowid, text) VALUES (?1, ?2)";

/// How often each word occurs in each alert of the scratch index.
pub(super) const SCRATCH_TERMS: &str =
    "SELECT doc, term, count(*) FROM scratch_instances GROUP BY doc, term ORDER BY doc, term";

/// Every alert's text, by `seq`: what PostgreSQL's word index is counted from.
pub(super) const ALERT_TEXTS: &str = "SELECT seq, text FROM alerts ORDER BY seq";

/// PostgreSQL: the word index emptied, before it is counted afresh.
pub(super) const PG_CLEAR_TERMS: &str = "DELETE FROM alert_terms";

/// PostgreSQL: the vocabulary emptied, before it is counted afresh.
pub(super) const PG_CLEAR_VOCAB: &str = "DELETE FROM alert_vocab";

/// PostgreSQL: an alert's token count (bm25's document length).
pub(super) const PG_ALERT_WORDS: &str = "UPDATE alerts SET words = ?2 WHERE seq = ?1";

/// PostgreSQL: how often the word `?1` occurs in the alert `?2`.
pub(super) const PG_ALERT_TERM: &str = "INSERT INTO alert_terms (term, seq, tf) VALUES (?1, ?2, ?3)";

/// PostgreSQL: how many alerts hold each word, as FTS5's `alert_vocab`
/// answers it. The loader, the only writer of alerts, fills a new store's
/// terms and then this, once.
pub(super) const PG_BUILD_VOCAB: &str =
    "INSERT INTO alert_vocab (term, doc) SELECT term, count(*) FROM alert_terms GROUP BY term";

/// PostgreSQL's [`MATCH_COUNT`]: the alerts holding any of the words `?1`.
pub(super) const PG_MATCH_COUNT: &str = "SELECT count(DISTINCT seq) FROM alert_terms WHERE term = ANY(?1)";

/// PostgreSQL's [`TRACE`], ranked by FTS5's own bm25 (k1 = 1.2, b = 0.75;
/// a word's idf is ln((N - n + 0.5) / (n + 0.5)) over N alerts, n of them
/// holding it, and 1e-6 where that is not above zero; a document's length
/// is its token count, against the mean), best first, then the oldest.
/// The third column is the score, for the tests that compare it.
pub(super) const PG_TRACE: &str = concat!(
    "WITH corpus AS (SELECT count(*)::float8 AS n, coalesce(sum(words), 0)::float8 / greatest(count(*), 1) AS avgdl ",
    "FROM alerts), ",
    "weights AS (SELECT v.term, CASE WHEN x.idf <= 0 THEN 1e-6::float8 ELSE x.idf END AS idf ",
    "FROM alert_vocab v CROSS JOIN corpus c ",
    "CROSS JOIN LATERAL (SELECT ln((c.n - v.doc + 0.5::float8) / (v.doc + 0.5::float8)) AS idf) x ",
    "WHERE v.term = ANY(?1)) ",
    "SELECT a.id, a.node, sum(w.idf * ((t.tf * 2.2::float8) / (t.tf + 1.2::float8 * ",
    "(1::float8 - 0.75::float8 + 0.75::float8 * a.words / c.avgdl)))) AS score ",
    "FROM weights w JOIN alert_terms t ON t.term = w.term JOIN alerts a ON a.seq = t.seq CROSS JOIN corpus c ",
    "GROUP BY a.seq, a.id, a.node ORDER BY score DESC, a.seq LIMIT ",
    listed!()
);

// ---------------------------------------------------------------------------
// PostgreSQL: the session, the schema's version, and read transactions
// (pg/conn.rs, pg/open.rs)
// ---------------------------------------------------------------------------

/// Whether the server syncs what it commits (the store refuses one that
/// does not), the schema the session's tables go in (NULL when no schema
/// on the `search_path` exists), and that `search_path`, for the refusal.
pub(super) const PG_SESSION_FACTS: &str =
    "SELECT current_setting('fsync'), current_schema()::text, current_setting('search_path')";

/// Whether the connection's current schema holds a store: its version table.
pub(super) const PG_STORE_EXISTS: &str =
    "SELECT coalesce(to_regclass(quote_ident(current_schema()) || '.m1nd_schema') IS NOT NULL, false)";

/// The schema version and the build that wrote it.
pub(super) const PG_SCHEMA_VERSION: &str = "SELECT version, written_by FROM m1nd_schema WHERE one = 1";

/// Record the schema version `?1` and the build `?2` that wrote it.
pub(super) const PG_SET_SCHEMA_VERSION: &str = "INSERT INTO m1nd_schema (one, version, written_by) \
     VALUES (1, ?1, ?2) ON CONFLICT (one) DO UPDATE SET version = excluded.version, written_by = excluded.written_by";

/// Taken by `init` and a migration, until their transaction ends: one at a
/// time per schema, across every replica.
pub(super) const PG_LOCK_SCHEMA: &str = "SELECT pg_advisory_xact_lock(hashtext('m1nd:' || current_schema()))";

/// A read: one snapshot of the database for all its statements, writing nothing.
pub(super) const PG_BEGIN_READ: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/// A reader's deadline, for the statements of its read transaction: the
/// milliseconds left follow (`pg/conn.rs`). A setting, not a statement with
/// a placeholder: `SET` takes none.
pub(super) const PG_LOCAL_STATEMENT_TIMEOUT: &str = "SET LOCAL statement_timeout = ";

// ---------------------------------------------------------------------------
// Write transactions on either backend (frame.rs, pg/write.rs)
// ---------------------------------------------------------------------------

/// A change of a group begins: it can be undone alone.
pub(super) const SAVEPOINT: &str = "SAVEPOINT change";

/// A change of a group is kept.
pub(super) const RELEASE_SAVEPOINT: &str = "RELEASE SAVEPOINT change";

/// A change of a group is undone (its savepoint is released after).
pub(super) const ROLLBACK_TO_SAVEPOINT: &str = "ROLLBACK TO SAVEPOINT change";

/// PostgreSQL: a write begins. `READ COMMITTED` whatever the server's
/// default: each statement after the store row's lock sees every commit
/// made before it was granted (a stricter level would fail a write on a
/// row another replica changed meanwhile, rather than wait for it).
pub(super) const PG_BEGIN_WRITE: &str = "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE";

/// PostgreSQL: the first statement of every write. It locks the store row,
/// so writers of every replica take turns, and reads what the frame
/// checks and keeps: the store's incarnation (a store made anew in its
/// place is not written through an old connection), the schema version (a
/// newer build may have migrated it), the transaction's id (to learn a
/// commit's outcome if the connection is lost during it) and the
/// database's clock.
pub(super) const PG_WRITE_FRAME: &str = "SELECT incarnation, (SELECT version FROM m1nd_schema WHERE one = 1), \
     txid_current(), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), max_bytes \
     FROM store WHERE one = 1 FOR UPDATE";

/// PostgreSQL: the database's clock now, in milliseconds since the epoch,
/// to compare with this machine's.
pub(super) const PG_CLOCK_MILLIS: &str = "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// PostgreSQL: the channel every write notifies (`pg/listen.rs`).
macro_rules! pg_channel {
    () => {
        "m1nd"
    };
}
/// For the test that prepares every statement, which reads this file's text.
#[cfg(test)]
pub(super) use pg_channel;

/// PostgreSQL: the last statement of every write tells the listeners of
/// every replica, once it commits, which store moved and to which version.
pub(super) const PG_NOTIFY: &str =
    concat!("SELECT pg_notify('", pg_channel!(), "', incarnation || ':' || store_version) FROM store WHERE one = 1");

/// PostgreSQL: a connection that hears every write's notification.
pub(super) const PG_LISTEN: &str = concat!("LISTEN ", pg_channel!());

/// PostgreSQL: whether transaction `?1` committed (`committed`, `aborted`,
/// `in progress`, or NULL once too old to know), asked on a new connection
/// after the one that sent its COMMIT was lost.
pub(super) const PG_XACT_STATUS: &str = "SELECT txid_status(?1)";

/// PostgreSQL: claim `?1` more bytes for a change, within the cap; no row
/// changes when the claim would pass it.
pub(super) const PG_CLAIM_BYTES: &str =
    "UPDATE store SET used_bytes = used_bytes + ?1 WHERE one = 1 AND used_bytes + ?1 <= max_bytes";

/// PostgreSQL: the bytes a store holds and its cap, for a refusal.
pub(super) const PG_USED_BYTES: &str = "SELECT used_bytes, max_bytes FROM store WHERE one = 1";

/// PostgreSQL: the bytes a new store holds once loaded (`?1`).
pub(super) const PG_SET_USED_BYTES: &str = "UPDATE store SET used_bytes = ?1 WHERE one = 1";

#[cfg(test)]
mod tests;
