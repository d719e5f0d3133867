//! A schema of its own on the test server, for each PostgreSQL test.
//!
//! The server is the one the tests share (`test_server.rs`: the one
//! `M1ND_TEST_PG` names, or one the test process starts itself).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use postgres::{Client, NoTls};

use super::super::location::Location;
use super::super::schema::{self, VERSION};
use super::test_server;

/// Every column of a schema's tables: `(table, column)` to type and NOT NULL.
pub(super) type Columns = BTreeMap<(String, String), (String, bool)>;

/// A schema of its own on the test server, dropped with this.
pub(super) struct Scratch {
    pub client: Client,
    pub name: String,
    /// The server's URL.
    server: String,
}

impl Scratch {
    /// A new schema on the server the tests share ([`test_server::shared_url`]).
    pub fn new() -> Scratch {
        Scratch::on(test_server::shared_url())
    }

    /// A new schema on the server at `url`.
    pub fn on(url: &str) -> Scratch {
        // The error names the server, never the URL: it may hold a password.
        let mut client = Client::connect(url, NoTls).unwrap_or_else(|e| panic!("connect to the test server: {e}"));
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("t_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}; SET search_path = {name}"
            ))
            .expect("a schema of the test's own");
        Scratch { client, name, server: url.to_owned() }
    }

    /// This schema as a store location: the server's URL, with the schema
    /// first on the session's `search_path`.
    pub fn location(&self) -> Location {
        self.location_on(&self.server)
    }

    /// [`Scratch::location`] on another server URL (a wrong password, a closed port).
    pub fn location_on(&self, server: &str) -> Location {
        let joint = if server.contains('?') { '&' } else { '?' };
        format!("{server}{joint}options=-c%20search_path%3D{}", self.name)
            .parse()
            .unwrap_or_else(|never| match never {})
    }

    pub fn apply_every_step(&mut self) {
        for (n, step) in schema::postgres_steps(0, VERSION).unwrap_or_else(|e| panic!("{e}")).iter().enumerate() {
            self.client.batch_execute(step).unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
        }
    }

    /// Every column of the schema's tables: `data_type` and NOT NULL.
    pub fn columns(&mut self) -> Columns {
        let rows = self
            .client
            .query(
                "SELECT table_name::text, column_name::text, data_type::text, is_nullable = 'NO' \
                 FROM information_schema.columns WHERE table_schema = $1",
                &[&self.name],
            )
            .expect("columns");
        rows.iter().map(|r| ((r.get(0), r.get(1)), (r.get(2), r.get(3)))).collect()
    }
}

impl Scratch {
    /// Every row of every table of the schema, as text, table by table: two
    /// fingerprints are equal exactly when the store holds the same.
    pub fn fingerprint(&mut self) -> Vec<(String, String)> {
        let tables: Vec<String> = self
            .client
            .query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
                &[&self.name],
            )
            .expect("tables")
            .iter()
            .map(|r| r.get(0))
            .collect();
        tables
            .into_iter()
            .map(|table| {
                let rows = format!(
                    "SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM {}.{table} t",
                    self.name
                );
                let text: String = self.client.query_one(&rows, &[]).expect("rows").get(0);
                (table, text)
            })
            .collect()
    }

    /// The URL of the test server.
    pub fn server(&self) -> &str {
        &self.server
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
    }
}
