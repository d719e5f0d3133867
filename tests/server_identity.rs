//! An identity per agent on `m1nd serve --http --jwks ...`: JWT access
//! tokens minted here with throwaway Ed25519 keys. A good token is served
//! and its `sub` named in the audit trail; an expired, not-yet-valid,
//! wrong-audience, wrong-issuer, wrong-key or `alg: none` token is refused
//! with RFC 6750's challenge pointing at the Protected Resource Metadata
//! (RFC 9728), which is served; a refused write changes nothing; and one
//! agent is revoked by a line in a file, while the others go on.

mod server_support;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};
use server_support::http::{Era, HttpMcp, HttpServer, Reply};
use server_support::{demo_store, is_error, snapshot};

const ISSUER: &str = "https://auth.example";
const AUDIENCE: &str = "https://m1nd.example/mcp";

/// A throwaway signing key and its JWK.
struct SigningKey {
    pkcs8: Vec<u8>,
    jwk: Value,
}

fn signing_key(kid: &str) -> SigningKey {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).expect("an Ed25519 key");
    let x = URL_SAFE_NO_PAD.encode(pair.public_key_raw());
    SigningKey {
        pkcs8: pair.serialize_der(),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": "EdDSA", "use": "sig"}),
    }
}

fn now() -> i64 {
    i64::try_from(SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs()).expect("seconds")
}

/// A token signed by `key` as `kid`, with `claims` over the good defaults.
fn mint(key: &SigningKey, kid: &str, claims: Value) -> String {
    let mut all = json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now() + 300, "iat": now()});
    for (name, value) in claims.as_object().expect("claims") {
        all[name] = value.clone();
    }
    let header = Header { kid: Some(kid.to_owned()), ..Header::new(Algorithm::EdDSA) };
    encode(&header, &all, &EncodingKey::from_ed_der(&key.pkcs8)).expect("a token")
}

/// Rewrite a file the server watches, past the file system clock's tick, so
/// the server can tell it changed even when it keeps its length.
fn rewrite(path: &Path, text: &str) {
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(path, text).expect("rewrite");
}

fn bearer(mcp: &mut HttpMcp, token: &str) {
    mcp.extra = vec![("Authorization".to_owned(), format!("Bearer {token}"))];
}

fn cockpit(mcp: &mut HttpMcp) -> Reply {
    let id = mcp.id();
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "cockpit", "arguments": {}}}),
    )
}

