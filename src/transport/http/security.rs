//! Who may talk to `/mcp`, decided before a request reaches MCP.
//!
//! - **Where it listens.** A loopback address needs nothing more. Any other
//!   address is refused at start-up unless `M1ND_HTTP_TOKEN` is set: a
//!   server others can reach must ask them for a secret.
//! - **The bearer token.** When a token is set, every request to `/mcp` must
//!   carry `Authorization: Bearer <token>`, compared in constant time;
//!   anything else gets 401 before rmcp sees the request.
//! - **`Host` and `Origin`** are rmcp's own checks, configured here: `Host`
//!   must be a loopback name (or one the operator adds, or the server's own
//!   `m1nd-<random>.localhost`, see [`super::human::instance`]), against DNS
//!   rebinding; a present `Origin` must be on the allow-list, which is empty
//!   by default, so no browser page may call `/mcp` unless the operator names
//!   its origin. Both answer 403.
//! - **No CORS.** Nothing here adds `Access-Control-Allow-*` headers, so a
//!   browser never lets a page read an answer, whatever the server did.

use std::ffi::OsString;
use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use super::HttpOptions;

/// The environment variable holding the bearer token.
pub const TOKEN_ENV: &str = "M1ND_HTTP_TOKEN";

/// The shortest token accepted: a guessable secret protects nothing.
pub const MIN_TOKEN_BYTES: usize = 16;

/// The authorization scheme the token travels in, with its separating space.
const BEARER: &[u8] = b"Bearer ";

/// The `Host` names always admitted (any port): the loopback names.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A setting of the HTTP transport that would leave it less protected than
/// meant; the server does not start with one.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    #[error("{TOKEN_ENV} is not valid UTF-8")]
    TokenNotText,
    #[error("{TOKEN_ENV} must be at least {MIN_TOKEN_BYTES} bytes long (it has {bytes})")]
    TokenTooShort { bytes: usize },
    #[error("{TOKEN_ENV} may hold only visible ASCII characters (no spaces or control characters)")]
    TokenNotVisible,
    #[error(
        "refusing to listen on {addr}: it is not a loopback address, so other machines could call the server; \
         listen on 127.0.0.1, set {TOKEN_ENV} to a secret of at least {MIN_TOKEN_BYTES} bytes that every client \
         sends as `Authorization: Bearer <token>`, or give each agent its own access token (--jwks, \
         --token-issuer, --token-audience)"
    )]
    Exposed { addr: SocketAddr },
    #[error(
        "--allow-origin {origin:?} is not an origin; write scheme://host:port (or :* for any port), e.g. http://localhost:5173"
    )]
    NotAnOrigin { origin: String },
}

/// The bearer token every request must carry.
#[derive(Clone)]
pub struct Token(Box<[u8]>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// Read the token from the environment's value. Unset means no token; a
    /// set but empty, short or non-text value stops the server rather than
    /// run with a weaker secret than the operator meant.
    pub fn from_env(value: Option<OsString>) -> Result<Option<Token>, SecurityError> {
        let Some(value) = value else { return Ok(None) };
        let Some(text) = value.to_str() else {
            return Err(SecurityError::TokenNotText);
        };
        if text.len() < MIN_TOKEN_BYTES {
            return Err(SecurityError::TokenTooShort { bytes: text.len() });
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(SecurityError::TokenNotVisible);
        }
        Ok(Some(Token(text.as_bytes().into())))
    }

    /// Whether an `Authorization` header carries this token.
    fn admits(&self, authorization: Option<&HeaderValue>) -> bool {
        // The scheme is case-insensitive (RFC 9110); the token is not.
        let presented = authorization
            .map(HeaderValue::as_bytes)
            .and_then(|value| value.split_at_checked(BEARER.len()))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(BEARER))
            .map(|(_, token)| token.trim_ascii())
            .unwrap_or_default();
        constant_time_eq::constant_time_eq(presented, &self.0)
    }
}

/// Refuse a bind that others could reach when no token guards it.
pub fn check_exposure(addr: SocketAddr, guarded: bool) -> Result<(), SecurityError> {
    if addr.ip().is_loopback() || guarded {
        return Ok(());
    }
    Err(SecurityError::Exposed { addr })
}

/// Check an `--allow-origin` value: `null`, or `scheme://host:port` (`:*` for any port).
pub fn check_origin(origin: &str) -> Result<(), SecurityError> {
    if origin == "null" {
        return Ok(());
    }
    let base = origin.strip_suffix(":*").unwrap_or(origin);
    let uri: axum::http::Uri = base.parse().map_err(|_| bad_origin(origin))?;
    let well_formed = uri.scheme().is_some()
        && uri.authority().is_some()
        && uri.path_and_query().is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/")
        // A port-less entry would match every port, which rmcp is phasing out.
        && (base.len() < origin.len() || uri.port().is_some());
    if !well_formed {
        return Err(bad_origin(origin));
    }
    Ok(())
}

fn bad_origin(origin: &str) -> SecurityError {
    SecurityError::NotAnOrigin { origin: origin.chars().take(64).collect() }
}

