//! Prompts, resources, resource templates and completion, as `m1nd gateway`
//! serves an upstream's: each request is checked against the policy's view
//! ([`m1nd_policy::gateway::surfaces`]) of a fresh listing of the inner
//! handler before anything reaches it.
//!
//! - A kind the policy does not declare is not announced (see
//!   [`crate::Guarded`]'s capabilities) and its requests are refused with
//!   "method not found", naming the table of `tools.toml` to declare.
//! - `prompts/get` reaches the handler under the exact name the policy
//!   declares for the prompt the client spelled; `resources/read` and
//!   `resources/subscribe` only for a URI the view allows;
//!   `completion/complete` only for an offered prompt or template.
//! - Every listing and answer is escaped ([`crate::neutralise`]); an answer
//!   that asks the client for input (`input_required`) is not passed on, as
//!   the gateway does not pass on an upstream's.

use std::sync::Arc;

use m1nd_policy::gateway::surfaces::{Kind, Listed, SurfaceRefused, SurfaceView};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResponse,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::neutralise;
use crate::passed_on::{INPUT, not_passed_on};
use crate::state::{State, json, pages};

pub async fn list_prompts<S: ServerHandler>(
    state: &State,
    inner: &S,
    context: &RequestContext<RoleServer>,
) -> Result<ListPromptsResult, McpError> {
    declared(state, Kind::Prompt)?;
    Ok(ListPromptsResult::with_all_items(items(&listed(state, inner, context).await?, Kind::Prompt)))
}

pub async fn list_resources<S: ServerHandler>(
    state: &State,
    inner: &S,
    context: &RequestContext<RoleServer>,
) -> Result<ListResourcesResult, McpError> {
    declared(state, Kind::Resource)?;
    Ok(ListResourcesResult::with_all_items(items(&listed(state, inner, context).await?, Kind::Resource)))
}

pub async fn list_resource_templates<S: ServerHandler>(
    state: &State,
    inner: &S,
    context: &RequestContext<RoleServer>,
) -> Result<ListResourceTemplatesResult, McpError> {
    declared(state, Kind::Resource)?;
    Ok(ListResourceTemplatesResult::with_all_items(items(&listed(state, inner, context).await?, Kind::Template)))
}

