//! A tool call's answer: the MCP result, shared, and serialised at most once.
//!
//! An [`Answer`] is an `Arc`, so the cockpit's kept answers are handed to
//! every caller without a deep copy. Its JSON (the `result` member of the
//! JSON-RPC response) is made on first use and kept beside it as [`Bytes`],
//! so a transport that writes responses itself puts the request id in front
//! of bytes it already has instead of serialising the result again.
//!
//! A cockpit answer keeps its text card and its [`View`]: the transport's
//! bytes are serialised from the view directly, and the rmcp result (whose
//! structured content is a `serde_json::Value` tree) is built only if rmcp
//! is the one answering.

use std::fmt;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use m1nd_policy::runtime::{View, json as runtime_json};
use m1nd_policy::sanitize::{cap, display};
use rmcp::model::{CallToolResult, ContentBlock, ServerResult};
use serde_json::Value;

#[derive(Clone)]
pub struct Answer(Arc<Inner>);

struct Inner {
    /// The cockpit's card and view, when this is a cockpit answer.
    cockpit: Option<(String, View)>,
    /// The rmcp result: given, or built from the cockpit's on first use.
    result: OnceLock<CallToolResult>,
    json: OnceLock<Bytes>,
    legacy: OnceLock<Bytes>,
}

impl Answer {
    pub fn new(result: CallToolResult) -> Self {
        Self(Arc::new(Inner {
            cockpit: None,
            result: OnceLock::from(result),
            json: OnceLock::new(),
            legacy: OnceLock::new(),
        }))
    }

    /// A cockpit answer: the text card in `content`, the view in `structuredContent`.
    pub fn cockpit(text: String, view: View) -> Self {
        Self(Arc::new(Inner {
            cockpit: Some((text, view)),
            result: OnceLock::new(),
            json: OnceLock::new(),
            legacy: OnceLock::new(),
        }))
    }

    /// A failure the caller should read: `isError: true` and one text block.
    /// Every error a call answers passes here, so whatever it echoes (a name,
    /// a value, a path) reaches the caller sanitised, on one line, at most
    /// [`cap::MESSAGE`] characters.
    pub fn error(why: impl fmt::Display) -> Self {
        Self::new(CallToolResult::error(vec![ContentBlock::text(display(&why.to_string(), cap::MESSAGE))]))
    }

    /// A success with a human-readable text and the same facts as structured content.
    pub fn text_and_value(text: String, value: Value) -> Self {
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(value);
        Self::new(result)
    }

    /// A success whose text is the structured content as compact JSON (the
    /// same value; indentation would only lengthen every answer on the wire).
    pub fn value(value: Value) -> Self {
        let text = serde_json::to_string(&value).unwrap_or_default();
        Self::text_and_value(text, value)
    }

    /// The cockpit's view, when this is a cockpit answer.
    pub fn view(&self) -> Option<&View> {
        self.0.cockpit.as_ref().map(|(_, view)| view)
    }

