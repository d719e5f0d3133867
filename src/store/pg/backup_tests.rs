//! A live store backed up the way the guide tells an operator to
//! (`docs/guide/src/postgresql.md`): `pg_dump -Fc` of the store's schema
//! while a writer writes, `pg_restore` into another database, and the
//! restored store opened by m1nd. The dump is one snapshot, so the restored
//! store is exactly the store at one version: as many memories as writes up
//! to that version, each of them, and it takes writes of its own.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use super::super::location::Location;
use super::super::{DEFAULT_MAX_BYTES, State, Store};
use super::scratch::Scratch;

/// A client program of Debian's postgresql package (`pg_dump`, `pg_restore`).
fn program(name: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("Debian's postgresql package (/usr/lib/postgresql)")
        .filter_map(|entry| Some(entry.ok()?.path().join("bin").join(name)))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| panic!("no {name} under /usr/lib/postgresql"))
}

fn run(command: &mut Command) {
    let out = command.output().expect("the program runs");
    assert!(out.status.success(), "{command:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn a_store_dumped_while_written_restores_to_the_store_at_one_version() {
    let db = Scratch::new();
    let at = db.location();
    drop(Store::create_at(&at, &State::empty(), DEFAULT_MAX_BYTES).expect("a store"));
    let first = Store::open_at(&at).expect("open").version().expect("version");

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (at, stop) = (at.clone(), Arc::clone(&stop));
        thread::spawn(move || {
            let mut store = Store::open_at(&at).expect("open");
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                n += 1;
                store.memorize(&format!("claim {n}"), "backup", None, None).expect("a write");
            }
            n
        })
    };
    thread::sleep(Duration::from_millis(300));
    let dir = tempfile::tempdir().expect("dir");
    let dump = dir.path().join("store.dump");
    run(Command::new(program("pg_dump"))
        .args(["--format=custom", "--schema", &db.name, "--file"])
        .arg(&dump)
        .arg(format!("--dbname={}", db.server())));
    thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().expect("the writer");

    let restored_db = format!("{}_restored", db.name);
    let mut admin = Client::connect(db.server(), NoTls).expect("connect");
    admin.batch_execute(&format!("CREATE DATABASE {restored_db}")).expect("a database to restore into");
    let (base, _) = db.server().rsplit_once('/').expect("a URL with a database");
    let restored_url = format!("{base}/{restored_db}");
    run(Command::new(program("pg_restore")).arg(format!("--dbname={restored_url}")).arg(&dump));

    let restored_at: Location =
        format!("{restored_url}?options=-c%20search_path%3D{}", db.name).parse().unwrap_or_else(|never| match never {});
    let mut restored = Store::open_at(&restored_at).expect("m1nd opens the restored store");
    let version = restored.version().expect("version");
    let landed = usize::try_from(version - first).expect("a count");
    assert!(0 < landed && landed < written, "the dump was taken mid-burst: {landed} of {written}");
    let mut client = Client::connect(&restored_url, NoTls).expect("connect");
    let claims: BTreeSet<String> = client
        .query(&format!("SELECT claim FROM {}.memories", db.name), &[])
        .expect("claims")
        .iter()
        .map(|row| row.get(0))
        .collect();
    let expected: BTreeSet<String> = (1..=landed).map(|n| format!("claim {n}")).collect();
    assert_eq!(claims, expected, "the restored store is the store at version {version}");
    restored.memorize("after the restore", "backup", None, None).expect("the restored store takes writes");
    assert_eq!(restored.version().expect("version"), version + 1);

    drop((restored, client));
    let _ = admin.batch_execute(&format!("DROP DATABASE {restored_db} WITH (FORCE)"));
}
