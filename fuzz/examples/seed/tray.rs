//! The `tray` seeds: forged and stale writes, cookies, act bodies and references.

use super::*;

struct TrayInput<'a> {
    ratify: bool,
    cookie: &'a str,
    csrf: &'a str,
    host: &'a str,
    origin: &'a str,
    site: &'a str,
    select: &'a str,
    body: Vec<u8>,
}

const GOOD: TrayInput<'static> = TrayInput {
    ratify: false,
    cookie: "m1nd_tray=\u{1}",
    csrf: "\u{4}",
    host: "127.0.0.1:1338",
    origin: "http://127.0.0.1:1338",
    site: "same-origin",
    select: "2.1",
    body: Vec::new(),
};

fn tray_input(seeds: &mut Seeds, input: TrayInput<'_>) {
    let lines = [input.cookie, input.csrf, input.host, input.origin, input.site, input.select].join("\n");
    let bytes = [&[u8::from(input.ratify)][..], lines.as_bytes(), b"\n", &input.body].concat();
    seeds.put("tray", &bytes);
}

pub(super) fn tray(repo: &Path, seeds: &mut Seeds) {
    let hash = "ab".repeat(32);
    let stamp = json!({"mission": "msn_1", "receipt_hash": hash, "store_version": 3});
    let ratify = json!({"block": "blk_1", "receipt_hash": hash, "store_version": 3});
    let bytes = |v: &Value| v.to_string().into_bytes();
    let with = |v: &Value, key: &str, value: Value| {
        let mut v = v.clone();
        v[key] = value;
        bytes(&v)
    };
    // tests/browser/test_tray.py: forged and stale writes.
    let writes = [
        TrayInput { body: bytes(&stamp), ..GOOD },
        TrayInput { ratify: true, cookie: "other=1; m1nd_tray=\u{2}", csrf: "\u{5}", body: bytes(&ratify), ..GOOD },
        TrayInput { origin: "http://evil.example", ..GOOD },
        TrayInput { origin: "", ..GOOD },
        TrayInput { site: "cross-site", ..GOOD },
        TrayInput { csrf: "", ..GOOD },
        TrayInput { csrf: "0000000000000000000000000000000000000000000000000000000000000000", ..GOOD },
        TrayInput { csrf: "\u{5}", ..GOOD },
        TrayInput { cookie: "", ..GOOD },
        TrayInput { cookie: "m1nd_tray=0000000000000000000000000000000000000000000000000000000000000000", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{3}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{6}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{7}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{4}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{1}x", ..GOOD },
        TrayInput { cookie: "xm1nd_tray=\u{1}", ..GOOD },
        TrayInput { cookie: " m1nd_tray = \u{1}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\u{2}; m1nd_tray=\u{1}", ..GOOD },
        TrayInput { cookie: "m1nd_tray=\"\u{1}\"", ..GOOD },
        TrayInput { cookie: "M1ND_TRAY=\u{1}", ..GOOD },
        TrayInput { host: "evil.example", origin: "http://evil.example", ..GOOD },
        TrayInput { host: "attacker.example:1338", origin: "http://attacker.example:1338", ..GOOD },
        TrayInput { host: "m1nd.localhost:1338", origin: "http://m1nd.localhost:1338", ..GOOD },
        TrayInput { host: "[::1]:1338", origin: "http://[::1]:1338", site: "", ..GOOD },
    ];
    for input in writes {
        tray_input(seeds, input);
    }
    // The browser suite's bad act bodies, and the shapes serde could take.
    let bodies = [
        b"{mission=".to_vec(),
        bytes(&json!({"mission": "msn_1"})),
        with(&stamp, "force", json!(true)),
        with(&stamp, "receipt_hash", json!("<script>")),
        with(&stamp, "receipt_hash", json!("AB".repeat(32))),
        with(&stamp, "receipt_hash", json!("a".repeat(63))),
        with(&stamp, "store_version", json!(0)),
        with(&stamp, "store_version", json!(-1)),
        with(&stamp, "store_version", json!(3.0)),
        with(&stamp, "store_version", json!(u64::MAX)),
        with(&stamp, "mission", json!("")),
        with(&stamp, "mission", json!("m".repeat(257))),
        with(&stamp, "mission", json!("msn\u{202e}\u{1b}[2J")),
        format!(r#"{{"mission":"a","mission":"b","receipt_hash":"{hash}","store_version":3}}"#).into_bytes(),
        format!(r#"["msn_1","{hash}",3]"#).into_bytes(),
        b"mission=x".to_vec(),
        b"{\"mission\":\"\\ud800\"}".to_vec(),
    ];
    for (k, body) in bodies.into_iter().enumerate() {
        tray_input(seeds, TrayInput { ratify: k % 5 == 4, body, ..GOOD });
    }
    // `?select=` as a page link writes it, and as it should not be written.
    let references = widget_references(repo);
    let encoded: Vec<String> = references
        .iter()
        .take(6)
        .map(|r| {
            r.bytes()
                .map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") })
                .collect()
        })
        .collect();
    let selects = ["%32.1", "2+1", "%+1", "%zz", "%4", "%e2%80%ae1", "%C3%A9", "%ff"];
    for select in encoded.iter().map(String::as_str).chain(selects) {
        tray_input(seeds, TrayInput { select, body: bytes(&stamp), ..GOOD });
    }
}
