//! The upstream MCP server: a child process spoken to over stdio, or a
//! Streamable HTTP endpoint (TLS and credentials: [`super::https`]), by
//! rmcp's client, with a handler that hears its notifications and relays
//! or refuses its requests to a client as the policy says (see [`Listener`]).

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use m1nd_policy::ClientCapability;
use m1nd_policy::gateway::Gateway;
use m1nd_policy::gateway::surfaces::Listed;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationCapability, FormElicitationCapability, Implementation, PaginatedRequestParams,
    ProgressNotificationParam, ResourceUpdatedNotificationParam, RootsCapabilities, SamplingCapability, ServerRequest,
    Tool,
};
#[allow(deprecated, reason = "sampling and roots are deprecated, and still what an upstream may ask")]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ListRootsResult};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData as McpError, Peer, RoleClient, RoleServer, ServiceExt};
use tokio::sync::{Notify, mpsc};

use super::callers::{Asked, Callers};
use super::child::Child;
use super::child_env;
use super::credential::Credential;
use super::declared::Declared;
use super::error::GatewayError;
#[cfg(feature = "http-upstream")]
use super::http_tap::HttpTap;
use super::https::{self, HttpClientOptions};
use super::neutralise;
use super::progress::ProgressRoutes;

/// Where the upstream server is.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A command started as a child process, spoken to on its stdin/stdout,
    /// with the variables it is passed by name (see [`super::child_env`]).
    Command { command: OsString, args: Vec<OsString>, env: Vec<OsString> },
    /// A Streamable HTTP endpoint (`https://host/mcp`), with its TLS roots
    /// and credentials.
    Http { url: String, client: HttpClientOptions },
}

/// Where an HTTP upstream's extra trust and credentials are: files and
/// variable names, never the secrets themselves.
#[derive(Clone, Debug, Default)]
pub struct HttpSecrets {
    /// Also trust the certificate authorities in this PEM file.
    pub ca_file: Option<std::path::PathBuf>,
    /// `Authorization: Bearer` with the value of this variable.
    pub bearer_env: Option<OsString>,
    /// `Authorization: Bearer` with the contents of this file.
    pub bearer_file: Option<std::path::PathBuf>,
    /// `HEADER=NAME`: send HEADER with the value of the variable NAME.
    pub header_env: Vec<String>,
}

/// How to reach the upstream server.
#[derive(Clone, Debug)]
pub struct Upstream {
    pub endpoint: Endpoint,
    /// How long the upstream may take to answer `initialize` and `tools/list`.
    pub start_timeout: Duration,
}

impl Upstream {
    /// A command to start, with its arguments.
    pub fn new(command: impl Into<OsString>, args: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        let args = args.into_iter().map(Into::into).collect();
        let endpoint = Endpoint::Command { command: command.into(), args, env: Vec::new() };
        Self { endpoint, start_timeout: Duration::from_secs(30) }
    }

    /// Pass these variables of the gateway's environment to a started
    /// upstream, besides [`super::child_env::INHERITED`] (a command only).
    pub fn with_env(mut self, names: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        if let Endpoint::Command { env, .. } = &mut self.endpoint {
            env.extend(names.into_iter().map(Into::into));
        }
        self
    }

    /// A Streamable HTTP endpoint.
    pub fn http(url: impl Into<String>) -> Self {
        let endpoint = Endpoint::Http { url: url.into(), client: HttpClientOptions::default() };
        Self { endpoint, start_timeout: Duration::from_secs(30) }
    }

