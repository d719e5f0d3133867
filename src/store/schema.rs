//! The store's tables, as numbered migrations. `PRAGMA user_version` is the
//! number of steps a store has had; a new store gets every step, an older one
//! gets the steps it lacks (once, in one write transaction), and a store from
//! a newer build is refused rather than guessed at.
//!
//! Every table keeps insertion order in `seq` (the rowid) and an `id` that is
//! unique. Orderings the cockpit lists by are plain columns computed by the
//! store's writers (`board`, `urgency`, `severity`, `score_value`), each with
//! an index that ends in `seq`, so a collection is the first rows of an index
//! and costs the same at a thousand rows as at a million. Counts come from
//! `tallies`, kept by the same writers (see [`super::tally`]).

use rusqlite::Connection;

use super::sql::alert_tokenizer;

/// Step 1: the model of the JSON store (`m1nd-store-v1`), table for table.
const STEP_1: &str = "
CREATE TABLE store (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    store_version INTEGER NOT NULL CHECK (store_version >= 1),
    checkpoints INTEGER NOT NULL CHECK (checkpoints >= 0),
    max_bytes INTEGER NOT NULL CHECK (max_bytes > 0)
) STRICT;
CREATE TABLE tallies (name TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0)) STRICT, WITHOUT ROWID;
CREATE TABLE missions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    phase TEXT NOT NULL,
    agent TEXT NOT NULL,
    board INTEGER
) STRICT;
CREATE INDEX missions_board ON missions (board, seq) WHERE board IS NOT NULL;
CREATE TABLE blocks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    receipt TEXT NOT NULL,
    hash TEXT NOT NULL,
    node TEXT NOT NULL,
    urgency INTEGER NOT NULL
) STRICT;
CREATE INDEX blocks_urgency ON blocks (urgency, seq);
CREATE TABLE memories (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    claim TEXT NOT NULL,
    source TEXT NOT NULL,
    at TEXT NOT NULL
) STRICT;
CREATE TABLE alerts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    level TEXT NOT NULL,
    text TEXT NOT NULL,
    node TEXT NOT NULL,
    severity INTEGER NOT NULL
) STRICT;
CREATE INDEX alerts_severity ON alerts (severity, seq);
CREATE TABLE modules (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    score TEXT NOT NULL,
    defects TEXT NOT NULL,
    score_value REAL NOT NULL
) STRICT;
CREATE INDEX modules_score ON modules (score_value, seq);
CREATE TABLE drift (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    evidence TEXT NOT NULL,
    cause TEXT NOT NULL
) STRICT;
CREATE TABLE presences (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doing TEXT NOT NULL,
    since TEXT NOT NULL
) STRICT;
";

/// Step 2: attribution. A memory records the agent that stored it (when the
/// caller says), and a presence when the server last saw that agent, by the
/// server's own clock; the presences facet lists the most recent first.
const STEP_2: &str = "
ALTER TABLE memories ADD COLUMN agent_id TEXT;
ALTER TABLE presences ADD COLUMN last_seen TEXT;
UPDATE presences SET last_seen = since;
CREATE INDEX presences_seen ON presences (last_seen DESC, seq);
";

/// Step 3: the human's acts on the tray: stamping a mission, ratifying a
/// candidate block. Each target is acted on once (`act`, `target` unique), and
/// the row records what the human saw: the record's receipt hash and the
/// page's store_version, beside the version the act committed at.
const STEP_3: &str = "
CREATE TABLE human_acts (
    seq INTEGER PRIMARY KEY,
    act TEXT NOT NULL CHECK (act IN ('stamp', 'ratify')),
    target TEXT NOT NULL,
    receipt_hash TEXT NOT NULL,
    seen_version INTEGER NOT NULL CHECK (seen_version >= 1),
    store_version INTEGER NOT NULL CHECK (store_version >= 1),
    at TEXT NOT NULL,
    UNIQUE (act, target)
) STRICT;
";

