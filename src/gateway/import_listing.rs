//! What `policy import` asks an upstream for: its tools, prompts, resources
//! and templates, as a client offering some capabilities would see them. The
//! import itself (import.rs) and the capability probe
//! (import_capabilities.rs) both list through here.

use std::path::PathBuf;
use std::sync::Arc;

use m1nd_policy::ClientCapability;
use m1nd_policy::gateway::surfaces::Listed;
use rmcp::model::{ClientConfig, Implementation};
use serde_json::Value;

use super::declared::Declared;
use super::error::GatewayError;
use super::upstream::{LIST_BOUNDS, Upstream, Wanted, client_capabilities, list, list_surfaces};

/// What `policy import` was asked to do.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub upstream: Upstream,
    /// Where the policy is written.
    pub dir: PathBuf,
    /// Trust `readOnlyHint: true` as a starting point for the deny list.
    pub read_only_from_hints: bool,
    /// Compare with the policy already in `dir` instead of writing one.
    pub update: bool,
}

/// What the upstream lists, as JSON.
pub struct Listing {
    pub tools: Vec<Value>,
    /// Its prompts, resources and resource templates.
    pub surfaces: Listed,
}

/// Everything the upstream lists to a client that offers `offered`, as the
/// gateway would under a policy that offers it.
pub async fn listing(options: &ImportOptions, offered: &[ClientCapability]) -> Result<Listing, GatewayError> {
    let handler = ClientConfig::new(
        client_capabilities(offered),
        Implementation::new("m1nd-policy-import", env!("CARGO_PKG_VERSION")),
    );
    let declared = Arc::new(Declared::new(LIST_BOUNDS.tools));
    let client = options.upstream.connect(handler, &declared).await?;
    let timeout = options.upstream.start_timeout;
    let listed = list(client.peer(), &declared, timeout).await;
    let everything = Wanted { prompts: true, resources: true };
    let surfaces = list_surfaces(client.peer(), everything, timeout).await;
    let _ = client.cancel().await;
    Ok(Listing { tools: listed?, surfaces: surfaces? })
}
