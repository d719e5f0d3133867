//! Damage on disk through the real binary: a page overwritten with random
//! bytes makes the reads that meet it fail with an error naming the store
//! and the checksum, `m1nd store check` reports it (exit 1) and writes
//! nothing, an undamaged store checks ok (exit 0), and a store made before
//! checksums gets them with `m1nd store add-checksums`, every row kept.

mod server_support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use m1nd::store::{DB_FILE, DEFAULT_MAX_BYTES, Store};
use serde_json::json;
use server_support::{BIN, Mcp, claims, is_error, snapshot, temp_dir, text, version};

const PAGE: usize = 4096;

fn m1nd(args: &[&str], store: &Path) -> Output {
    Command::new(BIN).args(args).arg("--store").arg(store).output().expect("run m1nd")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A store at `<dir>/store`: the demo seed and `n` memories of about 3,000
/// characters, through a server, so it spans a few dozen pages.
fn filled(store: &Path, n: usize) {
    let mut mcp = Mcp::writable(store);
    for i in 0..n {
        let result = mcp.call(
            "memorize",
            json!({ "node_label": "test", "claims": [{ "label": format!("{i} {}", "m".repeat(3000)) }]}),
        );
        assert!(!is_error(&result), "{result}");
    }
    assert_eq!(mcp.finish(), Some(0));
}

/// The page holding the newest memory (which `boot_memory` lists first).
fn newest_memories_leaf(store: &Path) -> u64 {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let db = rusqlite::Connection::open_with_flags(store.join(DB_FILE), flags).expect("open");
    let page: i64 = db
        .query_row(
            "SELECT pageno FROM dbstat WHERE name = 'memories' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("dbstat");
    page as u64
}

/// 4 KiB of seeded random bytes over page `page` of the store's file.
fn damage(store: &Path, page: u64) {
    let path = store.join(DB_FILE);
    let mut bytes = fs::read(&path).expect("read");
    let at = (page as usize - 1) * PAGE;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ page;
    for b in &mut bytes[at..at + PAGE] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    fs::write(&path, bytes).expect("write");
}

#[test]
fn an_undamaged_store_checks_ok_and_check_writes_nothing() {
    let dir = temp_dir("integrity-ok");
    let store = dir.path().join("store");
    Store::init(&store, true).expect("init");
    filled(&store, 3);
    let before = snapshot(&store);
    let out = m1nd(&["store", "check"], &store);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.starts_with(&format!("ok: {}", store.join(DB_FILE).display())), "{said}");
    assert!(said.contains("checksums: every page has one"), "{said}");
    assert_eq!(snapshot(&store), before, "store check changed the store");
}

#[test]
fn a_damaged_page_is_a_checksum_error_for_reads_and_for_check() {
    let dir = temp_dir("integrity-damaged");
    let store = dir.path().join("store");
    Store::init(&store, true).expect("init");
    filled(&store, 24);
    let page = newest_memories_leaf(&store);
    damage(&store, page);
    let damaged = snapshot(&store);
    let path = store.join(DB_FILE).display().to_string();

    let mut mcp = Mcp::read_only(&store);
    let result = mcp.call("boot_memory", json!({"action": "list"}));
    assert!(is_error(&result), "a read of a damaged page answered: {result}");
    let message = text(&result);
    assert!(message.contains(&path) && message.contains("checksum"), "{message}");
    assert_eq!(mcp.finish(), Some(0));

    let out = m1nd(&["store", "check"], &store);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(said.contains(&format!("damaged: {path}")), "{said}");
    assert!(said.contains(&format!("page {page} fails its checksum (part of `memories`)")), "{said}");
    assert_eq!(snapshot(&store), damaged, "a read or the check wrote to the damaged store");
}

#[test]
fn a_store_without_checksums_gets_them_with_add_checksums() {
    let dir = temp_dir("integrity-upgrade");
    let store = dir.path().join("store");
    let seed = Store::demo_state().expect("demo");
    Store::create_without_checksums(&store, &seed, DEFAULT_MAX_BYTES).expect("an old store");
    filled(&store, 8);
    let (rows, at) = (claims(&store), version(&store));

    let out = m1nd(&["store", "check"], &store);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("checksums: none"), "{said}");
    assert!(said.contains("store add-checksums --store"), "{said}");

    let out = m1nd(&["store", "add-checksums"], &store);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("added a checksum to each of the"), "{}", stdout(&out));
    assert_eq!((claims(&store), version(&store)), (rows, at), "the rewrite changed the state");
    let out = m1nd(&["store", "check"], &store);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("checksums: every page has one"), "{}", stdout(&out));

    let before = snapshot(&store);
    let out = m1nd(&["store", "add-checksums"], &store);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("already has page checksums"), "{}", stdout(&out));
    assert_eq!(snapshot(&store), before);
}

#[test]
fn check_refuses_what_is_not_a_store() {
    let dir = temp_dir("integrity-none");
    let missing = m1nd(&["store", "check"], &dir.path().join("nowhere"));
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(!dir.path().join("nowhere").exists());
    let store = dir.path().join("garbage");
    fs::create_dir(&store).expect("dir");
    fs::write(store.join(DB_FILE), b"not a database at all").expect("write");
    let garbage = m1nd(&["store", "check"], &store);
    assert_eq!(garbage.status.code(), Some(1), "{}", stderr(&garbage));
    assert!(stderr(&garbage).contains("damaged:"), "{}", stderr(&garbage));
}

/// `m1nd store backup` beside a running server: a checked copy with every
/// checksum, restorable as a store; an existing file is never replaced.
#[test]
fn a_backup_beside_a_running_server_is_a_checked_store() {
    let dir = temp_dir("integrity-backup");
    let store = dir.path().join("store");
    Store::init(&store, true).expect("init");
    filled(&store, 6);
    let mut mcp = Mcp::writable(&store);
    let copy = dir.path().join("copy.db");
    let out = Command::new(BIN).args(["store", "backup"]).arg(&copy).arg("--store").arg(&store).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("with a checksum on every page; checked"), "{}", stdout(&out));
    let result = mcp.call("memorize", json!({ "node_label": "test", "claims": [{ "label": "after the backup" }]}));
    assert!(!is_error(&result), "{result}");
    assert_eq!(mcp.finish(), Some(0));

    let restored = dir.path().join("restored");
    fs::create_dir(&restored).expect("dir");
    fs::copy(&copy, restored.join(DB_FILE)).expect("restore");
    let check = m1nd(&["store", "check"], &restored);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(stdout(&check).contains("checksums: every page has one"), "{}", stdout(&check));
    let mut kept = claims(&store);
    assert_eq!(kept.pop().as_deref(), Some("after the backup"));
    assert_eq!(claims(&restored), kept, "the copy is not the store as it was");

    let before = fs::read(&copy).expect("read");
    let again =
        Command::new(BIN).args(["store", "backup"]).arg(&copy).arg("--store").arg(&store).output().expect("run");
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(stderr(&again).contains("refusing to overwrite"), "{}", stderr(&again));
    assert_eq!(fs::read(&copy).expect("read"), before);
}
