//! `m1nd gateway --upstream https://…` and `m1nd policy import` over HTTPS,
//! against an upstream on loopback whose certificates come from a
//! certificate authority this test makes and throws away.
//!
//! The upstream is `m1nd serve --http` with `M1ND_HTTP_TOKEN` set, so it
//! answers only a request carrying the upstream's bearer token, behind a TLS
//! front ([`tls_proxy`]) that records the plaintext it relays. That record
//! shows which credential reached the upstream; the gateway's stderr, at
//! the most verbose log level, shows that the token is never printed.

mod server_support;

#[path = "gateway_https/pki.rs"]
mod pki;
#[path = "gateway_https/tls_proxy.rs"]
mod tls_proxy;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pki::Authority;
use serde_json::json;
use server_support::http::{Era, HttpMcp, HttpServer, read_write};
use server_support::{BIN, Mcp, demo_store, is_error, temp_dir};
use tls_proxy::TlsProxy;

/// The upstream's token (what `M1ND_HTTP_TOKEN` demands of its callers).
const UPSTREAM_TOKEN: &str = "upstream-token-5b0e1f9c2d7a";
/// The variable the gateway reads it from.
const TOKEN_VAR: &str = "M1ND_TEST_UPSTREAM_TOKEN";
/// What a client sends to `m1nd gateway --http`; it must never go upstream.
const DOWNSTREAM_TOKEN: &str = "downstream-token-8c4a2e6f1b3d";

/// The plain-HTTP upstream, its CA, and a policy imported through HTTPS.
struct World {
    _dir: server_support::TempDir,
    dir: PathBuf,
    _store_dir: server_support::TempDir,
    upstream: HttpServer,
    ca: Authority,
    ca_file: PathBuf,
    policy: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let (store_dir, store) = demo_store(name);
        let upstream = HttpServer::try_start(&store, "127.0.0.1:0", &[], &[("M1ND_HTTP_TOKEN", UPSTREAM_TOKEN)])
            .unwrap_or_else(|e| panic!("m1nd serve --http: {e}"));
        let dir = temp_dir(name);
        let ca = Authority::new("m1nd test CA");
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, &ca.pem).expect("write ca.pem");
        let policy = dir.path().join("policy");
        World { dir: dir.path().to_owned(), _dir: dir, _store_dir: store_dir, upstream, ca, ca_file, policy }
    }

    /// A TLS front for the upstream with a good certificate for 127.0.0.1.
    fn good_front(&self) -> TlsProxy {
        TlsProxy::start(self.ca.issue(&["127.0.0.1"], false), self.upstream.addr)
    }

    /// `m1nd policy import` through `front`, the token read from a file.
    fn import(&self, front: &TlsProxy, ca: bool) -> Output {
        let token_file = self.dir.join("token");
        std::fs::write(&token_file, format!("{UPSTREAM_TOKEN}\n")).expect("write token");
        let mut command = Command::new(BIN);
        command.args(["policy", "import", "--policy"]).arg(&self.policy).args(["--upstream", &front.url()]);
        if ca {
            command.arg("--upstream-ca").arg(&self.ca_file);
        }
        command.arg("--upstream-bearer-file").arg(&token_file);
        run(command)
    }

    /// `m1nd gateway` (stdio) in front of `url`, with the token in its environment.
    fn gateway(&self, url: &str, extra: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command.args(["gateway", "--policy"]).arg(&self.policy).args(["--upstream", url]);
        command.arg("--upstream-ca").arg(&self.ca_file).args(["--upstream-bearer-env", TOKEN_VAR]).args(extra);
        command.env(TOKEN_VAR, UPSTREAM_TOKEN).env("M1ND_LOG", "trace").env_remove("M1ND_READ_ONLY");
        command
    }
}

