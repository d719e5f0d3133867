//! Nothing invisible from a guarded server reaches a client: every string
//! passed on from it is escaped here, in one place. Both guards use it:
//! `m1nd gateway` for the upstream it runs, and [`crate::Guarded`] for the
//! handler it wraps in process (in process or not, what a server answers is
//! data: a file it read, a page it fetched, a row of a database).
//!
//! The rule is `m1nd serve`'s and law M018's: a control character (C0, DEL,
//! C1), an invisible one (bidi and other format characters, zero-width
//! characters, the TAG block, fillers) and the line and paragraph separators
//! become `\u{XXXX}` ([`m1nd_policy::sanitize::escape`]); TAB, LF and CR are
//! kept, so a diff or a file's contents arrive intact. It covers every
//! string value and every object key of the listed tools, prompts,
//! resources and templates ([`listed`]), of every answer ([`answer`]: a tool
//! result, its `structuredContent` like text, a prompt's messages, a
//! resource's text, a completion), and of an error or message the server
//! sent ([`error`], [`text`]).
//!
//! An answer that had anything escaped carries, in its `_meta`,
//! `"io.m1nd/escaped": N`, the number of characters escaped, logged at warn.
//! The flag is the guard's word only: a server's own `io.m1nd/escaped` is
//! dropped, whatever else its answer holds. Base64 `blob`s and image data
//! hold no such character, so they pass unchanged; the work is one visit
//! per node of an answer already in memory (see
//! [`m1nd_policy::sanitize::json`]).

use m1nd_policy::sanitize::escape::{Layout, escape};
use m1nd_policy::sanitize::json::escape_strings;
use rmcp::ErrorData as McpError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The `_meta` key that counts the characters escaped in an answer.
pub const ESCAPED: &str = "io.m1nd/escaped";

/// `listing` (one definition the guard serves) escaped; logged when it had
/// anything to escape. `what` names it for the log.
pub fn listed(what: &str, listing: &mut Value) {
    let escaped = escape_strings(listing);
    if escaped > 0 {
        tracing::warn!(
            "{}: escaped {escaped} invisible or control characters the server listed",
            escape(what, Layout::Escape)
        );
    }
}

/// What a session lists of one kind of surface (`noun`: "prompt", ...):
/// each served definition escaped, as rmcp's type for it. Both guards list
/// prompts, resources and templates through here.
pub fn surfaces<T: DeserializeOwned>(noun: &str, served: Vec<Value>) -> Vec<T> {
    served
        .into_iter()
        .filter_map(|mut value| {
            listed(noun, &mut value);
            serde_json::from_value(value).ok()
        })
        .collect()
}

/// `answer` with every string escaped and, when any was, flagged in its
/// `_meta`. `what` names the request for the log (`tools/call`, ...).
pub fn answer<T: Serialize + DeserializeOwned>(what: &str, answer: T) -> Result<T, McpError> {
    let broken = |e: serde_json::Error| {
        McpError::internal_error(format!("{what}: the server's answer could not be read to escape it: {e}"), None)
    };
    let mut value = serde_json::to_value(&answer).map_err(broken)?;
    let escaped = escape_strings(&mut value);
    let forged = value.get_mut("_meta").and_then(Value::as_object_mut).and_then(|meta| meta.remove(ESCAPED));
    if escaped == 0 && forged.is_none() {
        return Ok(answer);
    }
    if forged.is_some() {
        tracing::warn!("{what}: the server's answer carried `{ESCAPED}` in its _meta; it was dropped");
    }
    if escaped > 0 {
        tracing::warn!("{what}: escaped {escaped} invisible or control characters in the server's answer");
        if let Value::Object(object) = &mut value {
            let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if !meta.is_object() {
                *meta = Value::Object(Map::new());
            }
            meta[ESCAPED] = Value::from(escaped);
        }
    }
    serde_json::from_value(value).map_err(broken)
}

/// Text that quotes the server (its name, its instructions, an error it sent), escaped.
pub fn text(message: &str) -> String {
    escape(message, Layout::Keep).into_owned()
}

/// An error the server returned, its message and data escaped.
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
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    #[test]
    fn a_result_is_escaped_flagged_and_keeps_its_layout() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("ok\u{E0041}\u{1B}[2J\n-a\r\n+b\tc")]);
        result.structured_content = Some(json!({"note\u{200B}": "y\u{7}"}));
        let value = serde_json::to_value(answer("tools/call", result).expect("escaped")).expect("serialises");
        assert_eq!(value["content"][0]["text"], "ok\\u{E0041}\\u{001B}[2J\n-a\r\n+b\tc");
        assert_eq!(value["structuredContent"]["note\\u{200B}"], "y\\u{0007}");
        assert_eq!(value["_meta"][ESCAPED], 4, "{value}");
    }

    #[test]
    fn a_clean_answer_is_untouched_and_a_forged_flag_dropped() {
        let clean = CallToolResult::success(vec![ContentBlock::text("naïve 😀\n")]);
        let before = serde_json::to_value(&clean).expect("serialises");
        assert_eq!(serde_json::to_value(answer("tools/call", clean).expect("clean")).expect("serialises"), before);
        let mut forged = CallToolResult::success(vec![ContentBlock::text("clean")]);
        forged.meta = serde_json::from_value(json!({ESCAPED: 99, "mine": 1})).ok();
        let after = serde_json::to_value(answer("tools/call", forged).expect("passed")).expect("serialises");
        assert_eq!(after["_meta"], json!({"mine": 1}));
    }

    #[test]
    fn an_error_is_escaped() {
        let e = error(McpError::invalid_params("no\u{202E}pe", Some(json!({"why": "\u{E0041}"}))));
        assert_eq!((&*e.message, e.data), ("no\\u{202E}pe", Some(json!({"why": "\\u{E0041}"}))));
    }
}
