//! The gateway's `tools/list` over `--http`, answered in the reviewed
//! definitions' own JSON, as [`GatewayService`](crate::gateway::GatewayService)
//! answers it on stdio.
//!
//! rmcp's Streamable HTTP server serves a `ServerHandler`, whose `tools/list`
//! answer is made of rmcp's `Tool`, which has no `execution` field. So
//! [`keep_definitions`] puts a layer between the transport's checks and
//! rmcp's `/mcp` service. It promises:
//!
//! 1. rmcp decides everything first: the request reaches it byte for byte,
//!    and every answer that is not a `tools/list` result passes untouched
//!    (its body is not read or parsed).
//! 2. Only a POST whose body is a `tools/list` request is watched. In its
//!    answer (JSON, or the SSE stream of a legacy session), the one message
//!    that is the result for that request's `id` gets the same `tools` array
//!    the stdio transport answers ([`ListsReviewedTools`]): each
//!    served tool as the view's JSON, `execution` exactly as pinned. Every
//!    other key is rmcp's, and every other byte of the stream (other
//!    events, comments, keep-alives) passes as rmcp wrote it
//!    (`sse_events.rs`).
//!
//! Not watched: a legacy session's stream resumed with `GET` and
//! `Last-Event-ID`, which replays a `tools/list` result as rmcp wrote it
//! (without `execution`); listing again gives the reviewed tools.
//! 3. The tools are those of the view current once rmcp answered (after its
//!    re-list), never an older one.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::RequestId;
use serde_json::Value;

use super::peek::peek;
use super::sse_events::{event_data, rewrite_one_event, with_data};
use crate::gateway::ListsReviewedTools;

/// The method whose answer is rewritten.
const TOOLS_LIST: &str = "tools/list";

/// The layer for `transport::http::serve`'s `around_mcp`: one gateway's
/// server, or a fleet's.
pub fn keep_definitions<S>(server: S) -> impl FnOnce(Router) -> Router
where
    S: ListsReviewedTools + Clone + Send + Sync + 'static,
{
    move |mcp| mcp.layer(axum::middleware::from_fn_with_state(server, answer_listing::<S>))
}

/// Middleware: let rmcp answer, then give a `tools/list` result the view's JSON.
async fn answer_listing<S>(State(server): State<S>, request: Request, next: Next) -> Response
where
    S: ListsReviewedTools + Clone + Send + Sync + 'static,
{
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (request, peeked) = match peek(request).await {
        Ok(peeked) => peeked,
        Err(refused) => return refused,
    };
    let (true, Some(id)) = (peeked.asks(TOOLS_LIST), peeked.id) else {
        return next.run(request).await;
    };
    let response = next.run(request).await;
    if !response.status().is_success() {
        return response;
    }
    let listing = Listing { id, tools: move || server.reviewed_tools() };
    match media_type(response.headers()).as_deref() {
        Some("application/json") => listing.in_json(response).await,
        Some("text/event-stream") => listing.in_event_stream(response),
        _ => response,
    }
}

/// The essence of the answer's content type, lower case.
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split_once(';').map_or(value, |(essence, _)| essence).trim().to_ascii_lowercase())
}

/// The request being answered, and where its tools come from (read when
/// the answer is, so they are the view rmcp answered from or a newer one).
#[derive(Clone)]
struct Listing<F> {
    id: RequestId,
    tools: F,
}

impl<F: Fn() -> Value + Clone + Send + Sync + 'static> Listing<F> {
    /// A JSON answer: one message, read whole. Its size is bounded by the
    /// view it was made from, which the gateway's listing bounds cap.
    async fn in_json(&self, response: Response) -> Response {
        let (mut parts, body) = response.into_parts();
        let bytes = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::warn!("tools/list: reading rmcp's answer failed: {e}");
                let text = "the gateway could not read its own tools/list answer; list the tools again";
                return (StatusCode::INTERNAL_SERVER_ERROR, text).into_response();
            }
        };
        let rewritten = self.rewrite(&bytes).map_or(bytes, Bytes::from);
        parts.headers.remove(header::CONTENT_LENGTH);
        Response::from_parts(parts, Body::from(rewritten))
    }

    /// An SSE answer: every byte passes in order (comments and keep-alives
    /// too), except the event that is the result, whose data is rewritten.
    fn in_event_stream(&self, response: Response) -> Response {
        let (parts, body) = response.into_parts();
        let events = rewrite_one_event(body.into_data_stream(), self.event_rewriter());
        Response::from_parts(parts, Body::from_stream(events))
    }

    /// What `rewrite_one_event` asks of each whole event of an SSE answer:
    /// the event that is the result, with its data rewritten; `None` (pass
    /// it as it is) for every other.
    fn event_rewriter(&self) -> impl FnMut(&[u8]) -> Option<Vec<u8>> + use<F> {
        let listing = self.clone();
        move |event| {
            let data = listing.rewrite(event_data(event)?.as_bytes())?;
            with_data(event, &data)
        }
    }

    /// `message` with the view's tools, when it is the result for this
    /// request; `None` (keep it as it is) otherwise.
    fn rewrite(&self, message: &[u8]) -> Option<String> {
        let mut message: Value = serde_json::from_slice(message).ok()?;
        let id = serde_json::from_value::<RequestId>(message.get("id")?.clone()).ok()?;
        if id != self.id {
            return None;
        }
        let tools = message.get_mut("result")?.get_mut("tools")?;
        if !tools.is_array() {
            return None;
        }
        *tools = (self.tools)();
        serde_json::to_string(&message).ok()
    }
}

/// The rewriter of an SSE answer to the `tools/list` request `id`, with
/// `tools` as the view's: the server's own, for `m1nd::fuzzing`.
#[cfg(feature = "store")]
pub(crate) fn event_rewriter(id: RequestId, tools: Value) -> impl FnMut(&[u8]) -> Option<Vec<u8>> {
    Listing { id, tools: move || tools.clone() }.event_rewriter()
}

#[cfg(test)]
mod tests;