/// rmcp's service settings: the allow-lists, the body cap, both protocol eras.
pub fn rmcp_config(http: &HttpOptions) -> StreamableHttpServerConfig {
    let hosts = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).chain(http.allowed_hosts.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(http.allowed_origins.iter().cloned())
        .enforce_origin_validation()
        .with_max_request_body_bytes(super::MAX_BODY_BYTES)
        // Clients that `initialize` get a session; 2026-07-28 clients are
        // always served statelessly by rmcp, whatever this says.
        .with_legacy_session_mode(true)
        .with_json_response(true)
}

/// The `Host` name without its port, lower-cased: what the allow-lists
/// compare (the tray's pages and `/health`; rmcp compares `/mcp`'s itself).
pub fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(n, _)| n)
    } else {
        host.rsplit_once(':').map_or(host, |(n, _)| n)
    };
    name.to_ascii_lowercase()
}

/// `routes` behind the server's bearer check: the shared token, or a
/// per-agent access token (`identity`), whichever the server was given.
pub fn guarded(routes: axum::Router, http: &super::HttpOptions) -> axum::Router {
    match (&http.token, &http.identity) {
        (Some(token), _) => routes.layer(axum::middleware::from_fn_with_state(token.clone(), require_token)),
        (None, Some(identity)) => {
            routes.layer(axum::middleware::from_fn_with_state(std::sync::Arc::clone(identity), require_identity))
        }
        (None, None) => routes,
    }
}

/// Middleware: 401 with the challenge unless the request carries an access
/// token `identity` accepts; the agent it names goes with the request,
/// once it is that agent's turn (429 when too many of its requests wait).
pub async fn require_identity(
    State(identity): State<std::sync::Arc<super::identity::Identity>>,
    mut request: Request,
    next: Next,
) -> Response {
    let authorization = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    match identity.verify(authorization).await {
        Ok(agent) => match identity.turn(&agent).await {
            Ok(turn) => {
                request.extensions_mut().insert(agent);
                let response = next.run(request).await;
                drop(turn);
                response
            }
            Err(busy) => {
                (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, "1")], busy.to_string()).into_response()
            }
        },
        Err(refused) => {
            let challenge = identity.challenge(&refused);
            (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)], format!("Unauthorized: {refused}"))
                .into_response()
        }
    }
}

/// Middleware: 401 unless the request carries the token.
pub async fn require_token(State(token): State<Token>, request: Request, next: Next) -> Response {
    if token.admits(request.headers().get(header::AUTHORIZATION)) {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str) -> Result<Option<Token>, String> {
        Token::from_env(Some(text.into())).map_err(|e| e.to_string())
    }

    #[test]
    fn hosts_lose_their_port_and_case() {
        assert_eq!(host_name("LOCALHOST:1338"), "localhost");
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn tokens_must_be_long_visible_text() {
        assert!(Token::from_env(None).expect("unset").is_none());
        assert!(token("").unwrap_err().contains("at least 16"));
        assert!(token("short").unwrap_err().contains("at least 16"));
        assert!(token("sixteen bytes!!!").unwrap_err().contains("visible ASCII"));
        assert!(token("0123456789abcdef").expect("ok").is_some());
    }

    #[test]
    fn the_token_is_matched_exactly() {
        let t = token("0123456789abcdef").expect("ok").expect("set");
        let header = |v: &str| HeaderValue::from_str(v).expect("header");
        assert!(t.admits(Some(&header("Bearer 0123456789abcdef"))));
        assert!(t.admits(Some(&header("bearer 0123456789abcdef"))));
        assert!(!t.admits(Some(&header("Bearer 0123456789ABCDEF"))));
        assert!(!t.admits(Some(&header("Bearer"))));
        assert!(!t.admits(Some(&header("Bearer 0123456789abcde"))));
        assert!(!t.admits(Some(&header("Bearer 0123456789abcdefg"))));
        assert!(!t.admits(Some(&header("Basic 0123456789abcdef"))));
        assert!(!t.admits(Some(&header("0123456789abcdef"))));
        assert!(!t.admits(None));
    }

    #[test]
    fn only_loopback_binds_go_without_a_token() {
        assert!(check_exposure("127.0.0.1:1338".parse().expect("addr"), false).is_ok());
        assert!(check_exposure("[::1]:1338".parse().expect("addr"), false).is_ok());
        for addr in ["0.0.0.0:1338", "192.168.1.9:1338", "[::]:1338"] {
            let addr = addr.parse().expect("addr");
            assert!(check_exposure(addr, false).unwrap_err().to_string().contains(TOKEN_ENV), "{addr}");
            assert!(check_exposure(addr, true).is_ok(), "{addr}");
        }
    }

    #[test]
    fn origins_are_checked_for_shape() {
        for ok in ["null", "http://localhost:5173", "https://app.example:443", "http://127.0.0.1:*"] {
            assert!(check_origin(ok).is_ok(), "{ok}");
        }
        for bad in ["localhost", "*", "http://", "http://a.example:80/path", "https://a.example", ""] {
            assert!(check_origin(bad).is_err(), "{bad}");
        }
    }
}