/// Run `command` to its end (bounded), stdin closed, at the most verbose log level. Its output
/// is drained while it runs, so a trace log longer than a pipe's buffer cannot stall it.
fn run(mut command: Command) -> Output {
    command.env("M1ND_LOG", "trace").env_remove("M1ND_READ_ONLY");
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{command:?} did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: stdout.join().expect("stdout"), stderr: stderr.join().expect("stderr") }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Neither token appears anywhere in what a process printed.
fn assert_no_token(what: &str, printed: &str) {
    for token in [UPSTREAM_TOKEN, DOWNSTREAM_TOKEN] {
        assert!(!printed.contains(token), "{what} printed a token:\n{printed}");
    }
}

/// Every request that reached the upstream carried the upstream's bearer
/// token, and none carried the downstream client's.
fn assert_only_the_upstream_token(seen: &str) {
    let requests = seen.matches(" HTTP/1.1\r\n").count();
    assert!(requests > 0, "nothing reached the upstream");
    let lower = seen.to_ascii_lowercase();
    let bearer = format!("\r\nauthorization: bearer {}\r\n", UPSTREAM_TOKEN.to_ascii_lowercase());
    assert_eq!(lower.matches(&bearer).count(), requests, "a request without the upstream token:\n{seen}");
    assert_eq!(lower.matches("\r\nauthorization:").count(), requests, "a second Authorization header:\n{seen}");
    assert!(!seen.contains(DOWNSTREAM_TOKEN), "the downstream token reached the upstream:\n{seen}");
}

#[test]
fn a_good_certificate_from_the_extra_ca_serves_tools_and_only_the_upstream_token_goes_upstream() {
    let world = World::new("gateway-https-good");
    let front = world.good_front();

    // Import over HTTPS, the token from a file.
    let imported = world.import(&front, true);
    assert!(imported.status.success(), "policy import over HTTPS failed:\n{}", stderr(&imported));
    assert_no_token("policy import", &format!("{}{}", stderr(&imported), String::from_utf8_lossy(&imported.stdout)));
    assert!(world.policy.join("tools.toml").is_file());
    // An import is read-only and proposes every tool denied; a reviewer opens this one for writes,
    // so that its tools are listed and callable.
    read_write(&world.policy);

    // The stdio gateway: list and call through HTTPS; stderr (at trace) kept in a file.
    let log = world.dir.join("gateway-stdio.log");
    let mut command = Command::new("sh");
    command.arg("-c").arg("exec \"$0\" \"$@\" 2>\"$M1ND_TEST_STDERR\"").arg(BIN);
    command.args(world.gateway(&front.url(), &[]).get_args());
    command.env(TOKEN_VAR, UPSTREAM_TOKEN).env("M1ND_LOG", "trace").env("M1ND_TEST_STDERR", &log);
    let mut mcp = Mcp::spawn(command);
    let tools = mcp.tools();
    assert!(tools.iter().any(|t| t["name"] == "north"), "tools/list through HTTPS: {tools:?}");
    let answer = mcp.call("north", json!({"task": "t"}));
    assert!(!is_error(&answer), "north through HTTPS: {answer}");
    assert_no_token("the gateway's answers", &format!("{tools:?} {answer} {}", mcp.init));
    assert_eq!(mcp.finish(), Some(0));
    let printed = std::fs::read_to_string(&log).expect("gateway stderr");
    assert!(!printed.is_empty(), "the trace log is empty; the check below would prove nothing");
    assert_no_token("m1nd gateway (stdio)", &printed);

    // The HTTP gateway, whose own client sends its own bearer token.
    let mut command = world.gateway(&front.url(), &["--http", "127.0.0.1:0"]);
    command.env("M1ND_HTTP_TOKEN", DOWNSTREAM_TOKEN);
    let server = HttpServer::spawn(command).unwrap_or_else(|e| panic!("m1nd gateway --http: {e}"));
    let extra = vec![("Authorization".to_owned(), format!("Bearer {DOWNSTREAM_TOKEN}"))];
    let mut client = HttpMcp::over(server, Era::Session, extra);
    let tools = client.tools();
    assert!(tools.iter().any(|t| t["name"] == "north"));
    let answer = client.call("north", json!({"task": "t"}));
    assert!(!is_error(&answer), "north through gateway --http and HTTPS: {answer}");
    assert!(!format!("{tools:?} {answer}").contains(UPSTREAM_TOKEN), "the upstream token went downstream");

    assert_only_the_upstream_token(&front.seen_text());
}

