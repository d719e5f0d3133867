//! The rmcp `ServerHandler`: initialize, tools/list, tools/call.

use std::sync::Arc;

use m1nd::COCKPIT;
use m1nd_core::sanitize::{cap, display};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::Options;
use super::call::Session;
use super::catalog;
use super::request::shape_of;
use super::worker::Calls;

/// The m1nd MCP server for one stdio session.
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
    format!(
        "{}\n\nm1nd serves a shared store of missions, ratified system blocks, memories, alerts and presences. \
         `cockpit` is the human's numbered menu over that state: pass what they typed as `select` (for example \
         `3.2@mc_1a2b3c4d`, keeping the sig they saw) and show the card it returns. `help` lists overview cards \
         for common needs, and the read tools answer the facts the menu is built from. {mode}",
        COCKPIT.negative_default
    )
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("m1nd", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.clone())
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
            format!("unknown method `{method}`; this server answers initialize, ping, tools/list and tools/call"),
            None,
        ))
    }
}
