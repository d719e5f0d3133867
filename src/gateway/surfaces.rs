//! The downstream side of prompts, resources, resource templates and
//! completion: each request is checked against the policy's view
//! ([`m1nd_policy::gateway::surfaces`]) before anything is sent upstream.
//!
//! - A kind the policy does not declare is not announced in the gateway's
//!   capabilities, and its requests are refused.
//! - `prompts/get` forwards the upstream's exact name for the prompt the
//!   client spelled; `resources/read` and `resources/subscribe` forward only
//!   a URI the view allows; `completion/complete` only for an offered prompt
//!   or template.
//! - The upstream's `notifications/resources/updated` reaches only the
//!   sessions that subscribed to that URI through the gateway, and only
//!   while the policy still shows it. Its list-changed notifications make
//!   the gateway list again; a client hears of a change only when what it
//!   may see changed (session.rs).
//! - An upstream of an older protocol leaves `resultType` out of its
//!   answers; a 2026-07-28 client needs it, and the request did complete.
//! - Every answer and listing is escaped by [`super::neutralise`]: nothing
//!   invisible from the upstream reaches a client.
//! - An answer that asks the client for input (`input_required`) is an
//!   upstream request to a client in disguise, and is refused like one
//!   (see [`super::upstream::Listener`]).

use std::sync::Arc;

use m1nd_policy::gateway::Gateway;
use m1nd_policy::gateway::surfaces::Kind;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResponse,
    ResourceUpdatedNotificationParam, ResultType, ServerCapabilities, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleClient, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;

use super::audit::session;
use super::neutralise;
use super::state::State;
use super::subscriptions::Subscriber;
use super::surface_audit::Trail;
use super::upstream::upstream_request_refused;

/// How many resource updates may wait to be forwarded; more are dropped (an
/// update only says "read it again", so the next one says the same).
pub const UPDATES_QUEUED: usize = 256;

/// What the gateway announces: tools always, and each other kind only when
/// the policy declares it, so a client never sees a capability it would be
/// refused.
pub fn capabilities(gateway: &Gateway) -> ServerCapabilities {
    let declared = &gateway.surfaces;
    let mut capabilities = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
    let base = || ServerCapabilities::builder();
    if !declared.prompts.is_empty() {
        capabilities.prompts = base().enable_prompts().enable_prompts_list_changed().build().prompts;
    }
    if !(declared.resources.is_empty() && declared.templates.is_empty()) {
        capabilities.resources =
            base().enable_resources().enable_resources_list_changed().enable_resources_subscribe().build().resources;
    }
    if !(declared.prompts.is_empty() && declared.templates.is_empty()) {
        capabilities.completions = base().enable_completions().build().completions;
    }
    capabilities
}

pub async fn list_prompts(state: &State) -> Result<ListPromptsResult, McpError> {
    declared(state, Kind::Prompt)?;
    Ok(ListPromptsResult::with_all_items(items(state, Kind::Prompt).await))
}

pub async fn list_resources(state: &State) -> Result<ListResourcesResult, McpError> {
    declared(state, Kind::Resource)?;
    Ok(ListResourcesResult::with_all_items(items(state, Kind::Resource).await))
}

pub async fn list_resource_templates(state: &State) -> Result<ListResourceTemplatesResult, McpError> {
    declared(state, Kind::Resource)?;
    Ok(ListResourceTemplatesResult::with_all_items(items(state, Kind::Template).await))
}

