//! The human's tray on `serve --http`: the `Cookie` header that names a
//! session, the CSRF and same-origin checks of a write, the JSON body of an
//! act, and the `?select=` the cockpit page percent-decodes.
//!
//! Input: lines, `\n`-separated: `Cookie`, `X-M1nd-Csrf`, `Host`, `Origin`,
//! `Sec-Fetch-Site`, the `select` query value, and then the act's body (the
//! rest, newlines and all). The first byte's low bit picks the act (stamp or
//! ratify). In the header lines the bytes 1 to 7, which no header value can
//! hold, stand for the secrets of a fresh [`Authority`]: 1 and 2 the ids of
//! two open sessions, 3 the id of a session logged out, 4 and 5 the two
//! sessions' CSRF tokens, 6 a spent login token and 7 the unspent one. So the
//! fuzzer can place real secrets anywhere in a header, which it could never
//! guess.
//!
//! For any input:
//! 1. a `Cookie` header yields a session only if it is a session opened and
//!    not ended, and the one the header names: its first pair (split on `;`,
//!    trimmed) that starts `m1nd_tray=` holds that session's id exactly; and
//!    a header that names an open session that way yields it. A logged-out
//!    id, a login token, a CSRF token or any other text yields nothing;
//! 2. a write passes the checks exactly when its `Origin` is `http://` and
//!    its `Host`, its `Sec-Fetch-Site` is absent or `same-origin`, its cookie
//!    names an open session and its CSRF header is that session's token, to
//!    the byte (another session's token is refused); otherwise the refusal
//!    names the first check that failed;
//! 3. logging out ends the session the cookie names and no other;
//! 4. an act's body parses exactly when it is a JSON object with the act's
//!    three members, each once (a target of 1 to `MAX_TARGET_BYTES` bytes,
//!    `receipt_hash` 64 lowercase hex digits, `store_version` an unsigned
//!    integer); the fields parsed are the ones written, and written back as
//!    JSON they parse to the same; a refusal says the shape and echoes
//!    nothing invisible;
//! 5. `select` decodes exactly as `application/x-www-form-urlencoded`
//!    does (`+` is a space, `%` and two hex digits a byte, UTF-8), and text
//!    that is not that is passed on as written.

use m1nd::fuzzing::{
    Act, Authority, COOKIE, CSRF_HEADER, MAX_TARGET_BYTES, RECEIPT_HASH_LEN, Session, header_map, percent_decode,
    tray_form, tray_logout, tray_session, tray_write,
};
use serde_json::{Value, json};

pub fn check(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let act = if first & 1 == 0 { Act::Stamp } else { Act::Ratify };
    let mut lines = rest.splitn(7, |b| *b == b'\n');
    let mut next = || lines.next().unwrap_or_default();
    let (cookie, csrf, host, origin, site, select) = (next(), next(), next(), next(), next(), next());
    let body = next();

    let secrets = Secrets::new();
    let expand = |text: &[u8]| secrets.expand(text);
    let (cookie, csrf, host, origin, site) = (expand(cookie), expand(csrf), expand(host), expand(origin), expand(site));
    let headers = header_map(&[
        ("cookie", &cookie),
        (CSRF_HEADER, &csrf),
        ("host", &host),
        ("origin", &origin),
        ("sec-fetch-site", &site),
    ]);
    let as_text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());

    // 1. The session the cookie names.
    let named = as_text("cookie").and_then(named_session);
    let expected = secrets.open.iter().find(|(id, _)| Some(id.as_str()) == named).map(|(_, csrf)| csrf.clone());
    let found = tray_session(&secrets.authority, &headers);
    assert_eq!(found.as_ref().map(|s| s.csrf.clone()), expected, "cookie {:?}", as_text("cookie"));

    // 2. The checks of a write.
    let host_text = as_text("host").unwrap_or_default();
    let same_origin = as_text("origin") == Some(&format!("http://{host_text}"))
        && headers.get("sec-fetch-site").is_none_or(|s| s.to_str().ok() == Some("same-origin"));
    let expected = if !same_origin {
        Err("origin")
    } else {
        match &found {
            None => Err("login"),
            Some(session) if as_text(CSRF_HEADER) == Some(session.csrf.as_str()) => Ok(()),
            Some(_) => Err("csrf"),
        }
    };
    assert_eq!(tray_write(&secrets.authority, &headers), expected, "{headers:?}");
    if let Some(session) = &found {
        for (_, other) in &secrets.open {
            assert_eq!(session.admits(Some(other)), *other == session.csrf, "a session admits another's token");
        }
    }

    // 3. Logging out.
    tray_logout(&secrets.authority, &headers);
    for (id, _) in &secrets.open {
        let live = secrets.live(id).is_some();
        assert_eq!(live, named != Some(id.as_str()), "logout by {:?} left {id} live: {live}", as_text("cookie"));
    }

    // 4 and 5.
    form(act, body);
    decode(&String::from_utf8_lossy(select));
}

