//! [`Guarded`]: an rmcp server handler behind a compile-time gateway policy,
//! in process.
//!
//! It answers as `m1nd gateway` answers in front of an upstream, with the
//! inner handler as the upstream:
//!
//! - `tools/list` lists the inner handler's tools through the policy's
//!   [`View`](m1nd_policy::gateway::View): only the tools the policy declares
//!   and the session may call, under the policy's names, with the policy's
//!   annotations and narrowed input schemas, every string escaped;
//! - `tools/call` is checked by [`m1nd_policy::gateway::check`] against a
//!   fresh view; an allowed call reaches the inner handler under its own
//!   name with the checked (pinned paths canonicalised) arguments; a refused
//!   one never does, and gets the gateway's refusal: a tool error
//!   (`isError: true`) whose one text block says why;
//! - `initialize` carries the inner handler's info, escaped, with the mode in
//!   its title and instructions and the gateway's `io.m1nd/attestation`;
//! - prompts, resources and completion follow the policy's surfaces
//!   (see [`crate::surfaces`]).
//!
//! What the gateway does not serve is not served here either: tasks, skills,
//! `logging/setLevel`, `subscriptions/listen` and custom requests get rmcp's
//! "method not found", and their capabilities are not announced. Client
//! notifications (`initialized`, `cancelled`, `progress`, roots changed) are
//! passed on, since they ask the handler for nothing. What the inner handler
//! sends on its own through the session's peer (a log message, a progress
//! notification, `tools/list_changed`) does not pass through the guard.

use std::borrow::Cow;
use std::sync::Arc;

use m1nd_policy::SessionMode;
use m1nd_policy::gateway::{self, Embedded};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam, CompleteRequestParams,
    CompleteResult, ContentBlock, CustomNotification, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::attestation;
use crate::neutralise;
use crate::passed_on::{INPUT, not_passed_on};
use crate::state::{self, State};
use crate::surfaces;
use crate::tools::{GuardError, ListsTools, mismatches, table};

/// An rmcp server handler whose tools a gateway policy guards, in process.
pub struct Guarded<S> {
    inner: S,
    state: Arc<State>,
}

impl<S: Clone> Clone for Guarded<S> {
    /// Another handle on the same guard (rmcp's Streamable HTTP server makes
    /// one per session): the inner handler cloned, the policy's state shared.
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), state: Arc::clone(&self.state) }
    }
}

impl<S: ServerHandler> Guarded<S> {
    /// Guard `inner` with `policy` (a `static` that `gateway!` built), in
    /// the mode the policy declares. `tools` lists what `inner` serves (its
    /// `ToolRouter`, or the tools): every tool it has that the policy does
    /// not declare, and every tool the policy declares that it lacks, is an
    /// error here, at start, naming the tool and `tools.toml`.
    pub fn new(inner: S, policy: &'static Embedded, tools: &(impl ListsTools + ?Sized)) -> Result<Self, GuardError> {
        let gateway = table(policy)?;
        let listed = tools.definitions();
        mismatches(policy, gateway, &listed, true)?;
        Ok(Self { inner, state: Arc::new(State::new(gateway, false, listed)) })
    }

    /// Make every session read-only when `asked` is true, whatever the
    /// policy's mode: the guard's `--read-only`. It can only make a session
    /// stricter: a read-only policy stays read-only when `asked` is false.
    pub fn read_only(self, asked: bool) -> Self {
        let state = State::new(self.state.gateway, asked, self.state.first.clone());
        Self { inner: self.inner, state: Arc::new(state) }
    }

    /// The mode every session of this guard has.
    pub fn mode(&self) -> SessionMode {
        self.state.mode
    }

    /// The digest of the policy, as `m1nd policy digest DIR` prints it.
    pub fn policy_digest(&self) -> &str {
        &self.state.digest
    }

    /// The handler behind the guard.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

/// A refusal as the gateway answers one: a tool error whose text says why.
fn refusal(told: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(told)])
}

