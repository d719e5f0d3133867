//! Damage on disk: pages overwritten with random bytes are an error naming
//! the store and the checksum, never a wrong answer; `check` finds them;
//! a store made before checksums gets them without losing a row.

use std::fs;
use std::path::Path;

use rusqlite::types::Value;

use super::test_dir::{files, test_dir};
use super::*;

const PAGE: usize = 4096;

/// `n` memories of about 3,000 characters: a store of a few dozen pages.
fn fill(store: &mut Store, n: usize) {
    for i in 0..n {
        let claim = format!("{i} {}", "m".repeat(3000));
        store.memorize(&claim, "integrity test", None, None).expect("memorize");
    }
}

/// 4 KiB of (seeded, so reproducible) random bytes over page `page`.
fn damage(path: &Path, page: u64) {
    let mut bytes = fs::read(path).expect("read");
    let at = (page as usize - 1) * PAGE;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ page;
    for b in &mut bytes[at..at + PAGE] {
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    fs::write(path, bytes).expect("write");
}

/// Each table's name with its rows, as SQLite returns them, or the error
/// its read met.
type TableRows = Vec<(String, Result<Vec<Vec<Value>>, StoreError>)>;

/// Every row of every table.
fn every_row(store: &Store) -> TableRows {
    let tables: Vec<String> = {
        let mut stmt =
            store.lite().prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").expect("schema");
        stmt.query_map([], |r| r.get(0)).expect("names").collect::<rusqlite::Result<_>>().expect("names")
    };
    tables
        .into_iter()
        .map(|table| {
            let rows = (|| -> rusqlite::Result<Vec<Vec<Value>>> {
                let mut stmt = store.lite().prepare(&format!("SELECT * FROM \"{table}\""))?;
                let width = stmt.column_count();
                let rows = stmt.query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())?;
                rows.collect()
            })();
            (table, rows.map_err(|e| StoreError::sql(store.path(), "read", &e)))
        })
        .collect()
}

/// The page holding the newest memory's row: the rightmost leaf of `memories`.
fn newest_memories_leaf(store: &Store) -> u64 {
    store
        .lite()
        .query_row(
            "SELECT pageno FROM dbstat WHERE name = 'memories' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|page| page as u64)
        .expect("dbstat")
}

fn assert_checksum_fault(err: &StoreError, path: &Path) {
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("checksum"), "{text}");
    assert!(text.contains("store check"), "{text}");
}

#[test]
fn a_new_store_has_checksums_and_checks_ok() {
    let dir = test_dir("check-ok");
    let mut store = Store::init(dir.path(), true).expect("init");
    fill(&mut store, 3);
    let before = files(&store);
    assert_eq!(before[0].1[checksum::RESERVED_BYTES_OFFSET], checksum::RESERVED_BYTES);
    let report = check(dir.path()).expect("check");
    assert!(report.is_sound() && report.has_checksums(), "{report:?}");
    assert_eq!(report.pages, before[0].1.len() as u64 / PAGE as u64);
    assert_eq!(files(&store), before, "check changed the store");
}

#[test]
fn a_damaged_page_read_is_a_checksum_error_and_check_names_the_page() {
    let dir = test_dir("check-damaged");
    let mut store = Store::init(dir.path(), true).expect("init");
    fill(&mut store, 24);
    let leaf = newest_memories_leaf(&store);
    let path = store.path().to_owned();
    drop(store);
    damage(&path, leaf);
    let damaged = fs::read(&path).expect("read");

    // Opening reads the schema and the store row, not that page.
    let store = Store::open(dir.path()).expect("open");
    let err = store.snapshot().and_then(|s| s.read(Read::Memories, &[]).map(drop)).expect_err("read the damaged page");
    assert_checksum_fault(&err, &path);

    let report = check(dir.path()).expect("check");
    assert!(!report.is_sound());
    assert_eq!(report.damaged, [DamagedPage { page: leaf, owner: Some("memories".to_owned()) }], "{report:?}");
    assert_eq!(fs::read(&path).expect("read"), damaged, "a read or the check wrote to the damaged store");
}

