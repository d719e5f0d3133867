//! The rmcp `ServerHandler`: initialize, tools/list, tools/call, and the
//! widget's resources/list and resources/read.

use std::sync::Arc;

use m1nd::COCKPIT;
use m1nd_core::runtime::SEND_AS_TYPED;
use m1nd_core::sanitize::{cap, display};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::Options;
use super::attestation;
use super::call::Session;
use super::request::shape_of;
use super::worker::Calls;
use super::{app, catalog};

/// The m1nd MCP server: one per process, shared by every session of every
/// transport (it holds no per-session state).
pub struct Server {
    calls: Calls,
    tools: Vec<Tool>,
    instructions: String,
}

impl Server {
    pub fn new(options: Options) -> Result<Self, String> {
        let session = Session::new(options.read_only, options.store);
        let tools = catalog::tools(session.guard());
        let instructions = instructions(options.read_only);
        let calls = Calls::start(Arc::new(session)).map_err(|e| format!("cannot start the call thread: {e}"))?;
        Ok(Self { calls, tools, instructions })
    }
}

/// `negative_default` word for word, then what this server offers.
pub fn instructions(read_only: bool) -> String {
    let mode = if read_only {
        "This session is attached read-only: tools that write are neither listed nor callable, and `persist` \
         answers only `action = \"status\"`."
    } else {
        "The writes (`memorize`, `persist`) take `expected_store_version`; if the store moved since you read it, \
         the write is refused with both versions named and nothing changes."
    };
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
        let capabilities = ServerCapabilities::builder()
            .enable_extensions_with(app::extensions())
            .enable_resources()
            .enable_tools()
            .build();
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("m1nd", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.clone());
        config.meta = Some(attestation::meta());
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(self.calls.call(request.name.into_owned(), request.arguments).await.into())
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
