//! Building tool results.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The longest error text sent back; longer text is cut at a character boundary.
const MAX_ERROR_CHARS: usize = 2_000;

/// A failure the caller should read: `isError: true` and one text block.
pub fn error(text: impl Into<String>) -> CallToolResult {
    let text: String = text.into();
    let text = if text.chars().count() > MAX_ERROR_CHARS {
        let mut cut: String = text.chars().take(MAX_ERROR_CHARS).collect();
        cut.push('…');
        cut
    } else {
        text
    };
    CallToolResult::error(vec![ContentBlock::text(text)])
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
