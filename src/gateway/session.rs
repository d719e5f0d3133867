//! The downstream side: the rmcp server every downstream session talks to,
//! whose tools, prompts and resources are the policy's view of the upstream
//! (state.rs holds that view and checks each call; surfaces.rs each request
//! for a prompt or resource), and the upstream's start and rechecks.

use std::sync::Arc;

use m1nd_policy::SessionMode;
use m1nd_policy::gateway::{self, Gateway};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, ServerHandler};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::audit;
use super::error::GatewayError;
use super::shadow::Shadow;
use super::state::{Options, State};
use super::surfaces as served_surfaces;
use super::upstream::{Listener, Upstream};
use crate::mcp::attestation;

/// The mode's announcement, in the words the in-process guard uses too.
fn announce(mode: SessionMode, declared: SessionMode, asked_read_only: bool) -> String {
    use m1nd_guard::attestation::{AskedBy, announce};
    announce(mode, declared, asked_read_only.then_some(AskedBy::CommandLine))
}

/// The rmcp server downstream clients talk to: one per gateway, shared by
/// every session of every transport.
#[derive(Clone)]
pub struct GatewayServer {
    pub(super) state: Arc<State>,
}

impl ServerHandler for GatewayServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = served_surfaces::capabilities(self.state.gateway);
        let state = &self.state;
        let mode = state.mode;
        let served = state.served();
        let surfaces = served.surfaces.attested();
        let tools = served.view.offered().iter().map(|o| (&*o.verb, &*o.definition));
        let definitions =
            gateway::definitions_digest(tools.chain(surfaces.iter().map(|(name, digest)| (name.as_str(), *digest))));
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("m1nd-gateway", env!("CARGO_PKG_VERSION"))
                    .with_title(format!("m1nd gateway ({mode})"))
                    .with_description(announce(mode, state.gateway.mode, state.options.read_only)),
            )
            .with_instructions(format!(
                "m1nd gateway: the tools of another MCP server, as a checked policy allows them. {}",
                announce(mode, state.gateway.mode, state.options.read_only)
            ));
        // The same `io.m1nd/attestation` as `m1nd serve`, in `initialize` and `server/discover`.
        config.meta = Some(attestation::gateway_meta(
            &state.digest,
            mode,
            &definitions,
            state.shadow.as_ref().map(Shadow::digest),
        ));
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Ok(mut downstream) = self.state.downstream.lock() {
            downstream.push(context.peer);
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Every listing re-checks the upstream first, so what a client sees
        // is never older than its own request.
        self.state.relist().await;
        Ok(ListToolsResult::with_all_items(self.state.served().tools.iter().map(|t| t.tool.clone()).collect()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state.served().tools.iter().find(|t| t.tool.name == name).map(|t| t.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let spelled = request.name.clone();
        let asker = context.meta.get_progress_token();
        Ok(self.state.call(request, &audit::session(&context), &spelled, context.peer.clone(), asker).await.into())
    }

    // Prompts, resources and completion: see surfaces.rs.

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        served_surfaces::list_prompts(&self.state).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        served_surfaces::get_prompt(&self.state, request, &context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        served_surfaces::list_resources(&self.state).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        served_surfaces::list_resource_templates(&self.state).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        served_surfaces::read_resource(&self.state, request, &context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        served_surfaces::subscribe(&self.state, request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        served_surfaces::unsubscribe(&self.state, request, &context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        served_surfaces::complete(&self.state, request, &context).await
    }
}

/// A gateway whose upstream is running and whose tools have been checked.
pub struct Connected {
    /// Serve this on Streamable HTTP (rmcp's server takes a
    /// `ServerHandler`); on a transport of your own, serve
    /// [`super::GatewayService`], whose `tools/list` keeps `execution`.
    pub server: GatewayServer,
    client: RunningService<RoleClient, Listener>,
    /// Lists and checks again whenever the upstream says its tools changed,
    /// and every recheck interval.
    rechecks: JoinHandle<()>,
    /// Forwards the upstream's resource updates to the sessions that subscribed.
    forwarding: JoinHandle<()>,
}

impl Connected {
    /// Stop the upstream.
    pub async fn close(self) {
        self.rechecks.abort();
        self.forwarding.abort();
        let _ = self.client.cancel().await;
    }
}

/// Start the upstream and check its tools against `gateway`. `gateway` is a
/// compiled gateway policy (a `static`, or one leaked once per process).
pub async fn connect(
    gateway: &'static Gateway,
    options: Options,
    upstream: Upstream,
) -> Result<Connected, GatewayError> {
    let state = Arc::new(State::new(gateway, options));
    tracing::info!("{}", announce(state.mode, gateway.mode, state.options.read_only));
    let changed = Arc::new(Notify::new());
    let (updated, updates) = tokio::sync::mpsc::channel(served_surfaces::UPDATES_QUEUED);
    let client = upstream
        .connect(
            Listener {
                changed: Arc::clone(&changed),
                updated,
                progress: Arc::clone(&state.progress),
                offered: &gateway.client[..],
                callers: Arc::clone(&state.callers),
            },
            &state.declared,
        )
        .await?;
    let peer = client.peer().clone();
    if let Ok(mut slot) = state.upstream.lock() {
        *slot = Some(peer.clone());
    }
    if !state.refresh(&peer).await {
        return Err(GatewayError::NothingToServe);
    }
    let forwarding = tokio::spawn(served_surfaces::forward_updates(Arc::clone(&state), updates));
    let rechecks = tokio::spawn({
        let state = Arc::clone(&state);
        async move {
            let mut every = state.options.recheck.map(|period| {
                let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                interval
            });
            loop {
                tokio::select! {
                    () = changed.notified() => {}
                    () = tick(&mut every) => {}
                }
                state.refresh(&peer).await;
            }
        }
    });
    Ok(Connected { server: GatewayServer { state }, client, rechecks, forwarding })
}

/// The next recheck, or never when rechecks are off.
async fn tick(every: &mut Option<tokio::time::Interval>) {
    match every {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}
