//! `m1nd gateway --fleet DIR`: one endpoint in front of several upstreams,
//! each behind its own reviewed policy (`fleet.toml`; the laws and the
//! routing rules are in [`m1nd_policy::gateway::fleet`]).
//!
//! # The invariant
//!
//! Each member is a whole gateway of its own: its policy, its upstream
//! connection, its view, its rechecks and pins, its subscriptions. The fleet
//! only routes: a request names one member (routes.rs), and that member
//! checks and forwards it exactly as `m1nd gateway --policy` would. So
//! nothing reaches an upstream that its own policy did not let through, and
//! one upstream that dies or hangs costs only its own requests: the others'
//! views, connections and sessions are untouched.

mod routes;
mod server;

use std::sync::Arc;

use m1nd_policy::gateway::fleet::served_name;
use m1nd_policy::gateway::fleet::{Command, Endpoint, Fleet, Http};

pub use server::FleetServer;

use super::credential::CredentialError;
use super::error::GatewayError;
use super::session::{Connected, connect};
use super::state::Options;
use super::upstream::{HttpSecrets, Upstream};
use routes::Routes;

/// How to reach a member: its `fleet.toml` endpoint, with relative file
/// names (a CA file, a token file) read from the fleet's directory.
pub fn upstream_of(endpoint: &Endpoint, fleet_dir: &std::path::Path) -> Result<Upstream, CredentialError> {
    match endpoint {
        Endpoint::Command(Command { argv, env }) => match argv.split_first() {
            Some((program, args)) => Ok(Upstream::new(program, args).with_env(env)),
            // fleet.toml's M001 refuses a command without a program.
            None => Ok(Upstream::new("", Vec::<String>::new())),
        },
        Endpoint::Http(Http { url, ca_file, bearer_env, bearer_file, header_env }) => {
            let secrets = HttpSecrets {
                ca_file: ca_file.as_ref().map(|path| fleet_dir.join(path)),
                bearer_env: bearer_env.as_ref().map(Into::into),
                bearer_file: bearer_file.as_ref().map(|path| fleet_dir.join(path)),
                header_env: header_env.clone(),
            };
            Upstream::http_with(url.clone(), secrets)
        }
    }
}

/// A fleet whose upstreams are all running and checked.
pub struct ConnectedFleet {
    /// Serve this on any transport (stdio, or Streamable HTTP).
    pub server: FleetServer,
    members: Vec<Connected>,
}

impl ConnectedFleet {
    /// Stop every upstream.
    pub async fn close(self) {
        for member in self.members {
            member.close().await;
        }
    }
}

/// Start every member's upstream (`upstreams`, in `fleet.toml` order) and
/// check its listing against its own policy. A member that cannot start
/// stops the fleet from starting, naming it: a gateway that silently served
/// fewer upstreams than reviewed would be a surprise to every client.
pub async fn connect_fleet(
    fleet: &'static Fleet,
    digest: String,
    options: Options,
    upstreams: Vec<Upstream>,
) -> Result<ConnectedFleet, GatewayError> {
    if upstreams.len() != fleet.members.len() {
        return Err(GatewayError::FleetEndpoints { members: fleet.members.len(), upstreams: upstreams.len() });
    }
    let mut members = Vec::with_capacity(fleet.members.len());
    for (member, upstream) in fleet.members.iter().zip(upstreams) {
        let options = Options { member: Some(member.entry.name.clone()), shadow: None, ..options.clone() };
        tracing::info!(
            "upstream `{}`: names served as `{}`",
            member.entry.name,
            served_name(&member.entry.prefix, "…")
        );
        match connect(&member.gateway, options, upstream).await {
            Ok(connected) => members.push(connected),
            Err(e) => {
                for started in members {
                    started.close().await;
                }
                return Err(GatewayError::Member { upstream: member.entry.name.clone(), source: Box::new(e) });
            }
        }
    }
    let states = members.iter().map(|m| Arc::clone(&m.server.state)).collect();
    let server = FleetServer::new(fleet, digest, options.audit.clone(), Arc::new(Routes::new(fleet)), states);
    Ok(ConnectedFleet { server, members })
}