/// The gateway and import refuse `front` at start, naming the upstream, the
/// TLS reason and the remedy; nothing was sent in plaintext, and the token
/// is printed nowhere.
fn assert_refused(world: &World, front: &TlsProxy, reason: &str, remedy: &str) {
    let output = run(world.gateway(&front.url(), &[]));
    let printed = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "the gateway started against a bad certificate:\n{printed}");
    for expected in [front.url().as_str(), "at the TLS handshake", reason, remedy] {
        assert!(printed.contains(expected), "{expected:?} missing from:\n{printed}");
    }
    assert_no_token("m1nd gateway", &printed);
    assert!(front.seen.lock().expect("record").is_empty(), "bytes reached the upstream: {}", front.seen_text());
}

#[test]
fn an_unknown_ca_an_expired_certificate_and_a_wrong_name_are_each_refused_at_start() {
    let world = World::new("gateway-https-bad");
    let front = world.good_front();
    let imported = world.import(&front, true);
    assert!(imported.status.success(), "policy import over HTTPS failed:\n{}", stderr(&imported));

    let stranger = Authority::new("a CA nobody trusts");
    let unknown = TlsProxy::start(stranger.issue(&["127.0.0.1"], false), world.upstream.addr);
    assert_refused(&world, &unknown, "a certificate authority this machine does not trust", "--upstream-ca FILE");

    let expired = TlsProxy::start(world.ca.issue(&["127.0.0.1"], true), world.upstream.addr);
    assert_refused(&world, &expired, "its certificate has expired", "must be renewed");

    let wrong_name = TlsProxy::start(world.ca.issue(&["upstream.invalid"], false), world.upstream.addr);
    assert_refused(&world, &wrong_name, "not valid for the host name", "a name its certificate lists");

    // A good certificate, a wrong token: the upstream's 401, named with where the token came from.
    let wrong = "wrong-token-0d9e8f7a6b5c";
    let mut command = world.gateway(&front.url(), &[]);
    command.env(TOKEN_VAR, wrong);
    let output = run(command);
    let printed = stderr(&output);
    assert!(!output.status.success(), "{printed}");
    assert!(printed.contains(&format!("refused the credential from the variable {TOKEN_VAR}")), "{printed}");
    assert!(!printed.contains(wrong), "the wrong token was printed:\n{printed}");

    // Import without --upstream-ca: the machine's roots do not know the test CA.
    let fresh = TlsProxy::start(world.ca.issue(&["127.0.0.1"], false), world.upstream.addr);
    let output = world.import(&fresh, false);
    let printed = stderr(&output);
    assert!(!output.status.success(), "import trusted a private CA without --upstream-ca:\n{printed}");
    assert!(printed.contains("does not trust") && printed.contains("--upstream-ca"), "{printed}");
    assert_no_token("m1nd policy import", &printed);
    assert!(fresh.seen.lock().expect("record").is_empty());
}

#[test]
fn a_credential_is_never_sent_over_cleartext_http_beyond_loopback() {
    let world = World::new("gateway-https-cleartext");
    let front = world.good_front();
    let imported = world.import(&front, true);
    assert!(imported.status.success(), "policy import over HTTPS failed:\n{}", stderr(&imported));
    // Refused before any connection is tried: the host does not even resolve.
    let output = run(world.gateway("http://upstream.invalid/mcp", &[]));
    let printed = stderr(&output);
    assert!(!output.status.success());
    assert!(printed.contains("over cleartext http://") && printed.contains("use https://"), "{printed}");
    assert_no_token("m1nd gateway", &printed);
}