pub async fn get_prompt<S: ServerHandler>(
    state: &State,
    inner: &S,
    mut request: GetPromptRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<GetPromptResponse, McpError> {
    declared(state, Kind::Prompt)?;
    let view = listed(state, inner, &context).await?;
    request.name = view.1.prompt(state.gateway, &request.name).map_err(refused)?.to_owned();
    let name = request.name.clone();
    match inner.get_prompt(request, context).await.map_err(neutralise::error)? {
        GetPromptResponse::Complete(answer) => Ok(neutralise::answer("prompts/get", answer)?.into()),
        _ => Err(not_passed_on(&name, INPUT)),
    }
}

pub async fn read_resource<S: ServerHandler>(
    state: &State,
    inner: &S,
    request: ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, McpError> {
    declared(state, Kind::Resource)?;
    listed(state, inner, &context).await?.1.read(&request.uri).map_err(refused)?;
    let uri = request.uri.clone();
    match inner.read_resource(request, context).await.map_err(neutralise::error)? {
        ReadResourceResponse::Complete(answer) => Ok(neutralise::answer("resources/read", answer)?.into()),
        _ => Err(not_passed_on(&uri, INPUT)),
    }
}

pub async fn subscribe<S: ServerHandler>(
    state: &State,
    inner: &S,
    request: SubscribeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<(), McpError> {
    declared(state, Kind::Resource)?;
    listed(state, inner, &context).await?.1.read(&request.uri).map_err(refused)?;
    #[allow(deprecated, reason = "the legacy `resources/subscribe` is what a pre-2026-07-28 client sends")]
    inner.subscribe(request, context).await.map_err(neutralise::error)
}

pub async fn unsubscribe<S: ServerHandler>(
    state: &State,
    inner: &S,
    request: UnsubscribeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<(), McpError> {
    declared(state, Kind::Resource)?;
    #[allow(deprecated, reason = "the legacy `resources/unsubscribe`, as for subscribe")]
    inner.unsubscribe(request, context).await.map_err(neutralise::error)
}

pub async fn complete<S: ServerHandler>(
    state: &State,
    inner: &S,
    mut request: CompleteRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CompleteResult, McpError> {
    let view = listed(state, inner, &context).await?;
    let reference = serde_json::to_value(&request.r#ref).unwrap_or(Value::Null);
    let allowed = view.1.completion(state.gateway, &reference).map_err(refused)?;
    request.r#ref = serde_json::from_value(allowed).map_err(|e| McpError::internal_error(e.to_string(), None))?;
    let answer = inner.complete(request, context).await.map_err(neutralise::error)?;
    neutralise::answer("completion/complete", answer)
}

/// A refused request: `invalid_params` with the view's words and code, as
/// the gateway answers one.
fn refused(refused: SurfaceRefused) -> McpError {
    McpError::invalid_params(refused.to_string(), Some(json!({"code": refused.code()})))
}

/// Refuse a request of a kind the policy does not declare.
fn declared(state: &State, kind: Kind) -> Result<(), McpError> {
    let s = &state.gateway.surfaces;
    let (any, what) = match kind {
        Kind::Prompt => (!s.prompts.is_empty(), "prompts (`[prompts]`)"),
        Kind::Resource | Kind::Template => {
            (!(s.resources.is_empty() && s.templates.is_empty()), "resources (`[resources]` or `[templates]`)")
        }
    };
    if any {
        return Ok(());
    }
    Err(McpError::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "this server's policy declares no {what} in tools.toml, so none are listed and every request for one is \
             refused; nothing was sent to the server's handler"
        ),
        None,
    ))
}

/// What a session lists of one kind, escaped.
fn items<T: serde::de::DeserializeOwned>(view: &Arc<(Listed, SurfaceView)>, kind: Kind) -> Vec<T> {
    neutralise::surfaces(kind.noun(), view.1.served(kind))
}

/// The view of a fresh listing of the kinds the policy declares and the
/// inner handler announces.
async fn listed<S: ServerHandler>(
    state: &State,
    inner: &S,
    context: &RequestContext<RoleServer>,
) -> Result<Arc<(Listed, SurfaceView)>, McpError> {
    let declared = &state.gateway.surfaces;
    let offers = inner.get_info().capabilities;
    let mut listed = Listed::default();
    if !declared.prompts.is_empty() && offers.prompts.is_some() {
        listed.prompts = json(
            pages("prompts/list", |params| {
                let context = context.clone();
                async move {
                    let page = inner.list_prompts(Some(params), context).await;
                    unless_unimplemented(page.map(|p| (p.prompts, p.next_cursor)))
                }
            })
            .await?,
        );
    }
    if !(declared.resources.is_empty() && declared.templates.is_empty()) && offers.resources.is_some() {
        listed.resources = json(
            pages("resources/list", |params| {
                let context = context.clone();
                async move {
                    let page = inner.list_resources(Some(params), context).await;
                    unless_unimplemented(page.map(|p| (p.resources, p.next_cursor)))
                }
            })
            .await?,
        );
        listed.templates = json(
            pages("resources/templates/list", |params| {
                let context = context.clone();
                async move {
                    let page = inner.list_resource_templates(Some(params), context).await;
                    unless_unimplemented(page.map(|p| (p.resource_templates, p.next_cursor)))
                }
            })
            .await?,
        );
    }
    Ok(state.surfaces_of(listed))
}

/// A listing the handler does not implement though it announced the
/// capability (resources and no templates): nothing to list.
fn unless_unimplemented<T>(
    page: Result<(Vec<T>, Option<String>), McpError>,
) -> Result<(Vec<T>, Option<String>), McpError> {
    match page {
        Err(e) if e.code == ErrorCode::METHOD_NOT_FOUND => Ok((Vec::new(), None)),
        page => page,
    }
}
