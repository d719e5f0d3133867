//! The store under real faults, through the real binary: many writers,
//! `kill -9`, files changed under running servers, size and file-size
//! limits, corrupt files. Every loop is bounded in count and time. Many
//! writers and `kill -9` run on a PostgreSQL store too; the rest are about
//! a SQLite store's files.

mod server_support;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use m1nd::store::{DB_FILE, JOURNAL_FILE, MAX_CLAIM_CHARS, Store};
use serde_json::{Value, json};
use server_support::{BIN, Mcp, claims, database, demo_store, is_error, snapshot, temp_dir, text, version};

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into()).collect();
    names.sort();
    names
}

/// Open the store the way the next server would (rolling back a journal a
/// crash left), and return its version.
fn reopen(store: &Path) -> u64 {
    if database(store).is_some() {
        return version(store);
    }
    Store::open(store).and_then(|s| s.version()).unwrap_or_else(|e| panic!("the store does not open: {e}"))
}

fn memorize(mcp: &mut Mcp, claim: &str) -> Value {
    mcp.call("memorize", json!({ "node_label": "faults", "claims": [{ "label": claim }] }))
}

/// N servers × M writes each, all at once, no expected version: the version
/// moves by exactly N × M, every claim is there once, every id is unique.
fn n_servers_by_m_writes_move_the_version_by_exactly_n_times_m(store: &Path) {
    const SERVERS: usize = 4;
    const EACH: usize = 12;
    let (before, claims_before) = (version(store), claims(store).len());
    let start = std::sync::Barrier::new(SERVERS);
    std::thread::scope(|scope| {
        for server in 0..SERVERS {
            let start = &start;
            scope.spawn(move || {
                let mut mcp = Mcp::writable(store);
                start.wait();
                for n in 0..EACH {
                    let result = memorize(&mut mcp, &format!("nxm {server}.{n}"));
                    assert!(!is_error(&result), "{result}");
                }
                assert_eq!(mcp.finish(), Some(0));
            });
        }
    });
    assert_eq!(version(store), before + (SERVERS * EACH) as u64);
    let after = claims(store);
    assert_eq!(after.len(), claims_before + SERVERS * EACH);
    let unique: HashSet<&String> = after.iter().collect();
    assert_eq!(unique.len(), after.len(), "a claim was stored twice");
    for server in 0..SERVERS {
        for n in 0..EACH {
            assert!(after.contains(&format!("nxm {server}.{n}")), "nxm {server}.{n} was lost");
        }
    }
    if database(store).is_none() {
        assert_eq!(names(store), [DB_FILE]);
    }
}

