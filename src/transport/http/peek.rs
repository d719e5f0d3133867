//! A request's JSON-RPC `method` and `id`, read before rmcp reads the body.
//!
//! Middleware in front of rmcp sometimes must know what a POST asks for: the
//! session cap (an `initialize` takes a slot) and the gateway (a `tools/list`
//! answer is given in the reviewed definitions' own JSON). The body is already
//! whole in memory when a route runs (`slots.rs` reads it, counting, before
//! anything else), so [`peek`] takes it, reads the two fields, and hands back a
//! request with the same bytes: rmcp still decides everything about the body.

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rmcp::model::RequestId;
use serde::Deserialize;

use super::MAX_BODY_BYTES;

/// The two fields of a message that say what it asks and whom to answer.
/// Either is `None` when the body is not a JSON-RPC request.
#[derive(Debug, Default, Deserialize)]
pub struct Peeked {
    pub method: Option<String>,
    pub id: Option<RequestId>,
}

impl Peeked {
    /// Whether this is a request for `method` (a notification has no `id`).
    pub fn asks(&self, method: &str) -> bool {
        self.method.as_deref() == Some(method) && self.id.is_some()
    }
}

/// The request, unchanged, and what its body asks; a body that is not a
/// single JSON-RPC message peeks as nothing. `Err` is the answer for a body
/// over [`MAX_BODY_BYTES`], in rmcp's words (`slots.rs` refuses those first,
/// so it is only reached behind another front).
pub async fn peek(request: Request) -> Result<(Request, Peeked), Response> {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        let text = format!("Payload Too Large: request body exceeds {MAX_BODY_BYTES} bytes");
        return Err((StatusCode::PAYLOAD_TOO_LARGE, text).into_response());
    };
    let peeked = serde_json::from_slice::<Peeked>(&bytes).unwrap_or_default();
    Ok((Request::from_parts(parts, Body::from(bytes)), peeked))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(body: &'static str) -> Request {
        Request::post("/mcp").body(Body::from(body)).expect("request")
    }

    #[tokio::test]
    async fn a_request_peeks_as_its_method_and_id_and_keeps_its_bytes() {
        let sent = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#;
        let (request, peeked) = peek(post(sent)).await.expect("peek");
        assert!(peeked.asks("tools/list"));
        assert!(!peeked.asks("initialize"));
        assert_eq!(peeked.id, Some(RequestId::Number(7)));
        let kept = axum::body::to_bytes(request.into_body(), usize::MAX).await.expect("body");
        assert_eq!(kept, sent.as_bytes());
    }

    #[tokio::test]
    async fn a_notification_or_a_body_that_is_not_a_message_asks_nothing() {
        let (_, note) = peek(post(r#"{"jsonrpc":"2.0","method":"tools/list"}"#)).await.expect("peek");
        assert!(!note.asks("tools/list"), "a notification is never answered");
        let (request, junk) = peek(post("[1, 2")).await.expect("peek");
        assert!(junk.method.is_none() && junk.id.is_none());
        let kept = axum::body::to_bytes(request.into_body(), usize::MAX).await.expect("body");
        assert_eq!(kept, "[1, 2", "rmcp still gets the bytes to refuse");
    }

    #[tokio::test]
    async fn a_body_over_the_cap_is_refused_with_413() {
        let huge = Request::post("/mcp").body(Body::from(vec![b' '; MAX_BODY_BYTES + 1])).expect("request");
        let refused = peek(huge).await.expect_err("over the cap");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }
}
