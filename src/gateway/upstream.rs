//! The upstream MCP server: a child process spoken to over stdio, or a
//! Streamable HTTP endpoint (TLS and credentials: [`super::https`]), by
//! rmcp's client, with a handler that hears `notifications/tools/list_changed`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::Notify;

use super::credential::Credential;
use super::error::GatewayError;
use super::https::{self, HttpClientOptions};

/// Where the upstream server is.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A command started as a child process, spoken to on its stdin/stdout.
    Command { command: OsString, args: Vec<OsString> },
    /// A Streamable HTTP endpoint (`https://host/mcp`), with its TLS roots
    /// and credentials.
    Http { url: String, client: HttpClientOptions },
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
        let endpoint = Endpoint::Command { command: command.into(), args: args.into_iter().map(Into::into).collect() };
        Self { endpoint, start_timeout: Duration::from_secs(30) }
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

    fn describe(&self) -> String {
        let text = match &self.endpoint {
            Endpoint::Command { command, .. } => command.to_string_lossy().into_owned(),
            Endpoint::Http { url, .. } => https::without_secrets(url),
        };
        text.chars().take(120).collect()
    }

    /// Start (or reach) the upstream and complete the MCP handshake.
    pub(super) async fn connect<H: ClientHandler>(
        &self,
        handler: H,
    ) -> Result<RunningService<RoleClient, H>, GatewayError> {
        let handshake = match &self.endpoint {
            Endpoint::Command { command, args } => {
                let mut command = tokio::process::Command::new(command);
                command.args(args).kill_on_drop(true);
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::inherit())
                    .spawn()
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
                // rmcp's config, whose Debug would print it.
                let client = https::client(url, &self.describe(), client)?;
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

/// Every tool the upstream lists, as JSON, within `timeout`.
pub(super) async fn list(
    peer: &rmcp::Peer<RoleClient>,
    timeout: Duration,
) -> Result<Vec<serde_json::Value>, GatewayError> {
    let tools = match tokio::time::timeout(timeout, all_pages(peer, LIST_BOUNDS)).await {
        Ok(listed) => listed?,
        Err(_) => return Err(GatewayError::ListTimeout { secs: timeout.as_secs() }),
    };
    Ok(tools.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
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
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..bounds.pages {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = peer.list_tools(Some(params)).await.map_err(|e| GatewayError::List(e.to_string()))?;
        if tools.len() + page.tools.len() > bounds.tools {
            return Err(GatewayError::ListTooLong { what: "the tools a listing may hold", limit: bounds.tools });
        }
        tools.extend(page.tools);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(GatewayError::ListTooLong { what: "the pages a listing may take", limit: bounds.pages })
}

/// The client side of the upstream connection: a tools/list_changed
/// notification wakes whoever waits on `changed` (the session, which then
/// lists and checks again). It knows nothing of the session itself.
pub(super) struct Listener {
    pub changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("m1nd-gateway", env!("CARGO_PKG_VERSION")))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}