/// The brief's measurement: 4 KiB of random bytes in the middle of the file.
/// Every table read either gives exactly the rows it gave before, or fails
/// with the checksum error; none gives other rows.
#[test]
fn random_bytes_in_the_middle_never_give_a_wrong_answer() {
    let dir = test_dir("check-middle");
    let mut store = Store::init(dir.path(), true).expect("init");
    fill(&mut store, 24);
    let before = every_row(&store);
    assert!(before.iter().all(|(_, rows)| rows.is_ok()));
    let path = store.path().to_owned();
    let pages = fs::metadata(&path).expect("stat").len() / PAGE as u64;
    let middle = pages / 2;
    drop(store);
    damage(&path, middle);

    let store = Store::open(dir.path()).expect("open");
    let after = every_row(&store);
    let mut failed = 0;
    for ((table, was), (_, now)) in before.iter().zip(&after) {
        match now {
            Ok(rows) => assert_eq!(rows, was.as_ref().expect("rows"), "{table}: other rows, and no error"),
            Err(e) => {
                assert_checksum_fault(e, &path);
                failed += 1;
            }
        }
    }
    assert!(failed > 0, "no read met page {middle} of {pages}");
    let report = check(dir.path()).expect("check");
    assert_eq!(report.damaged.iter().map(|d| d.page).collect::<Vec<_>>(), [middle], "{report:?}");
}

#[test]
fn a_store_without_checksums_gets_them_and_keeps_every_row() {
    let dir = test_dir("add-checksums");
    let mut store =
        Store::create_without_checksums(dir.path(), &demo::state().expect("demo"), DEFAULT_MAX_BYTES).expect("create");
    fill(&mut store, 12);
    let version = store.version().expect("version");
    let rows = every_row(&store);
    let report = check(dir.path()).expect("check");
    assert!(report.is_sound() && !report.has_checksums(), "{report:?}");
    assert_eq!(report.reserved, 0);

    // A cache far smaller than the store: pages would spill to the file
    // mid-rewrite if the rewrite let them (before page 1 says "checksums").
    store.lite().pragma_update(None, "cache_size", 5).expect("cache_size");
    assert!(matches!(store.add_checksums().expect("add"), Checksums::Added { .. }));
    assert_eq!(store.version().expect("version"), version, "adding checksums is not a state write");
    let unchanged = |now: TableRows| now.into_iter().map(|(t, r)| (t, r.expect("rows"))).collect::<Vec<_>>();
    assert_eq!(unchanged(every_row(&store)), unchanged(rows), "a row changed");
    let report = check(dir.path()).expect("check");
    assert!(report.is_sound() && report.has_checksums(), "{report:?}");

    // Again: nothing to do, nothing written.
    let before = files(&store);
    assert_eq!(store.add_checksums().expect("again"), Checksums::AlreadyThere);
    assert_eq!(files(&store), before);
    // Writes go on, checksummed, and reopening sees the same.
    fill(&mut store, 2);
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(store.version().expect("version"), version + 2);
    assert!(check(dir.path()).expect("check").is_sound());

    // And damage is now caught.
    let leaf = newest_memories_leaf(&store);
    drop(store);
    damage(&dir.path().join(DB_FILE), leaf);
    let store = Store::open(dir.path()).expect("open");
    let err = store.snapshot().and_then(|s| s.read(Read::Memories, &[]).map(drop)).expect_err("damaged");
    assert_checksum_fault(&err, &dir.path().join(DB_FILE));
}

#[test]
fn the_size_cap_is_named_and_can_be_raised() {
    let dir = test_dir("set-max-bytes");
    let mut store = Store::create(dir.path(), &State::empty(), MIN_MAX_BYTES).expect("create");
    let claim = "c".repeat(MAX_CLAIM_CHARS);
    let refused = (0..500).find_map(|_| store.memorize(&claim, "test", None, None).err()).expect("the cap never held");
    let StoreError::Full { ref why, .. } = refused else { panic!("{refused:?}") };
    assert_eq!(why.causes, [Cause::SizeCap], "{refused}");
    let text = refused.to_string();
    assert!(text.contains("size cap: the store declares at most 262144 bytes"), "{text}");
    assert!(text.contains("store set-max-bytes"), "{text}");

    let version = store.version().expect("version");
    let held = fs::metadata(store.path()).expect("stat").len();
    let low = store.set_max_bytes(held - 1).expect_err("below what it holds");
    assert!(matches!(low, StoreError::BadArgument(_)), "{low:?}");
    assert!(matches!(store.set_max_bytes(1), Err(StoreError::BadArgument(_))));
    assert_eq!(store.set_max_bytes(4 * MIN_MAX_BYTES).expect("raise"), version + 1);
    assert_eq!(store.max_bytes(), 4 * MIN_MAX_BYTES);
    store.memorize(&claim, "test", None, None).expect("fits under the raised cap");
    assert_eq!(Store::open(dir.path()).expect("reopen").max_bytes(), 4 * MIN_MAX_BYTES);
}