/// The value of the first pair of a `Cookie` header named `m1nd_tray`, as a
/// browser writes the header (`name=value` pairs joined by `; `).
fn named_session(header: &str) -> Option<&str> {
    header.split(';').map(|pair| pair.trim_matches([' ', '\t'])).find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name == COOKIE).then_some(value)
    })
}

/// A fresh authority with two open sessions, one ended, a spent login token
/// and the unspent one.
struct Secrets {
    authority: Authority,
    /// (session id, CSRF token) of the open sessions.
    open: Vec<(String, String)>,
    /// What bytes 1 to 7 stand for.
    by_byte: [String; 7],
}

impl Secrets {
    fn new() -> Self {
        let authority =
            Authority::new("http://127.0.0.1:1".into(), std::time::Duration::from_secs(3600)).expect("an authority");
        let token = |a: &Authority| a.login_link().rsplit_once("token=").expect("a login link").1.to_owned();
        let open_one = || {
            let spent = token(&authority);
            let id = authority.spend(&spent).expect("the login token opens a session").session_id;
            (spent, id)
        };
        let (_, a) = open_one();
        let (_, b) = open_one();
        let (spent, c) = open_one();
        let csrf = |id: &str| live_in(&authority, id).expect("an open session").csrf;
        let (csrf_a, csrf_b) = (csrf(&a), csrf(&b));
        authority.logout(Some(&format!("{COOKIE}={c}")));
        let unspent = token(&authority);
        let by_byte = [a.clone(), b.clone(), c, csrf_a.clone(), csrf_b.clone(), spent, unspent];
        Self { authority, open: vec![(a, csrf_a), (b, csrf_b)], by_byte }
    }

    /// `text` with bytes 1 to 7 replaced by the secrets they stand for.
    fn expand(&self, text: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len());
        for &b in text {
            match b {
                1..=7 => out.extend_from_slice(self.by_byte[usize::from(b - 1)].as_bytes()),
                _ => out.push(b),
            }
        }
        out
    }

    fn live(&self, id: &str) -> Option<Session> {
        live_in(&self.authority, id)
    }
}

fn live_in(authority: &Authority, id: &str) -> Option<Session> {
    authority.session(Some(&format!("{COOKIE}={id}")))
}

/// Property 4: an act's body.
fn form(act: Act, body: &[u8]) {
    let target_key = match act {
        Act::Stamp => "mission",
        Act::Ratify => "block",
    };
    let parsed = tray_form(act, body);
    let value = serde_json::from_slice::<Value>(body).ok();
    let members = value.as_ref().and_then(Value::as_object).filter(|o| o.len() == 3).and_then(|o| {
        let target = o.get(target_key)?.as_str()?;
        let hash = o.get("receipt_hash")?.as_str()?;
        Some((target.to_owned(), hash.to_owned(), o.get("store_version")?.as_u64()?))
    });
    match (&parsed, &members) {
        (Ok(fields), Some(written)) => {
            assert_eq!(fields, written, "the fields parsed are not the ones written");
            let (target, hash, _) = fields;
            assert!((1..=MAX_TARGET_BYTES).contains(&target.len()), "a target of {} bytes", target.len());
            let hex = hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            assert!(hash.len() == RECEIPT_HASH_LEN && hex, "receipt_hash {hash:?}");
            let again = json!({ target_key: fields.0, "receipt_hash": fields.1, "store_version": fields.2 });
            let again = tray_form(act, again.to_string().as_bytes());
            assert_eq!(again.as_ref(), Ok(fields), "the form does not round-trip");
        }
        (Ok(fields), None) => panic!("parsed {fields:?} from a body that is not the act's object"),
        (Err(why), written) => {
            assert!(crate::is_display_safe(why), "a refusal echoes unsanitised text: {why:?}");
            let shape = match act {
                Act::Stamp => "a stamp is {",
                Act::Ratify => "a ratification is {",
            };
            assert!(why.starts_with(shape) || why.starts_with("the target is an id"), "{why}");
            if let Some((target, hash, _)) = written {
                let well_formed = (1..=MAX_TARGET_BYTES).contains(&target.len())
                    && hash.len() == RECEIPT_HASH_LEN
                    && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
                assert!(!well_formed || why.contains("duplicate field"), "refused a well-formed act: {why}");
            }
        }
    }
}

/// Property 5: `?select=`.
fn decode(raw: &str) {
    assert_eq!(percent_decode(raw), urlencoded(raw), "{raw:?}");
    let encoded: String = raw
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    assert_eq!(percent_decode(&encoded).as_deref(), Some(raw), "{raw:?} encoded as {encoded:?}");
}

/// `application/x-www-form-urlencoded` decoding, strict: `None` for a `%`
/// not followed by two hex digits, or bytes that are not UTF-8.
fn urlencoded(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'%' => {
                let digit = |at: usize| bytes.get(at).and_then(|d| char::from(*d).to_digit(16));
                let (high, low) = (digit(i)?, digit(i + 1)?);
                out.push(u8::try_from(high * 16 + low).ok()?);
                i += 2;
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
    }
    String::from_utf8(out).ok()
}
