//! A fleet: several upstreams behind one gateway, each with its own
//! reviewed gateway policy and a name prefix, described by `fleet.toml`.
//!
//! # The invariant
//!
//! Every name the merged view serves belongs to exactly one member, and that
//! member's policy alone decides every request for it. Tool and prompt names
//! are served as prefix + name; resource URIs as the upstream writes them.
//! The laws of one gateway policy hold for each member on its own, and law
//! M017 (`m017.rs`) makes routing unambiguous across members: no two of
//! them serve names that fold together, and no URI is answered by two.
//!
//! [`compile_fleet`] is what `m1nd policy check`, `m1nd gateway --fleet`
//! and `fleet!` call, so the three never disagree.

mod compile;
pub mod config;
mod embedded;
mod m017;
mod problem;
mod render;
mod sources;

pub use compile::compile_fleet;
pub use config::{Command, Endpoint, Entry, FLEET_FILE, Http};
pub use embedded::EmbeddedFleet;
pub use problem::{FleetDiagnostic, FleetFile, FleetLoc, FleetProblem};
pub use sources::FleetSources;

use serde_json::json;

use crate::gateway_table::Gateway;
use crate::policy::gateway_digest;

/// A fleet after every law holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fleet {
    /// In `fleet.toml` order.
    pub members: Vec<Member>,
}

/// One upstream of a fleet, with its compiled policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub entry: Entry,
    pub gateway: Gateway,
}

/// The name a client sees for an upstream's tool or prompt `name`.
pub fn served_name(prefix: &str, name: &str) -> String {
    format!("{prefix}{name}")
}

impl Fleet {
    /// The fleet's digest, as `m1nd policy digest` prints it and the
    /// gateway attests: over each member's name, prefix, endpoint (with the
    /// names of its credentials and of the variables a started one is
    /// passed, never their values) and policy digest, in
    /// `fleet.toml` order. Any change to what a fleet serves, or to what
    /// runs behind a prefix, changes it.
    pub fn digest(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"m1nd-fleet-encoding-v1\n");
        for member in &self.members {
            let entry = &member.entry;
            let endpoint = match &entry.endpoint {
                // `env` joins the digest only when it names something, so
                // the digest of a fleet that names none is unchanged.
                Endpoint::Command(Command { argv, env }) if env.is_empty() => json!({ "command": argv }),
                Endpoint::Command(Command { argv, env }) => json!({ "command": argv, "env": env }),
                Endpoint::Http(http) => json!({
                    "url": http.url, "ca_file": http.ca_file, "bearer_env": http.bearer_env,
                    "bearer_file": http.bearer_file, "header_env": http.header_env,
                }),
            };
            let line = json!([entry.name, entry.prefix, endpoint, gateway_digest(&member.gateway)]);
            hasher.update(line.to_string().as_bytes());
            hasher.update(b"\n");
        }
        hasher.finalize().to_hex().to_string()
    }
}
