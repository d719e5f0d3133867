//! `m1nd gateway`: m1nd's compiled guard in front of any MCP server.
//!
//! # The invariant
//!
//! Nothing reaches the upstream that the policy did not let through. Every
//! downstream `tools/call` goes through [`m1nd_policy::gateway::check`] — the
//! guard every m1nd transport uses, the policy's view of the upstream's
//! tools, the declared arguments and the argument pins — before a request is
//! written to the upstream. `tools/list` is that view: undeclared tools,
//! tools whose definition no longer has its pinned digest, and (read-only)
//! denied tools are absent, and the annotations are the upstream's, never
//! made less cautious (`m1nd_policy::gateway::annotations`).
//!
//! # When the upstream misbehaves
//!
//! A call the upstream does not answer within the call timeout, or answers
//! after dying, becomes a tool error naming what happened; the downstream
//! session goes on. Lines that are not JSON-RPC are dropped by rmcp's client
//! transport, so junk on the upstream's stdout costs at most a timeout. When
//! the upstream says its tools changed, when a client lists tools, and at
//! least every `--recheck` interval, the gateway lists them again, re-checks
//! every definition, and tells the downstream client only if what it may see
//! changed (session.rs says what window this leaves).
//!
//! # A shadow policy
//!
//! With `--shadow DIR` a second, candidate policy checks every call too,
//! against its own view of the same listing, and only writes to the audit
//! trail: the invariant above is the enforced policy's alone (shadow.rs).

pub mod apply;
mod audit;
mod call_upstream;
mod callers;
mod child;
pub mod child_env;
mod credential;
pub(crate) mod declared;
mod error;
pub mod fleet;
mod free_text;
#[cfg(feature = "http-upstream")]
mod http_tap;
pub(crate) mod https;
mod import;
pub mod import_capabilities;
mod import_listing;
pub mod import_surfaces;
mod listing;
mod name_problem;
/// One rule for every string a guarded server sends, shared with the in-process guard.
pub(crate) use m1nd_guard::neutralise;
pub mod plan;
pub(crate) mod progress;
pub mod readable;
pub mod reviewed;
mod session;
mod shadow;
mod state;
mod subscriptions;
mod surface_audit;
mod surfaces;
mod update;
mod upstream;
pub mod visible_review;

use std::path::Path;

use m1nd_policy::gateway::Gateway;
use m1nd_policy::{PolicySources, compile_gateway};

pub use credential::{Credential, CredentialError};
pub use error::GatewayError;
pub use https::{HttpClientOptions, HttpsError};
pub use import::{ImportOptions, Report, files};
pub use listing::{GatewayService, ListsReviewedTools, serve};
pub use name_problem::NameProblem;
pub use session::{Connected, GatewayServer, connect};
pub use state::{DEFAULT_RECHECK, Options};
pub use upstream::{Endpoint, HttpSecrets, Upstream};

/// Compile the gateway policy in `dir`, or render every violation exactly as
/// `m1nd policy check --gateway` does.
pub fn load(dir: &Path, display: &str) -> Result<Gateway, GatewayError> {
    let sources = PolicySources::read_dir(dir, display);
    compile_gateway(&sources).map_err(|problems| {
        GatewayError::Policy(problems.iter().map(|d| format!("error: {}", d.render(&sources))).collect())
    })
}

/// Run `policy import`: write a new policy, or (`--update`) compare the
/// reviewed one with the upstream and, with `apply`, write the update.
pub async fn import(options: ImportOptions, apply: bool) -> Result<Report, GatewayError> {
    if options.update { update::update(&options, apply).await } else { import::import(options).await }
}
