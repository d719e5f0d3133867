//! The PostgreSQL schema, held to SQLite's and proven on a real server.
//!
//! - The rendered schema is checked in (`tests/golden/pg_schema.sql`) so a
//!   change to any step shows as a diff a reviewer reads as PostgreSQL.
//! - On a real server (`test_server.rs`: `cargo test -- --ignored` runs
//!   them), each test works in a schema of its own, dropped after:
//!   every step applies in order, the tables and columns are SQLite's (with
//!   the PostgreSQL-only ones named below), and every statement of `sql.rs`
//!   prepares there, but for the ones only SQLite runs, each named with why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rusqlite::Connection;

use super::super::pg_wire::dollar_placeholders;
use super::super::schema::{self, VERSION};
use super::super::sql::alert_tokenizer;
use super::super::sql::{self, listed, pg_channel, tray_listed};
use super::super::state::{Alert, State};
use super::scratch::{Columns, Scratch};
use super::terms::count_words;

const GOLDEN: &str = "tests/golden/pg_schema.sql";

/// Columns only the PostgreSQL schema has, as `table.column`, or
/// `table.*` for a table of its own (see the steps in `schema.rs`).
const POSTGRES_ONLY: &[&str] =
    &["store.incarnation", "store.used_bytes", "alerts.words", "alert_terms.*", "alert_vocab.*"];

/// SQLite's own tables behind FTS5 (`alert_words` and its shadow tables,
/// and the `alert_vocab` view of it), which PostgreSQL replaces.
fn is_fts5(table: &str) -> bool {
    table.starts_with("alert_words") || table == "alert_vocab"
}

/// Statements of `sql.rs` only SQLite runs, and why.
const SQLITE_ONLY: &[(&str, &str)] = &[
    ("MATCH_COUNT", "an FTS5 query: PostgreSQL's counts alert_terms (S3 of the plan)"),
    ("TRACE", "an FTS5 query ranked by bm25: PostgreSQL's computes bm25 over alert_terms (S3)"),
    ("BEGIN", "the postgres client begins and ends its transactions itself"),
    ("COMMIT", "the postgres client begins and ends its transactions itself"),
    ("ROLLBACK", "the postgres client begins and ends its transactions itself"),
    ("SCHEMA_OBJECTS", "`store check` of a SQLite file"),
    ("PAGE_OWNERS", "`store check` of a SQLite file (dbstat)"),
    ("VERIFY_PAGE", "the checksum VFS of a SQLite file"),
    ("VACUUM", "`store backup` of a SQLite file"),
    ("WRITE_PAGE_ONE", "`store backup` of a SQLite file"),
    ("SCRATCH_WORD_INDEX", "SQLite's tokenizer, asked by the PostgreSQL loader in memory (pg/terms.rs)"),
    ("SCRATCH_WORD", "SQLite's tokenizer, asked by the PostgreSQL loader in memory (pg/terms.rs)"),
    ("SCRATCH_TERMS", "SQLite's tokenizer, asked by the PostgreSQL loader in memory (pg/terms.rs)"),
];

