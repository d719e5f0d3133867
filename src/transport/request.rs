//! What one line of JSON-RPC holds, as far as the handler is concerned.
//!
//! The transport frames lines; this module decides what a line is: a message
//! for rmcp, nothing (a blank line, a bad notification), or an error to
//! answer. The work is linear in the line's length and its memory a small
//! multiple of it:
//!
//! 1. **The envelope**, read once by serde_json without building anything:
//!    the top-level keys that decide the kind of message (`jsonrpc`, `id`,
//!    `method`, `result`, `error`), the id as soon as it is read (so an error
//!    later in the line still carries it), and a count of every JSON value.
//!    A line of more than [`MAX_JSON_VALUES`] values is refused here: a tree
//!    of small values costs far more memory than their text, and no request
//!    this server answers comes near. Nesting deeper than serde_json's limit
//!    (128) and numbers beyond a 64-bit float (`1e400`) are refused here too,
//!    each with its own error.
//! 2. **The message**, parsed once: a `tools/call` request straight as one
//!    (rmcp's message type would try every client request shape in turn,
//!    buffering the line for each), anything else with rmcp's own type.
//!
//! Errors: not JSON is `-32700` with no id; JSON that cannot be a message is
//! `-32600`; a known method with the wrong params is `-32602` naming the
//! params it takes. Whatever the caller wrote that an error repeats (the
//! method, serde's account of the problem) goes through the sanitiser.

use std::borrow::Cow;
use std::fmt;

use m1nd_policy::sanitize::{cap, display};
use rmcp::RoleServer;
use rmcp::model::{CallToolRequest, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcRequest, RequestId};
use rmcp::service::RxJsonRpcMessage;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::mcp::methods::shape_of;

/// The other scalar visits of a visitor that treats every scalar as it
/// treats a bool (counts it, or notes a non-object), written once.
macro_rules! scalars_like_bool {
    () => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
            self.visit_bool(true)
        }

        fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
            self.visit_bool(true)
        }

        fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
            self.visit_bool(true)
        }

        fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
            self.visit_bool(true)
        }

        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            self.visit_bool(true)
        }
    };
}

/// The most JSON values (objects, arrays, strings, numbers, literals) one
/// message may hold. A `tools/call` here carries a handful of arguments.
pub const MAX_JSON_VALUES: usize = 100_000;

/// What a line is.
pub enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Blank lines and bad notifications.
    Skip,
    Answer(ErrorData, Option<RequestId>),
}

/// Decide what `line` (one line of stdin, newline included or not) is.
pub fn parse(line: &[u8]) -> Parsed {
    parse_within(line, MAX_JSON_VALUES)
}

/// [`parse`] under another bound on the JSON values a line may hold. The
/// fuzz target (`fuzz/src/request.rs`) picks small bounds so that inputs of
/// a few hundred bytes reach them; the server always uses [`parse`].
pub fn parse_within(line: &[u8], max_values: usize) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    let mut envelope = Envelope::default();
    if let Err(e) = read_envelope(line, &mut envelope, max_values) {
        return Parsed::Answer(envelope_error(&e, max_values), envelope.id);
    }
    if envelope.not_an_object {
        let error =
            ErrorData::invalid_request("invalid request: a line must hold one JSON-RPC 2.0 message object", None);
        return Parsed::Answer(error, None);
    }
    let request = envelope.method.is_some() && envelope.has_id && !envelope.has_result && !envelope.has_error;
    if request && envelope.method.as_deref() == Some("tools/call") {
        return match serde_json::from_slice::<JsonRpcRequest<CallToolRequest>>(line) {
            Ok(call) => Parsed::Message(Box::new(JsonRpcMessage::Request(JsonRpcRequest::new(
                call.id,
                ClientRequest::from(call.request),
            )))),
            Err(e) => Parsed::Answer(shape_error(&envelope, &e), envelope.id),
        };
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(_) if envelope.has_method && !envelope.has_id => Parsed::Skip,
        Err(e) => Parsed::Answer(shape_error(&envelope, &e), envelope.id),
    }
}