/// `kill -9` a server while pipelined writes are in flight, at a different
/// point each round: the store opens, every acknowledged write is there,
/// the version counts exactly the writes that landed, at most one journal
/// is left between writes, and the next write leaves only `state.db`.
/// (The JSON store left a temp file holding a full copy of the state after
/// such a kill, one more per crash.)
fn kill_9_during_writes_loses_no_acknowledged_write_and_leaves_nothing(store: &Path) {
    const ROUNDS: usize = 6;
    const PIPELINED: usize = 30;
    let mut acknowledged: Vec<String> = Vec::new();
    for round in 0..ROUNDS {
        let mut mcp = Mcp::writable(store);
        let ids: Vec<(Value, String)> = (0..PIPELINED)
            .map(|n| {
                let claim = format!("kill {round}.{n}");
                let id = mcp.send_call("memorize", json!({ "node_label": "test", "claims": [{ "label": claim }]}));
                (id, claim)
            })
            .collect();
        // Wait for one answer (a different one each round), then kill.
        let wait_for = &ids[(round * 5) % PIPELINED].0;
        let first = mcp.answer(wait_for);
        assert!(!is_error(&first["result"]), "{first}");
        mcp.kill();
        for (id, claim) in &ids {
            if let Some(answer) = mcp.try_answer(id)
                && answer["result"]["isError"] != json!(true)
            {
                acknowledged.push(claim.clone());
            }
        }
        let at = reopen(store);
        // A journal with content was rolled back and removed by the open; one
        // the kill left empty is ignored by SQLite and reused (then removed)
        // by the next write. Never more than that one file.
        if database(store).is_none() {
            let files = names(store);
            assert!(files == [DB_FILE] || files == [DB_FILE, JOURNAL_FILE], "round {round}: left behind: {files:?}");
        }
        let stored = claims(store);
        for claim in &acknowledged {
            assert!(stored.contains(claim), "round {round}: acknowledged `{claim}` was lost");
        }
        // Only memorize wrote: one version per stored claim beyond the seed.
        assert_eq!(at, 1 + (stored.len() - 7) as u64, "round {round}");
        let unique: HashSet<&String> = stored.iter().collect();
        assert_eq!(unique.len(), stored.len(), "round {round}: a claim was stored twice");
    }
    assert!(acknowledged.len() >= ROUNDS, "every round acknowledged at least one write");
    let mut mcp = Mcp::writable(store);
    assert!(!is_error(&memorize(&mut mcp, "after the last kill")));
    assert_eq!(mcp.finish(), Some(0));
    if database(store).is_none() {
        assert_eq!(names(store), [DB_FILE], "the next write did not clear what a kill left");
    }
}

/// The journal deleted again and again while two servers write: no
/// acknowledged write is lost and the version counts the writes that landed.
/// (The JSON store lost acknowledged writes when its lock file was deleted
/// this way.)
#[test]
fn a_journal_deleted_while_servers_write_loses_nothing() {
    const EACH: usize = 20;
    let (_dir, store) = demo_store("faults-journal");
    let before = version(&store);
    let journal = store.join(JOURNAL_FILE);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let acknowledged = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for server in 0..2 {
            let (store, done, acknowledged) = (&store, &done, &acknowledged);
            scope.spawn(move || {
                let mut mcp = Mcp::writable(store);
                for n in 0..EACH {
                    let claim = format!("journal {server}.{n}");
                    let result = memorize(&mut mcp, &claim);
                    if is_error(&result) {
                        assert!(text(&result).contains(&store.display().to_string()), "{result}");
                    } else {
                        acknowledged.lock().expect("lock").push(claim);
                    }
                }
                mcp.assert_alive();
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            });
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while done.load(std::sync::atomic::Ordering::SeqCst) < 2 && Instant::now() < deadline {
            let _ = fs::remove_file(&journal);
            std::thread::sleep(Duration::from_micros(200));
        }
    });
    let at = reopen(&store);
    let stored = claims(&store);
    let acknowledged = acknowledged.into_inner().expect("lock");
    for claim in &acknowledged {
        assert!(stored.contains(claim), "acknowledged `{claim}` was lost");
    }
    assert_eq!(at - before, (stored.len() - 7) as u64);
    // Every write that landed was acknowledged: none was reported as failed
    // after it had committed.
    assert_eq!(acknowledged.len(), stored.len() - 7, "a write landed but was reported as failed");
}

/// What a fault does to the store directory, and where the writes made
/// before it now live (`None` when their file was removed).
struct Fault {
    name: &'static str,
    apply: fn(&Path),
    earlier_writes_in: Option<&'static str>,
}

fn aside(dir: &Path) {
    fs::rename(dir.join(DB_FILE), dir.join("kept.db")).expect("move aside");
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo").success());
}

