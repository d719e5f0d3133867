//! The version watch: what an open tray tab costs, and how changes reach it.
//!
//! Each tab's event stream is a receiver of the service's version watch
//! (`tray_events` maps it to SSE). Between changes, N open tabs cost no store
//! read at all and one cheap `data_version` check per period between them;
//! a change made through another connection (another server, the CLI) is
//! read once and reaches every tab; a change made by the service itself
//! reaches every tab with no read beyond the write's own.

use std::time::Duration;

use m1nd::service::{Options, Service, VERSION_CHECK};
use m1nd::store::Store;
use serde_json::json;
use tokio::sync::watch;

const TABS: usize = 20;

/// Wait until `tab` sees `version`.
async fn sees(tab: &mut watch::Receiver<Option<u64>>, version: u64) {
    let waited = tokio::time::timeout(Duration::from_secs(10), tab.wait_for(|v| *v == Some(version))).await;
    assert!(matches!(waited, Ok(Ok(_))), "a tab did not see store_version {version}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_tabs_cost_no_store_reads_between_changes() {
    let dir = tempfile::Builder::new().prefix("m1nd-events-").tempdir().expect("dir");
    Store::init(dir.path(), true).expect("init");
    let service = Service::start(Options::new(dir.path())).expect("service");

    let mut tabs: Vec<_> = (0..TABS).map(|_| service.versions()).collect();
    for tab in &mut tabs {
        sees(tab, 1).await;
    }

    // Idle: no job, no read; at most one cheap check per period, for all the tabs together.
    let before = service.stats();
    let idle_for = VERSION_CHECK * 6;
    tokio::time::sleep(idle_for).await;
    let idle = service.stats();
    let work = |s: &m1nd::service::Stats| (s.reads, s.writes, s.check_reads);
    assert_eq!(work(&idle), work(&before), "{before:?} → {idle:?}");
    let checks = idle.checks - before.checks;
    let periods = (idle_for.as_millis() / VERSION_CHECK.as_millis()) as u64;
    assert!(checks <= periods + 1, "{checks} checks in {periods} periods with {TABS} tabs open");

    // Another connection writes: found by the shared check, read once, told to every tab.
    let mut other = Store::open(dir.path()).expect("open");
    other.memorize("written elsewhere", "test", None, Some(1)).expect("write");
    for tab in &mut tabs {
        sees(tab, 2).await;
    }
    let after = service.stats();
    assert_eq!(after.check_reads - idle.check_reads, 1, "{idle:?} → {after:?}");

    // The service writes: every tab hears it with no read beyond the write.
    let args = json!({ "node_label": "test", "claims": [{ "label": "written here" }], "expected_store_version": 2 });
    let answer = service.call("memorize", args.as_object()).await;
    assert!(!answer.is_error(), "{answer:?}");
    for tab in &mut tabs {
        sees(tab, 3).await;
    }
    let last = service.stats();
    assert_eq!(last.check_reads, after.check_reads, "{after:?} → {last:?}");
    assert_eq!((last.writes, last.commits), (after.writes + 1, after.commits + 1));
}

/// A call whose caller stopped waiting before its turn is dropped unrun.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_nobody_waits_for_is_not_run() {
    let dir = tempfile::Builder::new().prefix("m1nd-abandoned-").tempdir().expect("dir");
    Store::init(dir.path(), true).expect("init");
    let service = Service::start(Options::new(dir.path())).expect("service");
    // Send many calls and give each up at once: polled once, each has queued its
    // job; dropped, nobody waits for the answer any more.
    use futures_util::FutureExt;
    let args = json!({ "node_label": "test", "claims": [{ "label": "abandoned" }]});
    for _ in 0..200 {
        assert!(service.call("memorize", args.as_object()).now_or_never().is_none(), "answered at once");
    }
    let answer = service.call("north", json!({ "task": "t" }).as_object()).await;
    assert!(!answer.is_error(), "{answer:?}");
    // A write is flushed through the writer after every one queued before it.
    let flush =
        service.call("memorize", json!({ "node_label": "test", "claims": [{ "label": "the last" }]}).as_object()).await;
    assert!(!flush.is_error(), "{flush:?}");
    let stats = service.stats();
    let store = Store::open(dir.path()).expect("open");
    let written = store.version().expect("version") - 1;
    assert_eq!(written, stats.writes, "every write handed to the writer landed: {stats:?}");
    assert_eq!(stats.writes + stats.abandoned, 201, "{stats:?}");
    assert!(stats.abandoned > 0, "no queued call was dropped: {stats:?}");
}

#[path = "server_support/pg.rs"]
mod pg;

