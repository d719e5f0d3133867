//! Building tool results.

use m1nd_core::sanitize::{cap, display};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A failure the caller should read: `isError: true` and one text block.
/// Every error a call answers passes here, so whatever it echoes (a name, a
/// value, a path) reaches the caller sanitised, on one line, at most
/// [`cap::MESSAGE`] characters.
pub fn error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(display(&text.into(), cap::MESSAGE))])
}

/// A success with a human-readable text and the same facts as structured content.
pub fn text_and_value(text: String, value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// A success whose text is the structured content as compact JSON (the same
/// value; indentation would only lengthen every answer on the wire).
pub fn value(value: Value) -> CallToolResult {
    let text = serde_json::to_string(&value).unwrap_or_default();
    text_and_value(text, value)
}