    /// Also trust the certificate authorities in the PEM file at `path` (an HTTP upstream only).
    pub fn with_ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        if let Endpoint::Http { client, .. } = &mut self.endpoint {
            client.ca_file = Some(path.into());
        }
        self
    }

    /// Send `credential` with every request to the upstream (an HTTP upstream only).
    pub fn with_credential(mut self, credential: Credential) -> Self {
        if let Endpoint::Http { client, .. } = &mut self.endpoint {
            client.credentials.push(credential);
        }
        self
    }

    /// A Streamable HTTP endpoint with what it trusts and signs in with,
    /// each read from where `secrets` names it: the one reading of the
    /// `--upstream-*` flags and of a fleet's `url` upstreams.
    pub fn http_with(url: impl Into<String>, secrets: HttpSecrets) -> Result<Self, super::CredentialError> {
        let mut upstream = Self::http(url);
        if let Some(path) = secrets.ca_file {
            upstream = upstream.with_ca_file(path);
        }
        if let Some(name) = secrets.bearer_env {
            upstream = upstream.with_credential(Credential::bearer_from_env(name)?);
        }
        if let Some(path) = secrets.bearer_file {
            upstream = upstream.with_credential(Credential::bearer_from_file(path)?);
        }
        for spec in &secrets.header_env {
            upstream = upstream.with_credential(Credential::header_from_env(spec)?);
        }
        Ok(upstream)
    }

    fn describe(&self) -> String {
        let text = match &self.endpoint {
            Endpoint::Command { command, .. } => command.to_string_lossy().into_owned(),
            Endpoint::Http { url, .. } => https::without_secrets(url),
        };
        text.chars().take(120).collect()
    }

    /// Start (or reach) the upstream and complete the MCP handshake. What
    /// its listings declare that rmcp's `Tool` drops goes to `declared`
    /// (see `declared.rs`, and `http_tap.rs` for an HTTP upstream).
    pub(super) async fn connect<H: ClientHandler>(
        &self,
        handler: H,
        declared: &Arc<Declared>,
    ) -> Result<RunningService<RoleClient, H>, GatewayError> {
        let handshake = match &self.endpoint {
            Endpoint::Command { command, args, env } => {
                let mut command = tokio::process::Command::new(command);
                command.args(args);
                child_env::confine(&mut command, env)
                    .map_err(|source| GatewayError::Environment { upstream: self.describe(), source })?;
                let transport = Child::spawn(command, Arc::clone(declared))
                    .map_err(|source| GatewayError::Spawn { upstream: self.describe(), source })?;
                tokio::time::timeout(self.start_timeout, handler.serve(transport)).await
            }
            #[cfg(feature = "http-upstream")]
            Endpoint::Http { url, client } => {
                // 2026-07-28 first (`server/discover`, then self-contained
                // requests with `Mcp-Method`/`Mcp-Name` headers that a proxy
                // in between may route on); an older server gets the legacy
                // `initialize` handshake instead.
                use rmcp::model::ProtocolVersion;
                use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
                use rmcp::transport::StreamableHttpClientTransport;
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                // The credential lives in the client's headers, never in
                // rmcp's config, whose Debug would print it. Its listings are
                // heard through `HttpTap`, as a child's stdout through `Tap`.
                let client = HttpTap::new(https::client(url, &self.describe(), client)?, Arc::clone(declared));
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                let transport = StreamableHttpClientTransport::with_client(client, config);
                let lifecycle = ClientLifecycleMode::Auto {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    legacy_version: None,
                };
                tokio::time::timeout(self.start_timeout, handler.serve_with_lifecycle(transport, lifecycle)).await
            }
            #[cfg(not(feature = "http-upstream"))]
            Endpoint::Http { .. } => return Err(GatewayError::NoHttpClient { upstream: self.describe() }),
        };
        match handshake {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(e)) => {
                #[cfg(feature = "http-upstream")]
                if let Endpoint::Http { client, .. } = &self.endpoint
                    && let Some(refused) = https::tls_refusal(&e, &self.describe())
                        .or_else(|| https::auth_refusal(&e, &self.describe(), client))
                {
                    return Err(refused.into());
                }
                Err(GatewayError::Handshake { upstream: self.describe(), message: https::chain(&e) })
            }
            Err(_) => {
                Err(GatewayError::HandshakeTimeout { upstream: self.describe(), secs: self.start_timeout.as_secs() })
            }
        }
    }
}

/// Every tool the upstream lists, as JSON, within `timeout`, with what
/// `declared` heard of the keys rmcp's `Tool` drops put back: the same JSON
/// for `policy import` to pin and for the gateway to check.
pub(super) async fn list(
    peer: &rmcp::Peer<RoleClient>,
    declared: &Declared,
    timeout: Duration,
) -> Result<Vec<serde_json::Value>, GatewayError> {
    let tools = match tokio::time::timeout(timeout, all_pages(peer, LIST_BOUNDS)).await {
        Ok(listed) => listed?,
        Err(_) => return Err(GatewayError::ListTimeout { secs: timeout.as_secs() }),
    };
    let mut tools = json(tools);
    declared.restore(&mut tools);
    Ok(tools)
}

/// How far one listing may go: pages followed, and tools kept.
#[derive(Clone, Copy, Debug)]
pub struct ListBounds {
    pub pages: usize,
    pub tools: usize,
}