const FAULTS: &[Fault] = &[
    Fault {
        name: "deleted",
        apply: |dir| fs::remove_file(dir.join(DB_FILE)).expect("delete"),
        earlier_writes_in: None,
    },
    Fault {
        name: "replaced by garbage",
        apply: |dir| {
            fs::write(dir.join("new"), b"not a database, whatever it says").expect("write");
            fs::rename(dir.join("new"), dir.join(DB_FILE)).expect("rename");
        },
        earlier_writes_in: None,
    },
    Fault {
        name: "replaced by another store",
        apply: |dir| {
            let other = dir.join("other");
            Store::init(&other, false).expect("other store");
            fs::rename(other.join(DB_FILE), dir.join(DB_FILE)).expect("rename");
            fs::remove_dir(other).expect("cleanup");
        },
        earlier_writes_in: None,
    },
    Fault {
        name: "made a symlink",
        apply: |dir| {
            aside(dir);
            std::os::unix::fs::symlink(dir.join("kept.db"), dir.join(DB_FILE)).expect("symlink");
        },
        earlier_writes_in: Some("kept.db"),
    },
    Fault {
        name: "made a FIFO",
        apply: |dir| {
            aside(dir);
            mkfifo(&dir.join(DB_FILE));
        },
        earlier_writes_in: Some("kept.db"),
    },
    Fault {
        name: "made a directory",
        apply: |dir| {
            aside(dir);
            fs::create_dir(dir.join(DB_FILE)).expect("mkdir");
        },
        earlier_writes_in: Some("kept.db"),
    },
    Fault {
        name: "journal made a FIFO",
        apply: |dir| mkfifo(&dir.join(JOURNAL_FILE)),
        earlier_writes_in: Some(DB_FILE),
    },
    Fault {
        name: "journal made a directory",
        apply: |dir| fs::create_dir(dir.join(JOURNAL_FILE)).expect("mkdir"),
        earlier_writes_in: Some(DB_FILE),
    },
];

/// Each fault, applied while a server runs: every later call is answered
/// (none hangs); a write is acknowledged only if it is durable in the store
/// at its path; every refusal names a file of the store; the server still
/// exits when stdin closes; and the writes acknowledged before the fault are
/// still there unless their own file was removed.
///
/// (With the JSON store, `state.json` made a FIFO hung `serve`: it stopped
/// answering and did not exit when stdin closed.)
#[test]
fn files_changed_under_a_running_server_never_take_a_false_acknowledgement() {
    for fault in FAULTS {
        let (_dir, store) = demo_store("faults-files");
        let mut mcp = Mcp::writable(&store);
        let before = memorize(&mut mcp, "written before the fault");
        assert!(!is_error(&before), "{}: {before}", fault.name);
        (fault.apply)(&store);

        for n in 0..3 {
            let claim = format!("after {} #{n}", fault.name);
            let result = memorize(&mut mcp, &claim);
            check_answer(fault.name, &store, &result, Some(&claim));
            let saved = mcp.call("persist", json!({ "action": "save" }));
            check_answer(fault.name, &store, &saved, None);
            for (verb, args) in [
                ("cockpit", json!({})),
                ("boot_memory", json!({"action": "list"})),
                ("persist", json!({ "action": "status" })),
            ] {
                let read = mcp.call(verb, args);
                check_answer(fault.name, &store, &read, None);
            }
        }
        mcp.assert_alive();
        assert_eq!(mcp.finish(), Some(0), "{}: the server did not exit cleanly", fault.name);

        if let Some(file) = fault.earlier_writes_in {
            let _ = fs::remove_dir(store.join(JOURNAL_FILE));
            let _ = fs::remove_file(store.join(JOURNAL_FILE));
            let holder = store.join("holder");
            fs::create_dir(&holder).expect("holder");
            fs::copy(store.join(file), holder.join(DB_FILE)).expect("copy");
            assert!(
                claims(&holder).contains(&"written before the fault".to_owned()),
                "{}: an acknowledged write is gone",
                fault.name
            );
        }
    }
}

