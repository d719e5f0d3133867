//! The store's files through the real binary: reads and refused calls leave
//! every file of the store directory byte for byte as it was (and create
//! none: no journal, no `-wal` or `-shm`), and `m1nd store import` moves a
//! JSON store into a new one, refusing what it must not read.

mod server_support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use m1nd::store::{DB_FILE, STATE_JSON};
use serde_json::json;
use server_support::{BIN, Mcp, claims, demo_store, is_error, snapshot, temp_dir, version};

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into()).collect();
    names.sort();
    names
}

fn m1nd(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run m1nd")
}

#[test]
fn reads_and_refusals_leave_every_store_file_unchanged() {
    let (_dir, store) = demo_store("files-reads");
    let before = snapshot(&store);
    assert_eq!(names(&store), [DB_FILE]);
    for read_only in [false, true] {
        let mut mcp = if read_only { Mcp::read_only(&store) } else { Mcp::writable(&store) };
        let reads = [
            ("cockpit", json!({})),
            ("cockpit", json!({ "select": "2.1" })),
            ("cockpit", json!({ "select": "6", "seen_store_version": 0 })),
            ("north", json!({"task": "t"})),
            ("system_blocks_snapshot", json!({})),
            ("orient", json!({"task": "t"})),
            ("doctor", json!({})),
            ("trust", json!({})),
            ("boot_memory", json!({"action": "list"})),
            ("drift", json!({})),
            ("panoramic", json!({})),
            ("impact", json!({ "node_id": "crates/graph" })),
            ("why", json!({ "source": "a", "target": "b" })),
            ("trace", json!({ "error_text": "timeout" })),
            ("persist", json!({ "action": "status" })),
        ];
        for (verb, args) in reads {
            let result = mcp.call(verb, args.clone());
            assert!(!is_error(&result), "{verb} {args}: {result}");
        }
        let refused = [
            (
                "memorize",
                json!({ "node_label": "test", "claims": [{ "label": "stale" }], "expected_store_version": 0 }),
            ),
            ("memorize", json!({ "node_label": "test", "claims": [{ "label": "" }]})),
            ("persist", json!({ "action": "save", "expected_store_version": 99 })),
            ("persist", json!({ "action": "delete" })),
            ("persist", json!({ "action": "status", "expected_store_version": 5 })),
        ];
        for (verb, args) in refused {
            let result = mcp.call(verb, args.clone());
            assert!(is_error(&result), "{verb} {args}: {result}");
        }
        assert_eq!(mcp.finish(), Some(0));
        assert_eq!(snapshot(&store), before, "read_only = {read_only}: a read or a refusal changed the store");
        assert_eq!(names(&store), [DB_FILE], "read_only = {read_only}: a file appeared");
    }
    for reference in ["", "2", "6.1", "2.1.1", "7.1.1"] {
        let out = m1nd(&["cockpit", reference, "--json", "--store", store.to_str().expect("utf-8")]);
        assert!(out.status.success(), "{reference}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(snapshot(&store), before, "the CLI cockpit changed the store");
}

#[test]
fn import_moves_a_json_store_and_only_reads_it() {
    let dir = temp_dir("files-import");
    let json_dir = dir.path().join("old");
    fs::create_dir(&json_dir).expect("mkdir");
    let json_file = json_dir.join(STATE_JSON);
    let mut state: serde_json::Value = serde_json::from_str(include_str!("../src/store/demo.json")).expect("demo.json");
    state["store_version"] = json!(17);
    state["memories"][0]["claim"] = json!("carried over from the JSON store");
    fs::write(&json_file, serde_json::to_vec_pretty(&state).expect("encode")).expect("write");
    let source = fs::read(&json_file).expect("read");

    let store = dir.path().join("new");
    let (file, store_arg) = (json_file.to_str().expect("utf-8"), store.to_str().expect("utf-8"));
    let out = m1nd(&["store", "import", file, "--store", store_arg]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("store_version 17") && said.contains("7 memories"), "{said}");
    assert_eq!(fs::read(&json_file).expect("read"), source, "import changed the JSON file");
    assert_eq!(version(&store), 17);
    assert!(claims(&store).contains(&"carried over from the JSON store".to_owned()));

    // The imported store serves, and a write carries on from the old version.
    let mut mcp = Mcp::writable(&store);
    let wrote = mcp.call(
        "memorize",
        json!({ "node_label": "test", "claims": [{ "label": "after the import" }], "expected_store_version": 17 }),
    );
    assert_eq!(wrote["structuredContent"]["store_version"], 18, "{wrote}");
    assert_eq!(mcp.finish(), Some(0));

    let again = m1nd(&["store", "import", file, "--store", store_arg]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    fs::write(&json_file, b"{\"format\": \"m1nd-store-v1\",").expect("corrupt");
    let other = dir.path().join("other");
    let corrupt = m1nd(&["store", "import", file, "--store", other.to_str().expect("utf-8")]);
    assert_eq!(corrupt.status.code(), Some(2));
    let message = String::from_utf8_lossy(&corrupt.stderr);
    assert!(message.contains(&format!("{}:1:", json_file.display())), "{message}");
    assert!(!other.join(DB_FILE).exists());
}

#[test]
fn init_declares_a_size_limit_and_refuses_one_too_small() {
    let dir = temp_dir("files-init-limit");
    let store = dir.path().join("s");
    let store_arg = store.to_str().expect("utf-8");
    let small = m1nd(&["init", "--max-bytes", "1000", "--store", store_arg]);
    assert_eq!(small.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&small.stderr).contains("at least"), "{small:?}");
    assert!(!store.join(DB_FILE).exists());
    let ok = m1nd(&["init", "--max-bytes", "300000", "--store", store_arg]);
    assert!(ok.status.success(), "{ok:?}");
    assert_eq!(m1nd::store::Store::open(&store).expect("open").max_bytes(), 300_000);
}

/// A FIFO handed to the importer is refused at once, never read (reading
/// one would block until something writes to it).
#[test]
fn import_refuses_a_fifo_without_blocking() {
    let dir = temp_dir("files-import-fifo");
    let fifo = dir.path().join(STATE_JSON);
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let store = dir.path().join("new");
    let out = m1nd(&["store", "import", fifo.to_str().expect("utf-8"), "--store", store.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"), "{out:?}");
    assert!(!store.join(DB_FILE).exists());
}