/// The refusal: 401, its challenge, and its text.
fn refused(reply: &Reply) -> (String, String) {
    assert_eq!(reply.status, 401, "{}", reply.text());
    let challenge = reply.header("www-authenticate").expect("a challenge").to_owned();
    assert!(
        challenge.contains(r#"resource_metadata="https://m1nd.example/.well-known/oauth-protected-resource/mcp""#),
        "{challenge}"
    );
    (challenge, reply.text())
}

fn start(dir: &Path, store: &Path) -> (HttpMcp, SigningKey) {
    let key = signing_key("k1");
    std::fs::write(dir.join("jwks.json"), json!({"keys": [key.jwk]}).to_string()).expect("jwks");
    std::fs::write(dir.join("revoked"), "# none yet\n").expect("revoked");
    let (jwks, revoked, audit) = (dir.join("jwks.json"), dir.join("revoked"), dir.join("audit.jsonl"));
    let args = [
        "--jwks",
        jwks.to_str().expect("utf-8"),
        "--token-issuer",
        ISSUER,
        "--token-audience",
        AUDIENCE,
        "--revoked-agents",
        revoked.to_str().expect("utf-8"),
        "--audit",
        audit.to_str().expect("utf-8"),
    ];
    // The client's first request (discovery) carries a good token too.
    let alice = vec![("Authorization".to_owned(), format!("Bearer {}", mint(&key, "k1", json!({}))))];
    (HttpMcp::over(HttpServer::start(store, &args, &[]), Era::Stateless, alice), key)
}

#[test]
fn a_good_token_names_its_agent_and_every_bad_one_is_refused_with_the_challenge() {
    let (dir, store) = demo_store("identity");
    let (mut mcp, key) = start(dir.path(), &store);

    bearer(&mut mcp, &mint(&key, "k1", json!({})));
    let reply = cockpit(&mut mcp);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).expect("the audit trail");
    assert!(audit.lines().any(|l| l.contains(r#""session":"agent:alice/http""#)), "{audit}");

    mcp.extra.clear();
    let (challenge, _) = refused(&cockpit(&mut mcp));
    assert!(!challenge.contains("error="), "no token is no error, only the challenge: {challenge}");

    let other = signing_key("k1");
    let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let claims =
        URL_SAFE_NO_PAD.encode(json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now() + 300}).to_string());
    for (what, token, says) in [
        ("expired", mint(&key, "k1", json!({"exp": now() - 600})), "expired"),
        ("not yet valid", mint(&key, "k1", json!({"nbf": now() + 600})), "not valid yet"),
        ("another audience", mint(&key, "k1", json!({"aud": "https://elsewhere.example/mcp"})), "another audience"),
        ("another issuer", mint(&key, "k1", json!({"iss": "https://evil.example"})), "another issuer"),
        ("another key", mint(&other, "k1", json!({})), "signature"),
        ("an unknown kid", mint(&key, "k9", json!({})), "signature"),
        ("alg none", format!("{none_header}.{claims}."), "not a JWT this server accepts"),
        ("a sub with markup", mint(&key, "k1", json!({"sub": "<b>alice</b>"})), "sub must name the agent"),
        ("no sub", mint(&key, "k1", json!({"sub": null})), "not a JWT this server accepts"),
    ] {
        bearer(&mut mcp, &token);
        let (challenge, text) = refused(&cockpit(&mut mcp));
        assert!(challenge.contains(r#"error="invalid_token""#), "{what}: {challenge}");
        assert!(text.contains(says), "{what}: {text}");
    }

    // A refused write changes nothing.
    let before = snapshot(&store);
    bearer(&mut mcp, &mint(&key, "k1", json!({"exp": now() - 600})));
    let id = mcp.id();
    let reply = mcp.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "memorize", "arguments": {"node_label": "t", "claims": [{"label": "refused"}]}}}));
    assert_eq!(reply.status, 401);
    assert_eq!(snapshot(&store), before, "a refused write changed the store");

    // The metrics name the agent, and count refusals by a fixed word, never the token's text.
    let good = format!("Bearer {}", mint(&key, "k1", json!({})));
    let metrics = mcp.server.get(&mcp.server.host(), "/metrics", &[("Authorization", &good)]).text();
    assert!(metrics.contains(r#"m1nd_agent_requests_total{agent="alice"}"#), "{metrics}");
    assert!(metrics.contains(r#"m1nd_token_refusals_total{reason="expired"} 2"#), "{metrics}");
    assert!(!metrics.contains("<b>"), "{metrics}");
}

#[test]
fn one_agent_is_revoked_by_a_line_and_the_others_go_on() {
    let (dir, store) = demo_store("identity-revoked");
    let (mut mcp, key) = start(dir.path(), &store);
    let (alice, bob) = (mint(&key, "k1", json!({"sub": "alice"})), mint(&key, "k1", json!({"sub": "bob"})));
    for token in [&alice, &bob] {
        bearer(&mut mcp, token);
        assert!(!is_error(&mcp.call("cockpit", json!({}))));
    }
    rewrite(&dir.path().join("revoked"), "bob   # left the team\n");
    bearer(&mut mcp, &bob);
    let (_, text) = refused(&cockpit(&mut mcp));
    assert!(text.contains("revoked"), "{text}");
    bearer(&mut mcp, &alice);
    assert_eq!(cockpit(&mut mcp).status, 200);
}

#[test]
fn a_rotated_key_set_is_taken_without_a_restart() {
    let (dir, store) = demo_store("identity-rotated");
    let (mut mcp, old) = start(dir.path(), &store);
    // A token admitted (and so remembered) under the old key set ...
    let under_old = mint(&old, "k1", json!({}));
    bearer(&mut mcp, &under_old);
    assert_eq!(cockpit(&mut mcp).status, 200);
    let new = signing_key("k2");
    bearer(&mut mcp, &mint(&new, "k2", json!({})));
    refused(&cockpit(&mut mcp));
    rewrite(&dir.path().join("jwks.json"), &json!({"keys": [new.jwk]}).to_string());
    assert_eq!(cockpit(&mut mcp).status, 200, "the new key is taken");
    // ... is refused once that key is gone.
    bearer(&mut mcp, &under_old);
    refused(&cockpit(&mut mcp));
    // A key set that breaks keeps the last good one.
    rewrite(&dir.path().join("jwks.json"), "{ half a file");
    bearer(&mut mcp, &mint(&new, "k2", json!({})));
    assert_eq!(cockpit(&mut mcp).status, 200, "the last good key set serves");
}

#[test]
fn the_protected_resource_metadata_names_the_resource_and_its_issuer() {
    let (dir, store) = demo_store("identity-metadata");
    let (mcp, _) = start(dir.path(), &store);
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let reply = mcp.server.get(&mcp.server.host(), path, &[]);
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let metadata: Value = serde_json::from_slice(&reply.body).expect("JSON");
        assert_eq!(metadata["resource"], AUDIENCE, "{metadata}");
        assert_eq!(metadata["authorization_servers"], json!([ISSUER]), "{metadata}");
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]), "{metadata}");
    }
}

