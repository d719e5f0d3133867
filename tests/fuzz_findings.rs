//! What the fuzz targets `request`, `tray` and `upstream` (fuzz/README.md) found in the
//! server's parsers, each kept as a named regression test over the same
//! entry points the targets call.

use m1nd::fuzzing::{Act, Authority, COOKIE, CSRF_HEADER, header_map, percent_decode, tray_form, tray_write};
use m1nd::transport::request::{Parsed, parse, parse_within};

fn code_and_id(line: &[u8]) -> (i32, Option<m1nd::fuzzing::RequestId>, String) {
    match parse(line) {
        Parsed::Answer(error, id) => (error.code.0, id, error.message.into_owned()),
        Parsed::Message(m) => panic!("taken as {m:?}"),
        Parsed::Skip => panic!("skipped"),
    }
}

/// A top-level array was skipped over unread (serde's `IgnoredAny`): its
/// strings were not checked and its depth not limited, so a line that is
/// not JSON (`["\xff"]`, a lone surrogate, nesting past 128) was answered
/// "invalid request" (-32600) instead of "parse error" (-32700).
#[test]
fn fuzz_request_a_top_level_array_is_read_as_json() {
    let (code, id, message) = code_and_id(b"[{\"jsonrpc\xff\":\"2.0\"}]");
    assert_eq!((code, id), (-32700, None), "{message}");
    let (code, _, message) = code_and_id(br#"["\ud800"]"#);
    assert_eq!(code, -32700, "{message}");
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let (code, _, message) = code_and_id(deep.as_bytes());
    assert_eq!(code, -32600, "{message}");
    assert!(message.contains("more than 128 deep"), "{message}");
    // Still refused as what it is when it is JSON.
    let (code, _, message) = code_and_id(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(code, -32600, "{message}");
    assert!(message.contains("one JSON-RPC 2.0 message object"), "{message}");
}

/// A message past the value bound, whose second `id` is an object cut off by
/// the bound right after a number: the answer keeps the first id, the last
/// one read whole. The fuzz target's own reckoning had counted the `}` that
/// serde_json looks at to end the number as read, and took the object as
/// read whole; the oracle was wrong, the server was right.
#[test]
fn fuzz_request_an_id_cut_off_by_the_value_bound_after_a_number_is_not_read() {
    let line = b"{\"cnrpc\":\"6.0\",\"id\"\t:5E0000001,\"mnrpcpc\":\"2.0\",\
        \"id\":{\"n\"\t\t\t\t\t:5E0000001,\"method\"\n\n\n\n\n:5}";
    let Parsed::Answer(error, id) = parse_within(line, 12) else { panic!("not refused") };
    let (code, message) = (error.code.0, error.message);
    assert_eq!((code, id), (-32600, Some(m1nd::fuzzing::RequestId::Number(50))), "{message}");
    assert!(message.contains("more than 12 JSON values"), "{message}");
}

/// rmcp reads `1.0` and `1e2` as the request ids 1 and 100, but the
/// envelope took only integers written as integers: a refused `tools/call`
/// with `"id": 1.0` was answered without its id, and told the id was not an
/// integer, while rmcp (and the handler) read it as 1.
#[test]
fn fuzz_request_an_integer_id_in_float_form_is_carried() {
    use m1nd::fuzzing::RequestId;
    let (code, id, message) = code_and_id(br#"{"jsonrpc":"2.0","id":1.0,"method":"tools/call","parals":{}}"#);
    assert_eq!((code, id), (-32602, Some(RequestId::Number(1))), "{message}");
    let (_, id, _) = code_and_id(br#"{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":5}"#);
    assert_eq!(id, Some(RequestId::Number(100)));
    // Not an integer, or past what an f64 holds exactly: no id, as rmcp.
    for line in [
        r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":5}"#,
        r#"{"jsonrpc":"2.0","id":9007199254740992.0,"method":"tools/call","params":5}"#,
    ] {
        let (code, id, message) = code_and_id(line.as_bytes());
        assert_eq!((code, id), (-32600, None), "{line}: {message}");
    }
}

const HASH: &str = "abababababababababababababababababababababababababababababababab";

/// serde reads a struct from a JSON array as well as from an object, so
/// `["msn_1", "<hash>", 3]` stamped as if it were the tray's form.
#[test]
fn fuzz_tray_an_act_is_a_json_object_only() {
    for act in [Act::Stamp, Act::Ratify] {
        let array = format!(r#" ["msn_1","{HASH}",3]"#);
        let why = tray_form(act, array.as_bytes()).expect_err("an array names no act");
        assert!(why.contains("not a JSON object"), "{why}");
    }
    let object = format!(r#" {{"mission":"msn_1","receipt_hash":"{HASH}","store_version":3}}"#);
    assert_eq!(tray_form(Act::Stamp, object.as_bytes()), Ok(("msn_1".to_owned(), HASH.to_owned(), 3)));
}

/// A `Sec-Fetch-Site` that is not text (bytes past ASCII) read as absent,
/// so the write passed the check that refuses `cross-site`.
#[test]
fn fuzz_tray_an_unreadable_sec_fetch_site_is_refused() {
    let authority = Authority::new("http://127.0.0.1:1".into(), std::time::Duration::from_secs(60)).expect("authority");
    let token = authority.login_link().rsplit_once("token=").expect("link").1.to_owned();
    let id = authority.spend(&token).expect("login").session_id;
    let cookie = format!("{COOKIE}={id}");
    let csrf = authority.session(Some(&cookie)).expect("session").csrf;
    let write = |site: &[u8]| {
        let headers = header_map(&[
            ("host", b"127.0.0.1:1338"),
            ("origin", b"http://127.0.0.1:1338"),
            ("cookie", cookie.as_bytes()),
            (CSRF_HEADER, csrf.as_bytes()),
            ("sec-fetch-site", site),
        ]);
        tray_write(&authority, &headers)
    };
    assert_eq!(write(b"same-origin"), Ok(()));
    assert_eq!(write(b"cross-site"), Err("origin"));
    assert_eq!(write(b"same-\x99origin"), Err("origin"));
}

/// `%` took any text `u8::from_str_radix` takes, and that takes a sign:
/// `%+1` decoded to the control character U+0001.
#[test]
fn fuzz_tray_percent_decoding_takes_two_hex_digits_only() {
    assert_eq!(percent_decode("%+1"), None);
    assert_eq!(percent_decode("%+f2.1"), None);
    assert_eq!(percent_decode("%32.1+%40"), Some("2.1 @".to_owned()));
}

/// An upstream's answer that set the gateway's own flag, `io.m1nd/escaped`,
/// in its `_meta`, with nothing to escape, was passed on as it came: a
/// client was told the gateway had escaped 99 characters it never saw. The
/// flag is the gateway's word; the upstream's is dropped.
#[test]
fn fuzz_upstream_an_upstream_cannot_forge_the_escaped_flag() {
    use m1nd::fuzzing::{CallToolResult, ESCAPED_META, upstream_answer};
    let forged: CallToolResult =
        serde_json::from_str("{\"content\":[],\"_meta\":{\"io.m1nd/escaped\":99,\"k\u{204b}\":\"v\u{222e}\"}}")
            .expect("an answer rmcp reads");
    let passed = serde_json::to_value(upstream_answer("tools/call", forged).expect("passed on")).expect("JSON");
    assert_eq!(passed["_meta"].get(ESCAPED_META), None, "{passed}");
    assert_eq!(passed["_meta"]["k\u{204b}"], "v\u{222e}", "the rest of _meta is kept: {passed}");
}
