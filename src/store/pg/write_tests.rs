//! Writes on a PostgreSQL store, against a real server (`test_server.rs`):
//! the same answers as on SQLite, refusals that leave every table as it
//! was, writers of several connections taking turns, the size cap, a store
//! made anew under a running one, a full disk on the server, and a commit
//! lost with its connection.

use super::super::batch::{Change, Done, Refusal};
use super::super::location::Location;
use super::super::state::MAX_CLAIM_CHARS;
use super::super::test_dir::test_dir;
use super::super::tray::{Act, Acted};
use super::super::verbs::Read;
use super::super::writes::PersistAction;
use super::super::{DEFAULT_MAX_BYTES, MIN_MAX_BYTES, State, Store, StoreError};
use super::cut_proxy::{Cut, CutProxy};
use super::scratch::Scratch;

/// A demo store on the scratch schema.
fn demo(db: &Scratch) -> Store {
    Store::create_at(&db.location(), &Store::demo_state().expect("demo"), DEFAULT_MAX_BYTES).expect("init")
}

/// What a store answers to a sequence of writes and to the reads after
/// them, without the times each backend's clock gave the writes.
fn story(store: &mut Store) -> Vec<String> {
    let mut said = Vec::new();
    let mut say = |what: String| said.push(without_times(&what));
    say(format!("{:?}", store.memorize("first claim", "test", Some(" agent-a "), Some(1))));
    say(format!("{:?}", store.memorize("stale", "test", None, Some(1))));
    say(format!("{:?}", store.persist("save", Some("agent-b"), None).map(|p| (p.store_version, p.counts))));
    let tray = store.tray().expect("tray");
    say(format!("{tray:?}"));
    let mission = tray.missions[0].clone();
    let block = tray.candidates[0].clone();
    let changes = [
        Change::Act {
            act: Act::Stamp,
            target: mission.id.clone(),
            receipt_hash: mission.receipt_hash.clone(),
            seen_version: tray.store_version,
        },
        Change::Memorize {
            claims: vec!["in a group".into()],
            source: "test".into(),
            agent: Some("agent-a".into()),
            expected: None,
        },
        Change::Act {
            act: Act::Ratify,
            target: block.id.clone(),
            receipt_hash: "0".repeat(64),
            seen_version: tray.store_version,
        },
        Change::Checkpoint { action: PersistAction::Checkpoint, agent: None, expected: Some(1) },
        Change::Act {
            act: Act::Ratify,
            target: block.id.clone(),
            receipt_hash: block.receipt_hash.clone(),
            seen_version: tray.store_version,
        },
    ];
    for result in store.apply(&changes) {
        say(format!("{result:?}"));
    }
    let again = store.act(Act::Stamp, &mission.id, &mission.receipt_hash, tray.store_version);
    say(format!("{again:?}"));
    say(format!("{:?}", store.tray().expect("tray")));
    let snapshot = store.snapshot().expect("read");
    for read in [Read::Memories, Read::Presences, Read::North, Read::Blocks] {
        let reading = snapshot.read(read, &[]).expect("read");
        let items: Vec<_> = reading.items.iter().map(|i| (i.field("id"), i.field("claim"), i.field("doing"))).collect();
        say(format!("{read:?} {items:?}"));
    }
    said
}