/// `state.db` made unreadable under a running server. Permissions do not
/// bind root, so when the tests run as root the server runs as `nobody`
/// (through `setpriv`), on a store it may otherwise read and write.
#[test]
fn a_store_made_unreadable_under_a_running_server_fails_loudly() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path, mode: u32| fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
    let (dir, store) = demo_store("faults-unreadable");
    mode(dir.path(), 0o755);
    mode(&store, 0o777);
    mode(&store.join(DB_FILE), 0o666);
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    let command = if unsafe { libc::geteuid() } == 0 {
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        command
    } else {
        Command::new(BIN)
    };
    let mut command = command;
    command.arg("serve").arg("--store").arg(&store);
    let mut mcp = Mcp::spawn(command);
    let before = memorize(&mut mcp, "written before the fault");
    assert!(!is_error(&before), "{before}");

    mode(&store.join(DB_FILE), 0o000);
    for n in 0..3 {
        let claim = format!("after unreadable #{n}");
        let result = memorize(&mut mcp, &claim);
        assert!(is_error(&result), "a write to an unreadable store was acknowledged: {result}");
        check_answer("made unreadable", &store, &result, Some(&claim));
        // The root was composed and kept after the last commit, over a state
        // that has not changed since (the file's mark is the same): it may be
        // answered without reading. A look that must read fails loudly.
        for (verb, args) in [("cockpit", json!({ "select": "2" })), ("persist", json!({ "action": "save" }))] {
            let answer = mcp.call(verb, args);
            assert!(is_error(&answer), "{verb}: {answer}");
            check_answer("made unreadable", &store, &answer, None);
        }
    }
    mcp.assert_alive();
    assert_eq!(mcp.finish(), Some(0));
    mode(&store.join(DB_FILE), 0o644);
    assert!(claims(&store).contains(&"written before the fault".to_owned()));
    assert_eq!(version(&store), 2);
}

/// A refusal names the store; an acknowledged write is in the file at the
/// store's path.
fn check_answer(fault: &str, store: &Path, result: &Value, claim: Option<&str>) {
    if is_error(result) {
        let message = text(result);
        assert!(message.contains(&store.display().to_string()), "{fault}: a refusal that names no file: {message}");
        return;
    }
    if let Some(claim) = claim {
        let at_path = fs::symlink_metadata(store.join(DB_FILE)).is_ok_and(|m| m.is_file());
        assert!(at_path, "{fault}: `{claim}` acknowledged with no store file at the path");
        assert!(claims(store).contains(&claim.to_owned()), "{fault}: acknowledged `{claim}` is not in the store");
    }
}

/// A store declaring a small size limit: writes are refused before they
/// commit once the next one would not fit, the refusal changes no file, and
/// the store opens at the last acknowledged version.
#[test]
fn a_write_past_the_declared_size_limit_is_refused_before_it_commits() {
    let dir = temp_dir("faults-size");
    let store = dir.path().join("store");
    let limit = 256 * 1024;
    let init = Command::new(BIN)
        .args(["init", "--max-bytes", &limit.to_string(), "--store"])
        .arg(&store)
        .output()
        .expect("init");
    assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
    let mut mcp = Mcp::writable(&store);
    let claim = "s".repeat(MAX_CLAIM_CHARS - 8);
    let mut last = None;
    let refused = (0..200)
        .map(|n| memorize(&mut mcp, &format!("{n} {claim}")))
        .find(|result| {
            if !is_error(result) {
                last = result["structuredContent"]["store_version"].as_u64();
            }
            is_error(result)
        })
        .expect("the limit was never reached");
    let message = text(&refused);
    assert!(message.contains("size cap: the store declares at most 262144 bytes"), "{message}");
    assert!(message.contains("store set-max-bytes"), "{message}");
    assert!(!message.contains("disk full") && !message.contains("file-size limit"), "{message}");
    assert!(message.contains(&store.join(DB_FILE).display().to_string()), "{message}");
    let files = snapshot(&store);
    assert!(is_error(&memorize(&mut mcp, &claim)));
    assert_eq!(snapshot(&store), files, "a refused write changed the store");
    assert_eq!(mcp.finish(), Some(0));
    assert!(fs::metadata(store.join(DB_FILE)).expect("stat").len() <= limit);
    assert_eq!(Some(reopen(&store)), last);
    assert_eq!(names(&store), [DB_FILE]);

    // The setting the refusal names raises the cap; the next server's write fits.
    let raised = Command::new(BIN)
        .args(["store", "set-max-bytes", &(4 * limit).to_string(), "--store"])
        .arg(&store)
        .output()
        .expect("set-max-bytes");
    assert!(raised.status.success(), "{}", String::from_utf8_lossy(&raised.stderr));
    let mut mcp = Mcp::writable(&store);
    assert!(!is_error(&memorize(&mut mcp, &claim)), "the raised cap did not hold the write");
    assert_eq!(mcp.finish(), Some(0));
}

