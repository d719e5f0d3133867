//! The upstream MCP server: a child process spoken to over stdio by rmcp's
//! client, with a handler that hears `notifications/tools/list_changed`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use super::session::State;

/// How to start the upstream server.
#[derive(Clone, Debug)]
pub struct Upstream {
    pub command: OsString,
    pub args: Vec<OsString>,
    /// How long the upstream may take to answer `initialize` and `tools/list`.
    pub start_timeout: Duration,
}

impl Upstream {
    pub fn new(command: impl Into<OsString>, args: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        Self {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            start_timeout: Duration::from_secs(30),
        }
    }

    fn describe(&self) -> String {
        self.command.to_string_lossy().chars().take(120).collect()
    }

    /// Start the upstream and complete the MCP handshake.
    pub(super) async fn connect<H: ClientHandler>(&self, handler: H) -> Result<RunningService<RoleClient, H>, String> {
        let mut command = tokio::process::Command::new(&self.command);
        command.args(&self.args).kill_on_drop(true);
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the upstream `{}`: {e}", self.describe()))?;
        match tokio::time::timeout(self.start_timeout, handler.serve(transport)).await {
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
