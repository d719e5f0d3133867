//! A store on PostgreSQL, made, opened, refused and read, against a real
//! server (`test_server.rs`; see `scratch.rs`), and held to a SQLite store
//! made from the same state: every read answers the same on both.

use super::super::location::Location;
use super::super::schema::VERSION;
use super::super::test_dir::{racing_inits, test_dir};
use super::super::verbs::Read;
use super::super::{DEFAULT_MAX_BYTES, State, Store, StoreError};
use super::scratch::Scratch;

/// Every read the store serves, with arguments drawn from `state` for the
/// ones that take some: each block's node, each drift's link both ways,
/// each alert's text, and words nothing holds.
fn every_read(state: &State) -> Vec<(Read, Vec<(&'static str, String)>)> {
    let mut reads: Vec<(Read, Vec<(&'static str, String)>)> = [
        Read::North,
        Read::Blocks,
        Read::Orient,
        Read::Doctor,
        Read::Trust,
        Read::Memories,
        Read::Drift,
        Read::Presences,
    ]
    .into_iter()
    .map(|read| (read, Vec::new()))
    .collect();
    for block in &state.blocks {
        reads.push((Read::Impact, vec![("node_id", block.node.clone())]));
    }
    for drift in &state.drift {
        reads.push((Read::Why, vec![("source", drift.id.clone()), ("target", drift.cause.clone())]));
        reads.push((Read::Why, vec![("source", drift.cause.clone()), ("target", drift.id.clone())]));
    }
    for alert in &state.alerts {
        reads.push((Read::Trace, vec![("error_text", alert.text.clone())]));
    }
    reads.push((Read::Trace, vec![("error_text", "nothing_here at all, zzzqx".into())]));
    reads.push((Read::Impact, vec![("node_id", "no/such/node.rs".into())]));
    reads
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_store_made_on_postgresql_reads_as_the_same_store_on_sqlite() {
    let db = Scratch::new();
    let mut state = Store::demo_state().expect("demo");
    state.store_version = 17;
    state.checkpoints = 2;
    let dir = test_dir("pg-parity");
    let sqlite = Store::create(dir.path(), &state, DEFAULT_MAX_BYTES).expect("SQLite store");
    let postgres = Store::create_at(&db.location(), &state, DEFAULT_MAX_BYTES).expect("PostgreSQL store");
    let (lite, pg) = (sqlite.snapshot().expect("read"), postgres.snapshot().expect("read"));
    assert_eq!(pg.version(), 17);
    assert_eq!(pg.counts().expect("counts"), lite.counts().expect("counts"));
    assert_eq!(pg.counts().expect("counts"), state.counts());
    let reads = every_read(&state);
    assert!(reads.len() > 20, "{} reads", reads.len());
    for (read, arguments) in reads {
        let arguments: Vec<(&str, &str)> = arguments.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let expected = lite.read(read, &arguments).unwrap_or_else(|e| panic!("{read:?} on SQLite: {e}"));
        let got = pg.read(read, &arguments).unwrap_or_else(|e| panic!("{read:?} on PostgreSQL: {e}"));
        assert_eq!(got, expected, "{read:?} {arguments:?}");
    }
    assert_eq!(postgres.max_bytes(), DEFAULT_MAX_BYTES);
    assert_eq!(postgres.data_version().expect("data version"), 17);
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn init_refuses_a_schema_that_holds_a_store_and_racing_inits_make_one() {
    let db = Scratch::new();
    let at = db.location();
    let created = racing_inits(4, |n| {
        let state = if n % 2 == 0 { Store::demo_state().expect("demo") } else { State::empty() };
        Store::create_at(&at, &state, DEFAULT_MAX_BYTES)
    });
    assert_eq!(created.iter().filter(|c| **c).count(), 1, "{created:?}");
    let again = Store::create_at(&at, &State::empty(), DEFAULT_MAX_BYTES).expect_err("a second init");
    assert!(matches!(again, StoreError::AlreadyExists { .. }), "{again}");
    assert_eq!(Store::open_at(&at).expect("open").version().expect("version"), 1);
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_schema_without_a_store_is_not_found_and_open_creates_nothing() {
    let mut db = Scratch::new();
    let err = Store::open_at(&db.location()).expect_err("no store");
    assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("init"), "{err}");
    let tables: i64 = db
        .client
        .query_one("SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", &[&db.name])
        .expect("tables")
        .get(0);
    assert_eq!(tables, 0, "open made something");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_search_path_naming_no_schema_says_to_create_it_for_open_and_init() {
    let db = Scratch::new();
    let missing = format!("{}_missing", db.name);
    let joint = if db.server().contains('?') { '&' } else { '?' };
    let at: Location = format!("{}{joint}options=-c%20search_path%3D{missing}", db.server())
        .parse()
        .unwrap_or_else(|never| match never {});
    for err in [
        Store::open_at(&at).expect_err("no schema"),
        Store::create_at(&at, &State::empty(), DEFAULT_MAX_BYTES).expect_err("no schema"),
    ] {
        let text = err.to_string();
        assert!(text.contains(&missing) && text.contains("CREATE SCHEMA"), "{text}");
        assert!(text.contains("options=-c%20search_path%3DNAME"), "{text}");
    }
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_store_a_newer_build_migrated_is_refused_with_who_wrote_it() {
    let mut db = Scratch::new();
    Store::create_at(&db.location(), &State::empty(), DEFAULT_MAX_BYTES).expect("init");
    let newer = i64::from(VERSION) + 1;
    db.client
        .execute("UPDATE m1nd_schema SET version = $1, written_by = 'm1nd 9.9.9'", &[&newer])
        .expect("a newer build's mark");
    let err = Store::open_at(&db.location()).expect_err("newer");
    let text = err.to_string();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    for part in [format!("schema version {newer}"), "written by m1nd 9.9.9".into(), "upgrade m1nd".into()] {
        assert!(text.contains(&part), "{text} lacks {part}");
    }
}

/// A store an older build made, before the word index (schema version 3),
/// gets the missing steps on open, and its alerts are found by `trace`.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn an_older_store_is_migrated_on_open_and_its_alerts_indexed() {
    let mut db = Scratch::new();
    let steps = super::super::schema::postgres_steps(0, 3).expect("steps");
    db.client.batch_execute(super::super::schema::PG_VERSION_TABLE).expect("version table");
    for step in &steps {
        db.client.batch_execute(step).expect("step");
    }
    db.client
        .batch_execute(
            "INSERT INTO m1nd_schema VALUES (1, 3, 'm1nd 0.1.0'); \
             INSERT INTO store (one, store_version, checkpoints, max_bytes, incarnation) \
             VALUES (1, 5, 0, 1000000, 'abcdefabcdefabcdefabcdefabcdef01'); \
             INSERT INTO alerts (id, level, text, node, severity) VALUES ('al_1', 'warn', 'walk cache miss', 'n', 2); \
             INSERT INTO tallies (name, n) VALUES ('alerts', 1)",
        )
        .expect("a version 3 store");
    let store = Store::open_at(&db.location()).expect("open migrates");
    let version: i64 = db.client.query_one("SELECT version FROM m1nd_schema", &[]).expect("version").get(0);
    assert_eq!(version, i64::from(VERSION));
    let snapshot = store.snapshot().expect("read");
    assert_eq!(snapshot.version(), 5);
    let traced = snapshot.read(Read::Trace, &[("error_text", "a cache miss")]).expect("trace");
    assert_eq!(traced.items.len(), 1, "{traced:?}");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_wrong_password_or_no_server_is_a_clear_refusal_that_never_shows_the_password() {
    let db = Scratch::new();
    const CANARY: &str = "Canary-pw-5e1f";
    let server = db.location().to_string();
    // The user's own URL with another password: `postgres://m1nd:***@host:port/db?...`.
    let wrong = db.server().replacen(&format!(":{}@", password_of(db.server())), &format!(":{CANARY}@"), 1);
    let err = Store::open_at(&db.location_on(&wrong)).expect_err("wrong password");
    let text = format!("{err} {err:?}");
    assert!(text.contains("password authentication failed"), "{text}");
    assert!(!text.contains(CANARY), "the password was shown: {text}");
    assert!(matches!(err, StoreError::Sql { .. }), "{err:?}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("addr").port();
    let nowhere = format!("postgres://m1nd:{CANARY}@127.0.0.1:{closed}/m1nd?connect_timeout=2");
    let err = Store::open_at(&db.location_on(&nowhere)).expect_err("no server");
    let text = format!("{err} {err:?}");
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(text.contains("retry"), "{text}");
    assert!(!text.contains(CANARY), "the password was shown: {text}");
    assert!(!server.contains(&password_of(db.server())), "{server}");
}

/// The password of a `postgres://user:password@...` URL.
pub(super) fn password_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let user_part = rest.rsplit_once('@').map_or("", |(user, _)| user);
    user_part.split_once(':').map_or("", |(_, password)| password).to_owned()
}

/// A reader's budget on PostgreSQL: a caller who left stops the read before
/// its next statement, and a statement still running at the deadline is
/// ended by the server (`statement_timeout`), not waited for.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_read_whose_caller_left_or_whose_deadline_passed_is_stopped() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    let db = Scratch::new();
    let mut store =
        Store::create_at(&db.location(), &Store::demo_state().expect("demo"), DEFAULT_MAX_BYTES).expect("init");
    let left = Arc::new(AtomicBool::new(false));
    let caller = Arc::clone(&left);
    store.stop_when(Instant::now() + Duration::from_secs(60), move || caller.load(Ordering::SeqCst));
    store.snapshot().expect("read").read(Read::North, &[]).expect("within its budget");
    left.store(true, Ordering::SeqCst);
    assert!(matches!(store.snapshot().map(drop), Err(StoreError::Stopped)));

    store.stop_when(Instant::now() + Duration::from_millis(300), || false);
    let snapshot = store.snapshot().expect("begun within the budget");
    let slow = snapshot.db().row("SELECT pg_sleep(10)::text", super::super::db::args![], |r| r.get::<String>(0));
    let stopped = slow.map_err(|e| StoreError::db(store.path(), "read", &e));
    assert!(matches!(stopped, Err(StoreError::Stopped)), "{stopped:?}");
}