/// A server under `RLIMIT_FSIZE` no larger than the store: the write that
/// needs more room is refused (the server survives SIGXFSZ), and the store
/// is intact: byte for byte what the last acknowledged write left.
#[test]
fn a_file_size_limit_refuses_the_write_and_keeps_the_store_intact() {
    let (_dir, store) = demo_store("faults-fsize");
    let size = fs::metadata(store.join(DB_FILE)).expect("stat").len();
    let mut command = Command::new("prlimit");
    command.arg(format!("--fsize={size}")).arg(BIN).arg("serve").arg("--store").arg(&store);
    let mut mcp = Mcp::spawn(command);
    let claim = "f".repeat(MAX_CLAIM_CHARS - 8);
    let mut acknowledged = Vec::new();
    let mut files = snapshot(&store);
    let mut refused = None;
    for n in 0..100 {
        let this = format!("{n} {claim}");
        let result = memorize(&mut mcp, &this);
        if is_error(&result) {
            refused = Some(result);
            break;
        }
        acknowledged.push(this);
        files = snapshot(&store);
    }
    let refused = refused.expect("the file-size limit was never reached");
    assert!(text(&refused).contains(&store.display().to_string()), "{refused}");
    assert!(text(&refused).contains("file-size limit") && text(&refused).contains("RLIMIT_FSIZE"), "{refused}");
    assert!(!text(&refused).contains("size cap") && !text(&refused).contains("disk full"), "{refused}");
    mcp.assert_alive();
    assert_eq!(mcp.finish(), Some(0));

    let at = reopen(&store);
    assert_eq!(at, 1 + acknowledged.len() as u64);
    assert_eq!(snapshot(&store), files, "the store is not what the last acknowledged write left");
    let stored = claims(&store);
    assert!(acknowledged.iter().all(|c| stored.contains(c)));
}

/// A corrupt `state.db`: a server refuses to start on it, and once one is
/// serving, every call that needs the store is a clear error naming the
/// file; the file is never written.
#[test]
fn a_corrupt_store_is_a_clear_error_and_never_overwritten() {
    let (_dir, store) = demo_store("faults-corrupt");
    let path: PathBuf = store.join(DB_FILE);
    let good = fs::read(&path).expect("read");
    let mut scrambled = good.clone();
    for b in &mut scrambled[100..good.len().min(8192)] {
        *b = !*b;
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"garbage, not a database".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("scrambled", scrambled),
    ];
    for (name, bytes) in cases {
        fs::write(&path, &good).expect("restore");
        // Serving the good store, then the file goes bad under it.
        let mut mcp = Mcp::writable(&store);
        fs::write(&path, &bytes).expect("corrupt");
        for (verb, args) in [
            ("memorize", json!({ "node_label": "test", "claims": [{ "label": "must not land" }]})),
            ("persist", json!({ "action": "save" })),
            ("persist", json!({ "action": "status" })),
            ("cockpit", json!({})),
        ] {
            let result = mcp.call(verb, args);
            assert!(is_error(&result), "{name}: {verb} succeeded on a corrupt store: {result}");
            assert!(text(&result).contains(&path.display().to_string()), "{name}: {verb}: {result}");
        }
        assert_eq!(mcp.finish(), Some(0));
        let cli = Command::new(BIN).arg("cockpit").arg("--store").arg(&store).output().expect("cockpit");
        assert_eq!(cli.status.code(), Some(2), "{name}");
        assert!(String::from_utf8_lossy(&cli.stderr).contains(&path.display().to_string()), "{name}");
        assert_eq!(fs::read(&path).expect("read"), bytes, "{name}: the corrupt file was changed");
        assert_eq!(names(&store), [DB_FILE], "{name}");
        // A server started on it now refuses at start, naming the file, before it answers anyone.
        let start = Command::new(BIN)
            .args(["serve", "--store"])
            .arg(&store)
            .env_remove("CARGO")
            .env_remove("M1ND_STORE")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("serve");
        assert_eq!(start.status.code(), Some(2), "{name}: {}", String::from_utf8_lossy(&start.stderr));
        assert!(start.stdout.is_empty(), "{name}: it answered before refusing");
        assert!(String::from_utf8_lossy(&start.stderr).contains(&path.display().to_string()), "{name}");
        assert_eq!(fs::read(&path).expect("read"), bytes, "{name}: a refused start changed the file");
    }
}

