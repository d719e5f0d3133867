//! `m1nd policy digest`, the attestation served in `initialize` and
//! `server/discover`, and `serve --expect-digest`, run as the binary.

mod server_support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use m1nd::COCKPIT;
use server_support::{BIN, Mcp, demo_store, temp_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn m1nd_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("M1ND_READ_ONLY")
        .stdin(Stdio::null())
        .output()
        .expect("run m1nd")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn policy_digest_is_the_compiled_digest() {
    let out = m1nd_in(Path::new(ROOT), &["policy", "digest"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{}\n", COCKPIT.digest));
    let other = m1nd_in(Path::new(ROOT), &["policy", "digest", "tests/ui/policies/base"]);
    assert_ne!(text(&other.stdout).trim(), &*COCKPIT.digest);
    assert_eq!(text(&other.stdout).trim().len(), 64);
    let broken = m1nd_in(Path::new(ROOT), &["policy", "digest", "tests/ui/policies/m004_slot_card"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(text(&broken.stdout).is_empty());
}

#[test]
fn serve_refuses_a_pin_of_another_policy_before_it_starts() {
    let dir = temp_dir("pin");
    let serve = |pin: &str| {
        let store = dir.path().join("store");
        m1nd_in(dir.path(), &["serve", "--store", store.to_str().unwrap(), "--expect-digest", pin])
    };
    let other = serve(&"ab".repeat(32));
    assert_eq!(other.status.code(), Some(1));
    let err = text(&other.stderr);
    assert!(err.contains(&*COCKPIT.digest) && err.contains(&"ab".repeat(32)), "{err}");
    assert!(other.stdout.is_empty(), "nothing was served");
    let malformed = serve("abc");
    assert_eq!(malformed.status.code(), Some(2));
    assert!(text(&malformed.stderr).contains("64 hex digits"), "{}", text(&malformed.stderr));
    // The right pin (in any case) starts a server that answers.
    let (_store_dir, store) = demo_store("pinned");
    let pin = COCKPIT.digest.to_ascii_uppercase();
    let mut mcp = Mcp::start(&store, &["--expect-digest", &pin], &[]);
    assert_eq!(mcp.init["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest);
    assert!(!mcp.tools().is_empty());
    assert_eq!(mcp.finish(), Some(0));
}

#[test]
fn initialize_and_discover_attest_the_policy_digest() {
    let (_dir, store) = demo_store("attest");
    let mut mcp = Mcp::read_only(&store);
    assert_eq!(mcp.init["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest, "{}", mcp.init);
    let discover = mcp.request(
        "server/discover",
        serde_json::json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    );
    assert_eq!(discover["result"]["_meta"]["io.m1nd/attestation"]["policy"], &*COCKPIT.digest, "{discover}");
    assert_eq!(mcp.finish(), Some(0));
}
