//! What an upstream sends back through the gateway: its answers, errors and
//! progress, as `m1nd::fuzzing` hands over the gateway's own treatment
//! (`gateway/neutralise.rs`, `gateway/progress.rs`).
//!
//! The first byte picks what the rest, JSON, is read as (modulo 8): a tool
//! result, a prompt, a resource's contents, a completion, a sampling request,
//! an elicitation request, an error, a progress notification. Input rmcp's
//! own types refuse never reaches the gateway, and is skipped. For the rest:
//! 1. nothing invisible reaches a text field: no string or key of what the
//!    client gets holds a control character other than TAB, LF and CR, an
//!    invisible character (ICU4X's data, `crate::unicode`, not the
//!    gateway's tables) or a line or paragraph separator;
//! 2. nothing else changes: what the client gets is what the upstream sent
//!    with every string and key escaped by the one escaping rule
//!    (`sanitize::escape`, TAB, LF and CR kept), so no visible text is lost
//!    and nothing is added but the flag;
//! 3. an answer with anything escaped says how much: its `_meta` carries the
//!    number of characters escaped; the count is the gateway's only (an
//!    upstream's own is dropped), and an answer with nothing escaped and no
//!    count of its own is passed on as it came;
//! 4. an answer the gateway cannot pass on is an error whose words are
//!    display-safe.
//!
//! "Nothing the policy hides reaches the client" is the `gateway` target's
//! (listings and calls) and `uri_template`'s (which resource URIs a session
//! may read, the rule resource updates are forwarded by).

#[allow(deprecated, reason = "sampling is deprecated, and still what an upstream may ask")]
use m1nd::fuzzing::CreateMessageRequestParams;
use m1nd::fuzzing::{
    CallToolResult, CompleteResult, ESCAPED_META, ElicitRequestParams, ErrorData, GetPromptResult,
    ProgressNotificationParam, ReadResourceResult, upstream_answer, upstream_error, upstream_progress,
};
use m1nd_policy::sanitize::escape::{Layout, escape};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub fn check(data: &[u8]) {
    let Some((&kind, json)) = data.split_first() else { return };
    let Ok(sent) = serde_json::from_slice::<Value>(json) else { return };
    match kind % 8 {
        0 => answer::<CallToolResult>("tools/call", sent, true),
        1 => answer::<GetPromptResult>("prompts/get", sent, true),
        2 => answer::<ReadResourceResult>("resources/read", sent, true),
        3 => answer::<CompleteResult>("completion/complete", sent, true),
        #[allow(deprecated, reason = "sampling is deprecated, and still what an upstream may ask")]
        4 => answer::<CreateMessageRequestParams>("sampling/createMessage", sent, false),
        5 => answer::<ElicitRequestParams>("elicitation/create", sent, false),
        6 => error(sent),
        _ => progress(sent),
    }
}

/// An answer of type `T` through `neutralise::answer`. `flagged`: `T` has a
/// `_meta` that must carry the count.
fn answer<T: Serialize + DeserializeOwned>(what: &str, sent: Value, flagged: bool) {
    let Ok(typed) = serde_json::from_value::<T>(sent) else { return };
    let before = serde_json::to_value(&typed).expect("rmcp's type serialises");
    let escaped = unseen(&before);
    // The flag is the gateway's word: the upstream's own is dropped.
    let mut unforged = before.clone();
    let forged = unforged.get_mut("_meta").and_then(Value::as_object_mut).and_then(|m| m.remove(ESCAPED_META));
    let mut expected = escaped_walk(&unforged);
    if escaped > 0
        && let Value::Object(object) = &mut expected
    {
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        meta[ESCAPED_META] = Value::from(escaped);
    }
    let expected = serde_json::from_value::<T>(expected).map(|t| serde_json::to_value(t).expect("serialises"));
    match (upstream_answer(what, typed), expected) {
        (Ok(got), Ok(expected)) => {
            let got = serde_json::to_value(got).expect("serialises");
            visible(&got);
            assert_eq!(got, expected, "{what}: the client gets more or less than the upstream's answer, escaped");
            if flagged {
                let flag = got.get("_meta").and_then(|m| m.get(ESCAPED_META)).and_then(Value::as_u64);
                assert_eq!(flag, (escaped > 0).then_some(escaped as u64), "{what}: the flag in {got}");
            }
            if escaped == 0 && forged.is_none() {
                assert_eq!(got, before, "{what}: a clean answer was changed");
            }
        }
        (Err(refused), Err(_)) => assert!(crate::is_display_safe(&refused.message), "{}", refused.message),
        (Ok(got), Err(e)) => {
            let got = serde_json::to_value(got).expect("serialises");
            panic!("{what}: passed on {got}, which its type cannot hold escaped ({e})")
        }
        (Err(refused), Ok(expected)) => panic!("{what}: refused ({}) what escapes to {expected}", refused.message),
    }
}

fn error(sent: Value) {
    let Ok(error) = serde_json::from_value::<ErrorData>(sent) else { return };
    let before = serde_json::to_value(&error).expect("serialises");
    let got = serde_json::to_value(upstream_error(error)).expect("serialises");
    visible(&got);
    assert_eq!(got, escaped_walk(&before), "an upstream's error, escaped");
}

fn progress(sent: Value) {
    let Ok(progress) = serde_json::from_value::<ProgressNotificationParam>(sent) else { return };
    let before = serde_json::to_value(&progress).expect("serialises");
    let got = serde_json::to_value(upstream_progress(progress)).expect("serialises");
    let message = got.get("message").cloned().unwrap_or(Value::Null);
    visible(&message);
    let mut expected = before.clone();
    if let Some(text) = before.get("message").and_then(Value::as_str) {
        expected["message"] = Value::from(escape(text, Layout::Keep).into_owned());
    }
    assert_eq!(got, expected, "a progress notification: only its message is the upstream's text");
}

/// `value` with every string and key escaped; keys that escape alike keep
/// the first value in the map's order.
fn escaped_walk(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::from(escape(text, Layout::Keep).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(escaped_walk).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                out.entry(escape(key, Layout::Keep).into_owned()).or_insert_with(|| escaped_walk(item));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// How many characters of `value`'s strings and keys the rule escapes.
fn unseen(value: &Value) -> usize {
    let count =
        |text: &str| text.chars().filter(|&c| m1nd_policy::sanitize::escape::is_unseen(c, Layout::Keep)).count();
    match value {
        Value::String(text) => count(text),
        Value::Array(items) => items.iter().map(unseen).sum(),
        Value::Object(map) => map.iter().map(|(key, item)| count(key) + unseen(item)).sum(),
        _ => 0,
    }
}

/// Property 1, judged by ICU4X's data.
fn visible(value: &Value) {
    let shows = |text: &str| {
        text.chars().all(|c| matches!(c, '\t' | '\n' | '\r') || !(crate::unicode::is_invisible(c) || breaks(c)))
    };
    match value {
        Value::String(text) => assert!(shows(text), "{text:?} reaches the client"),
        Value::Array(items) => items.iter().for_each(visible),
        Value::Object(map) => map.iter().for_each(|(key, item)| {
            assert!(shows(key), "the key {key:?} reaches the client");
            visible(item);
        }),
        _ => {}
    }
}

/// A control character or a line or paragraph separator; other spaces
/// (no-break, ideographic) are visible and kept.
fn breaks(c: char) -> bool {
    use icu_properties::CodePointMapData;
    use icu_properties::props::GeneralCategory;
    matches!(
        CodePointMapData::<GeneralCategory>::new().get(c),
        GeneralCategory::Control | GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
    )
}
