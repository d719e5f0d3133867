//! A JSON-RPC line (stdio) from any MCP client, parsed by the bounding pass
//! and envelope parser of `m1nd::transport::request`, with serde_json (and
//! rmcp's message type over it) as the oracle.
//!
//! Input: the first byte picks the bound on JSON values: 255 is the server's
//! own [`MAX_JSON_VALUES`] through `parse`, any other `b` is `b + 1` through
//! `parse_within`, so that a few hundred bytes cross it. The rest is the line.
//!
//! "Within the bounds" means: the line, once one trailing `\n`, one `\r` and
//! a leading byte-order mark are removed, holds at most the bound of JSON
//! values, counting every object, array, string (object keys included),
//! number and literal as one. Nesting deeper than 128 and numbers beyond a
//! 64-bit float are not bounds of their own: serde_json refuses them too.
//!
//! For any line:
//! 1. a line of ASCII whitespace alone is skipped;
//! 2. JSON (serde_json parses it as a `Value`) that is not an object is
//!    refused with `-32600` and no id;
//! 3. a JSON object over the bound is refused with `-32600`, naming the bound;
//!    the id it carries is the one readable where the count stopped (4);
//! 4. a JSON object within the bound is taken exactly when rmcp's message
//!    type takes it, as the same message; the one exception is a
//!    `tools/call` whose params are not a call, which rmcp takes as a custom
//!    request and which is refused with `-32602` (the code the handler would
//!    answer). Refused, a notification (a `method`, no `id`) is skipped;
//!    anything else is answered with `-32600` or `-32602` and exactly the id
//!    serde_json and rmcp read (the last `id` member, when rmcp reads it as
//!    a request id: a string, or an integer up to 2^63 - 1, also written in
//!    float form below 2^53);
//! 5. what serde_json refuses is refused: with `-32700`, or `-32600` when the
//!    reason is the nesting limit, a number out of range, or (before the
//!    first syntax error) the bound; and the id carried is the id of the
//!    top-level object's members read before the error (the last complete
//!    `id` member), none otherwise;
//! 6. every error message is display-safe: nothing the caller wrote reaches
//!    it unsanitised.

use m1nd::fuzzing::{
    ClientRequest, JsonRpcMessage, MAX_JSON_VALUES, Parsed, RequestId, RoleServer, RxJsonRpcMessage, parse,
    parse_within,
};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// JSON-RPC's codes, as the parser answers them.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const INVALID_PARAMS: i32 = -32602;

pub fn check(data: &[u8]) {
    let Some((&first, line)) = data.split_first() else { return };
    let (bound, parsed) = match first {
        u8::MAX => (MAX_JSON_VALUES, parse(line)),
        b => (usize::from(b) + 1, parse_within(line, usize::from(b) + 1)),
    };
    let body = strip(line);
    if body.iter().all(u8::is_ascii_whitespace) {
        assert!(matches!(parsed, Parsed::Skip), "a blank line was not skipped");
        return;
    }
    if let Parsed::Answer(error, _) = &parsed {
        assert!(crate::is_display_safe(&error.message), "an error echoes unsanitised text: {:?}", error.message);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => json(body, &value, bound, parsed),
        Err(e) => not_json(body, &e, bound, parsed),
    }
}

