//! `DELETE /mcp` answers 200, the status the official SDKs accept.
//!
//! A client ends its session with `DELETE /mcp` and its `Mcp-Session-Id`.
//! The specification leaves the success status open; rmcp answers 202, the
//! Python SDK accepts only 200 or 204 (and logs "Session termination
//! failed: 202" at the end of every session otherwise), and the TypeScript
//! SDK accepts any 2xx. 200 with an empty body satisfies both. Every other
//! answer to a `DELETE` (404 for an unknown session, 400 without an id, a
//! refusal by an outer check) passes untouched.

use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// Middleware: a `DELETE` rmcp accepted with 202 is answered 200.
pub async fn ok_when_closed(request: Request, next: Next) -> Response {
    let closing = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    if closing && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}