    /// The result, shared.
    pub fn result(&self) -> &CallToolResult {
        self.0.result.get_or_init(|| match &self.0.cockpit {
            Some((text, view)) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(text.clone())]);
                result.structured_content = Some(runtime_json::to_value(view));
                result
            }
            // `new` sets the result; only a cockpit answer comes here.
            None => CallToolResult::success(Vec::new()),
        })
    }

    /// A result of its own, for an API that takes one by value.
    pub fn to_result(&self) -> CallToolResult {
        self.result().clone()
    }

    pub fn is_error(&self) -> bool {
        self.0.cockpit.is_none() && self.result().is_error == Some(true)
    }

    /// The result as JSON, as it goes in a response's `result` member.
    pub fn json(&self) -> &Bytes {
        self.0.json.get_or_init(|| {
            // A CallToolResult is plain data: serialising it cannot fail.
            Bytes::from(serde_json::to_vec(self.result()).unwrap_or_else(|_| b"{}".to_vec()))
        })
    }

    /// The result as rmcp answers a peer that negotiated a version before
    /// 2026-07-28 (`resultType: "complete"` and non-object output left out),
    /// made with rmcp's own functions, once.
    pub fn legacy_json(&self) -> &Bytes {
        self.0.legacy.get_or_init(|| {
            let bytes = match &self.0.cockpit {
                // rmcp's shape for a success without `resultType`, the view serialised in place.
                Some((text, view)) => serde_json::to_vec(&LegacyCockpit {
                    content: [ContentBlock::text(text.as_str())],
                    structured_content: runtime_json::skin(view),
                    is_error: false,
                }),
                None => {
                    let mut result = ServerResult::CallToolResult(self.result().clone());
                    result.strip_result_type_for_legacy_peer();
                    result.strip_non_object_output_for_legacy_peer();
                    serde_json::to_vec(&result)
                }
            };
            Bytes::from(bytes.unwrap_or_else(|_| b"{}".to_vec()))
        })
    }

    /// Whether two answers are one shared value (a kept answer handed out again).
    pub fn same(&self, other: &Answer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A cockpit result as rmcp writes it for a peer before 2026-07-28: the
/// fields of `CallToolResult` in its order, `resultType` left out. The
/// fast-path test holds these bytes to rmcp's own.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LegacyCockpit<S> {
    content: [ContentBlock; 1],
    structured_content: S,
    is_error: bool,
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Answer").field(self.result()).finish()
    }
}

impl From<Answer> for CallToolResult {
    /// The result itself when this was its only holder, else a copy.
    fn from(answer: Answer) -> Self {
        answer.result();
        match Arc::try_unwrap(answer.0) {
            Ok(inner) => inner.result.into_inner().unwrap_or_else(|| CallToolResult::success(Vec::new())),
            Err(shared) => shared.result.get().cloned().unwrap_or_else(|| CallToolResult::success(Vec::new())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_one_sanitised_line() {
        let answer = Answer::error("bad \u{1b}[31mname\u{202e}\nsecond line");
        assert!(answer.is_error());
        let text = answer.result().content[0].as_text().expect("text").text.clone();
        assert_eq!(text, "bad name second line");
    }

    /// A cockpit answer's bytes, serialised from its view, are what rmcp's
    /// own functions make of the same answer's result for a legacy peer.
    #[test]
    fn a_cockpit_answer_is_serialised_as_rmcp_would() {
        let table = &crate::COCKPIT;
        let reader = m1nd_policy::runtime::MemoryReader { version: 3, ..Default::default() };
        for select in [None, Some("2"), Some("9.9")] {
            let request =
                m1nd_policy::runtime::Request { select: select.map(str::to_owned), seen_store_version: Some(1) };
            let Ok(view) = m1nd_policy::runtime::cockpit(table, &reader, &request) else { continue };
            let text = m1nd_policy::runtime::text::render(&view, m1nd_policy::runtime::Charset::Unicode);
            let answer = Answer::cockpit(text, view);
            let mut rmcp = ServerResult::CallToolResult(answer.result().clone());
            rmcp.strip_result_type_for_legacy_peer();
            rmcp.strip_non_object_output_for_legacy_peer();
            assert_eq!(**answer.legacy_json(), serde_json::to_vec(&rmcp).expect("serialise"), "{select:?}");
            assert!(!answer.is_error());
        }
    }

    #[test]
    fn the_json_is_the_result_serialised_once() {
        let answer = Answer::value(serde_json::json!({ "verb": "north", "n": 1 }));
        let json = answer.json().clone();
        assert_eq!(json, serde_json::to_vec(answer.result()).expect("serialise"));
        assert_eq!(answer.json().as_ptr(), json.as_ptr(), "made once, then shared");
        let shared = answer.clone();
        assert!(shared.same(&answer));
        assert_eq!(CallToolResult::from(shared), *answer.result());
    }
}