pub async fn get_prompt(
    state: &State,
    mut request: GetPromptRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetPromptResponse, McpError> {
    declared(state, Kind::Prompt)?;
    let served = state.served();
    let spelled = request.name.clone();
    let checked = served.surfaces.prompt(state.gateway, &spelled).map(str::to_owned);
    let trail = Trail::new(state, context, "prompts/get", &spelled);
    trail
        .run(checked, async |name| {
            request.name = name;
            let peer = upstream(state)?;
            match forward(state, peer.get_prompt_once(request)).await? {
                GetPromptResponse::Complete(mut answer) => {
                    answer.result_type = Some(ResultType::COMPLETE);
                    Ok(neutralise::answer("prompts/get", answer)?.into())
                }
                _ => Err(input_required()),
            }
        })
        .await
}

pub async fn read_resource(
    state: &State,
    request: ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, McpError> {
    declared(state, Kind::Resource)?;
    let uri = request.uri.clone();
    let checked = state.served().surfaces.read(&uri).map(|()| uri.clone());
    Trail::new(state, context, "resources/read", &uri)
        .run(checked, async |_| {
            let peer = upstream(state)?;
            match forward(state, peer.read_resource_once(request)).await? {
                ReadResourceResponse::Complete(mut answer) => {
                    answer.result_type = Some(ResultType::COMPLETE);
                    Ok(neutralise::answer("resources/read", answer)?.into())
                }
                _ => Err(input_required()),
            }
        })
        .await
}

pub async fn subscribe(
    state: &State,
    request: SubscribeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<(), McpError> {
    declared(state, Kind::Resource)?;
    let uri = request.uri.clone();
    let checked = state.served().surfaces.read(&uri).map(|()| uri.clone());
    Trail::new(state, &context, "resources/subscribe", &uri)
        .run(checked, async |_| {
            let peer = upstream(state)?;
            #[allow(
                deprecated,
                reason = "the legacy `resources/subscribe` is what a pre-2026-07-28 upstream understands"
            )]
            forward(state, peer.subscribe(request)).await
        })
        .await?;
    state.subscriptions.add(uri, Subscriber { session: session(&context), peer: context.peer })
}

pub async fn unsubscribe(
    state: &State,
    request: UnsubscribeRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), McpError> {
    declared(state, Kind::Resource)?;
    if state.subscriptions.remove(&request.uri, &session(context)) {
        let peer = upstream(state)?;
        #[allow(deprecated, reason = "the legacy `resources/unsubscribe`, as for subscribe")]
        forward(state, peer.unsubscribe(request)).await?;
    }
    Ok(())
}

pub async fn complete(
    state: &State,
    mut request: CompleteRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CompleteResult, McpError> {
    let served = state.served();
    let reference = serde_json::to_value(&request.r#ref).unwrap_or(Value::Null);
    let spelled = reference.to_string();
    let checked = served.surfaces.completion(state.gateway, &reference).map(|allowed| allowed.to_string());
    Trail::new(state, context, "completion/complete", &spelled)
        .run(checked, async |allowed| {
            request.r#ref =
                serde_json::from_str(&allowed).map_err(|e| McpError::internal_error(e.to_string(), None))?;
            let peer = upstream(state)?;
            let mut answer = forward(state, peer.complete(request)).await?;
            answer.result_type = Some(ResultType::COMPLETE);
            neutralise::answer("completion/complete", answer)
        })
        .await
}

/// Forward every resource update the upstream sends to the sessions that
/// subscribed to it, while the policy shows it. Ends when the upstream does.
pub async fn forward_updates(state: Arc<State>, mut updates: mpsc::Receiver<String>) {
    while let Some(uri) = updates.recv().await {
        if let Err(refused) = state.served().surfaces.read(&uri) {
            tracing::warn!("an update from the upstream was not forwarded: {refused}");
            continue;
        }
        for session in state.subscriptions.sessions(&uri) {
            let _ = session.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone())).await;
        }
    }
}

/// Refuse a request of a kind the policy does not declare.
fn declared(state: &State, kind: Kind) -> Result<(), McpError> {
    let s = &state.gateway.surfaces;
    let any = match kind {
        Kind::Prompt => !s.prompts.is_empty(),
        Kind::Resource | Kind::Template => !(s.resources.is_empty() && s.templates.is_empty()),
    };
    if any {
        return Ok(());
    }
    let what = match kind {
        Kind::Prompt => "prompts (`[prompts]`)",
        Kind::Resource | Kind::Template => "resources (`[resources]` or `[templates]`)",
    };
    Err(McpError::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "this gateway's policy declares no {what} in tools.toml, so none are listed and every request for one is \
         refused; nothing was sent to the upstream"
        ),
        None,
    ))
}

/// What a session lists of one kind, after listing the upstream again (as
/// for tools: never older than the request).
async fn items<T: serde::de::DeserializeOwned>(state: &State, kind: Kind) -> Vec<T> {
    state.relist().await;
    neutralise::surfaces(kind.noun(), state.served().surfaces.served(kind))
}

fn upstream(state: &State) -> Result<Peer<RoleClient>, McpError> {
    state
        .upstream
        .lock()
        .ok()
        .and_then(|u| u.clone())
        .ok_or_else(|| McpError::internal_error("the upstream is not connected", None))
}

/// Send one request upstream within the call timeout; its failure becomes an
/// error naming what happened.
async fn forward<T>(
    state: &State,
    request: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, McpError> {
    let timeout = state.options.call_timeout;
    match tokio::time::timeout(timeout, request).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(rmcp::ServiceError::McpError(e))) => Err(neutralise::error(e)),
        Ok(Err(e)) => {
            Err(McpError::internal_error(neutralise::text(&format!("the upstream did not answer: {e}")), None))
        }
        Err(_) => {
            Err(McpError::internal_error(format!("the upstream did not answer within {} s", timeout.as_secs()), None))
        }
    }
}

fn input_required() -> McpError {
    upstream_request_refused("input (`input_required`)")
}
