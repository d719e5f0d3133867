//! A store in a schema of its own on the test server, for the tests that
//! run on both backends. The server is the one `M1ND_TEST_PG` names, or one
//! this test process starts itself (`src/store/pg/test_server.rs`, compiled
//! here too); every test that needs it is `#[ignore]`d, so `cargo test`
//! shows it as not run, and `cargo test -- --ignored` runs it.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

#[path = "../../src/store/pg/test_server.rs"]
mod test_server;

/// A schema on the test server, dropped with this.
pub struct PgSchema {
    client: postgres::Client,
    name: String,
    /// The schema as a store location (`--store`).
    pub location: String,
}

impl PgSchema {
    /// A new, empty schema on the server the tests share.
    pub fn new(prefix: &str) -> PgSchema {
        let server = test_server::shared_url();
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("{prefix}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        // The error names the server, never the URL: it holds a password.
        let mut client = postgres::Client::connect(server, postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to the test server: {e}"));
        client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"))
            .expect("a schema of the test's own");
        let joint = if server.contains('?') { '&' } else { '?' };
        let location = format!("{server}{joint}options=-c%20search_path%3D{name}");
        PgSchema { client, name, location }
    }

    /// A new schema holding the demo store, and the location to give
    /// `--store` (as a path, which the command line takes either way).
    pub fn demo(prefix: &str) -> (PgSchema, PathBuf) {
        let schema = PgSchema::new(prefix);
        let at = m1nd::store::Location::from(std::ffi::OsString::from(&schema.location));
        m1nd::store::Store::create_at(&at, &m1nd::store::Store::demo_state().expect("demo"), 1 << 30)
            .expect("a demo store on PostgreSQL");
        let path = PathBuf::from(&schema.location);
        (schema, path)
    }

    /// The first column of the first row of `sql`, run in the schema, as text.
    pub fn one(&mut self, sql: &str) -> String {
        let name = &self.name;
        self.client.batch_execute(&format!("SET search_path = {name}")).expect("the schema");
        self.client.query_one(sql, &[]).expect("one row").get(0)
    }

    /// Run `sql` in the schema.
    pub fn execute(&mut self, sql: &str) {
        let name = &self.name;
        self.client.batch_execute(&format!("SET search_path = {name}; {sql}")).expect("run SQL in the schema");
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let _ = self.client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
    }
}

/// The claims stored at the PostgreSQL store `location`, oldest first.
pub fn claims(location: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(location, postgres::NoTls).expect("connect");
    let rows = client.query("SELECT claim FROM memories ORDER BY seq", &[]).expect("claims");
    rows.iter().map(|row| row.get(0)).collect()
}
