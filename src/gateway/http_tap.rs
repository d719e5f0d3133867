//! A Streamable HTTP upstream's listings, heard as the upstream wrote them:
//! the HTTP counterpart of the stdio [`super::declared::Tap`], so that what
//! rmcp's `Tool` drops (today `execution`) reaches the gateway's view, its
//! pins and `policy import` over HTTP too.
//!
//! [`HttpTap`] is rmcp's `StreamableHttpClient` for reqwest with ears:
//!
//! 1. Every request goes out through rmcp's own reqwest client, with the
//!    headers, size bounds and error handling it gives it (the one
//!    exception is point 3's second asking); the tap changes no byte of a
//!    request or of an answer.
//! 2. Every event of every SSE stream — a POST's answer, the GET stream, a
//!    resumed stream — is heard ([`Declared::hear`], the stdio tap's rule,
//!    one event's data for one line) after rmcp's client has bounded and
//!    framed it and before rmcp parses it, so a listing's keys are recorded
//!    before its `list_tools` returns.
//! 3. A `tools/list` answered with a JSON body comes back from rmcp already
//!    parsed, the dropped keys gone. That request is then sent once more,
//!    as rmcp sent it (same params, same headers, rmcp's JSON body bound)
//!    but under a JSON-RPC id of the tap's own (`m1nd-tap-<n>`, a string,
//!    so it is never one of rmcp's numeric ids: MCP forbids reusing an id
//!    within a session). A 2xx JSON answer that is a response carrying that
//!    id and holding a tools listing is heard, given rmcp's id back, and
//!    answered in place of the first: rmcp gets the listing the tap heard.
//!    `tools/list` is safe and idempotent, so asking twice changes nothing
//!    upstream; it costs a JSON-answering upstream one more request per
//!    page (an SSE-answering one none).
//! 4. If that second answer is not that listing (a failed request, another
//!    status or content type, a body past the bound or one that does not
//!    parse, a JSON-RPC error, another id, another kind of result), it is
//!    not heard and the first answer stands, recorded as declaring none of
//!    the dropped keys: a listing not heard never inherits an earlier one's
//!    keys. Its tools then differ from pins that hold `execution`, and are
//!    hidden until a listing is heard again.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::{StreamExt, TryStreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, JsonRpcRequest, JsonRpcResponse, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::common::http_header::{EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

use super::declared::Declared;

type Answer = Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>;

/// rmcp's reqwest client, whose answers `declared` hears: see the module's contract.
#[derive(Clone, Debug)]
pub(super) struct HttpTap {
    client: reqwest::Client,
    declared: Arc<Declared>,
}

impl HttpTap {
    pub(super) fn new(client: reqwest::Client, declared: Arc<Declared>) -> Self {
        Self { client, declared }
    }

    /// `stream`, each event's data heard on its way through.
    fn heard(&self, stream: BoxedSseResponse) -> BoxedSseResponse {
        let declared = Arc::clone(&self.declared);
        stream
            .inspect_ok(move |event| {
                if let Some(data) = &event.data {
                    declared.hear(data.as_bytes());
                }
            })
            .boxed()
    }
}

/// A `tools/list` POST as rmcp sent it, kept to send again.
struct Post {
    uri: Arc<str>,
    request: JsonRpcRequest<ClientRequest>,
    session_id: Option<Arc<str>>,
    auth_token: Option<String>,
    custom_headers: HashMap<HeaderName, HeaderValue>,
}

impl StreamableHttpClient for HttpTap {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Answer {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Answer {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits).await
    }

    /// What rmcp's transport calls for every POST.
    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Answer {
        let listing = tools_list_request(&message).map(|request| Post {
            uri: Arc::clone(&uri),
            request: request.clone(),
            session_id: session_id.clone(),
            auth_token: auth_token.clone(),
            custom_headers: custom_headers.clone(),
        });
        let answer = self
            .client
            .post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits)
            .await?;
        Ok(match (answer, listing) {
            (StreamableHttpPostResponse::Sse(stream, session), _) => {
                StreamableHttpPostResponse::Sse(self.heard(stream), session)
            }
            (StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(first), session), Some(listing)) => {
                self.ask_again(&listing, limits.max_json_response_size).await.unwrap_or_else(|| {
                    self.heard_nothing(&first);
                    StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(first), session)
                })
            }
            (answer, _) => answer,
        })
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.client.delete_session(uri, session_id, auth_token, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<Self::Error>> {
        let stream = self.client.get_stream(uri, session_id, last_event_id, auth_token, custom_headers).await?;
        Ok(self.heard(stream))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, StreamableHttpError<Self::Error>> {
        let stream = self
            .client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_token,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.heard(stream))
    }
}