#[test]
fn a_missing_credential_variable_is_named_and_a_credential_needs_an_upstream_url() {
    let dir = temp_dir("gateway-https-missing");
    let policy: &Path = dir.path();
    let mut command = Command::new(BIN);
    command
        .args(["policy", "import", "--policy"])
        .arg(policy.join("p"))
        .args(["--upstream", "https://127.0.0.1:9/mcp"]);
    command.args(["--upstream-bearer-env", "M1ND_TEST_SURELY_UNSET_TOKEN"]).env_remove("M1ND_TEST_SURELY_UNSET_TOKEN");
    let output = run(command);
    let printed = stderr(&output);
    assert!(!output.status.success());
    assert!(printed.contains("M1ND_TEST_SURELY_UNSET_TOKEN is not set"), "{printed}");
    // A credential flag needs an --upstream URL: it means nothing for a command.
    let mut command = Command::new(BIN);
    command.args(["gateway", "--policy"]).arg(policy).args(["--upstream-bearer-env", TOKEN_VAR, "--", "true"]);
    let output = run(command);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--upstream-bearer-env <NAME>' cannot be used with"), "{}", stderr(&output));
}

#[test]
fn a_machine_without_a_ca_bundle_still_reaches_http_and_a_private_ca_and_says_what_is_missing() {
    let world = World::new("gateway-https-no-bundle");
    let empty_file = world.dir.join("empty-bundle.pem");
    std::fs::write(&empty_file, "").expect("write");
    let empty_dir = world.dir.join("empty-certs");
    std::fs::create_dir(&empty_dir).expect("mkdir");
    let token_file = world.dir.join("token");
    std::fs::write(&token_file, UPSTREAM_TOKEN).expect("write token");
    // rustls-native-certs reads only these when they are set: a machine with no CA bundle.
    let import = |url: &str, ca: bool, policy: &str| {
        let mut command = Command::new(BIN);
        command.args(["policy", "import", "--policy"]).arg(world.dir.join(policy)).args(["--upstream", url]);
        if ca {
            command.arg("--upstream-ca").arg(&world.ca_file);
        }
        command.arg("--upstream-bearer-file").arg(&token_file);
        command.env("SSL_CERT_FILE", &empty_file).env("SSL_CERT_DIR", &empty_dir);
        run(command)
    };
    let plain = import(&format!("http://{}/mcp", world.upstream.addr), false, "plain");
    assert!(plain.status.success(), "http:// on loopback needs no CA bundle:\n{}", stderr(&plain));
    let front = world.good_front();
    let private = import(&front.url(), true, "private");
    assert!(private.status.success(), "--upstream-ca is enough without a bundle:\n{}", stderr(&private));
    let public = import(&front.url(), false, "public");
    let printed = stderr(&public);
    assert_eq!(public.status.code(), Some(2), "{printed}");
    assert!(printed.contains("No CA certificates were loaded") && printed.contains("ca-certificates"), "{printed}");
    assert_no_token("m1nd policy import", &printed);
}

#[test]
fn a_cleartext_credential_bypasses_an_http_proxy() {
    use std::io::Read;
    let world = World::new("gateway-https-proxy");
    // A "proxy" that records whatever is sent to it.
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let proxy_addr = proxy.local_addr().expect("addr");
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    std::thread::spawn({
        let heard = std::sync::Arc::clone(&heard);
        move || {
            for stream in proxy.incoming().take(8) {
                let Ok(mut stream) = stream else { break };
                let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 4096];
                if let Ok(n) = stream.read(&mut buf) {
                    heard.lock().expect("heard").extend_from_slice(&buf[..n]);
                }
            }
        }
    });
    let token_file = world.dir.join("token");
    std::fs::write(&token_file, UPSTREAM_TOKEN).expect("write token");
    let mut command = Command::new(BIN);
    command.args(["policy", "import", "--policy"]).arg(&world.policy);
    command.args(["--upstream", &format!("http://{}/mcp", world.upstream.addr)]);
    command.arg("--upstream-bearer-file").arg(&token_file);
    let proxy_url = format!("http://{proxy_addr}");
    for name in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        command.env(name, &proxy_url);
    }
    command.env_remove("NO_PROXY").env_remove("no_proxy");
    let output = run(command);
    assert!(output.status.success(), "{}", stderr(&output));
    let heard = String::from_utf8_lossy(&heard.lock().expect("heard")).into_owned();
    assert!(!heard.contains(UPSTREAM_TOKEN) && heard.is_empty(), "the proxy heard: {heard}");
}