/// The keys of a line's top-level object that decide what it is.
#[derive(Default)]
struct Envelope<'a> {
    /// `jsonrpc` is `"2.0"`.
    version_ok: bool,
    has_id: bool,
    /// The id, once read, if it is a valid request id.
    id: Option<RequestId>,
    has_method: bool,
    /// `method`, if it is a string.
    method: Option<Cow<'a, str>>,
    has_result: bool,
    has_error: bool,
    values: usize,
    /// The line is not a JSON object at all.
    not_an_object: bool,
}

fn read_envelope<'a>(line: &'a [u8], envelope: &mut Envelope<'a>, max: usize) -> Result<(), serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    EnvelopeSeed { envelope, max }.deserialize(&mut deserializer)?;
    deserializer.end()
}

/// Reads the envelope, refusing more than `max` values.
struct EnvelopeSeed<'e, 'a> {
    envelope: &'e mut Envelope<'a>,
    max: usize,
}

impl<'de, 'e> DeserializeSeed<'de> for EnvelopeSeed<'e, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'e> Visitor<'de> for EnvelopeSeed<'e, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Self { envelope, max } = self;
        envelope.values += 1;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            envelope.values += 1;
            let counter = Counter { values: &mut envelope.values, max };
            match &*key {
                "jsonrpc" => {
                    let version = map.next_value_seed(Scalar { counter })?;
                    envelope.version_ok = matches!(version, Some(Found::Str(v)) if v == "2.0");
                }
                "id" => {
                    envelope.has_id = true;
                    envelope.id = match map.next_value_seed(Scalar { counter })? {
                        Some(Found::Str(s)) => Some(RequestId::String(s.into_owned().into())),
                        Some(Found::Int(n)) => Some(RequestId::Number(n)),
                        None => None,
                    };
                }
                "method" => {
                    envelope.has_method = true;
                    envelope.method = match map.next_value_seed(Scalar { counter })? {
                        Some(Found::Str(s)) => Some(s),
                        _ => None,
                    };
                }
                other => {
                    let is_result = other == "result";
                    let is_error = other == "error";
                    map.next_value_seed(counter)?;
                    envelope.has_result |= is_result;
                    envelope.has_error |= is_error;
                }
            }
            if envelope.values > max {
                return Err(de::Error::custom(TOO_MANY));
            }
        }
        Ok(())
    }

    /// A top-level array is no message, but it is read as JSON all the
    /// same (counted, its strings checked, its depth limited), so that
    /// what is not JSON is answered as a parse error.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.envelope.not_an_object = true;
        Counter { values: &mut self.envelope.values, max: self.max }.visit_seq(seq)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.envelope.not_an_object = true;
        Ok(())
    }

    scalars_like_bool!();
}

const TOO_MANY: &str = "too many JSON values";

/// Counts every value it walks past, building nothing, and stops past `max`.
struct Counter<'c> {
    values: &'c mut usize,
    max: usize,
}

impl<'de> DeserializeSeed<'de> for Counter<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counter<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Self { values, max } = self;
        *values += 1;
        while map.next_key::<IgnoredAny>()?.is_some() {
            *values += 1;
            map.next_value_seed(Counter { values: &mut *values, max })?;
            if *values > max {
                return Err(de::Error::custom(TOO_MANY));
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Self { values, max } = self;
        *values += 1;
        while seq.next_element_seed(Counter { values: &mut *values, max })?.is_some() {
            if *values > max {
                return Err(de::Error::custom(TOO_MANY));
            }
        }
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        *self.values += 1;
        Ok(())
    }

    scalars_like_bool!();
}

/// A top-level value the envelope looks at: a string or an integer, or
/// (anything else, counted and skipped) nothing.
enum Found<'a> {
    Str(Cow<'a, str>),
    Int(i64),
}

struct Scalar<'c> {
    counter: Counter<'c>,
}

impl<'de> DeserializeSeed<'de> for Scalar<'_> {
    type Value = Option<Found<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scalar<'_> {
    type Value = Option<Found<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        *self.counter.values += 1;
        Ok(Some(Found::Str(Cow::Borrowed(s))))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        *self.counter.values += 1;
        Ok(Some(Found::Str(Cow::Owned(s.to_owned()))))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        *self.counter.values += 1;
        Ok(Some(Found::Int(n)))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        *self.counter.values += 1;
        Ok(i64::try_from(n).ok().map(Found::Int))
    }

    /// rmcp takes an integer written in float form (`1.0`, `1e2`) as a
    /// request id when an `f64` holds it exactly (below 2^53); so does the
    /// envelope, or an error would drop an id rmcp reads.
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        /// 2^53: from here on an `f64` no longer says which integer was sent.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        let integer = n.fract() == 0.0 && n.abs() < EXACT;
        self.counter.visit_f64(n).map(|()| integer.then_some(Found::Int(n as i64)))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        self.counter.visit_bool(b).map(|()| None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.counter.visit_unit().map(|()| None)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.counter.visit_map(map).map(|()| None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.counter.visit_seq(seq).map(|()| None)
    }
}