/// `text` with every `YYYY-MM-DDTHH:MM:SSZ` written as `TIME`: each
/// backend's clock stamps its own writes.
fn without_times(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:ddZ";
    let bytes = text.as_bytes();
    let is_time = |at: usize| {
        bytes.get(at..at + SHAPE.len()).is_some_and(|window| {
            window.iter().zip(SHAPE).all(|(b, s)| if *s == b'd' { b.is_ascii_digit() } else { b == s })
        })
    };
    let (mut out, mut at) = (String::new(), 0);
    while at < bytes.len() {
        if is_time(at) {
            out.push_str("TIME");
            at += SHAPE.len();
        } else {
            let c = text[at..].chars().next().expect("a char");
            out.push(c);
            at += c.len_utf8();
        }
    }
    out
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn writes_on_postgresql_answer_as_they_do_on_sqlite() {
    let db = Scratch::new();
    let dir = test_dir("pg-writes");
    let on_sqlite = story(&mut Store::init(dir.path(), true).expect("SQLite store"));
    let on_postgres = story(&mut demo(&db));
    for (n, (pg, lite)) in on_postgres.iter().zip(&on_sqlite).enumerate() {
        assert_eq!(pg, lite, "answer {n} differs");
    }
    assert_eq!(on_postgres.len(), on_sqlite.len());
    assert!(on_postgres.iter().any(|s| s.contains("Conflict")), "{on_postgres:#?}");
    assert!(on_postgres.iter().any(|s| s.contains("Already")), "{on_postgres:#?}");
    // A new connection sees every write, once.
    let reopened = Store::open_at(&db.location()).expect("open");
    assert_eq!(reopened.version().expect("version"), 6);
}

/// One instant for all a write records, in the store's UTC form. That the
/// instant is the database's, not this machine's, cannot be seen here (both
/// clocks are one); `test_replicas_postgres.py` shows it with a replica
/// under faketime.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_write_records_one_instant_for_all_it_writes() {
    let mut db = Scratch::new();
    let mut store = demo(&db);
    store.memorize("when", "test", Some("agent-t"), None).expect("memorize");
    let (at, seen): (String, String) = {
        let row = db
            .client
            .query_one(
                "SELECT m.at, p.last_seen FROM memories m, presences p \
             WHERE m.claim = 'when' AND p.id = 'agent-t'",
                &[],
            )
            .expect("row");
        (row.get(0), row.get(1))
    };
    let server: String = db
        .client
        .query_one("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')", &[])
        .expect("now")
        .get(0);
    assert_eq!(at, seen, "one instant for the whole write");
    assert_eq!(at.len(), "2026-01-01T00:00:00Z".len(), "{at}");
    assert!(at.as_str() <= server.as_str(), "{at} is after the server's {server}, which took it before");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn refused_writes_leave_every_table_as_it_was() {
    let mut db = Scratch::new();
    let mut store = demo(&db);
    store.memorize("moves it to 2", "test", None, Some(1)).expect("memorize");
    let before = db.fingerprint();
    let tray = store.tray().expect("tray");
    let mission = tray.missions[0].clone();
    let refusals: Vec<String> = [
        store.memorize("stale", "test", Some("agent-x"), Some(1)).err().map(|e| e.to_string()),
        store.memorize("", "test", None, None).err().map(|e| e.to_string()),
        store.memorize("ok", "a source\0", None, None).err().map(|e| e.to_string()),
        store.persist("checkpoint", Some("agent-x"), Some(9)).err().map(|e| e.to_string()),
        store.act(Act::Stamp, &mission.id, &"0".repeat(64), tray.store_version).err().map(|e| e.to_string()),
        store
            .act(Act::Stamp, "no-such-mission", &mission.receipt_hash, tray.store_version)
            .err()
            .map(|e| e.to_string()),
        store.act(Act::Stamp, &mission.id, &mission.receipt_hash, tray.store_version + 5).err().map(|e| e.to_string()),
    ]
    .into_iter()
    .map(|refused| refused.expect("refused"))
    .collect();
    assert_eq!(refusals.len(), 7);
    assert_eq!(db.fingerprint(), before, "a refusal wrote: {refusals:#?}");
    assert_eq!(store.version().expect("version"), 2);
}

/// Writers, each with its own connection, racing without an expected
/// version: the store row's lock makes them take turns, and no write is lost.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn writers_on_several_connections_lose_nothing() {
    const WRITERS: usize = 3;
    const EACH: usize = 5;
    let db = Scratch::new();
    let location = db.location();
    Store::create_at(&location, &State::empty(), DEFAULT_MAX_BYTES).expect("init");
    let start = std::sync::Barrier::new(WRITERS);
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let (location, start) = (&location, &start);
            scope.spawn(move || {
                let mut store = Store::open_at(location).expect("open");
                start.wait();
                for n in 0..EACH {
                    store.memorize(&format!("claim {writer}.{n}"), "race", None, None).expect("memorize");
                }
            });
        }
    });
    let store = Store::open_at(&location).expect("open");
    assert_eq!(store.version().expect("version"), 1 + (WRITERS * EACH) as u64);
    let snapshot = store.snapshot().expect("read");
    assert_eq!(snapshot.counts().expect("counts").memories, WRITERS * EACH);
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_writer_held_up_past_the_lock_timeout_is_busy_and_writes_nothing() {
    let mut db = Scratch::new();
    let mut store = demo(&db);
    let before = db.fingerprint();
    let mut holder = db.client.transaction().expect("begin");
    holder.query("SELECT 1 FROM store FOR UPDATE", &[]).expect("hold the store row");
    let err = store.memorize("waits", "test", None, None).expect_err("busy");
    assert!(matches!(err, StoreError::Busy { .. }), "{err:?}");
    assert!(err.to_string().contains("retry"), "{err}");
    holder.rollback().expect("let go");
    assert_eq!(db.fingerprint(), before);
    assert_eq!(store.memorize("then lands", "test", None, None).expect("after"), 2);
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn the_size_cap_counts_what_the_rows_store_and_refuses_only_the_change_past_it() {
    let mut db = Scratch::new();
    let mut store = Store::create_at(&db.location(), &State::empty(), MIN_MAX_BYTES).expect("init");
    let claim = "w".repeat(MAX_CLAIM_CHARS);
    let refused = loop {
        match store.memorize(&claim, "test", None, None) {
            Ok(version) => assert!(version < 1000, "the cap never held"),
            Err(e) => break e,
        }
    };
    let StoreError::Full { why, .. } = &refused else { panic!("{refused:?}") };
    assert!(why.room.used <= MIN_MAX_BYTES && why.room.used + claim.len() as u64 > MIN_MAX_BYTES, "{why:?}");
    assert!(refused.to_string().contains("store set-max-bytes"), "{refused}");
    let before = db.fingerprint();
    let results = store.apply(&[
        Change::Memorize { claims: vec![claim.clone()], source: "test".into(), agent: None, expected: None },
        Change::Memorize { claims: vec!["small".into()], source: "test".into(), agent: None, expected: None },
    ]);
    assert!(matches!(results[0], Err(Refusal::Store(StoreError::Full { .. }))), "{results:?}");
    assert!(matches!(results[1], Ok(Done::Memorized { .. })), "{results:?}");
    assert_ne!(db.fingerprint(), before, "the small change landed");
    // Raising the cap lets the large one in.
    store.set_max_bytes(2 * MIN_MAX_BYTES).expect("raise");
    store.memorize(&claim, "test", None, None).expect("fits now");
    let low = store.set_max_bytes(MIN_MAX_BYTES).expect_err("below what it holds");
    assert!(matches!(low, StoreError::BadArgument(_)), "{low:?}");
}

/// The database server's disk filling up (SQLSTATE 53100, raised here by a
/// trigger, as the server raises it when it cannot extend a file) refuses
/// the change that met it as no room, leaves its rows as they were, and
/// lets the rest of the group and later writes through the same connection.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_full_disk_on_the_database_server_refuses_that_change_alone() {
    let mut db = Scratch::new();
    let mut store = demo(&db);
    db.client
        .batch_execute(
            "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
               RAISE EXCEPTION 'could not extend file \"base/1/2\": No space left on device' \
               USING ERRCODE = 'disk_full'; END $$; \
             CREATE TRIGGER disk_full BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION disk_full()",
        )
        .expect("a disk that fills at the next memory");
    let memories = |db: &mut Scratch| db.fingerprint().into_iter().find(|(t, _)| t == "memories").expect("memories");
    let before = (db.fingerprint(), memories(&mut db));
    let refused = store.memorize("no room", "test", None, None).expect_err("the disk is full");
    assert!(matches!(refused, StoreError::DatabaseFull { .. }), "{refused:?}");
    let said = refused.to_string();
    assert!(said.contains("No space left on device (53100)") && said.contains("nothing changed"), "{said}");
    assert!(refused.keeps_connection(), "the server rolled the write back; its connection is sound");
    assert_eq!(db.fingerprint(), before.0, "a refused write changed a table");
    let results = store.apply(&[
        Change::Memorize { claims: vec!["no room either".into()], source: "test".into(), agent: None, expected: None },
        Change::Checkpoint { action: PersistAction::Checkpoint, agent: Some("agent-d".into()), expected: None },
    ]);
    assert!(matches!(results[0], Err(Refusal::Store(StoreError::DatabaseFull { .. }))), "{results:?}");
    assert!(matches!(results[1], Ok(Done::Persisted(..))), "{results:?}");
    assert_eq!(memories(&mut db), before.1, "the refused memory was written");
    db.client.batch_execute("DROP TRIGGER disk_full ON memories").expect("room again");
    let version = store.memorize("room again", "test", None, None).expect("the same connection writes again");
    assert_eq!(version, 3, "one version for the checkpoint, one for this");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_state_larger_than_the_cap_makes_no_store() {
    let mut db = Scratch::new();
    let mut state = State::empty();
    state.memories = (0..200)
        .map(|n| super::super::Memory {
            id: format!("mem_{n:08x}"),
            claim: "c".repeat(MAX_CLAIM_CHARS),
            source: "s".into(),
            at: "2026-01-01T00:00:00Z".into(),
        })
        .collect();
    let err = Store::create_at(&db.location(), &state, MIN_MAX_BYTES).expect_err("too large");
    assert!(matches!(err, StoreError::Full { .. }), "{err:?}");
    assert!(db.fingerprint().is_empty(), "a refused init left tables behind");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_store_made_anew_in_its_place_takes_no_write_through_an_old_connection() {
    let mut db = Scratch::new();
    let mut old = demo(&db);
    let name = db.name.clone();
    db.client.batch_execute(&format!("DROP SCHEMA {name} CASCADE; CREATE SCHEMA {name}")).expect("drop the store");
    Store::create_at(&db.location(), &State::empty(), DEFAULT_MAX_BYTES).expect("a new store");
    let before = db.fingerprint();
    let err = old.memorize("to the old store", "test", None, None).expect_err("not the store it opened");
    assert!(matches!(err, StoreError::Moved { .. }), "{err:?}");
    assert_eq!(db.fingerprint(), before);
}

/// The scratch schema's location through `proxy`.
fn through(db: &Scratch, proxy: &CutProxy) -> Location {
    let server = db.server();
    let (head, tail) = server.rsplit_once('@').expect("user@host");
    let (_, path) = tail.split_once('/').expect("host/dbname");
    db.location_on(&format!("{head}@127.0.0.1:{}/{path}", proxy.port))
}

/// The test server's `host:port`.
fn upstream(db: &Scratch) -> String {
    let tail = db.server().rsplit_once('@').expect("user@host").1;
    tail.split_once('/').expect("host/dbname").0.to_owned()
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_commit_lost_after_the_server_took_it_is_acknowledged() {
    let mut db = Scratch::new();
    let proxy = CutProxy::start(upstream(&db), Cut::AfterCommit);
    let mut store = Store::create_at(&through(&db, &proxy), &State::empty(), DEFAULT_MAX_BYTES).expect("init");
    proxy.arm();
    let version = store.memorize("lands", "test", None, Some(1)).expect("the commit landed, and it is told");
    assert!(proxy.fired(), "the connection was never cut");
    assert_eq!(version, 2);
    let memories = db.fingerprint().into_iter().find(|(t, _)| t == "memories").expect("memories").1;
    assert!(memories.contains("lands"), "{memories}");
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_commit_lost_before_the_server_took_it_is_refused_and_writes_nothing() {
    let mut db = Scratch::new();
    let proxy = CutProxy::start(upstream(&db), Cut::BeforeCommit);
    let mut store = Store::create_at(&through(&db, &proxy), &State::empty(), DEFAULT_MAX_BYTES).expect("init");
    let before = db.fingerprint();
    proxy.arm();
    let err = store.memorize("never lands", "test", None, Some(1)).expect_err("lost");
    assert!(proxy.fired(), "the connection was never cut");
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(err.to_string().contains("before the commit landed"), "{err}");
    assert_eq!(db.fingerprint(), before);
    // The store's connection is gone; a new one (as the service opens) writes.
    assert!(store.still_at_path().is_err());
    let mut again = Store::open_at(&through(&db, &proxy)).expect("reopen");
    assert_eq!(again.memorize("retried", "test", None, Some(1)).expect("retry lands"), 2);
}

/// Two people stamping the same mission at once through two replicas (two
/// connections): one stamp lands, the other is told it already happened.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn two_stamps_at_once_on_two_connections_land_once() {
    let db = Scratch::new();
    let first = demo(&db);
    let tray = first.tray().expect("tray");
    let mission = tray.missions[0].clone();
    let start = std::sync::Barrier::new(2);
    let acted: Vec<Acted> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let (location, start, mission) = (db.location(), &start, &mission);
                scope.spawn(move || {
                    let mut store = Store::open_at(&location).expect("open");
                    start.wait();
                    store.act(Act::Stamp, &mission.id, &mission.receipt_hash, tray.store_version).expect("act")
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().expect("a stamp")).collect()
    });
    let now = acted.iter().filter(|a| matches!(a, Acted::Now { .. })).count();
    let already = acted.iter().filter(|a| matches!(a, Acted::Already { .. })).count();
    assert_eq!((now, already), (1, 1), "{acted:?}");
    assert_eq!(first.version().expect("version"), tray.store_version + 1);
}
