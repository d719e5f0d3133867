//! The PostgreSQL servers the tests run against, started by the tests
//! themselves with `scripts/pg-cluster.sh` (Debian's postgresql package).
//!
//! Every test that needs a server is `#[ignore]`d with the reason, so
//! `cargo test` reports it as not run instead of passing it by doing
//! nothing; `cargo test -- --ignored` runs them, each process on one server
//! of its own ([`shared_url`]) or on the one `M1ND_TEST_PG` names. A test
//! that restarts or reconfigures its server takes a [`Cluster`] of its own.
//!
//! Only `std`: the integration tests compile this same file
//! (`tests/server_support/pg.rs`), so it has one source.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A cluster started for its holder: stopped and removed when dropped, and
/// when the process exits should it never be dropped (a static, an abort).
pub struct Cluster {
    /// The URL to connect to, with its password.
    pub url: String,
    /// Its directory, for `pg-cluster.sh restart`, `pause` and `down`.
    pub dir: String,
}

impl Cluster {
    /// Start one, or panic saying what is missing (the package, a port).
    pub fn up() -> Cluster {
        let pid = std::process::id().to_string();
        let out = cluster(&["up", "--until-exit", &pid]);
        let var = |name: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(&format!("export {name}='")))
                .and_then(|v| v.strip_suffix('\''))
                .unwrap_or_else(|| panic!("pg-cluster.sh up printed no {name}"))
                .to_owned()
        };
        Cluster { url: var("M1ND_TEST_PG"), dir: var("M1ND_PG_CLUSTER") }
    }

    /// The uid the server runs as, which owns its data directory.
    pub fn owner(&self) -> u32 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(Path::new(&self.dir).join("data")).expect("the cluster's data").uid()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(script()).args(["down", &self.dir]).status();
    }
}

/// The server the tests of this process share: the one `M1ND_TEST_PG`
/// names (CI starts one for the whole run), or else one started now and
/// stopped when the process exits. Each test works in a schema of its own.
pub fn shared_url() -> &'static str {
    static SHARED: OnceLock<String> = OnceLock::new();
    SHARED.get_or_init(|| match std::env::var("M1ND_TEST_PG") {
        Ok(url) => url,
        // Never dropped: `--until-exit` stops it when this process ends.
        Err(_) => std::mem::ManuallyDrop::new(Cluster::up()).url.clone(),
    })
}

/// `scripts/pg-cluster.sh`, found from the package's root.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-cluster.sh")
}

/// Run the cluster script; its stdout, or a panic with its stderr.
pub fn cluster(args: &[&str]) -> String {
    let out = Command::new("bash").arg(script()).args(args).output().expect("bash runs");
    assert!(
        out.status.success(),
        "pg-cluster.sh {args:?} failed (these tests need Debian's postgresql package): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}