impl HttpTap {
    /// `listing` sent again under an id of the tap's own, as rmcp's reqwest
    /// client sends a POST, its 2xx JSON answer heard and given rmcp's id
    /// back: point 3 of the module's contract. `None`, nothing heard, when
    /// there is no such answer within `max_body` bytes (point 4).
    async fn ask_again(&self, listing: &Post, max_body: usize) -> Option<StreamableHttpPostResponse> {
        let own_id = own_request_id();
        let asked = ClientJsonRpcMessage::Request(JsonRpcRequest { id: own_id.clone(), ..listing.request.clone() });
        let mut request =
            self.client.post(listing.uri.as_ref()).header(ACCEPT, [EVENT_STREAM_MIME_TYPE, JSON_MIME_TYPE].join(", "));
        if let Some(token) = &listing.auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in &listing.custom_headers {
            request = request.header(name, value);
        }
        if let Some(session_id) = &listing.session_id {
            request = request.header(HEADER_SESSION_ID, session_id.as_ref());
        }
        let response = request.json(&asked).send().await.ok()?;
        let status = response.status();
        let json = response.headers().get(CONTENT_TYPE).is_some_and(|value| is_media_type(value, JSON_MIME_TYPE));
        if !status.is_success()
            || status == reqwest::StatusCode::ACCEPTED
            || status == reqwest::StatusCode::NO_CONTENT
            || !json
        {
            return None;
        }
        let session = response.headers().get(HEADER_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = bounded_body(response, max_body).await?;
        // Only the answer to this asking replaces rmcp's: a JSON-RPC error
        // would drop a good listing, another result would answer `list_tools`
        // with no listing, and another id would send it to another request.
        let ServerJsonRpcMessage::Response(mut answer) = serde_json::from_slice(&body).ok()? else { return None };
        if answer.id != own_id || !matches!(answer.result, ServerResult::ListToolsResult(_)) {
            return None;
        }
        self.declared.hear(&body);
        answer.id = listing.request.id.clone();
        Some(StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(answer), session))
    }

    /// A listing rmcp parsed that the tap could not hear: its tools declare
    /// none of the dropped keys (point 4).
    fn heard_nothing(&self, answer: &JsonRpcResponse<ServerResult>) {
        if let ServerResult::ListToolsResult(page) = &answer.result {
            let tools: Vec<serde_json::Value> =
                page.tools.iter().filter_map(|t| serde_json::to_value(t).ok()).collect();
            self.declared.record(&tools);
        }
    }
}

/// `message` if it is a `tools/list` request.
fn tools_list_request(message: &ClientJsonRpcMessage) -> Option<&JsonRpcRequest<ClientRequest>> {
    match message {
        ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::ListToolsRequest(_)) => Some(r),
        _ => None,
    }
}

/// A JSON-RPC id for one second asking: a string, so it is never one of
/// rmcp's numeric ids, and counted, so the process never uses one twice.
fn own_request_id() -> RequestId {
    static ASKED: AtomicU64 = AtomicU64::new(0);
    RequestId::String(format!("m1nd-tap-{}", ASKED.fetch_add(1, Ordering::Relaxed) + 1).into())
}

/// A `Content-Type` of `expected`, parameters and case aside.
fn is_media_type(value: &HeaderValue, expected: &str) -> bool {
    let essence = value.as_bytes().split(|b| *b == b';').next().unwrap_or_default();
    std::str::from_utf8(essence).is_ok_and(|essence| essence.trim().eq_ignore_ascii_case(expected))
}

/// The whole body of `response`, if it is no longer than `max` bytes
/// (rmcp's own bound on a JSON answer: a longer one it refuses too).
async fn bounded_body(mut response: reqwest::Response, max: usize) -> Option<Vec<u8>> {
    if response.content_length().is_some_and(|length| length > max as u64) {
        return None;
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if chunk.len() > max - body.len() {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

#[cfg(test)]
mod tests;