#[test]
fn the_postgresql_schema_is_the_checked_in_one() {
    let rendered = render();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("M1ND_BLESS").is_some() {
        std::fs::write(&path, &rendered).expect("write the golden schema");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != rendered {
        let diff = similar::TextDiff::from_lines(&expected, &rendered);
        panic!(
            "{GOLDEN} is stale; review the schema change below, then bless it with \
             `M1ND_BLESS=1 cargo test -p m1nd --lib store::pg`\n{}",
            diff.unified_diff().context_radius(3).header(GOLDEN, "rendered")
        );
    }
}

/// Every step, headed by its number, as one reviewable text.
fn render() -> String {
    let steps = schema::postgres_steps(0, VERSION).unwrap_or_else(|e| panic!("{e}"));
    let mut out = String::from(
        "-- The m1nd store's schema on PostgreSQL, rendered from src/store/schema.rs\n\
         -- (SQLite's steps translated by src/store/pg/ddl.rs, or PostgreSQL's own).\n\
         -- Checked by src/store/pg/tests.rs; bless with M1ND_BLESS=1.\n",
    );
    for (n, step) in steps.iter().enumerate() {
        out.push_str(&format!("\n-- Step {}\n{}\n", n + 1, step.trim()));
    }
    out
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn every_step_applies_on_postgresql_in_order() {
    let mut db = Scratch::new();
    let steps = schema::postgres_steps(0, VERSION).unwrap_or_else(|e| panic!("{e}"));
    let mut tx = db.client.transaction().expect("begin");
    tx.batch_execute(&steps[0]).expect("step 1");
    // A presence written at version 1 gets its `last_seen` from step 2, as on SQLite.
    tx.batch_execute("INSERT INTO presences (id, doing, since) VALUES ('a', 'x', '2026-01-01T00:00:00Z')")
        .expect("a version 1 row");
    for (n, step) in steps.iter().enumerate().skip(1) {
        tx.batch_execute(step).unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
    }
    let seen: String = tx.query_one("SELECT last_seen FROM presences WHERE id = 'a'", &[]).expect("read").get(0);
    assert_eq!(seen, "2026-01-01T00:00:00Z");
    tx.commit().expect("commit");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn the_tables_and_columns_are_sqlite_s() {
    let mut db = Scratch::new();
    db.apply_every_step();
    let sqlite = sqlite_columns();
    let postgres = db.columns();
    let only: BTreeSet<&str> = POSTGRES_ONLY.iter().copied().collect();
    let mut problems = Vec::new();
    for ((table, column), (kind, not_null)) in &sqlite {
        match postgres.get(&(table.clone(), column.clone())) {
            None => problems.push(format!("{table}.{column} is missing on PostgreSQL")),
            Some((pg_kind, pg_not_null)) => {
                if expected_type(kind) != pg_kind {
                    problems.push(format!("{table}.{column}: SQLite {kind}, PostgreSQL {pg_kind}"));
                }
                if not_null != pg_not_null {
                    problems.push(format!("{table}.{column}: NOT NULL {not_null} on SQLite, {pg_not_null} here"));
                }
            }
        }
    }
    for (table, column) in postgres.keys() {
        let known = sqlite.contains_key(&(table.clone(), column.clone()));
        if !known
            && !only.contains(format!("{table}.{column}").as_str())
            && !only.contains(format!("{table}.*").as_str())
        {
            problems.push(format!("{table}.{column} is on PostgreSQL only, and not in POSTGRES_ONLY"));
        }
    }
    assert!(problems.is_empty(), "the schemas differ:\n{}", problems.join("\n"));
}

/// Texts of `sql.rs` that are the start of a statement, completed at run
/// time, with what completes them here.
const COMPLETED_AT_RUN_TIME: &[(&str, &str)] = &[("PG_LOCAL_STATEMENT_TIMEOUT", "1000")];

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn every_statement_the_backend_runs_prepares_on_postgresql() {
    let mut db = Scratch::new();
    db.apply_every_step();
    db.client.batch_execute(schema::PG_VERSION_TABLE).expect("the version table");
    let statements = statements_of_sql_rs();
    for (name, _) in SQLITE_ONLY {
        assert!(statements.contains_key(*name), "SQLITE_ONLY names `{name}`, which sql.rs no longer has");
    }
    let mut failed = Vec::new();
    let mut prepared = 0;
    for (name, text) in &statements {
        if SQLITE_ONLY.iter().any(|(only, _)| only == name) {
            continue;
        }
        let tail = COMPLETED_AT_RUN_TIME.iter().find(|(start, _)| start == name).map_or("", |(_, tail)| tail);
        match db.client.prepare(&dollar_placeholders(&format!("{text}{tail}"))) {
            Ok(_) => prepared += 1,
            Err(e) => failed.push(format!(
                "{name}: {}\n    {text}",
                e.as_db_error().map_or(e.to_string(), |d| d.message().to_owned())
            )),
        }
    }
    assert!(failed.is_empty(), "{} statements do not prepare on PostgreSQL:\n{}", failed.len(), failed.join("\n"));
    assert!(prepared >= 30, "only {prepared} statements were found in sql.rs");
}

/// `trace` on PostgreSQL ranks alerts as FTS5's bm25 does on SQLite: the
/// same alerts (copied with their `seq`), their words counted by SQLite's
/// own tokenizer (`pg/terms.rs`), the same vocabulary, the same match
/// counts, and for each query the same scores, position by position, within
/// floating-point rounding; where two alerts tie, either order is FTS5's.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn trace_ranks_alerts_as_fts5_does() {
    let mut db = Scratch::new();
    db.apply_every_step();
    let sqlite = Connection::open_in_memory().expect("open");
    schema::migrate(&sqlite, 0, VERSION).expect("migrate");
    super::super::load::load(super::super::db::Db::Sqlite(&sqlite), &corpus(), u64::MAX).expect("load");

    let mut rows =
        sqlite.prepare("SELECT seq, id, level, text, node, severity FROM alerts ORDER BY seq").expect("alerts");
    let alerts: Vec<(i64, String, String, String, String, i64)> = rows
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .expect("read")
        .map(|row| row.expect("row"))
        .collect();
    let mut tx = db.client.transaction().expect("begin");
    for (seq, id, level, text, node, severity) in &alerts {
        tx.execute(
            "INSERT INTO alerts (seq, id, level, text, node, severity) VALUES ($1, $2, $3, $4, $5, $6)",
            &[seq, id, level, text, node, severity],
        )
        .expect("copy an alert");
    }
    let counted = count_words(alerts.iter().map(|a| (a.0, a.3.as_str()))).expect("count words");
    for (seq, words) in &counted {
        tx.execute(&dollar_placeholders(sql::PG_ALERT_WORDS), &[seq, &words.words]).expect("words");
        for (term, tf) in &words.terms {
            tx.execute(&dollar_placeholders(sql::PG_ALERT_TERM), &[term, seq, tf]).expect("term");
        }
    }
    tx.batch_execute(sql::PG_BUILD_VOCAB).expect("vocabulary");
    tx.commit().expect("commit");

    let vocabulary = "SELECT term, doc FROM alert_vocab ORDER BY term";
    let fts5: Vec<(String, i64)> = sqlite
        .prepare(vocabulary)
        .expect("vocab")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("read")
        .map(|row| row.expect("row"))
        .collect();
    let pg: Vec<(String, i64)> =
        db.client.query(vocabulary, &[]).expect("vocab").iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(pg, fts5, "the vocabularies differ");

    for words in [
        &["cache"][..],
        &["walk"],
        &["miss"],
        &["cache", "miss"],
        &["graph_node", "école"],
        &["ωmega", "кэш", "404"],
        &["404", "miss", "cache", "walk", "pad1"],
        &["İstanbul", "straße"],
        &["nothing_here"],
    ] {
        let query = words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR ");
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        let sqlite_count: i64 = sqlite.query_row(sql::MATCH_COUNT, [&query], |r| r.get(0)).expect("count");
        let pg_count: i64 =
            db.client.query_one(&dollar_placeholders(sql::PG_MATCH_COUNT), &[&words]).expect("count").get(0);
        assert_eq!(pg_count, sqlite_count, "{query}: match counts");

        let mut ranked = sqlite
            .prepare(concat!(
                "SELECT a.id, -bm25(alert_words) FROM alert_words JOIN alerts a ON a.seq = alert_words.rowid ",
                "WHERE alert_words MATCH ?1 ORDER BY alert_words.rank, a.seq LIMIT ",
                listed!()
            ))
            .expect("bm25");
        let fts5: Vec<(String, f64)> = ranked
            .query_map([&query], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rank")
            .map(|r| r.expect("row"))
            .collect();
        let mut trace = sqlite.prepare(sql::TRACE).expect("trace");
        let traced: Vec<String> =
            trace.query_map([&query], |r| r.get(0)).expect("trace").map(|r| r.expect("row")).collect();
        assert_eq!(traced, fts5.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(), "{query}: TRACE is bm25's order");

        let pg: Vec<(String, f64)> = db
            .client
            .query(&dollar_placeholders(sql::PG_TRACE), &[&words])
            .expect("trace on PostgreSQL")
            .iter()
            .map(|r| (r.get(0), r.get(2)))
            .collect();
        assert_eq!(pg.len(), fts5.len(), "{query}: how many listed\nFTS5 {fts5:?}\nPostgreSQL {pg:?}");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        for (at, ((fts5_id, fts5_score), (pg_id, pg_score))) in fts5.iter().zip(&pg).enumerate() {
            assert!(close(*fts5_score, *pg_score), "{query}: at {at}, FTS5 {fts5_score} and PostgreSQL {pg_score}");
            if fts5_id != pg_id {
                let tied = fts5.iter().find(|(id, _)| id == pg_id).is_some_and(|(_, s)| close(*s, *fts5_score));
                assert!(tied, "{query}: at {at}, FTS5 lists {fts5_id} and PostgreSQL {pg_id}, which do not tie");
            }
        }
    }
}

/// Alerts whose words occur in every alert, in some, in one, repeated, and
/// in several scripts, with lengths that vary, so scores rarely tie.
fn corpus() -> State {
    let mut state = State::empty();
    for i in 0..30_usize {
        let mut text = format!("walk step {i}:");
        for (every, word) in [(2, "cache"), (3, "miss"), (5, "graph_node"), (7, "École"), (6, "Кэш"), (8, "404")] {
            if i % every == 0 {
                text.push(' ');
                text.push_str(word);
            }
        }
        if i % 4 == 1 {
            text.push_str(" Ωmega,");
        }
        if i % 10 == 0 {
            text.push_str(" cache cache miss");
        }
        if i == 11 {
            text.push_str(" İstanbul straße");
        }
        for _ in 0..i % 5 {
            text.push_str(&format!(" pad{}", i % 3));
        }
        state.alerts.push(Alert { id: format!("al_{i:02}"), level: "warn".into(), text, node: format!("n{i}") });
    }
    state
}

/// SQLite's declared type as the translation writes it on PostgreSQL
/// (`information_schema`'s `data_type`).
fn expected_type(sqlite: &str) -> &'static str {
    match sqlite {
        "INTEGER" => "bigint",
        "TEXT" => "text",
        "REAL" => "double precision",
        other => panic!("a column of type {other}, which the translation does not carry"),
    }
}

/// Every ordinary table's columns of a new SQLite store: type and NOT NULL.
fn sqlite_columns() -> Columns {
    let conn = Connection::open_in_memory().expect("open");
    schema::migrate(&conn, 0, VERSION).expect("migrate");
    let mut tables = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").expect("tables");
    let names: Vec<String> = tables.query_map([], |r| r.get(0)).expect("list").map(|n| n.expect("name")).collect();
    let mut out = Columns::new();
    for table in names.into_iter().filter(|t| !is_fts5(t)) {
        // A primary key column is NOT NULL on PostgreSQL whatever it says, so
        // it counts as NOT NULL here too.
        let mut info =
            conn.prepare("SELECT name, type, \"notnull\" OR pk > 0 FROM pragma_table_info(?1)").expect("info");
        let rows = info
            .query_map([&table], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, bool>(2)?)))
            .expect("columns");
        for row in rows {
            let (column, kind, not_null) = row.expect("column");
            out.insert((table.clone(), column), (kind, not_null));
        }
    }
    out
}

