//! The upstream MCP server: a child process spoken to over stdio, or a
//! Streamable HTTP endpoint, by rmcp's client, with a handler that hears
//! `notifications/tools/list_changed`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::Notify;

use super::error::GatewayError;

/// Where the upstream server is.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A command started as a child process, spoken to on its stdin/stdout.
    Command { command: OsString, args: Vec<OsString> },
    /// A Streamable HTTP endpoint (`http://host:port/mcp`).
    Http { url: String },
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
        Self { endpoint: Endpoint::Http { url: url.into() }, start_timeout: Duration::from_secs(30) }
    }

    fn describe(&self) -> String {
        let text = match &self.endpoint {
            Endpoint::Command { command, .. } => command.to_string_lossy().into_owned(),
            Endpoint::Http { url } => url.clone(),
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
            Endpoint::Http { url } => {
                // 2026-07-28 first (`server/discover`, then self-contained
                // requests with `Mcp-Method`/`Mcp-Name` headers that a proxy
                // in between may route on); an older server gets the legacy
                // `initialize` handshake instead.
                use rmcp::model::ProtocolVersion;
                use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
                let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
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
            Ok(Err(e)) => Err(GatewayError::Handshake { upstream: self.describe(), message: e.to_string() }),
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
    let tools: Vec<Tool> = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
        Ok(Ok(tools)) => tools,
        Ok(Err(e)) => return Err(GatewayError::List(e.to_string())),
        Err(_) => return Err(GatewayError::ListTimeout { secs: timeout.as_secs() }),
    };
    Ok(tools.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
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