/// Two services on one PostgreSQL store stand for two replicas. B is not
/// polled: its tabs hear A's write through `LISTEN/NOTIFY`, read once. A
/// storm of notifications that are junk or about another store costs B no
/// read; one about its own store is read at most once per coalescing period.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn another_replicas_write_reaches_the_tabs_through_listen_notify_and_a_storm_costs_little() {
    use m1nd::store::Location;
    let mut schema = pg::PgSchema::new("events");
    let at = Location::from(std::ffi::OsString::from(&schema.location));
    Store::create_at(&at, &Store::demo_state().expect("demo"), 1 << 30).expect("init");
    let incarnation = schema.one("SELECT incarnation FROM store");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let (a, b) = (
        Service::start(Options::new(at.clone())).expect("replica a"),
        Service::start(Options::new(at.clone())).expect("replica b"),
    );
    // Sync database calls run on a plain thread: the client has a runtime of its own.
    let mut storm = |sql: String| std::thread::scope(|s| s.spawn(|| schema.execute(&sql)).join().expect("storm"));
    let mut tabs: Vec<_> = (0..TABS).map(|_| b.versions()).collect();
    runtime.block_on(async {
        for tab in &mut tabs {
            sees(tab, 1).await;
        }
        let idle = b.stats();
        tokio::time::sleep(VERSION_CHECK * 4).await;
        assert_eq!(b.stats().checks, idle.checks, "a PostgreSQL store is not polled");

        let args = json!({ "node_label": "test", "claims": [{ "label": "written on replica a" }], "expected_store_version": 1 });
        let answer = a.call("memorize", args.as_object()).await;
        assert!(!answer.is_error(), "{answer:?}");
        for tab in &mut tabs {
            sees(tab, 2).await;
        }
        let heard = b.stats();
        assert!(heard.notified >= 1 && heard.check_reads > idle.check_reads, "{idle:?} → {heard:?}");
    });

    let before = b.stats();
    storm("SELECT pg_notify('m1nd', 'junk ' || g) FROM generate_series(1, 100000) g".into());
    storm("SELECT pg_notify('m1nd', repeat('f', 32) || ':' || g) FROM generate_series(1, 1000) g".into());
    runtime.block_on(async { tokio::time::sleep(Duration::from_secs(1)).await });
    let junk = b.stats();
    assert_eq!((junk.check_reads, junk.notified), (before.check_reads, before.notified), "junk was read");

    let started = std::time::Instant::now();
    storm(format!("SELECT pg_notify('m1nd', '{incarnation}:' || g) FROM generate_series(1, 20000) g"));
    runtime.block_on(async { tokio::time::sleep(Duration::from_millis(500)).await });
    let reads = b.stats().check_reads - junk.check_reads;
    let periods = started.elapsed().as_millis() / 25;
    assert!(reads >= 1 && u128::from(reads) <= periods + 1, "{reads} reads in {periods} periods of 25 ms");
    runtime.block_on(async {
        assert!(!tabs[0].has_changed().expect("open"), "nothing moved, and no tab was told otherwise");
        let status = b.call("persist", json!({ "action": "status" }).as_object()).await;
        assert!(!status.is_error(), "{status:?}");
    });
    drop((a, b));
}

/// The version a cockpit answer shows.
fn cockpit_version(answer: &m1nd::service::Answer) -> u64 {
    let value = serde_json::to_value(answer.result()).expect("JSON");
    value["structuredContent"]["store_version"].as_u64().unwrap_or_else(|| panic!("no store_version: {value}"))
}

/// On PostgreSQL, as on SQLite, an unchanged cockpit is answered from the
/// kept answer without a reader, and a commit on another replica ends that
/// as soon as this one hears it: the next cockpit shows the new version.
#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_kept_cockpit_on_postgresql_lasts_until_another_replicas_commit_is_heard() {
    use m1nd::store::Location;
    let schema = pg::PgSchema::new("kept");
    let at = Location::from(std::ffi::OsString::from(&schema.location));
    Store::create_at(&at, &Store::demo_state().expect("demo"), 1 << 30).expect("init");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let (a, b) = (
        Service::start(Options::new(at.clone())).expect("replica a"),
        Service::start(Options::new(at.clone())).expect("replica b"),
    );
    runtime.block_on(async {
        // B listens once it has read the version; until then it reads every cockpit.
        let mut tab = b.versions();
        sees(&mut tab, 1).await;
        let first = b.call("cockpit", None).await;
        assert_eq!(cockpit_version(&first), 1);
        let before = b.stats();
        for _ in 0..20 {
            assert_eq!(cockpit_version(&b.call("cockpit", None).await), 1);
        }
        let kept = b.stats();
        assert_eq!(kept.reads, before.reads, "an unchanged cockpit took a reader: {before:?} → {kept:?}");
        assert_eq!(kept.kept_hits - before.kept_hits, 20, "{before:?} → {kept:?}");

        let args = json!({ "node_label": "test", "claims": [{ "label": "written on replica a" }], "expected_store_version": 1 });
        assert!(!a.call("memorize", args.as_object()).await.is_error());
        sees(&mut tab, 2).await;
        assert_eq!(cockpit_version(&b.call("cockpit", None).await), 2, "a stale cockpit after the commit was heard");
    });
    drop((a, b));
}
