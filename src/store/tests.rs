//! The store's own tests: making, opening, refusing and migrating a store in a directory.

use super::test_dir::{racing_inits, test_dir};
use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into()).collect();
    names.sort();
    names
}

#[test]
fn init_then_open_round_trips_and_leaves_one_file() {
    let dir = test_dir("init-open");
    let store_dir = dir.path().join(DEFAULT_DIR);
    let created = Store::init(&store_dir, false).expect("init");
    assert_eq!(created.version().expect("version"), 1);
    assert_eq!(created.path(), store_dir.join(DB_FILE));
    assert_eq!(names(&store_dir), [DB_FILE]);
    let opened = Store::open(&store_dir).expect("open");
    assert_eq!(opened.version().expect("version"), 1);
    assert_eq!(opened.dir(), store_dir);
    assert_eq!(opened.max_bytes(), DEFAULT_MAX_BYTES);

    let demo_dir = dir.path().join("demo");
    let demo = Store::init(&demo_dir, true).expect("init demo");
    assert_eq!(demo.snapshot().expect("read").counts().expect("counts").memories, 7);
    assert_eq!(names(&demo_dir), [DB_FILE]);
}

#[test]
fn the_journal_mode_is_a_rollback_journal() {
    let dir = test_dir("journal-mode");
    let store = Store::init(dir.path(), true).expect("init");
    let mode: String = store.lite().pragma_query_value(None, "journal_mode", |r| r.get(0)).expect("mode");
    assert_eq!(mode, "delete");
    let sync: i64 = store.lite().pragma_query_value(None, "synchronous", |r| r.get(0)).expect("sync");
    assert_eq!(sync, 3, "synchronous = EXTRA");
    let header = fs::read(store.path()).expect("read");
    assert_eq!((header[18], header[19]), (1, 1), "the file format says rollback journal");
}

#[test]
fn open_never_creates() {
    let dir = test_dir("open-missing");
    let missing = dir.path().join("nowhere");
    let err = Store::open(&missing).expect_err("missing");
    assert!(matches!(err, StoreError::NotFound { .. }));
    let text = err.to_string();
    assert!(text.contains(&missing.join(DB_FILE).display().to_string()));
    let create = crate::invocation::m1nd(&format!("init --store {}", missing.display()));
    assert!(text.contains(&create), "the advice spells --store: {text}");
    assert!(!missing.exists());
}

#[test]
fn a_relative_store_is_named_by_its_absolute_path() {
    let err = Store::open("no-such-store-dir").expect_err("missing");
    let absolute = std::env::current_dir().expect("cwd").join("no-such-store-dir");
    let text = err.to_string();
    assert!(text.contains(&format!("init --store {}", absolute.display())), "{text}");
}

#[test]
fn permission_refusals_say_who_needs_what() {
    let denied = StoreError::io(
        Path::new("/srv/m1nd/state.db"),
        "open",
        std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    );
    let text = denied.to_string();
    assert!(text.contains("read and write permission on /srv/m1nd"), "{text}");
    assert!(text.contains("chmod u+rwx /srv/m1nd"), "{text}");
    let other = StoreError::io(Path::new("/srv/m1nd/state.db"), "open", std::io::Error::other("odd"));
    assert_eq!(other.to_string(), "cannot open /srv/m1nd/state.db: odd");
}

#[test]
fn init_refuses_to_overwrite() {
    let dir = test_dir("init-twice");
    Store::init(dir.path(), true).expect("first init");
    let path = dir.path().join(DB_FILE);
    for demo in [false, true] {
        let err = Store::init(dir.path(), demo).expect_err("second init");
        assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()));
        let open = crate::invocation::m1nd(&format!("cockpit --store {}", dir.path().display()));
        assert!(err.to_string().contains(&open), "the refusal says how to open it: {err}");
    }
    // Even a corrupt file is not replaced by init.
    fs::write(&path, b"garbage").expect("corrupt");
    assert!(matches!(Store::init(dir.path(), false), Err(StoreError::AlreadyExists { .. })));
    assert_eq!(fs::read(&path).expect("read"), b"garbage");
    assert_eq!(names(dir.path()), [DB_FILE], "init left a temp file behind");
}

