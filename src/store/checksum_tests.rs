//! The checksum layer itself (src/store/checksum_vfs.c): the on-disk format
//! it writes, `verify_checksum()`, and `PRAGMA checksum_verification`.

use std::fs;

use rusqlite::OpenFlags;

use super::test_dir::test_dir;
use super::*;

const PAGE: usize = 4096;

/// 64-bit FNV-1a, written out here as the test's own oracle for the format
/// the C layer documents.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// `page` with its checksum in its last [`checksum::RESERVED_BYTES`] bytes
/// (the Rust side's count; the format test fails if the C layer's differs).
fn sealed(mut page: Vec<u8>) -> Vec<u8> {
    let n = page.len() - usize::from(checksum::RESERVED_BYTES);
    let sum = fnv1a64(&page[..n]).to_le_bytes();
    page[n..].copy_from_slice(&sum);
    page
}

fn verify(conn: &Connection, blob: &rusqlite::types::Value) -> Option<i64> {
    conn.query_row(super::sql::VERIFY_PAGE, [blob], |r| r.get(0)).expect("verify_checksum")
}

#[test]
fn every_page_of_a_new_store_ends_in_the_fnv1a_of_the_rest() {
    let dir = test_dir("checksum-format");
    let mut store = Store::init(dir.path(), true).expect("init");
    for i in 0..8 {
        store.memorize(&format!("{i} {}", "f".repeat(2000)), "checksum test", None, None).expect("memorize");
    }
    let bytes = fs::read(store.path()).expect("read");
    assert!(bytes.len() >= 4 * PAGE && bytes.len().is_multiple_of(PAGE), "{} bytes", bytes.len());
    for (i, page) in bytes.chunks(PAGE).enumerate() {
        assert_eq!(sealed(page.to_vec()), page, "page {} has no valid checksum", i + 1);
    }
}

#[test]
fn verify_checksum_answers_one_zero_or_null() {
    checksum::register().expect("register");
    let conn = Connection::open_in_memory().expect("open");
    let page = sealed((0..PAGE).map(|i| (i * 7 % 251) as u8).collect());
    assert_eq!(verify(&conn, &page.clone().into()), Some(1));
    for at in [0, 20, PAGE / 2, PAGE - 9, PAGE - 1] {
        let mut bad = page.clone();
        bad[at] ^= 0x01;
        assert_eq!(verify(&conn, &bad.into()), Some(0), "a flipped bit at {at} went unseen");
    }
    // Not a page: a size SQLite pages never have, or not a blob at all.
    assert_eq!(verify(&conn, &page[..100].to_vec().into()), None);
    assert_eq!(verify(&conn, &sealed(vec![0; 3000]).into()), None);
    assert_eq!(verify(&conn, &"text".to_owned().into()), None);
    assert_eq!(verify(&conn, &rusqlite::types::Value::Null), None);
}

#[test]
fn checksum_verification_is_switched_per_connection() {
    let dir = test_dir("checksum-pragma");
    let store = Store::init(dir.path(), true).expect("init");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let one = connect(store.path(), flags).expect("open");
    let two = connect(store.path(), flags).expect("open");
    let value = |c: &Connection| -> String {
        c.query_row("PRAGMA checksum_verification", [], |r| r.get(0)).expect("query the pragma")
    };
    assert_eq!(value(&one), "1", "verification is on unless switched off");
    let answer: String = one.query_row("PRAGMA checksum_verification = OFF", [], |r| r.get(0)).expect("switch off");
    assert_eq!(answer, "0");
    assert_eq!((value(&one), value(&two)), ("0".to_owned(), "1".to_owned()));
    one.pragma_update(None, "checksum_verification", "on").expect("switch on");
    assert_eq!(value(&one), "1");
    let err = one.pragma_update(None, "checksum_verification", "maybe").expect_err("not a switch");
    assert!(err.to_string().contains("checksum_verification takes ON or OFF"), "{err}");
    // Other pragmas are still SQLite's.
    let size: i64 = one.pragma_query_value(None, "page_size", |r| r.get(0)).expect("page_size");
    assert_eq!(size, PAGE as i64);
}

/// A state with `n` alerts besides the demo's, as the load test seeds it.
fn many_alerts(n: usize) -> State {
    let mut state = demo::state().expect("demo");
    let template = state.alerts[0].clone();
    state.alerts.extend((0..n).map(|i| state::Alert {
        id: format!("al_many{i:08}"),
        text: format!("{} {i} {}", template.text, "x".repeat(i % 97)),
        ..template.clone()
    }));
    state
}

#[test]
fn a_page_sqlite_skips_writing_past_the_end_reads_back_with_a_checksum() {
    // build()'s steps, with a cache far smaller than the state: pages spill
    // mid-transaction, and a page freed meanwhile is skipped (never written)
    // while later pages are, leaving a gap the file's end moved past. Read
    // back, the gap must be a page with its checksum, not a hole of zeros.
    let dir = test_dir("checksum-gap");
    let path = dir.path().join("gap.db");
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = connect(&path, flags).expect("open");
    configure(&mut conn, &path).expect("configure");
    checksum::reserve(&conn).expect("reserve");
    conn.pragma_update(None, "journal_mode", "DELETE").expect("journal_mode");
    let tx = conn.transaction().expect("begin");
    schema::migrate(&tx, 0, schema::VERSION).expect("migrate");
    tx.commit().expect("commit");
    conn.pragma_update(None, "cache_size", 10).expect("cache_size");
    let tx = conn.transaction().expect("begin");
    load::load(super::db::Db::Sqlite(&tx), &many_alerts(6000), DEFAULT_MAX_BYTES).expect("a load whose pages spill");
    tx.commit().expect("commit");
    conn.close().expect("close");
    let bytes = fs::read(&path).expect("read");
    for (i, page) in bytes.chunks(PAGE).enumerate() {
        assert_eq!(sealed(page.to_vec()), page, "page {} has no valid checksum", i + 1);
    }
}
