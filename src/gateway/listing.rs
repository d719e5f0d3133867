//! The gateway served on a transport it is handed (stdio): [`serve`], and
//! [`GatewayService`], [`GatewayServer`] with `tools/list` answered in the
//! view's own JSON.
//!
//! rmcp 3.11's `Tool` has no `execution` field, so a `ListToolsResult` built
//! of `Tool`s cannot carry a reviewed tool's `execution` (task support).
//! [`GatewayService`] promises:
//!
//! 1. Every request, `tools/list` included, goes through `GatewayServer`'s
//!    own rmcp handling first: the same checks of the request, the same
//!    re-list, the same `resultType`, cache hints and (no) `nextCursor`.
//! 2. A `tools/list` answer then lists each served tool as the view's JSON
//!    ([`ListsReviewedTools`]; a fleet's under their served names)
//!    (m1nd-policy's `definition::served`: only the reviewed keys, the
//!    policy's name, the annotations of `gateway::annotations`), so `execution` reaches the client
//!    exactly when the policy pinned it; every other key of the answer is
//!    rmcp's.
//! 3. The tools are those of the view current after the re-list, never an
//!    older one.
//!
//! rmcp's Streamable HTTP server takes a `ServerHandler`, not a `Service`, so
//! `--http` serves the bare `GatewayServer` and gives its `tools/list` answers
//! the same tools in a layer in front of it (`transport::http::reviewed_tools`).

use std::borrow::Cow;

use m1nd_policy::gateway::Gateway;
use rmcp::model::{ClientNotification, ClientRequest, CustomResult, ProtocolVersion, ServerConfig, ServerResult};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, Service, ServiceExt};

use super::error::GatewayError;
use super::session::{GatewayServer, connect};
use super::state::{Options, Served};
use super::upstream::Upstream;

/// Start the upstream, check its tools, and serve `downstream` until it closes.
pub async fn serve<T, E, A>(
    gateway: &'static Gateway,
    options: Options,
    upstream: Upstream,
    downstream: T,
) -> Result<(), GatewayError>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let connected = connect(gateway, options, upstream).await?;
    let served = GatewayService::new(connected.server.clone()).serve(downstream).await;
    let ended = match served {
        Ok(server) => server.waiting().await.map(|_| ()).map_err(|e| GatewayError::DownstreamEnded(e.to_string())),
        Err(e) => Err(GatewayError::DownstreamStart(e.to_string())),
    };
    connected.close().await;
    ended
}

/// A server whose `tools/list` answer is its reviewed tools' own JSON,
/// which keeps what rmcp's `Tool` drops: one gateway, or a fleet.
pub trait ListsReviewedTools {
    /// The `tools` array of a `tools/list` answer, read from the view
    /// current now.
    fn reviewed_tools(&self) -> serde_json::Value;
}

impl ListsReviewedTools for GatewayServer {
    fn reviewed_tools(&self) -> serde_json::Value {
        served_tools(&self.state.served())
    }
}

/// Each served tool as the view's JSON.
pub(super) fn served_tools(served: &Served) -> serde_json::Value {
    served.tools.iter().map(|tool| tool.json.clone()).collect()
}

/// A gateway's server (one, or a fleet) whose `tools/list` keeps what
/// rmcp's `Tool` drops.
#[derive(Clone)]
pub struct GatewayService<S = GatewayServer>(S);

impl<S> GatewayService<S> {
    pub fn new(server: S) -> Self {
        Self(server)
    }
}

impl<S: ServerHandler + ListsReviewedTools + Clone> Service<RoleServer> for GatewayService<S> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let lists_tools = matches!(request, ClientRequest::ListToolsRequest(_));
        let answered = Service::handle_request(&self.0, request, context).await?;
        match answered {
            ServerResult::ListToolsResult(mut listed) if lists_tools => {
                // Its tools are replaced: only rmcp's other keys are turned into JSON.
                listed.tools.clear();
                let mut answer = serde_json::to_value(&listed)
                    .map_err(|e| McpError::internal_error(format!("tools/list: {e}"), None))?;
                answer["tools"] = self.0.reviewed_tools();
                Ok(ServerResult::CustomResult(CustomResult(answer)))
            }
            answered => Ok(answered),
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        Service::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        ServerHandler::supported_protocol_versions(&self.0)
    }
}