/// What the transport strips before parsing: one `\n`, one `\r`, a BOM.
fn strip(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

fn answer(parsed: Parsed, what: &str) -> (i32, Option<RequestId>, String) {
    match parsed {
        Parsed::Answer(error, id) => (error.code.0, id, error.message.into_owned()),
        Parsed::Message(m) => panic!("{what}, but the line was taken as {m:?}"),
        Parsed::Skip => panic!("{what}, but the line was skipped"),
    }
}

/// Properties 2 to 4: a line serde_json parses.
fn json(body: &[u8], value: &Value, bound: usize, parsed: Parsed) {
    let Some(object) = value.as_object() else {
        let (code, id, _) = answer(parsed, "JSON that is not an object");
        assert_eq!((code, id), (INVALID_REQUEST, None), "JSON that is not an object");
        return;
    };
    let values = scan(body).values;
    if values > bound {
        let (code, id, message) = answer(parsed, &format!("{values} values, over the bound of {bound}"));
        assert_eq!(code, INVALID_REQUEST, "{message}");
        assert!(message.contains(&format!("more than {bound} JSON values")), "{message}");
        let stopped = stopped_at(body, &message);
        assert_eq!(id, readable_id(body, stopped), "the id read before the count stopped at {stopped}");
        return;
    }
    let general = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(body);
    let notification = object.contains_key("method") && !object.contains_key("id");
    match parsed {
        Parsed::Message(message) => {
            let general = general.unwrap_or_else(|e| panic!("taken as {message:?}, but rmcp refuses it: {e}"));
            let taken = serde_json::to_value(&*message).expect("a message serialises");
            assert_eq!(taken, serde_json::to_value(&general).expect("a message serialises"), "not rmcp's message");
        }
        Parsed::Skip => {
            assert!(notification, "skipped a line that is not a notification");
            assert!(general.is_err(), "skipped a notification rmcp takes");
        }
        Parsed::Answer(error, id) => {
            let code = error.code.0;
            assert!(!notification, "answered a notification: {}", error.message);
            match general {
                Err(_) => assert!(code == INVALID_REQUEST || code == INVALID_PARAMS, "{code}: {}", error.message),
                Ok(JsonRpcMessage::Request(request)) => {
                    let custom =
                        matches!(&request.request, ClientRequest::CustomRequest(c) if c.method == "tools/call");
                    assert!(custom && code == INVALID_PARAMS, "refused ({}) what rmcp takes", error.message);
                }
                Ok(other) => panic!("refused ({}) what rmcp takes: {other:?}", error.message),
            }
            assert_eq!(id, id_of(value), "the id of the answer to {}", String::from_utf8_lossy(body));
        }
    }
}

/// Property 5: a line serde_json refuses.
fn not_json(body: &[u8], e: &serde_json::Error, bound: usize, parsed: Parsed) {
    let text = e.to_string();
    let failed = if e.is_eof() { body.len() } else { offset(body, e.line(), e.column()) };
    let (code, id, message) = answer(parsed, &format!("serde_json refuses it ({text})"));
    if message.contains(&format!("more than {bound} JSON values")) {
        assert_eq!(code, INVALID_REQUEST, "{message}");
        let stopped = stopped_at(body, &message);
        assert!(stopped <= failed, "counted past the first error ({text}): {message}");
        assert_eq!(id, readable_id(body, stopped), "the id read before the count stopped ({message})");
        return;
    }
    if text.starts_with("recursion limit exceeded") {
        assert_eq!(code, INVALID_REQUEST, "{message}");
        assert!(message.contains("more than 128 deep"), "nesting ({text}) answered with {message}");
    } else if text.starts_with("number out of range") {
        assert_eq!(code, INVALID_REQUEST, "{message}");
        assert!(message.contains("64-bit float"), "a huge number ({text}) answered with {message}");
    } else {
        assert_eq!(code, PARSE_ERROR, "not JSON ({text}) answered with {message}");
    }
    assert_eq!(id, id_before_error(body), "the id read before {text} ({message})");
}

/// The id an answer carries for this object: serde_json's last `id`
/// member, if rmcp reads it as a request id.
fn id_of(value: &Value) -> Option<RequestId> {
    value.get("id").and_then(request_id)
}

/// What rmcp reads as a request id: a string, or an integer (also in
/// float form, `1.0`, while an `f64` holds it exactly).
fn request_id(id: &Value) -> Option<RequestId> {
    serde_json::from_value(id.clone()).ok()
}

/// The id readable in `body` before the count stopped at byte `at` (an
/// exact position: the byte after the last value counted): the id of the
/// longest prefix of the top-level object, up to `at`, that is the whole
/// object or whole members (it parses as it is, or closed with `}`).
/// `None` when the line is not an object.
fn readable_id(body: &[u8], at: usize) -> Option<RequestId> {
    let mut at = at.min(body.len());
    // serde_json finds a number's end by looking at the byte after it, and
    // its position then counts that byte: a `}` or `]` seen that way closed
    // nothing yet (the count stopped inside the container).
    if at >= 2 && matches!(body[at - 1], b'}' | b']') && body[at - 2].is_ascii_digit() {
        at -= 1;
    }
    let read = &body[..at];
    let first = read.iter().position(|b| !is_json_space(*b))?;
    if read[first] != b'{' {
        return None;
    }
    let object = |text: &[u8]| serde_json::from_slice::<Value>(text).ok().filter(Value::is_object);
    let whole = |end: usize| object(&body[..end]).or_else(|| object(&[&body[..end], b"}"].concat()));
    std::iter::once(at).chain(scan(read).member_ends.into_iter().rev()).find_map(whole).as_ref().and_then(id_of)
}

/// The id serde_json hands over before its first error: the top-level
/// object read member by member, each key and value as a `Value`, keeping
/// the last `id` member read whole. `None` when the line is not an object.
fn id_before_error(body: &[u8]) -> Option<RequestId> {
    struct Members<'a>(&'a mut Option<RequestId>);

    impl<'de> Visitor<'de> for Members<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value::<Value>()?;
                if key == "id" {
                    *self.0 = request_id(&value);
                }
            }
            Ok(())
        }
    }

    let mut id = None;
    // The error is the point: whatever was read before it counts.
    let _ = serde_json::Deserializer::from_slice(body).deserialize_any(Members(&mut id));
    id
}