/// The capabilities announced: tools always, as the inner handler announces
/// them; prompts, resources and completion only when the policy declares
/// that kind and the inner handler has it, so a client never sees a
/// capability it would be refused.
fn capabilities(gateway: &gateway::Gateway, inner: &ServerCapabilities) -> ServerCapabilities {
    let declared = &gateway.surfaces;
    let mut announced = ServerCapabilities::default();
    announced.tools = inner.tools.clone().or_else(|| ServerCapabilities::builder().enable_tools().build().tools);
    if !declared.prompts.is_empty() {
        announced.prompts = inner.prompts.clone();
    }
    if !(declared.resources.is_empty() && declared.templates.is_empty()) {
        announced.resources = inner.resources.clone();
    }
    if !(declared.prompts.is_empty() && declared.templates.is_empty()) {
        announced.completions = inner.completions.clone();
    }
    announced
}

/// `value` with every string escaped (no flag: it is not an answer).
fn quoted<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> Option<T> {
    let mut json = serde_json::to_value(value).ok()?;
    m1nd_policy::sanitize::json::escape_strings(&mut json);
    serde_json::from_value(json).ok()
}

impl<S: ServerHandler> ServerHandler for Guarded<S> {
    fn get_info(&self) -> ServerConfig {
        let inner = self.inner.get_info();
        let state = &self.state;
        let (mode, announced) = (
            state.mode,
            attestation::announce(
                state.mode,
                state.gateway.mode,
                state.asked_read_only.then_some(attestation::AskedBy::Server),
            ),
        );
        let mut server = quoted(&inner.server_info).unwrap_or_else(|| {
            Implementation::new(neutralise::text(&inner.server_info.name), neutralise::text(&inner.server_info.version))
        });
        server.title = Some(format!("{} ({mode})", server.title.take().unwrap_or_else(|| server.name.clone())));
        let instructions = match inner.instructions.as_deref() {
            Some(own) => format!("{}\n\n{announced}", neutralise::text(own)),
            None => announced,
        };
        let meta = inner.meta.as_ref().and_then(quoted);
        let mut config = ServerConfig::new(capabilities(state.gateway, &inner.capabilities))
            .with_protocol_version(inner.protocol_version)
            .with_server_info(server)
            .with_instructions(instructions);
        config.meta = Some(attestation::attest(meta, &state.digest, mode, &state.definitions_digest()));
        config
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let listed = state::list_tools(&self.inner, &context).await?;
        Ok(ListToolsResult::with_all_items(self.state.view_of(listed).tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state.served().tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let listed = state::list_tools(&self.inner, &context).await?;
        let served = self.state.view_of(listed);
        let state = &self.state;
        let checked =
            gateway::check(state.gateway, &state.guard, &served.view, &request.name, request.arguments.as_ref());
        let forward = match checked {
            Ok(forward) => forward,
            Err(refused) => {
                tracing::info!("refused: {refused}");
                return Ok(refusal(refused.to_string()).into());
            }
        };
        // Forwarded as judged: the handler's own name, the checked arguments; the
        // request's `_meta` (a progress token) stays, since the caller is this session.
        request.name = forward.upstream.into();
        request.arguments = Some(forward.arguments);
        match self.inner.call_tool(request, context).await.map_err(neutralise::error)? {
            CallToolResponse::Complete(result) => Ok(neutralise::answer("tools/call", result)?.into()),
            CallToolResponse::Task(_) => Err(not_passed_on(&forward.verb, "answered with a task")),
            _ => Err(not_passed_on(&forward.verb, INPUT)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        surfaces::list_prompts(&self.state, &self.inner, &context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        surfaces::get_prompt(&self.state, &self.inner, request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        surfaces::list_resources(&self.state, &self.inner, &context).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        surfaces::list_resource_templates(&self.state, &self.inner, &context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        surfaces::read_resource(&self.state, &self.inner, request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        surfaces::subscribe(&self.state, &self.inner, request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        surfaces::unsubscribe(&self.state, &self.inner, request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        surfaces::complete(&self.state, &self.inner, request, context).await
    }

    // Notifications ask the handler for nothing: passed on.

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.inner.on_initialized(context).await
    }

    async fn on_cancelled(&self, notification: CancelledNotificationParam, context: NotificationContext<RoleServer>) {
        self.inner.on_cancelled(notification, context).await
    }

    async fn on_progress(&self, notification: ProgressNotificationParam, context: NotificationContext<RoleServer>) {
        self.inner.on_progress(notification, context).await
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.inner.on_roots_list_changed(context).await
    }

    async fn on_custom_notification(&self, notification: CustomNotification, context: NotificationContext<RoleServer>) {
        self.inner.on_custom_notification(notification, context).await
    }
}
