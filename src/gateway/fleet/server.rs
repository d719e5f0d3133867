//! The one rmcp server a fleet's clients talk to: a merged view of every
//! member's, each request routed to the member that answers for its name
//! (routes.rs) and decided there, as that member's gateway alone would.
//!
//! Names the fleet cannot route are refused here, with the same JSON-RPC
//! shapes a single gateway uses, and recorded in the audit trail under the
//! fleet's digest.

use std::sync::Arc;

use futures_util::future::join_all;
use m1nd_policy::SessionMode;
use m1nd_policy::gateway::fleet::{Fleet, served_name};
use m1nd_policy::gateway::{self};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::super::audit::{self, Audit, Decision, Unrecorded};
use super::super::listing::ListsReviewedTools;
use super::super::state::{ServedTool, State};
use super::super::surfaces as served;
use super::routes::{Routes, Unrouted};
use crate::mcp::attestation;

/// The refusal code of a name no member declares.
const UNROUTED: &str = "undeclared";

/// The fleet's server: shared by every session of every transport.
#[derive(Clone)]
pub struct FleetServer {
    fleet: &'static Fleet,
    /// The fleet's digest (`m1nd policy digest DIR`): attested, and on the
    /// audit lines of requests no member decided.
    digest: Arc<str>,
    audit: Option<Arc<Audit>>,
    routes: Arc<Routes>,
    /// Each member's gateway state, in `fleet.toml` order.
    members: Arc<Vec<Arc<State>>>,
}

impl FleetServer {
    pub(super) fn new(
        fleet: &'static Fleet,
        digest: String,
        audit: Option<Arc<Audit>>,
        routes: Arc<Routes>,
        members: Vec<Arc<State>>,
    ) -> Self {
        Self { fleet, digest: digest.into(), audit, routes, members: Arc::new(members) }
    }

    fn prefix(&self, member: usize) -> &str {
        &self.fleet.members[member].entry.prefix
    }

    /// The fleet's mode as one word: read-write if any member's session may write.
    fn mode(&self) -> SessionMode {
        let writes = self.members.iter().any(|m| !m.mode.is_read_only());
        if writes { SessionMode::ReadWrite } else { SessionMode::ReadOnly }
    }

    /// Record and build the refusal of a request no member answers for.
    fn unrouted(&self, session: &str, method: Option<&'static str>, spelled: &str, told: Unrouted) -> String {
        let told = told.to_string();
        let Some(audit) = self.audit.as_deref() else { return told };
        let line = audit::Record {
            code: Some(UNROUTED),
            reason: Some(told.clone()),
            own: audit::Upstream { method, ..Default::default() },
            ..audit::Record::new(session, spelled, Decision::Refused, &self.digest)
        };
        match audit.write(&line) {
            Ok(()) => told,
            Err(error) => Unrecorded::Refusal { told, error }.to_string(),
        }
    }

    fn unrouted_error(
        &self,
        context: &RequestContext<RoleServer>,
        method: &'static str,
        spelled: &str,
        told: Unrouted,
    ) -> McpError {
        let told = self.unrouted(&audit::session(context), Some(method), spelled, told);
        McpError::invalid_params(told, Some(json!({ "code": UNROUTED })))
    }

    /// Every member that declares `kind`'s requests, with its listing; the
    /// first member's refusal when none does (they all say the same).
    async fn gather<T>(
        &self,
        list: impl AsyncFn(&State) -> Result<T, McpError>,
        declares: impl Fn(&State) -> bool,
    ) -> Result<Vec<(usize, T)>, McpError> {
        let declaring: Vec<usize> = (0..self.members.len()).filter(|&i| declares(&self.members[i])).collect();
        if declaring.is_empty() {
            return list(&self.members[0]).await.map(|_| Vec::new());
        }
        let mut out = Vec::with_capacity(declaring.len());
        for i in declaring {
            out.push((i, list(&self.members[i]).await?));
        }
        Ok(out)
    }
}

fn declares_prompts(state: &State) -> bool {
    !state.gateway.surfaces.prompts.is_empty()
}

fn declares_resources(state: &State) -> bool {
    let s = &state.gateway.surfaces;
    !(s.resources.is_empty() && s.templates.is_empty())
}

/// What the fleet announces: tools always, and each other kind when any
/// member's policy declares it.
fn capabilities(members: &[Arc<State>]) -> ServerCapabilities {
    let mut merged = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
    for member in members {
        let one = served::capabilities(member.gateway);
        merged.prompts = merged.prompts.or(one.prompts);
        merged.resources = merged.resources.or(one.resources);
        merged.completions = merged.completions.or(one.completions);
    }
    merged
}