/// Every `const NAME: &str` of `sql.rs`, its text as the compiler makes it:
/// a literal, or `concat!` of literals and the limit macros.
fn statements_of_sql_rs() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/sql.rs");
    let source = std::fs::read_to_string(&path).expect("read sql.rs");
    let file = syn::parse_file(&source).expect("sql.rs parses");
    let mut out = BTreeMap::new();
    for item in file.items {
        let syn::Item::Const(constant) = item else { continue };
        let syn::Type::Reference(reference) = &*constant.ty else { continue };
        if !matches!(&*reference.elem, syn::Type::Path(p) if p.path.is_ident("str")) {
            continue;
        }
        out.insert(constant.ident.to_string(), text_of(&constant.expr));
    }
    out
}

fn text_of(expr: &syn::Expr) -> String {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
        syn::Expr::Macro(m) => macro_text(&m.mac),
        _ => panic!("sql.rs: a statement that is neither a literal nor a macro, which this test cannot read"),
    }
}

fn macro_text(mac: &syn::Macro) -> String {
    let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    match name.as_str() {
        "listed" => listed!().to_owned(),
        "alert_tokenizer" => alert_tokenizer!().to_owned(),
        "tray_listed" => tray_listed!().to_owned(),
        "pg_channel" => pg_channel!().to_owned(),
        "concat" => {
            let parts = mac
                .parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
                .expect("concat! arguments");
            parts.iter().map(text_of).collect()
        }
        other => panic!("sql.rs: a statement built with `{other}!`, which this test cannot read"),
    }
}
