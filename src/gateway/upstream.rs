//! The upstream MCP server: a child process spoken to over stdio, or a
//! Streamable HTTP endpoint, by rmcp's client, with a handler that hears
//! `notifications/tools/list_changed`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use super::session::State;

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
    pub(super) async fn connect<H: ClientHandler>(&self, handler: H) -> Result<RunningService<RoleClient, H>, String> {
        let handshake = match &self.endpoint {
            Endpoint::Command { command, args } => {
                let mut command = tokio::process::Command::new(command);
                command.args(args).kill_on_drop(true);
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::inherit())
                    .spawn()
                    .map_err(|e| format!("cannot start the upstream `{}`: {e}", self.describe()))?;
                tokio::time::timeout(self.start_timeout, handler.serve(transport)).await
            }
            Endpoint::Http { url } => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                tokio::time::timeout(self.start_timeout, handler.serve(transport)).await
            }
        };
        match handshake {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(e)) => Err(format!("the upstream `{}` did not complete the MCP handshake: {e}", self.describe())),
            Err(_) => Err(format!(
                "the upstream `{}` did not answer `initialize` within {} s",
                self.describe(),
                self.start_timeout.as_secs()
            )),
        }
    }
}

/// Every tool the upstream lists, as JSON, within `timeout`.
pub(super) async fn list(peer: &rmcp::Peer<RoleClient>, timeout: Duration) -> Result<Vec<serde_json::Value>, String> {
    let tools: Vec<Tool> = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
        Ok(Ok(tools)) => tools,
        Ok(Err(e)) => return Err(format!("the upstream's tools/list failed: {e}")),
        Err(_) => return Err(format!("the upstream did not answer tools/list within {} s", timeout.as_secs())),
    };
    Ok(tools.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
}

/// The client side of the upstream connection: a tools/list_changed
/// notification makes the gateway list and check again.
pub(super) struct Listener {
    pub state: Arc<State>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("m1nd-gateway", env!("CARGO_PKG_VERSION")))
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.state.refresh(&context.peer).await;
    }
}