/// JSON's whitespace (not Rust's: no form feed).
fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The byte offset serde_json's `line`/`column` name: the column counts the
/// bytes of its line up to and including the one meant.
fn offset(body: &[u8], line: usize, column: usize) -> usize {
    let start: usize = body.split(|b| *b == b'\n').take(line.saturating_sub(1)).map(|l| l.len() + 1).sum();
    (start + column).min(body.len())
}

/// Where the bound's refusal says the count stopped (`stopped at line L column C`).
fn stopped_at(body: &[u8], message: &str) -> usize {
    let (_, at) = message.rsplit_once("stopped at line ").unwrap_or_else(|| panic!("no position in {message}"));
    let (line, rest) = at.split_once(" column ").unwrap_or_else(|| panic!("no column in {message}"));
    let column = rest.trim_end_matches(')');
    let number = |s: &str| s.parse::<usize>().unwrap_or_else(|_| panic!("not a position in {message}"));
    offset(body, number(line), number(column))
}

/// What a scan of JSON text (or of a prefix of it) finds.
struct Scan {
    /// Every object, array, string, number and literal begun.
    values: usize,
    /// The offsets of the commas between the top-level object's members.
    member_ends: Vec<usize>,
}

/// A token-level scan of JSON text known to be valid up to its end; an
/// oracle of its own, independent of serde_json and of the parser.
fn scan(text: &[u8]) -> Scan {
    let mut scan = Scan { values: 0, member_ends: Vec::new() };
    let (mut depth, mut in_string, mut escaped, mut in_number) = (0usize, false, false, false);
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let number_byte = b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
        if in_number && number_byte {
            continue;
        }
        in_number = false;
        match b {
            b'"' => {
                scan.values += 1;
                in_string = true;
            }
            b'{' | b'[' => {
                scan.values += 1;
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => scan.member_ends.push(i),
            b't' | b'f' | b'n' => scan.values += 1,
            b'-' | b'0'..=b'9' => {
                scan.values += 1;
                in_number = true;
            }
            _ => {}
        }
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(bound: u8, text: &str) -> Vec<u8> {
        [&[bound][..], text.as_bytes()].concat()
    }

    /// The parser's own unit cases, through the property.
    #[test]
    fn the_parsers_cases_hold() {
        for text in [
            "{not json",
            "[1, 2",
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#,
            r#"{"id":"x","method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            "42",
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"#,
            r#"{"jsonrpc":"2.0","id":9 "x""#,
            r#"{"jsonrpc":"2.0","id":12x"#,
            r#"{"jsonrpc":"2.0","id":5-11-25","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":01}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"tools/call","parals":{"name":"cockp"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"id":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}"#,
            r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cockpit","arguments":{"n":1e400}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":5}"#,
            "{\"jsonrpc\":\"2.0\",\n\"id\":3,\n\"method\":\"ping\",\"params\":{\"a\":[1,2,3,[4,{\"b\":null}]]}",
        ] {
            check(&line(u8::MAX, text));
            for bound in [0, 1, 2, 3, 5, 8, 13] {
                check(&line(bound, text));
            }
        }
        let deep =
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        check(&line(u8::MAX, &deep));
    }

    #[test]
    fn the_scan_counts_every_value_and_key() {
        assert_eq!(scan(br#"{"a":[1,-2.5e3,true,null,"x"],"b":{}}"#).values, 10);
        assert_eq!(scan(br#"{"a":1,"b":"x,y","c":[1,2]}"#).member_ends, vec![6, 16]);
    }
}