#[test]
fn a_jwks_that_cannot_serve_stops_the_server_with_the_reason() {
    let dir = server_support::temp_dir("identity-bad-jwks");
    let (_store_dir, store) = demo_store("identity-bad-jwks-store");
    for (jwks, says) in [
        ("not json", "not a JWKS"),
        (r#"{"keys": []}"#, "holds no key"),
        (r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#, "shared secret"),
    ] {
        let path = dir.path().join("jwks.json");
        std::fs::write(&path, jwks).expect("jwks");
        let out = std::process::Command::new(server_support::BIN)
            .args(["serve", "--store"])
            .arg(&store)
            .args(["--http", "127.0.0.1:0", "--jwks"])
            .arg(&path)
            .args(["--token-issuer", ISSUER, "--token-audience", AUDIENCE])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{jwks}: {stderr}");
    }
}

/// A JWKS published at `http://127.0.0.1:PORT/jwks.json`, as an
/// authorization server's `jwks_uri`: what it serves can change, and it
/// counts the fetches.
struct Publisher {
    url: String,
    serves: std::sync::Arc<std::sync::Mutex<String>>,
    fetches: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Publisher {
    fn start(jwks: &Value) -> Publisher {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/jwks.json", listener.local_addr().expect("addr"));
        let serves = std::sync::Arc::new(std::sync::Mutex::new(jwks.to_string()));
        let fetches = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (body, count) = (serves.clone(), fetches.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let body = body.lock().expect("body").clone();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: \
                     close\r\n\r\n{body}",
                    body.len()
                );
                let _ = reader.get_mut().write_all(reply.as_bytes());
            }
        });
        Publisher { url, serves, fetches }
    }

    fn fetches(&self) -> usize {
        self.fetches.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn a_jwks_url_is_fetched_at_start_and_again_for_a_new_key_at_most_so_often() {
    let (_dir, store) = demo_store("identity-url");
    let (old, new) = (signing_key("k1"), signing_key("k2"));
    let publisher = Publisher::start(&json!({"keys": [old.jwk]}));
    let args = ["--jwks", &publisher.url, "--token-issuer", ISSUER, "--token-audience", AUDIENCE];
    let alice = vec![("Authorization".to_owned(), format!("Bearer {}", mint(&old, "k1", json!({}))))];
    let mut mcp = HttpMcp::over(HttpServer::start(&store, &args, &[]), Era::Stateless, alice);
    assert_eq!(cockpit(&mut mcp).status, 200, "a key of the fetched set");
    assert_eq!(publisher.fetches(), 1, "fetched once, at start");

    // The authorization server rotates to k2: a k2 token makes the server fetch again, and is taken.
    *publisher.serves.lock().expect("body") = json!({"keys": [new.jwk]}).to_string();
    bearer(&mut mcp, &mint(&new, "k2", json!({})));
    assert_eq!(cockpit(&mut mcp).status, 200, "the new key, fetched for the token that named it");
    assert_eq!(publisher.fetches(), 2);
    bearer(&mut mcp, &mint(&old, "k1", json!({})));
    refused(&cockpit(&mut mcp));

    // Tokens from a key nobody publishes do not make it fetch again and again.
    let stranger = signing_key("k3");
    for _ in 0..10 {
        bearer(&mut mcp, &mint(&stranger, "k3", json!({})));
        refused(&cockpit(&mut mcp));
    }
    assert_eq!(publisher.fetches(), 2, "junk tokens made it fetch again within 30 s");
}

#[test]
fn a_jwks_url_that_cannot_serve_stops_the_server_naming_it() {
    let (_dir, store) = demo_store("identity-bad-url");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/jwks.json", closed.local_addr().expect("addr"));
    drop(closed);
    let junk = Publisher::start(&json!({"not": "a key set"}));
    for (url, says) in [
        (closed_url.as_str(), "cannot fetch the JWKS http://127.0.0.1"),
        (junk.url.as_str(), "not a JWKS"),
        ("http://auth.example/jwks.json", "over https://"),
        ("ftp://auth.example/jwks.json", "is https://"),
    ] {
        let out = std::process::Command::new(server_support::BIN)
            .args(["serve", "--store"])
            .arg(&store)
            .args(["--http", "127.0.0.1:0", "--jwks", url, "--token-issuer", ISSUER, "--token-audience", AUDIENCE])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says) && stderr.contains(url), "{url}: {stderr}");
    }
}