/// The error for a line whose envelope could not be read.
fn envelope_error(e: &serde_json::Error, max_values: usize) -> ErrorData {
    let text = e.to_string();
    let at = format!("line {} column {}", e.line(), e.column());
    if text.starts_with(TOO_MANY) {
        return ErrorData::invalid_request(
            format!("invalid request: the message holds more than {max_values} JSON values (stopped at {at})"),
            None,
        );
    }
    if text.starts_with("recursion limit exceeded") {
        return ErrorData::invalid_request(
            format!("invalid request: the message nests arrays and objects more than 128 deep (at {at})"),
            None,
        );
    }
    if text.starts_with("number out of range") {
        return ErrorData::invalid_request(
            format!("invalid request: a number is beyond the range of a 64-bit float (at {at})"),
            None,
        );
    }
    if e.is_syntax() || e.is_eof() {
        return ErrorData::parse_error(format!("parse error: the line is not JSON ({})", detail(&text)), None);
    }
    ErrorData::invalid_request(
        format!("invalid request: a line must hold one JSON-RPC 2.0 message object ({})", detail(&text)),
        None,
    )
}

/// The error for a line that is JSON but not a message this server takes.
fn shape_error(envelope: &Envelope<'_>, e: &serde_json::Error) -> ErrorData {
    if !envelope.version_ok {
        return ErrorData::invalid_request("invalid request: a message must carry `\"jsonrpc\": \"2.0\"`", None);
    }
    if envelope.has_id && envelope.id.is_none() && !envelope.has_result && !envelope.has_error {
        return ErrorData::invalid_request(
            "invalid request: a request's `id` must be a string or an integer (at most 2^63 - 1)",
            None,
        );
    }
    let why = detail(&e.to_string());
    match envelope.method.as_deref() {
        Some(method) => {
            let shown = display(method, cap::NAME);
            match shape_of(method) {
                Some(shape) => {
                    ErrorData::invalid_params(format!("invalid params for `{shown}`: expected {shape} ({why})"), None)
                }
                None => ErrorData::invalid_request(
                    format!("invalid request: `{shown}` with these params is not a valid MCP request ({why})"),
                    None,
                ),
            }
        }
        None => ErrorData::invalid_request(
            format!("invalid request: not a JSON-RPC 2.0 message this server understands ({why})"),
            None,
        ),
    }
}