/// The gateway's bounds on one `tools/list`: far past any real server (the
/// largest seen list a few hundred tools on one page), and small enough
/// that a hostile upstream cannot grow the gateway's memory without end.
pub const LIST_BOUNDS: ListBounds = ListBounds { pages: 100, tools: 10_000 };

/// Every page of the upstream's `tools/list`, within `bounds` (rmcp's
/// `list_all_tools` follows cursors without end).
async fn all_pages(peer: &rmcp::Peer<RoleClient>, bounds: ListBounds) -> Result<Vec<Tool>, GatewayError> {
    pages(bounds, TOOLS, |params| async move {
        let page = peer.list_tools(Some(params)).await?;
        Ok((page.tools, page.next_cursor))
    })
    .await
}

/// One paginated listing: its method, and how its item bound is named in an error.
struct Listing {
    method: &'static str,
    holds: &'static str,
}

const TOOLS: Listing = Listing { method: "tools/list", holds: "the tools a listing may hold" };
const PROMPTS: Listing = Listing { method: "prompts/list", holds: "the prompts a listing may hold" };
const RESOURCES: Listing = Listing { method: "resources/list", holds: "the resources a listing may hold" };
const TEMPLATES: Listing =
    Listing { method: "resources/templates/list", holds: "the resource templates a listing may hold" };

/// Every item of a paginated listing, one page at a time from `page`, within
/// `bounds`; `listing` names it in the error.
async fn pages<T, F, Fut>(bounds: ListBounds, listing: Listing, mut page: F) -> Result<Vec<T>, GatewayError>
where
    F: FnMut(PaginatedRequestParams) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), rmcp::ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..bounds.pages {
        let (more, next) = page(PaginatedRequestParams::default().with_cursor(cursor))
            .await
            .map_err(|e| GatewayError::List(format!("{} failed: {e}", listing.method)))?;
        if items.len() + more.len() > bounds.tools {
            return Err(GatewayError::ListTooLong { what: listing.holds, limit: bounds.tools });
        }
        items.extend(more);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(items),
        }
    }
    Err(GatewayError::ListTooLong { what: "the pages a listing may take", limit: bounds.pages })
}

/// A page of a listing the upstream does not implement, though it announced
/// the capability (a server with resources and no templates answers
/// `resources/templates/list` with "method not found"): nothing to list.
fn unless_unimplemented<T>(
    page: Result<(Vec<T>, Option<String>), rmcp::ServiceError>,
) -> Result<(Vec<T>, Option<String>), rmcp::ServiceError> {
    match page {
        Err(rmcp::ServiceError::McpError(e)) if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
            Ok((Vec::new(), None))
        }
        page => page,
    }
}

/// Which kinds of surface a listing asks the upstream for.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wanted {
    pub prompts: bool,
    /// Resources and resource templates.
    pub resources: bool,
}

impl Wanted {
    /// The kinds `gateway` declares: a kind the policy leaves out is refused
    /// without asking the upstream.
    pub fn declared_by(gateway: &Gateway) -> Self {
        let s = &gateway.surfaces;
        Self { prompts: !s.prompts.is_empty(), resources: !(s.resources.is_empty() && s.templates.is_empty()) }
    }
}

/// The upstream's prompts, resources and templates, as JSON, within
/// `timeout`: the kinds `wanted` that the upstream says it has.
pub(super) async fn list_surfaces(
    peer: &rmcp::Peer<RoleClient>,
    wanted: Wanted,
    timeout: Duration,
) -> Result<Listed, GatewayError> {
    let offers = peer.peer_info().map(|info| info.capabilities.clone()).unwrap_or_default();
    let listing = async {
        let mut listed = Listed::default();
        if wanted.prompts && offers.prompts.is_some() {
            let prompts = pages(LIST_BOUNDS, PROMPTS, |params| async move {
                let page = peer.list_prompts(Some(params)).await.map(|p| (p.prompts, p.next_cursor));
                unless_unimplemented(page)
            });
            listed.prompts = json(prompts.await?);
        }
        if wanted.resources && offers.resources.is_some() {
            let resources = pages(LIST_BOUNDS, RESOURCES, |params| async move {
                let page = peer.list_resources(Some(params)).await.map(|p| (p.resources, p.next_cursor));
                unless_unimplemented(page)
            });
            listed.resources = json(resources.await?);
            let templates = pages(LIST_BOUNDS, TEMPLATES, |params| async move {
                let page =
                    peer.list_resource_templates(Some(params)).await.map(|p| (p.resource_templates, p.next_cursor));
                unless_unimplemented(page)
            });
            listed.templates = json(templates.await?);
        }
        Ok(listed)
    };
    match tokio::time::timeout(timeout, listing).await {
        Ok(listed) => listed,
        Err(_) => Err(GatewayError::ListTimeout { secs: timeout.as_secs() }),
    }
}