#[test]
fn a_backup_is_a_checked_copy_with_checksums_and_never_replaces_a_file() {
    let dir = test_dir("backup");
    let mut store = Store::init(dir.path().join("s"), true).expect("init");
    fill(&mut store, 12);
    let rows = every_row(&store);
    let before = files(&store);
    let copy = dir.path().join("copy.db");
    store.lite().pragma_update(None, "cache_size", 5).expect("a cache far smaller than the store");
    let report = store.backup(&copy).expect("backup");
    assert!(report.is_sound() && report.has_checksums(), "{report:?}");
    assert_eq!(report.path, copy);
    assert_eq!(files(&store), before, "the backup changed the store");
    let names: Vec<_> = fs::read_dir(dir.path()).expect("list").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 2, "a temporary file was left: {names:?}");

    // The copy is the store: restored as a state.db, it opens with the same rows.
    let restored = dir.path().join("r");
    fs::create_dir(&restored).expect("dir");
    fs::copy(&copy, restored.join(DB_FILE)).expect("restore");
    let reopened = Store::open(&restored).expect("open the restored copy");
    let plain = |t: TableRows| t.into_iter().map(|(n, r)| (n, r.expect("rows"))).collect::<Vec<_>>();
    assert_eq!(plain(every_row(&reopened)), plain(rows));
    assert!(check(&restored).expect("check").is_sound());

    let again = store.backup(&copy).expect_err("the copy exists");
    assert!(matches!(again, StoreError::AlreadyExists { .. }), "{again:?}");
}

/// A store created from a state larger than SQLite's page cache: pages
/// spill to the file during the load, and each must still get its checksum.
#[test]
fn a_store_created_larger_than_the_cache_has_every_checksum() {
    let dir = test_dir("create-large");
    let mut state = demo::state().expect("demo");
    let at = state.memories[0].at.clone();
    for i in 0..1500 {
        let claim = format!("{i} {}", "k".repeat(2500));
        state.memories.push(Memory {
            id: format!("mem_{:08x}", 0x1000_0000 + i),
            claim,
            source: "bulk".into(),
            at: at.clone(),
        });
    }
    let store = Store::create(dir.path(), &state, DEFAULT_MAX_BYTES).expect("create");
    assert!(fs::metadata(store.path()).expect("stat").len() > 3 << 20, "not larger than the 2 MiB cache");
    let report = check(dir.path()).expect("check");
    assert!(report.is_sound() && report.has_checksums(), "{:?}", &report.damaged[..report.damaged.len().min(3)]);
}

/// Page 1 damaged: nothing opens the store, and `check` still runs (without
/// SQLite's lock, which needs page 1) and names page 1.
#[test]
fn a_damaged_first_page_is_reported_by_check() {
    let dir = test_dir("check-page-1");
    let store = Store::init(dir.path(), true).expect("init");
    let path = store.path().to_owned();
    drop(store);
    let mut bytes = fs::read(&path).expect("read");
    // Past the 100-byte header, so the file is still recognisably SQLite.
    for b in &mut bytes[200..1200] {
        *b ^= 0xa5;
    }
    fs::write(&path, &bytes).expect("write");
    let err = Store::open(dir.path()).expect_err("open");
    assert_checksum_fault(&err, &path);
    let report = check(dir.path()).expect("check");
    assert_eq!(report.damaged.first().map(|d| d.page), Some(1), "{report:?}");
    assert!(!report.is_sound());
    assert_eq!(fs::read(&path).expect("read"), bytes);
}
