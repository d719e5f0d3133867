//! Nothing invisible from an upstream reaches a client: every string the
//! gateway forwards from the upstream is escaped here, in one place.
//!
//! The rule is `m1nd serve`'s and law M018's: a control character (C0, DEL,
//! C1), an invisible one (bidi and other format characters, zero-width
//! characters, the TAG block, fillers) and the line and paragraph separators
//! become `\u{XXXX}` ([`m1nd_core::sanitize::escape`]); TAB, LF and CR are
//! kept, so a diff or a file's contents arrive intact. It covers every
//! string value and every object key of:
//!
//! - the listed tools, prompts, resources and templates ([`listed`]): at
//!   every listing, before the view is served;
//! - each answer: a tool result (its text, and `structuredContent` like
//!   text, keys included), a prompt's messages, a resource's text, a
//!   completion, an upstream's error message and a progress message
//!   ([`answer`], [`error`], [`text`]).
//!
//! An answer that had anything escaped is flagged: its `_meta` gets
//! `"io.m1nd/escaped": N`, the number of characters escaped (the upstream's
//! own `_meta` is escaped first), and the gateway logs it at warn. The flag
//! is the gateway's word only: an upstream's own `io.m1nd/escaped` is
//! dropped, whatever else its answer holds. A listing
//! is logged at warn. Base64 `blob`s and image data hold no such character,
//! so they pass unchanged; the work is one visit per node of an answer
//! already in memory (see [`m1nd_core::sanitize::json`]).

use m1nd_core::sanitize::escape::{Layout, escape};
use m1nd_core::sanitize::json::escape_strings;
use rmcp::ErrorData as McpError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The `_meta` key that counts the characters escaped in an answer.
pub const ESCAPED: &str = "io.m1nd/escaped";

/// `listing` (one definition the view serves) escaped; logged when it had
/// anything to escape. `what` names it for the log.
pub fn listed(what: &str, listing: &mut Value) {
    let escaped = escape_strings(listing);
    if escaped > 0 {
        tracing::warn!(
            "{}: escaped {escaped} invisible or control characters the upstream listed",
            escape(what, Layout::Escape)
        );
    }
}

/// `answer` with every string escaped and, when any was, flagged in its
/// `_meta`. `what` names the request for the log (`tools/call`, ...).
pub fn answer<T: Serialize + DeserializeOwned>(what: &str, answer: T) -> Result<T, McpError> {
    let broken = |e: serde_json::Error| {
        McpError::internal_error(format!("{what}: the upstream's answer could not be read to escape it: {e}"), None)
    };
    let mut value = serde_json::to_value(&answer).map_err(broken)?;
    let escaped = escape_strings(&mut value);
    // The flag is the gateway's word: an upstream that sets it is not repeated.
    let forged = value.get_mut("_meta").and_then(Value::as_object_mut).and_then(|meta| meta.remove(ESCAPED));
    if escaped == 0 && forged.is_none() {
        return Ok(answer);
    }
    if forged.is_some() {
        tracing::warn!("{what}: the upstream's answer carried `{ESCAPED}` in its _meta; it was dropped");
    }
    if escaped == 0 {
        return serde_json::from_value(value).map_err(broken);
    }
    tracing::warn!("{what}: escaped {escaped} invisible or control characters in the upstream's answer");
    if let Value::Object(object) = &mut value {
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        meta[ESCAPED] = Value::from(escaped);
    }
    serde_json::from_value(value).map_err(broken)
}

/// A message that quotes the upstream (an error it sent), escaped.
pub fn text(message: &str) -> String {
    escape(message, Layout::Keep).into_owned()
}

/// An upstream's error, its message and data escaped.
pub fn error(mut e: McpError) -> McpError {
    e.message = text(&e.message).into();
    if let Some(data) = &mut e.data {
        escape_strings(data);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd_core::sanitize::escape::has_unseen;
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    #[test]
    fn a_tool_result_is_escaped_in_text_and_structured_content_and_flagged() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("ok\u{E0041}\u{1B}[2J\n-a\r\n+b\tc")]);
        result.structured_content = Some(json!({"note\u{200B}": ["x\u{202E}", {"deep": "y\u{7}"}], "n": 1}));
        let escaped = answer("tools/call", result).expect("escaped");
        let value = serde_json::to_value(&escaped).expect("serialises");
        assert!(!has_unseen(&value.to_string(), Layout::Keep), "{value}");
        assert_eq!(value["content"][0]["text"], "ok\\u{E0041}\\u{001B}[2J\n-a\r\n+b\tc", "layout kept");
        assert_eq!(value["structuredContent"]["note\\u{200B}"][1]["deep"], "y\\u{0007}");
        assert_eq!(value["_meta"][ESCAPED], 5, "{value}");
    }

    #[test]
    fn a_clean_answer_is_left_as_it_is_and_not_flagged() {
        let result = CallToolResult::success(vec![ContentBlock::text("diff:\n-a\r\n+b\tc, naïve 😀")]);
        let before = serde_json::to_value(&result).expect("serialises");
        let after = serde_json::to_value(answer("tools/call", result).expect("clean")).expect("serialises");
        assert_eq!(before, after);
        assert!(after.get("_meta").is_none());
    }

    #[test]
    fn an_upstream_cannot_set_the_flag() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("clean")]);
        result.meta = Some(serde_json::from_value(json!({ESCAPED: 99, "mine": 1})).expect("meta"));
        let after = serde_json::to_value(answer("tools/call", result).expect("passed")).expect("serialises");
        assert_eq!(after["_meta"], json!({"mine": 1}), "{after}");
        let mut hidden = CallToolResult::success(vec![ContentBlock::text("a\u{200B}")]);
        hidden.meta = Some(serde_json::from_value(json!({ESCAPED: 99})).expect("meta"));
        let after = serde_json::to_value(answer("tools/call", hidden).expect("passed")).expect("serialises");
        assert_eq!(after["_meta"][ESCAPED], 1, "the gateway's own count: {after}");
    }

    #[test]
    fn an_upstream_error_is_escaped() {
        let e = error(McpError::invalid_params("no\u{202E}pe", Some(json!({"why": "\u{E0041}"}))));
        assert_eq!(e.message, "no\\u{202E}pe");
        assert_eq!(e.data, Some(json!({"why": "\\u{E0041}"})));
    }
}
