//! A JSON-RPC error, not "415 Unsupported Media Type", for a body that is
//! not a message.
//!
//! rmcp refuses a `Content-Type: application/json` body it cannot parse as
//! a JSON-RPC message with 415 and serde's words, which points the client
//! at its headers instead of its bytes. JSON-RPC 2.0 says what such a body
//! deserves: `-32700` (parse error) when it is not JSON, `-32600` (invalid
//! request, with the request's id when it has one) when it is JSON but not a
//! message — which is what the stdio transport answers too.
//!
//! rmcp still decides everything first, in its own order (`Host`, `Origin`,
//! `Accept`, content type, body size): the body is only copied as rmcp reads
//! it, and only a 415 given to a JSON content type — rmcp's answer to an
//! unparseable body — is replaced. Every other answer passes untouched.
//! (A body over the size cap never gets here: `slots.rs` reads each body
//! whole, counting, before any route runs.)

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use rmcp::model::{ErrorData, JsonRpcError, RequestId};
use serde_json::Value;

use super::MAX_BODY_BYTES;

/// Middleware: let rmcp answer, then explain a body it could not parse.
pub async fn explain(request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !declares_json(request.headers()) {
        return next.run(request).await;
    }
    let copy = Arc::new(Mutex::new(Vec::new()));
    let request = request.map(|inner| Body::new(Copying { inner, copy: Arc::clone(&copy) }));
    let response = next.run(request).await;
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let bytes = std::mem::take(&mut *copy.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    jsonrpc_error(&bytes)
}

/// rmcp's test for a JSON body: the media type before any `;`, any case.
fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split_once(';').map_or(value, |(essence, _)| essence))
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// What JSON-RPC answers a body that is not a message, as a 400.
fn jsonrpc_error(bytes: &[u8]) -> Response {
    let (error, id) = match serde_json::from_slice::<Value>(bytes) {
        Err(e) => (ErrorData::parse_error(format!("parse error: the body is not JSON ({e})"), None), None),
        Ok(value) => {
            let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
            let method = value.get("method").and_then(Value::as_str).map(|m| m.chars().take(64).collect::<String>());
            let why = match method {
                Some(method) => format!("invalid request: `{method}` with these params is not a valid MCP request"),
                None => "invalid request: the body is JSON but not a JSON-RPC 2.0 message this server understands"
                    .to_owned(),
            };
            (ErrorData::invalid_request(why, None), id)
        }
    };
    let body = serde_json::to_vec(&JsonRpcError::new(id, error)).unwrap_or_default();
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A request body that keeps a copy of what is read from it, up to the cap
/// (rmcp refuses anything longer with 413, which is never replaced).
struct Copying {
    inner: Body,
    copy: Arc<Mutex<Vec<u8>>>,
}

impl HttpBody for Copying {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            let mut copy = self.copy.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if copy.len() + data.len() <= MAX_BODY_BYTES {
                copy.extend_from_slice(data);
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer(bytes: &[u8]) -> Value {
        let response = jsonrpc_error(bytes);
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.expect("body");
        serde_json::from_slice(&body).expect("json")
    }

    #[test]
    fn bodies_that_are_not_messages_get_json_rpc_errors() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        runtime.block_on(async {
            let parse = answer(b"{not json").await;
            assert_eq!(parse["error"]["code"], -32700, "{parse}");
            assert!(parse["id"].is_null(), "{parse}");
            let invalid = answer(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#).await;
            assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
            assert_eq!(invalid["id"], 7, "{invalid}");
            assert!(invalid["error"]["message"].as_str().unwrap_or_default().contains("`tools/call`"), "{invalid}");
            assert_eq!(answer(b"42").await["error"]["code"], -32600);
        });
    }

    #[test]
    fn json_is_recognised_as_rmcp_does() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, value.parse().expect("header"));
            declares_json(&headers)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(!with("text/plain"));
        assert!(!with("application/json-seq"));
        assert!(!declares_json(&HeaderMap::new()));
    }
}