/// Step 4: the words of every alert, indexed (FTS5), so `trace` costs what
/// its matches cost, not a scan of every alert. The index holds no text of
/// its own (`content = 'alerts'`); triggers keep it in step with the table,
/// and the first open of an older store builds it from the alerts there.
/// The tokenizer keeps `_` inside words, as `trace` splits them, and keeps
/// diacritics, as `trace` looks its words up as they are (`alert_vocab`: how
/// many alerts hold each word, read from the index itself).
const STEP_4: &str = concat!(
    "
CREATE VIRTUAL TABLE alert_words USING fts5(
    text, content = 'alerts', content_rowid = 'seq', tokenize = \"",
    alert_tokenizer!(),
    "\"
);
INSERT INTO alert_words (alert_words) VALUES ('rebuild');
CREATE VIRTUAL TABLE alert_vocab USING fts5vocab(alert_words, row);
CREATE TRIGGER alert_words_add AFTER INSERT ON alerts BEGIN
    INSERT INTO alert_words (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER alert_words_drop AFTER DELETE ON alerts BEGIN
    INSERT INTO alert_words (alert_words, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER alert_words_move AFTER UPDATE OF text ON alerts BEGIN
    INSERT INTO alert_words (alert_words, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO alert_words (rowid, text) VALUES (new.seq, new.text);
END;
"
);

/// Step 1 on PostgreSQL, after SQLite's text translated: what only a shared
/// database needs. `incarnation` tells one store from another created in its
/// place, and `used_bytes` counts content bytes against `max_bytes`, since a
/// database has no page count to cap (docs/design/postgres-replicas.md §3).
const PG_STEP_1_THEN: &str = "
ALTER TABLE store ADD COLUMN incarnation TEXT COLLATE \"C\" NOT NULL CHECK (length(incarnation) = 32);
ALTER TABLE store ADD COLUMN used_bytes BIGINT NOT NULL DEFAULT 0 CHECK (used_bytes >= 0);
";

/// Step 4 on PostgreSQL, which has no FTS5: the same words as FTS5's
/// `unicode61` tokenizer finds them, kept by the loader (the only writer of
/// alerts). `words` counts an alert's tokens (bm25's document length),
/// `alert_terms` holds each term's count in each alert, and `alert_vocab`
/// answers `WORD_ALERTS` with the same statement as SQLite's fts5vocab.
const PG_STEP_4: &str = "
ALTER TABLE alerts ADD COLUMN words BIGINT NOT NULL DEFAULT 0 CHECK (words >= 0);
CREATE TABLE alert_terms (
    term TEXT COLLATE \"C\" NOT NULL,
    seq BIGINT NOT NULL REFERENCES alerts (seq) ON DELETE CASCADE,
    tf BIGINT NOT NULL CHECK (tf >= 1),
    PRIMARY KEY (term, seq)
);
CREATE TABLE alert_vocab (term TEXT COLLATE \"C\" PRIMARY KEY, doc BIGINT NOT NULL CHECK (doc >= 1));
";

/// One migration step, as each backend runs it. The numbering is shared, so
/// a version means the same tables on either.
struct Step {
    /// SQLite's text, frozen once released.
    sqlite: &'static str,
    /// PostgreSQL's, made from SQLite's where the engines agree.
    postgres: Pg,
}

/// How a step reads on PostgreSQL.
enum Pg {
    /// SQLite's text through `pg_wire::ddl::translate`, then `then` (PostgreSQL
    /// only; empty for none). Table and column names stay written once.
    Translated { then: &'static str },
    /// A text of its own, where SQLite's has no PostgreSQL counterpart.
    Own(&'static str),
}

/// Every step, in order; step `n` takes a store from version `n - 1` to `n`.
const MIGRATIONS: &[Step] = &[
    Step { sqlite: STEP_1, postgres: Pg::Translated { then: PG_STEP_1_THEN } },
    Step { sqlite: STEP_2, postgres: Pg::Translated { then: "" } },
    Step { sqlite: STEP_3, postgres: Pg::Translated { then: "" } },
    Step { sqlite: STEP_4, postgres: Pg::Own(PG_STEP_4) },
];

/// The schema version this build writes.
pub const VERSION: u32 = MIGRATIONS.len() as u32;

/// Apply the steps after `from` up to `to` (inside the caller's transaction)
/// and record `to`.
pub fn migrate(conn: &Connection, from: u32, to: u32) -> rusqlite::Result<()> {
    for step in &MIGRATIONS[from as usize..to as usize] {
        conn.execute_batch(step.sqlite)?;
    }
    conn.pragma_update(None, "user_version", to)
}

/// The schema version recorded in the file.
pub fn version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// PostgreSQL's record of the steps a store has had (SQLite keeps it in
/// `PRAGMA user_version`), and of the build that took it there, for the
/// refusal a newer store gets.
pub(super) const PG_VERSION_TABLE: &str = "
CREATE TABLE m1nd_schema (
    one BIGINT PRIMARY KEY CHECK (one = 1),
    version BIGINT NOT NULL CHECK (version >= 1),
    written_by TEXT NOT NULL
);
";

/// Steps `from + 1 ..= to` as PostgreSQL runs them, each one text.
pub(super) fn postgres_steps(from: u32, to: u32) -> Result<Vec<String>, super::pg_wire::ddl::Untranslatable> {
    MIGRATIONS[from as usize..to as usize]
        .iter()
        .map(|step| match step.postgres {
            Pg::Translated { then } => Ok(super::pg_wire::ddl::translate(step.sqlite)? + then),
            Pg::Own(text) => Ok(text.to_owned()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_applies_in_order_and_is_recorded() {
        let conn = Connection::open_in_memory().expect("open");
        assert_eq!(version(&conn).expect("version"), 0);
        migrate(&conn, 0, 1).expect("step 1");
        conn.execute("INSERT INTO presences (id, doing, since) VALUES ('a', 'x', '2026-01-01T00:00:00Z')", [])
            .expect("v1 row");
        migrate(&conn, 1, VERSION).expect("the rest");
        assert_eq!(version(&conn).expect("version"), VERSION);
        let seen: String =
            conn.query_row("SELECT last_seen FROM presences WHERE id = 'a'", [], |r| r.get(0)).expect("migrated");
        assert_eq!(seen, "2026-01-01T00:00:00Z");
    }
}