/// Inits racing on one directory: exactly one creates the store, the
/// others are refused, and no temp file is left.
#[test]
fn racing_inits_create_one_store() {
    let dir = test_dir("init-race");
    let created = racing_inits(4, |n| Store::init(dir.path(), n % 2 == 0));
    assert_eq!(created.iter().filter(|c| **c).count(), 1, "{created:?}");
    assert_eq!(names(dir.path()), [DB_FILE]);
    assert_eq!(Store::open(dir.path()).expect("open").version().expect("version"), 1);
}

#[test]
fn corrupt_files_are_reported_with_their_path_and_kept() {
    let dir = test_dir("corrupt");
    let good = Store::init(dir.path(), true).expect("init");
    let path = good.path().to_owned();
    let bytes = fs::read(&path).expect("read");
    drop(good);
    let mut flipped = bytes.clone();
    for b in &mut flipped[100..4096] {
        *b ^= 0x5a;
    }
    let mut newer = bytes.clone();
    newer[60..64].copy_from_slice(&99u32.to_be_bytes());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x00\xffnot a database at all, not at all".to_vec()),
        ("empty", Vec::new()),
        ("json", b"{\"format\": \"m1nd-store-v1\"}".to_vec()),
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("page 1 scrambled", flipped),
        ("newer schema", newer),
    ];
    for (name, case) in cases {
        fs::write(&path, &case).expect("write case");
        let err = match Store::open(dir.path()).and_then(|s| s.snapshot().and_then(|r| r.counts())) {
            Err(err) => err,
            Ok(counts) => panic!("{name}: opened and read {counts:?}"),
        };
        assert!(matches!(err, StoreError::Corrupt { .. }), "{name}: expected Corrupt, got {err:?}");
        assert!(err.to_string().contains(&path.display().to_string()), "{name}: {err}");
        assert_eq!(fs::read(&path).expect("read"), case, "{name}: the file was changed");
    }
}

#[test]
fn an_older_schema_is_migrated_on_open() {
    let dir = test_dir("migrate");
    let path = dir.path().join(DB_FILE);
    let conn = Connection::open(&path).expect("create");
    schema::migrate(&conn, 0, 1).expect("step 1");
    conn.execute("INSERT INTO store (one, store_version, checkpoints, max_bytes) VALUES (1, 4, 0, 1000000)", [])
        .expect("store row");
    drop(conn);
    let store = Store::open(dir.path()).expect("open");
    assert_eq!(store.version().expect("version"), 4);
    assert_eq!(schema::version(store.lite()).expect("schema"), schema::VERSION);
    assert_eq!(store.max_bytes(), 1_000_000);
}

#[test]
fn import_keeps_versions_and_refuses_bad_files() {
    let dir = test_dir("import");
    let mut state = demo::state().expect("demo");
    state.store_version = 41;
    state.checkpoints = 3;
    let json = dir.path().join(STATE_JSON);
    fs::write(&json, serde_json::to_vec_pretty(&state).expect("encode")).expect("write");
    let before = fs::read(&json).expect("read");
    let store = Store::import(dir.path().join("s"), &json, DEFAULT_MAX_BYTES).expect("import");
    let snapshot = store.snapshot().expect("read");
    assert_eq!(snapshot.version(), 41);
    assert_eq!(snapshot.counts().expect("counts"), state.counts());
    assert_eq!(fs::read(&json).expect("read"), before, "import changed its source");

    let again = Store::import(dir.path().join("s"), &json, DEFAULT_MAX_BYTES).expect_err("twice");
    assert!(matches!(again, StoreError::AlreadyExists { .. }));
    let small = Store::import(dir.path().join("u"), &json, 10).expect_err("tiny limit");
    assert!(matches!(small, StoreError::BadArgument(_)));
    let mut huge = state.clone();
    huge.store_version = u64::MAX;
    let err = Store::create(dir.path().join("v"), &huge, DEFAULT_MAX_BYTES).expect_err("too large");
    assert!(matches!(err, StoreError::BadArgument(_)), "{err:?}");
    fs::write(&json, b"{").expect("corrupt");
    let err = Store::import(dir.path().join("t"), &json, DEFAULT_MAX_BYTES).expect_err("corrupt");
    assert!(matches!(err, StoreError::Corrupt { line: 1, .. }), "{err:?}");
    assert!(!dir.path().join("t").join(DB_FILE).exists());
}
