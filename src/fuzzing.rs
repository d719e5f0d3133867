//! Entry points for the fuzz crate (`fuzz/`, see its README): the parsers a
//! stranger reaches whose functions are private to the transport.
//!
//! # The invariant
//!
//! 1. Every function here calls the code the server runs, unchanged: the fuzz
//!    targets test the server's parsers, never a copy of them.
//!
//! Not an API: hidden from the documentation, and free to change with the
//! fuzz crate. Nothing in the server calls this module.

use axum::http::{HeaderMap, HeaderName, HeaderValue};

pub use crate::gateway::declared::{Declared, Tap};
pub use crate::store::tray::{Act, RECEIPT_HASH_LEN};
pub use crate::transport::http::human::authority::{Authority, COOKIE, Session};
pub use crate::transport::http::human::{CSRF_HEADER, MAX_FORM_BYTES, MAX_TARGET_BYTES};
pub use crate::transport::http::peek::Peeked;
pub use crate::transport::http::sse_events::{MAX_EVENT_BYTES, event_data, rewrite_one_event, with_data};
pub use crate::transport::request::{MAX_JSON_VALUES, Parsed, parse, parse_within};
/// rmcp's message types, which the request target compares with.
pub use rmcp::RoleServer;
/// What an upstream sends that the gateway passes on (the `upstream` target).
#[allow(deprecated, reason = "sampling is deprecated, and still what an upstream may ask")]
pub use rmcp::model::CreateMessageRequestParams;
pub use rmcp::model::{
    CallToolResult, CompleteResult, ElicitRequestParams, ErrorData, GetPromptResult, ProgressNotificationParam,
    ReadResourceResult,
};
pub use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
pub use rmcp::service::RxJsonRpcMessage;

/// What the gateway over `--http` does to each whole event of rmcp's SSE
/// answer to the `tools/list` request `id` (`reviewed_tools.rs`), with
/// `tools` standing for the view's reviewed tools.
pub fn tools_list_event_rewriter(id: RequestId, tools: serde_json::Value) -> impl FnMut(&[u8]) -> Option<Vec<u8>> {
    crate::transport::http::reviewed_tools::event_rewriter(id, tools)
}

/// An act's body as `POST /tray/stamp` or `POST /tray/ratify` reads it:
/// `(target, receipt_hash, store_version)` once the form has parsed and
/// passed the checks made before the store is opened, or the message of the
/// 400 the handler answers.
pub fn tray_form(act: Act, body: &[u8]) -> Result<(String, String, u64), String> {
    use crate::transport::http::human::{NOT_WELL_FORMED, form, well_formed};
    let (target, receipt_hash, store_version) = form(act, body).map_err(|e| e.to_string())?;
    if !well_formed(&target, &receipt_hash) {
        return Err(NOT_WELL_FORMED.to_owned());
    }
    Ok((target, receipt_hash, store_version))
}

/// The request headers `headers` as hyper hands them to a handler: a name or
/// value HTTP cannot carry is dropped, and a repeated name is appended.
pub fn header_map(headers: &[(&str, &[u8])]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_bytes(value)) {
            map.append(name, value);
        }
    }
    map
}

/// What the tray's checks decide about a write (`POST /tray/stamp`,
/// `/tray/ratify`, `/logout`) with these headers: `Ok`, or the code of the
/// refusal (`origin`, `login`, `csrf`).
pub fn tray_write(authority: &Authority, headers: &HeaderMap) -> Result<(), &'static str> {
    crate::transport::http::human::check_write(authority, headers).map_err(|refused| refused.code())
}

/// The session a page finds for these headers (their `Cookie`).
pub fn tray_session(authority: &Authority, headers: &HeaderMap) -> Option<Session> {
    authority.session(crate::transport::http::human::cookie(headers))
}

/// What `POST /logout` ends, once its checks pass: the session these
/// headers' `Cookie` names.
pub fn tray_logout(authority: &Authority, headers: &HeaderMap) {
    authority.logout(crate::transport::http::human::cookie(headers));
}

/// `?select=` of the cockpit page, percent-decoded; `None` when the page
/// passes it on as written.
pub fn percent_decode(raw: &str) -> Option<String> {
    crate::transport::http::human::percent_decode(raw)
}

/// What the middleware in front of rmcp reads of a POST body (`peek.rs`),
/// and the body it hands on to rmcp.
pub async fn peek_body(body: Vec<u8>) -> Result<(Vec<u8>, Peeked), u16> {
    let request = axum::extract::Request::post("/mcp").body(axum::body::Body::from(body)).map_err(|_| 500u16)?;
    let (request, peeked) = crate::transport::http::peek::peek(request).await.map_err(|r| r.status().as_u16())?;
    let kept = axum::body::to_bytes(request.into_body(), usize::MAX).await.map_err(|_| 500u16)?;
    Ok((kept.to_vec(), peeked))
}

/// What the gateway does to an upstream's answer (a tool result, a prompt,
/// a resource, a completion, a sampling or elicitation request it relays)
/// before a client sees it: `gateway/neutralise.rs`'s `answer`, unchanged.
pub fn upstream_answer<T: serde::Serialize + serde::de::DeserializeOwned>(
    what: &str,
    answer: T,
) -> Result<T, rmcp::ErrorData> {
    crate::gateway::neutralise::answer(what, answer)
}

/// An upstream's error as the gateway passes it on (`neutralise::error`).
pub fn upstream_error(error: rmcp::ErrorData) -> rmcp::ErrorData {
    crate::gateway::neutralise::error(error)
}

/// An upstream's progress notification as the gateway passes it on to the
/// call that holds its token (`gateway/progress.rs`).
pub fn upstream_progress(progress: rmcp::model::ProgressNotificationParam) -> rmcp::model::ProgressNotificationParam {
    crate::gateway::progress::shown(progress)
}

/// The `_meta` key that counts what the gateway escaped in an answer.
pub const ESCAPED_META: &str = crate::gateway::neutralise::ESCAPED;

/// A SQLite store made in `dir` from the bytes of a `state.json`, as
/// `m1nd store import` makes one (`store/json.rs` decodes and validates,
/// `Store::create` builds the file), or why not.
pub fn store_from_json(dir: &std::path::Path, bytes: &[u8]) -> Result<crate::store::Store, crate::store::StoreError> {
    let state = crate::store::json::decode(&dir.join(crate::store::STATE_JSON), bytes)?;
    crate::store::Store::create(dir, &state, crate::store::DEFAULT_MAX_BYTES)
}
