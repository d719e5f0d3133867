//! The rmcp `ServerHandler`: initialize, tools/list, tools/call, and the
//! widget's resources/list and resources/read. Every `tools/call` goes to
//! the [`Service`]; nothing here touches the store.

use m1nd_policy::SessionMode;
use m1nd_policy::guard::Guard;
use m1nd_policy::runtime::SEND_AS_TYPED;
use m1nd_policy::sanitize::{cap, display};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::methods::shape_of;
use super::{answer_slot, app, attestation, tools};
use crate::COCKPIT;
use crate::service::{Lane, Service};

/// The m1nd MCP server: one per process, cloned for every session of every
/// transport (it holds no per-session state, and its clones share the service).
#[derive(Clone)]
pub struct Server {
    service: Service,
    tools: std::sync::Arc<[Tool]>,
    instructions: std::sync::Arc<str>,
}

impl Server {
    pub fn new(service: Service) -> Self {
        let tools = tools::tools(service.guard()).into();
        let instructions = instructions(service.read_only()).into();
        Self { service, tools, instructions }
    }

    /// The service every call goes to.
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// The guard of this server's session mode.
    pub fn guard(&self) -> &Guard<'static> {
        self.service.guard()
    }
}

/// `negative_default` word for word, then what this server offers.
pub fn instructions(read_only: bool) -> String {
    let what = if read_only {
        "tools that write are neither listed nor callable, and `persist` answers only `action = \"status\"`."
    } else {
        "the writes (`memorize`, `persist`) take `expected_store_version`; if the store moved since you read it, \
         the write is refused with both versions named and nothing changes."
    };
    let mode = format!("This session's mode: {}: {what}", SessionMode::from_read_only(read_only));
    let common: Vec<String> = COCKPIT.common.iter().map(|a| format!("`{a}`")).collect();
    let common = if common.is_empty() {
        String::new()
    } else {
        format!(" Every tool also takes {}; pass the same values on every call.", common.join(", "))
    };
    format!(
        "{}\n\nm1nd serves a shared store of missions, ratified system blocks, memories, alerts and presences. \
         `cockpit` is the human's numbered menu over that state: call it with the reference they chose (for \
         example `3.2@mc_1a2b3c4d`, keeping the sig they saw) and show the card it returns. {SEND_AS_TYPED} `help` \
         lists overview cards for common needs, and the read tools answer the facts the menu is built from. {mode}\
         {common}",
        COCKPIT.negative_default
    )
}

impl ServerHandler for Server {
    /// Also what rmcp answers `server/discover` with, attestation included.
    fn get_info(&self) -> ServerConfig {
        let mode = SessionMode::from_read_only(self.service.read_only());
        let capabilities = ServerCapabilities::builder()
            .enable_extensions_with(app::extensions())
            .enable_resources()
            .enable_tools()
            .build();
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("m1nd", env!("CARGO_PKG_VERSION")).with_title(format!("m1nd ({mode})")),
            )
            .with_instructions(self.instructions.to_string());
        config.meta = Some(attestation::meta(mode));
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let session = crate::audit::session(&context);
        let call = self.service.call_in(lane(&context), &session, &request.name, request.arguments.as_ref());
        // rmcp cancels the context when the client sends
        // `notifications/cancelled` or its connection ends; dropping the call
        // then drops it from its queue, or stops it at its next checkpoint.
        tokio::select! {
            answer = call => Ok(answer_slot::hand_over(&context, answer).into()),
            () = context.ct.cancelled() => Err(McpError::new(ErrorCode::INTERNAL_ERROR, "the call was cancelled", None)),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(app::resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        app::read(&request.uri).map(Into::into)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        let method = display(&request.method, cap::NAME);
        // rmcp routes a known method whose params do not parse here too.
        if let Some(shape) = shape_of(&method) {
            return Err(McpError::invalid_params(format!("invalid params for `{method}`: expected {shape}"), None));
        }
        Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "unknown method `{method}`; this server answers initialize, ping, tools/list, tools/call, resources/list and resources/read"
            ),
            None,
        ))
    }
}

/// The fair-queue lane of a call: its agent's when a per-agent access token
/// named one, else its MCP session's over legacy HTTP, else the HTTP
/// connection's the listener stamped on the request, else (stdio) the
/// default one.
fn lane(context: &RequestContext<RoleServer>) -> Lane {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return Lane::default();
    };
    // An agent's share is one, however many connections or sessions it opens.
    if let Some(agent) = parts.extensions.get::<crate::lane::Agent>() {
        return Lane::agent(&agent.0);
    }
    if let Some(session) = parts.headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        return Lane::session(session);
    }
    parts.extensions.get::<Lane>().copied().unwrap_or_default()
}