on_both_backends!(
    n_servers_by_m_writes_move_the_version_by_exactly_n_times_m,
    kill_9_during_writes_loses_no_acknowledged_write_and_leaves_nothing,
);

/// A write cut off by a crash leaves its rollback journal next to
/// `state.db`. `store check` opens the store read-only, so it cannot roll
/// that journal back: it names the journal, says what left it and which
/// command rolls it back, and changes no file; after that command the
/// check passes and the journal is gone.
#[test]
fn store_check_after_a_crash_names_the_hot_journal_and_the_way_out() {
    let (_dir, store) = demo_store("faults-hot-journal");
    let crashed_dir = temp_dir("faults-hot-journal-crashed");
    let crashed = crashed_dir.path().join("store");
    fs::create_dir(&crashed).expect("mkdir");
    // A writer in the middle of a transaction: its journal holds the old
    // contents of every page it changed. A copy of both files taken now is
    // the store as a crash at this moment would leave it.
    let writer = rusqlite::Connection::open(store.join(DB_FILE)).expect("open the writer");
    writer
        .execute_batch(
            "PRAGMA cache_size = 2; BEGIN IMMEDIATE; CREATE TABLE crash_probe (x); \
             INSERT INTO crash_probe SELECT randomblob(1000) FROM (WITH RECURSIVE n(i) AS \
             (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n);",
        )
        .expect("write without committing");
    let journal = crashed.join(JOURNAL_FILE);
    fs::copy(store.join(DB_FILE), crashed.join(DB_FILE)).expect("copy the file");
    fs::copy(store.join(JOURNAL_FILE), &journal).expect("copy the journal");
    drop(writer);
    assert!(fs::metadata(&journal).expect("journal").len() > 0, "the writer journaled nothing");
    let before = snapshot(&crashed);

    let check = || Command::new(BIN).args(["store", "check", "--store"]).arg(&crashed).output().expect("store check");
    let refused = check();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains(&journal.display().to_string()), "names the journal: {said}");
    assert!(said.contains("did not finish"), "says what left it: {said}");
    assert!(!said.contains("readonly database"), "not SQLite's words: {said}");
    let reopen = format!("cockpit --store {}", crashed.display());
    assert!(said.contains(&reopen), "names the command that rolls it back: {said}");
    assert_eq!(snapshot(&crashed), before, "a check changes no file");

    let rolled_back = Command::new(BIN).args(["cockpit", "--store"]).arg(&crashed).output().expect("cockpit");
    assert!(rolled_back.status.success(), "{}", String::from_utf8_lossy(&rolled_back.stderr));
    assert!(!journal.exists(), "opening read-write rolled the journal back and removed it");
    let sound = check();
    assert_eq!(sound.status.code(), Some(0), "{}", String::from_utf8_lossy(&sound.stderr));
}