impl ServerHandler for FleetServer {
    fn get_info(&self) -> ServerConfig {
        let mode = self.mode();
        let mut lines: Vec<(String, String)> = Vec::new();
        let mut upstreams = Vec::new();
        for (i, state) in self.members.iter().enumerate() {
            let entry = &self.fleet.members[i].entry;
            let view = state.served();
            for offered in view.view.offered() {
                lines.push((served_name(&entry.prefix, &offered.verb), offered.definition.to_string()));
            }
            for (name, digest) in view.surfaces.attested() {
                lines.push((format!("{}/{name}", entry.name), digest.to_owned()));
            }
            upstreams.push(json!({
                "name": entry.name, "prefix": entry.prefix, "policy": &*state.digest, "mode": state.mode.key(),
            }));
        }
        let definitions = gateway::definitions_digest(lines.iter().map(|(n, d)| (n.as_str(), d.as_str())));
        let described: Vec<String> = self
            .fleet
            .members
            .iter()
            .zip(self.members.iter())
            .map(|(m, state)| format!("`{}` as {}… ({})", m.entry.name, m.entry.prefix, state.mode))
            .collect();
        let about = format!(
            "m1nd gateway: the tools of {} MCP servers, each as its own checked policy allows them: {}. A name \
             is served as the upstream's prefix followed by its own name.",
            self.members.len(),
            described.join(", ")
        );
        let mut config = ServerConfig::new(capabilities(&self.members))
            .with_server_info(
                Implementation::new("m1nd-gateway", env!("CARGO_PKG_VERSION"))
                    .with_title(format!("m1nd gateway fleet ({mode})"))
                    .with_description(about.clone()),
            )
            .with_instructions(about);
        config.meta = Some(attestation::fleet_meta(&self.digest, mode, &definitions, upstreams));
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        for member in self.members.iter() {
            if let Ok(mut downstream) = member.downstream.lock() {
                downstream.push(context.peer.clone());
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // As one gateway does: every listing re-checks each upstream first.
        join_all(self.members.iter().map(|m| m.relist())).await;
        Ok(ListToolsResult::with_all_items(self.merged_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.merged_tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let session = audit::session(&context);
        let spelled = request.name.to_string();
        let result = match self.routes.tool(&spelled) {
            Ok((member, verb)) => {
                request.name = verb.to_owned().into();
                let asker = context.meta.get_progress_token();
                self.members[member].call(request, &session, &spelled, context.peer.clone(), asker).await
            }
            Err(told) => CallToolResult::error(vec![ContentBlock::text(self.unrouted(&session, None, &spelled, told))]),
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let listed = self.gather(async |state| served::list_prompts(state).await, declares_prompts).await?;
        let mut prompts = Vec::new();
        for (member, result) in listed {
            for mut prompt in result.prompts {
                prompt.name = served_name(self.prefix(member), &prompt.name);
                prompts.push(prompt);
            }
        }
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let spelled = request.name.clone();
        match self.routes.prompt(&spelled) {
            Ok((member, declared)) => {
                request.name = declared.to_owned();
                served::get_prompt(&self.members[member], request, &context).await
            }
            Err(told) => Err(self.unrouted_error(&context, "prompts/get", &spelled, told)),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let listed = self.gather(async |state| served::list_resources(state).await, declares_resources).await?;
        Ok(ListResourcesResult::with_all_items(listed.into_iter().flat_map(|(_, r)| r.resources).collect()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let listed =
            self.gather(async |state| served::list_resource_templates(state).await, declares_resources).await?;
        let templates = listed.into_iter().flat_map(|(_, r)| r.resource_templates).collect();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match self.routes.resource(&request.uri) {
            Ok(member) => served::read_resource(&self.members[member], request, &context).await,
            Err(told) => Err(self.unrouted_error(&context, "resources/read", &request.uri, told)),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        match self.routes.resource(&request.uri) {
            Ok(member) => served::subscribe(&self.members[member], request, context).await,
            Err(told) => Err(self.unrouted_error(&context, "resources/subscribe", &request.uri, told)),
        }
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        match self.routes.resource(&request.uri) {
            Ok(member) => served::unsubscribe(&self.members[member], request, &context).await,
            // Nothing was subscribed through the fleet under a URI it does not route.
            Err(_) => Ok(()),
        }
    }

    async fn complete(
        &self,
        mut request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let mut reference = serde_json::to_value(&request.r#ref).unwrap_or(Value::Null);
        let spelled = reference.to_string();
        let routed = match (reference.get("name").and_then(Value::as_str), reference.get("uri").and_then(Value::as_str))
        {
            (Some(name), _) => self.routes.prompt(name).map(|(member, declared)| (member, Some(declared.to_owned()))),
            (None, Some(uri)) => self.routes.template(uri).map(|member| (member, None)),
            (None, None) => Err(Unrouted::NoReference),
        };
        let (member, declared) = match routed {
            Ok(routed) => routed,
            Err(told) => return Err(self.unrouted_error(&context, "completion/complete", &spelled, told)),
        };
        if let Some(declared) = declared {
            reference["name"] = Value::String(declared);
            request.r#ref =
                serde_json::from_value(reference).map_err(|e| McpError::internal_error(e.to_string(), None))?;
        }
        served::complete(&self.members[member], request, &context).await
    }
}

impl ListsReviewedTools for FleetServer {
    /// Every member's served tools as its view's JSON, under their served
    /// names, in `fleet.toml` order as `tools/list` lists them.
    fn reviewed_tools(&self) -> Value {
        self.each_served(|tool, name| {
            let mut json = tool.json.clone();
            json["name"] = Value::String(name);
            json
        })
        .into()
    }
}

impl FleetServer {
    /// Every member's served tools, under their served names.
    fn merged_tools(&self) -> Vec<Tool> {
        self.each_served(|tool, name| {
            let mut tool = tool.tool.clone();
            tool.name = name.into();
            tool
        })
    }

    /// `make` of each member's served tool and its served name, in
    /// `fleet.toml` order: the one walk both listings take.
    fn each_served<T>(&self, mut make: impl FnMut(&ServedTool, String) -> T) -> Vec<T> {
        let mut made = Vec::new();
        for (member, state) in self.members.iter().enumerate() {
            for served in state.served().tools.iter() {
                made.push(make(served, served_name(self.prefix(member), &served.tool.name)));
            }
        }
        made
    }
}