/// serde's account of a problem, which may quote the caller's text.
fn detail(text: &str) -> String {
    display(text, cap::DETAIL)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> (i32, Option<RequestId>, String) {
        match parse(line.as_bytes()) {
            Parsed::Answer(e, id) => (e.code.0, id, e.message.into_owned()),
            Parsed::Message(m) => panic!("{line}: parsed as {m:?}"),
            Parsed::Skip => panic!("{line}: skipped"),
        }
    }

    fn code_and_id(line: &str) -> (i32, Option<RequestId>) {
        let (code, id, _) = answer(line);
        (code, id)
    }

    #[test]
    fn bad_lines_get_errors_with_the_id_when_there_is_one() {
        assert_eq!(code_and_id("{not json"), (-32700, None));
        assert_eq!(code_and_id("[1, 2"), (-32700, None));
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#),
            (-32602, Some(RequestId::Number(7)))
        );
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":8,"method":"tools/frob","params":5}"#).1,
            Some(RequestId::Number(8))
        );
        let (code, id, message) = answer(r#"{"id":"x","method":"tools/list"}"#);
        assert_eq!((code, id), (-32600, Some(RequestId::String("x".into()))));
        assert!(message.contains(r#"`"jsonrpc": "2.0"`"#), "{message}");
        let (code, id, message) =
            answer(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"cockpit"}}"#);
        assert_eq!((code, id), (-32600, None));
        assert!(message.contains("`id` must be a string or an integer"), "{message}");
        // rmcp would take this as a custom request, which the handler answers
        // with the same code.
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#),
            (-32602, Some(RequestId::Number(7)))
        );
        assert_eq!(code_and_id("42"), (-32600, None));
        assert_eq!(code_and_id(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), (-32600, None));
        // An id read before the line breaks is still carried.
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"#),
            (-32700, Some(RequestId::Number(9)))
        );
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"1.0","id":10,"method":"tools/call","params":{"name":"cockpit"}}"#),
            (-32600, Some(RequestId::Number(10)))
        );
    }

    #[test]
    fn deep_nesting_and_huge_numbers_get_their_own_errors() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let (code, id, message) = answer(&deep);
        assert_eq!((code, id), (-32600, Some(RequestId::Number(3))));
        assert!(message.contains("more than 128 deep"), "{message}");
        let (code, id, message) = answer(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cockpit","arguments":{"n":1e400}}}"#,
        );
        assert_eq!((code, id), (-32600, Some(RequestId::Number(4))));
        assert!(message.contains("beyond the range of a 64-bit float"), "{message}");
        // As the id itself: no id can be read, and the error still says why.
        let (code, id, message) = answer(r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#);
        assert_eq!((code, id), (-32600, None));
        assert!(message.contains("64-bit float"), "{message}");
    }

    #[test]
    fn too_many_values_are_refused_before_any_tree_is_built() {
        let values = vec!["0"; MAX_JSON_VALUES].join(",");
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"cockpit","arguments":{{"x":[{values}]}}}}}}"#
        );
        let (code, id, message) = answer(&line);
        assert_eq!((code, id), (-32600, Some(RequestId::Number(5))));
        assert!(message.contains(&format!("more than {MAX_JSON_VALUES} JSON values")), "{message}");
        // Just under the limit parses.
        let values = vec!["0"; MAX_JSON_VALUES - 20].join(",");
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"cockpit","arguments":{{"x":[{values}]}}}}}}"#
        );
        assert!(matches!(parse(line.as_bytes()), Parsed::Message(_)));
    }

    #[test]
    fn errors_echo_the_method_sanitised() {
        let (_, _, message) =
            answer("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\\r\\nforged\\u001b[2J\\u202e\",\"params\":5}");
        assert!(message.contains("`x forged`"), "{message}");
        assert!(!message.chars().any(|c| c.is_control() || m1nd_policy::sanitize::is_hidden(c)), "{message:?}");
    }

    #[test]
    fn tools_call_parses_as_the_general_path_does() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"method":"tools/call","params":{"name":"north","arguments":{"x":[1,{"y":null}]}},"id":2,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c\u006fckpit","_meta":{"progressToken":7}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cockpit","arguments":{}},"extra":true}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/\u0063all","params":{"name":"cockpit"}}"#,
        ];
        for line in lines {
            let Parsed::Message(fast) = parse(line.as_bytes()) else { panic!("{line}: not a message") };
            let general: RxJsonRpcMessage<RoleServer> = serde_json::from_slice(line.as_bytes()).expect(line);
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{line}");
            assert_eq!(
                serde_json::to_value(&*fast).expect("fast"),
                serde_json::to_value(&general).expect("general"),
                "{line}"
            );
        }
    }

    #[test]
    fn other_shapes_are_decided_as_rmcp_decides_them() {
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Parsed::Message(_)));
        for line in [
            // Without an id, a notification: rmcp takes it, and it is never answered.
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit"},"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit"},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"cockpit"}}"#,
        ] {
            let general = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line.as_bytes());
            match parse(line.as_bytes()) {
                Parsed::Message(m) => assert_eq!(format!("{m:?}"), format!("{:?}", general.expect(line)), "{line}"),
                Parsed::Answer(..) => assert!(general.is_err(), "{line}: refused, but rmcp takes it"),
                Parsed::Skip => panic!("{line}: skipped"),
            }
        }
    }

    #[test]
    fn good_lines_and_blank_lines() {
        assert!(matches!(
            parse(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
            Parsed::Message(_)
        ));
        assert!(matches!(parse(b"  \r\n"), Parsed::Skip));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":5}"#), Parsed::Skip));
    }
}
