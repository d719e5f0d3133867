//! A stateless `tools/call` over HTTP answered with the bytes its answer
//! keeps, instead of rmcp cloning, serialising and freeing the result again.
//!
//! For a kept cockpit answer that copy was most of the difference between a
//! cockpit call and `server/discover` (docs/benchmarks.md, section 15): the
//! answer's JSON is made once and shared (`Answer::json`), but rmcp takes
//! a `CallToolResult` by value, so every call cloned the whole structured
//! content tree, serialised it and dropped it.
//!
//! # How, and why the answer is the same
//!
//! rmcp still decides everything about the request: [`layer`] only puts an
//! empty [`AnswerSlot`] in a stateless POST's extensions (one that says
//! `MCP-Protocol-Version: 2026-07-28` and has no `Mcp-Session-Id`; sessions
//! and older versions stay rmcp's alone) and lets rmcp run. rmcp
//! checks the headers, the body and the protocol version, and calls the
//! handler; the handler (`mcp::answer_slot::hand_over`) puts the service's answer in the
//! slot and gives rmcp an empty result in its place. When rmcp has answered,
//! the layer takes the answer out of the slot and writes rmcp's message for
//! that request id again with the answer's bytes as its `result`: the bytes
//! rmcp would have written, in the same envelope (a JSON body, or the event
//! of an event stream that carries the result). A test sends the same
//! requests through the router with and without this layer and compares
//! every answer byte for byte.
//!
//! The empty stand-in never reaches a client: an answer the layer cannot
//! rewrite (a content type it does not know, a body it cannot read, no
//! message for the request's id) becomes a 500 that says so, and the call
//! can be sent again.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::RequestId;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::sse_events::{event_data, rewrite_one_event, with_data};
use crate::mcp::AnswerSlot;
use crate::transport::envelope;

/// The protocol version whose results `Answer::json` is written in (an
/// older peer's has no `resultType`): the only requests this layer watches.
const STATELESS_VERSION: &str = "2026-07-28";

/// rmcp's own answer to a call whose result is in the slot is this small
/// (the envelope and an empty result); a longer one is not read.
const MAX_STAND_IN_BYTES: usize = 64 * 1024;

/// How many answers were written from kept bytes: read by the tests.
#[derive(Clone, Default)]
pub struct Written(Arc<AtomicU64>);

impl Written {
    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The layer for `transport::http::router`'s `around_mcp`.
pub fn layer(written: Written) -> impl FnOnce(Router) -> Router {
    move |mcp| mcp.layer(axum::middleware::from_fn_with_state(written, write_kept_bytes))
}

/// Middleware: let rmcp answer a stateless POST, then put the answer's
/// bytes where rmcp put its stand-in.
async fn write_kept_bytes(State(written): State<Written>, mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    let stateless = headers.get("mcp-protocol-version").is_some_and(|v| v == STATELESS_VERSION)
        && !headers.contains_key("mcp-session-id");
    if request.method() != Method::POST || !stateless {
        return next.run(request).await;
    }
    let slot = AnswerSlot::default();
    request.extensions_mut().insert(slot.clone());
    let response = next.run(request).await;
    let Some(answer) = slot.take() else { return response };
    written.0.fetch_add(1, Ordering::Relaxed);
    let result = answer.json().clone();
    match media_type(response.headers()).as_deref() {
        Some("application/json") => in_json(response, &result).await,
        Some("text/event-stream") => in_event_stream(response, result),
        _ => unwritten("rmcp answered in a form this server does not rewrite"),
    }
}

/// The essence of the answer's content type, lower case.
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split_once(';').map_or(value, |(essence, _)| essence).trim().to_ascii_lowercase())
}

/// A JSON answer: rmcp's one message, with `result` as its result.
async fn in_json(response: Response, result: &Bytes) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_STAND_IN_BYTES).await else {
        return unwritten("rmcp's answer could not be read");
    };
    let Some(message) = with_result(&bytes, result) else {
        return unwritten("rmcp's answer holds no result to replace");
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(message))
}

/// An event stream: the event that carries the result is written again
/// with `result`; every other byte passes as rmcp wrote it.
fn in_event_stream(response: Response, result: Bytes) -> Response {
    let (parts, body) = response.into_parts();
    let rewrite = move |event: &[u8]| {
        let data = event_data(event)?;
        let message = with_result(data.as_bytes(), &result)?;
        with_data(event, std::str::from_utf8(&message).ok()?)
    };
    Response::from_parts(parts, Body::from_stream(rewrite_one_event(body.into_data_stream(), rewrite)))
}

/// A successful JSON-RPC response, read only as far as this needs: its id,
/// and that it has a result (the stand-in, whose value is not kept).
#[derive(Deserialize)]
struct Answered {
    id: RequestId,
    #[serde(rename = "result")]
    _result: IgnoredAny,
}

/// rmcp's response `message` written again with `result` in place of its
/// result, in rmcp's own envelope; `None` when `message` is no success.
fn with_result(message: &[u8], result: &[u8]) -> Option<Vec<u8>> {
    let answered: Answered = serde_json::from_slice(message).ok()?;
    let id = serde_json::to_vec(&answered.id).ok()?;
    let mut out = Vec::with_capacity(result.len() + id.len() + 32);
    for piece in [envelope::BEFORE_ID, &id, envelope::BEFORE_RESULT, result, b"}"] {
        out.extend_from_slice(piece);
    }
    Some(out)
}

/// The answer when rmcp's could not be rewritten: never the stand-in.
fn unwritten(why: &str) -> Response {
    tracing::warn!("tools/call over HTTP: {why}");
    let text = format!("the server could not write this call's answer ({why}); send the call again");
    (StatusCode::INTERNAL_SERVER_ERROR, text).into_response()
}

#[cfg(test)]
mod tests;