fn json<T: serde::Serialize>(items: Vec<T>) -> Vec<serde_json::Value> {
    items.iter().filter_map(|t| serde_json::to_value(t).ok()).collect()
}

/// The client side of the upstream connection: a list-changed notification
/// (tools, prompts or resources) wakes whoever waits on `changed` (the
/// session, which then lists and checks again), and a resource update is
/// handed to `updated` for the session to forward to the clients that
/// subscribed, if the policy still shows the resource.
///
/// Requests from the upstream to a client (sampling, elicitation, roots)
/// follow the policy: the gateway offers the upstream only the client
/// capabilities `client_capabilities` names ([`client_capabilities`]), and
/// refuses a request for any other. One it offers is relayed to the client
/// of the session whose call the upstream is serving, when the gateway can
/// tell which that is ([`Callers`]), and that client offers it too;
/// otherwise it is refused, saying why.
pub(super) struct Listener {
    pub changed: Arc<Notify>,
    /// Bounded: when the session falls behind, further updates are dropped
    /// (an update says only "read it again", so a storm loses nothing a
    /// client needs, and the gateway's memory stays bounded).
    pub updated: mpsc::Sender<String>,
    /// Progress of the calls in flight, each back to the client that asked.
    pub progress: Arc<ProgressRoutes>,
    /// What the policy offers the upstream.
    pub offered: &'static [ClientCapability],
    /// The client of each call in flight: who a relayed request goes to.
    pub callers: Arc<Callers>,
}

/// MCP's client `capabilities` for what the policy offers, and nothing
/// else: what the gateway advertises to its upstream.
pub(super) fn client_capabilities(offered: &[ClientCapability]) -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    for capability in offered {
        match capability {
            ClientCapability::Sampling => capabilities.sampling = Some(SamplingCapability::default()),
            ClientCapability::Elicitation => {
                // Form elicitation only: a URL sends the person somewhere
                // the gateway cannot see.
                let form = ElicitationCapability::new().with_form(FormElicitationCapability::default());
                capabilities.elicitation = Some(form);
            }
            ClientCapability::Roots => capabilities.roots = Some(RootsCapabilities::default()),
        }
    }
    capabilities
}

/// Whether a downstream client said, when it connected, that it offers `capability`.
fn client_offers(client: &Peer<RoleServer>, capability: ClientCapability) -> bool {
    let Some(info) = client.peer_info() else { return false };
    let offered = &info.capabilities;
    match capability {
        ClientCapability::Sampling => offered.sampling.is_some(),
        ClientCapability::Elicitation => offered.elicitation.is_some(),
        ClientCapability::Roots => offered.roots.is_some(),
    }
}

/// The words of a refusal of what an upstream needs from a client that no
/// client capability covers (a 2026-07-28 `input_required`).
pub(super) fn upstream_request_refused(what: &str) -> McpError {
    McpError::invalid_request(
        format!(
            "m1nd gateway: {what} requests from the upstream are refused: one upstream connection serves every \
             session, so there is no one client to ask (see the guide's gateway page)"
        ),
        None,
    )
}

/// The words of every refusal of an upstream's request for a client capability.
pub(super) fn request_refused(capability: ClientCapability, why: &str) -> McpError {
    McpError::invalid_request(
        format!("m1nd gateway: the upstream's `{}` request was refused: {why}", capability.method()),
        None,
    )
}

