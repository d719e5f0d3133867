//! What the tests of the layers around rmcp's `/mcp` service share: an
//! answer as rmcp would give one, and an answer's body read whole.

use axum::body::Body;
use axum::http::header;
use axum::response::Response;

/// A response of `content_type` holding `body`, as rmcp would answer.
pub fn answer(content_type: &str, body: impl Into<Body>) -> Response {
    Response::builder().header(header::CONTENT_TYPE, content_type).body(body.into()).expect("response")
}

/// The whole body of `response`, as text.
pub async fn body_of(response: Response) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}