impl Listener {
    /// The client to relay a `capability` request to, or the refusal.
    fn asked(&self, capability: ClientCapability) -> Result<Peer<RoleServer>, McpError> {
        let key = capability.key();
        if !self.offered.contains(&capability) {
            return Err(request_refused(
                capability,
                &format!(
                    "the gateway policy does not offer `{key}` to this upstream (it was never advertised); add \
                     \"{key}\" to `client_capabilities` in tools.toml after review to relay it"
                ),
            ));
        }
        match self.callers.only() {
            Asked::Only(client) if client_offers(&client, capability) => Ok(client),
            Asked::Only(_) => Err(request_refused(
                capability,
                &format!("the client of the session whose call is in flight does not offer `{key}`"),
            )),
            Asked::Nobody => Err(request_refused(
                capability,
                "no call is in flight, so there is no session whose client to ask; the gateway relays it \
                 only while it forwards a call",
            )),
            Asked::Several(n) => Err(request_refused(
                capability,
                &format!(
                    "{n} calls are in flight on the one upstream connection every session shares, and the \
                     request does not say which it belongs to; the gateway relays it only while one call is in \
                     flight"
                ),
            )),
        }
    }
}

/// A relayed request's failure: the client's own error as it gave it,
/// anything else named.
fn relay_failed(capability: ClientCapability, e: rmcp::ServiceError) -> McpError {
    match e {
        rmcp::ServiceError::McpError(e) => e,
        other => request_refused(capability, &format!("the session's client did not answer: {other}")),
    }
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            client_capabilities(self.offered),
            Implementation::new("m1nd-gateway", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updated.try_send(params.uri);
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.forward(params);
    }

    #[allow(deprecated, reason = "sampling is deprecated, and still what an upstream may ask")]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let client = self.asked(ClientCapability::Sampling)?;
        // The prompt is the upstream's text, read by the client's model: nothing in it may be invisible.
        let params = neutralise::answer("sampling/createMessage", params)?;
        client.create_message(params).await.map_err(|e| relay_failed(ClientCapability::Sampling, e))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let capability = ClientCapability::Elicitation;
        let client = self.asked(capability)?;
        match &request {
            ElicitRequestParams::FormElicitationParams { .. } => {}
            _ => {
                return Err(request_refused(
                    capability,
                    "it is not a form (a URL for the person to open, or a kind this gateway does not know); the \
                     gateway offers form elicitation only",
                ));
            }
        }
        // What the person reads (the message, the form's titles and descriptions) is the upstream's
        // text: shown with every invisible character escaped, never obeyed as a control.
        let request = neutralise::answer("elicitation/create", request)?;
        match client.send_request(ServerRequest::ElicitRequest(ElicitRequest::new(request))).await {
            Ok(ClientResult::ElicitResult(result)) => Ok(result),
            Ok(_) => Err(relay_failed(capability, rmcp::ServiceError::UnexpectedResponse)),
            Err(e) => Err(relay_failed(capability, e)),
        }
    }

    #[allow(deprecated, reason = "roots are deprecated, and still what an upstream may ask")]
    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        let client = self.asked(ClientCapability::Roots)?;
        client.list_roots().await.map_err(|e| relay_failed(ClientCapability::Roots, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gateway advertises exactly what the policy offers: nothing by
    /// default, and elicitation in form mode only.
    #[test]
    fn only_what_the_policy_offers_is_advertised() {
        assert_eq!(client_capabilities(&[]), ClientCapabilities::default());
        let roots = client_capabilities(&[ClientCapability::Roots]);
        assert!(roots.roots.is_some() && roots.sampling.is_none() && roots.elicitation.is_none());
        let all = client_capabilities(&ClientCapability::ALL);
        assert!(all.sampling.is_some() && all.roots.is_some());
        let elicitation = all.elicitation.expect("elicitation");
        assert!(elicitation.form.is_some() && elicitation.url.is_none(), "form only: {elicitation:?}");
        assert!(all.experimental.is_none() && all.extensions.is_none(), "no tasks, nothing else");
    }

    #[test]
    fn what_a_client_is_asked_is_escaped_before_it_is_relayed() {
        #[allow(deprecated, reason = "sampling is deprecated, and still what an upstream may ask")]
        let asked: CreateMessageRequestParams = serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Sum\u{202e} this\u{E0041}\nplease"}}],
            "systemPrompt": "be\u{1b}[2J brief",
            "maxTokens": 5
        }))
        .expect("a sampling request");
        let relayed =
            serde_json::to_value(neutralise::answer("sampling/createMessage", asked).expect("escaped")).expect("json");
        assert_eq!(relayed["messages"][0]["content"]["text"], "Sum\\u{202E} this\\u{E0041}\nplease");
        assert_eq!(relayed["systemPrompt"], "be\\u{001B}[2J brief");
    }
}
