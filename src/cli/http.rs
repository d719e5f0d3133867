//! `--http` and its limits: the Streamable HTTP flags `m1nd serve` and
//! `m1nd gateway` share, read into the transport's [`HttpOptions`].

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use super::Failure;
use super::flags::{at_least_one, positive_seconds};
use m1nd::transport::http::identity::Identity;
use m1nd::transport::http::sessions::{self, SessionLimits};
use m1nd::transport::http::{self, HttpOptions, security, slots};

/// Serving over Streamable HTTP instead of stdio (`serve` and `gateway`).
#[derive(Debug, Args)]
pub struct HttpArgs {
    /// Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio
    /// (see `http_help`).
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = http::DEFAULT_ADDR,
        value_parser = parse_addr,
        help = http_help()
    )]
    http: Option<SocketAddr>,
    /// A browser origin admitted on /mcp, as scheme://host:port (repeatable;
    /// none by default, so a page's request gets 403).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// A Host name admitted besides localhost, 127.0.0.1 and ::1 (repeatable).
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// Seconds a request may take to be answered once it has arrived.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = http::DEFAULT_REQUEST_TIMEOUT.as_secs_f64())]
    request_timeout: f64,
    /// Seconds a client may take to send a request's head, and again its body.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = slots::DEFAULT_ARRIVAL_TIMEOUT.as_secs_f64())]
    arrival_timeout: f64,
    /// Requests served at once (counted from when a request has wholly arrived); past it, 503.
    #[arg(long, value_name = "N", requires = "http", default_value_t = slots::DEFAULT_MAX_REQUESTS)]
    max_requests: usize,
    /// Connections open at once, whatever they are doing; past it, 503.
    #[arg(long, value_name = "N", requires = "http", default_value_t = slots::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    #[command(flatten)]
    sessions: SessionArgs,
    #[command(flatten)]
    identity: IdentityArgs,
}

/// Per-agent access tokens instead of one shared token (`--http` only).
#[derive(Debug, Args)]
pub struct IdentityArgs {
    /// Accept a JWT access token per agent, signed by a key of this JWKS (an
    /// OAuth authorization server's public keys: a file, or its https:// jwks_uri);
    /// its `sub` names the agent.
    #[arg(long, value_name = "FILE|URL", requires_all = ["http", "token_issuer", "token_audience"])]
    jwks: Option<PathBuf>,
    /// The `iss` every access token must carry (the authorization server).
    #[arg(long, value_name = "ISSUER", requires = "jwks")]
    token_issuer: Option<String>,
    /// The `aud` every access token must carry: this server's URL as clients
    /// reach it, e.g. https://m1nd.example/mcp.
    #[arg(long, value_name = "URL", requires = "jwks")]
    token_audience: Option<String>,
    /// A file of revoked agents (one `sub` a line), read again when it changes.
    #[arg(long, value_name = "FILE", requires = "jwks")]
    revoked_agents: Option<PathBuf>,
}

impl IdentityArgs {
    fn identity(self) -> Result<Option<Arc<Identity>>, Failure> {
        let (Some(jwks), Some(issuer), Some(audience)) = (self.jwks, self.token_issuer, self.token_audience) else {
            return Ok(None);
        };
        let identity =
            Identity::load(&jwks, issuer, audience, self.revoked_agents).map_err(|e| Failure::usage(e.to_string()))?;
        Ok(Some(Arc::new(identity)))
    }
}

/// How many MCP sessions `--http` holds, and for how long unused.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// MCP sessions (clients that sent `initialize`) held at once; past it an
    /// `initialize` gets 503 (2026-07-28 clients need no session).
    #[arg(long = sessions::MAX_SESSIONS_FLAG, value_name = "N", requires = "http", default_value_t = sessions::DEFAULT_MAX_SESSIONS)]
    max_sessions: usize,
    /// Seconds an MCP session may go unused before it is closed and its slot freed.
    #[arg(long = sessions::SESSION_IDLE_FLAG, value_name = "SECONDS", requires = "http", default_value_t = sessions::DEFAULT_SESSION_IDLE.as_secs_f64())]
    session_idle: f64,
}

impl SessionArgs {
    /// The limits, refused with the flag's name when they cannot be served.
    fn limits(&self) -> Result<SessionLimits, Failure> {
        let idle = positive_seconds(self.session_idle, &format!("--{}", sessions::SESSION_IDLE_FLAG))?;
        SessionLimits::new(self.max_sessions, idle).map_err(|e| Failure::usage(e.to_string()))
    }
}

/// `--http`'s help, naming the address it listens on when given none.
fn http_help() -> String {
    format!(
        "Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio [ADDR defaults to {}]. ADDR may \
         name a host (localhost:1338); a non-loopback ADDR also needs {}",
        http::DEFAULT_ADDR,
        security::TOKEN_ENV
    )
}

/// `--http ADDR`, host names resolved (`m1nd::transport::http::addr`).
fn parse_addr(written: &str) -> Result<SocketAddr, http::addr::AddrError> {
    http::addr::parse(written)
}

impl HttpArgs {
    /// The HTTP options, or `None` to serve on stdio.
    pub fn options(self) -> Result<Option<HttpOptions>, Failure> {
        let Some(addr) = self.http else { return Ok(None) };
        for origin in &self.allow_origin {
            security::check_origin(origin).map_err(|e| Failure::usage(e.to_string()))?;
        }
        let request_timeout = positive_seconds(self.request_timeout, "--request-timeout")?;
        let limits = slots::Limits {
            max_connections: at_least_one(self.max_connections, "--max-connections")?,
            max_requests: at_least_one(self.max_requests, "--max-requests")?,
            arrival_timeout: positive_seconds(self.arrival_timeout, "--arrival-timeout")?,
        };
        let sessions = self.sessions.limits()?;
        let token = security::Token::from_env(std::env::var_os(security::TOKEN_ENV))
            .map_err(|e| Failure::usage(e.to_string()))?;
        let identity = self.identity.identity()?;
        if token.is_some() && identity.is_some() {
            return Err(Failure::usage(format!(
                "{} and --jwks are two ways to check callers; give one (per-agent tokens with --jwks, or one \
                 shared token)",
                security::TOKEN_ENV
            )));
        }
        Ok(Some(HttpOptions {
            addr,
            allowed_origins: self.allow_origin,
            allowed_hosts: self.allow_host,
            token,
            identity,
            request_timeout,
            #[cfg(feature = "store")]
            session_lifetime: http::human::authority::DEFAULT_SESSION,
            limits,
            #[cfg(feature = "store")]
            event_streams: m1nd::transport::http::human::streams::StreamCaps::default(),
            sessions,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        http: HttpArgs,
    }

    fn http(args: &[&str]) -> Option<SocketAddr> {
        use clap::Parser;
        Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied())).expect("parses").http.http
    }

    #[test]
    fn caps_of_zero_are_refused_naming_their_flag() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["serve", "--http", "127.0.0.1:0"].iter().chain(args)).expect("parses").http
        };
        for flag in ["--max-requests", "--max-connections", "--arrival-timeout"] {
            let refused = parse(&[flag, "0"]).options().expect_err("refused");
            assert!(refused.message.contains(flag), "{}", refused.message);
        }
        let defaults = parse(&[]);
        assert_eq!(defaults.options().ok().flatten().map(|h| h.limits), Some(slots::Limits::default()));
    }

    #[test]
    fn http_listens_on_loopback_1338_unless_told() {
        assert_eq!(http(&[]), None, "stdio by default");
        assert_eq!(http(&["--http"]), Some("127.0.0.1:1338".parse().expect("addr")));
        assert_eq!(http(&["--http", "127.0.0.1:0"]), Some("127.0.0.1:0".parse().expect("addr")));
        let named = http(&["--http", "localhost:1338"]).expect("a host name is resolved");
        assert!(named.ip().is_loopback() && named.port() == 1338, "{named}");
        use clap::Parser;
        assert!(Cli::try_parse_from(["serve", "--allow-origin", "http://localhost:5173"]).is_err(), "needs --http");
    }

    #[test]
    fn session_flags_are_the_names_the_refusal_gives() {
        use clap::Parser;
        let parse = |args: &[&str]| Cli::try_parse_from(["serve", "--http"].iter().chain(args).copied());
        let max = format!("--{}", sessions::MAX_SESSIONS_FLAG);
        let idle = format!("--{}", sessions::SESSION_IDLE_FLAG);
        let limits = parse(&[&max, "3", &idle, "1.5"]).expect("parses").http.sessions.limits().expect("limits");
        assert_eq!((limits.max(), limits.idle()), (3, Duration::from_millis(1500)));
        let default = parse(&[]).expect("parses").http.sessions.limits().expect("limits");
        assert_eq!(default, SessionLimits::default());
        for bad in [[max.as_str(), "0"], [idle.as_str(), "0"], [idle.as_str(), "nan"]] {
            let refused = parse(&bad).expect("parses").http.sessions.limits().expect_err("refused");
            assert!(refused.message.contains(bad[0]), "{}", refused.message);
        }
        assert!(Cli::try_parse_from(["serve", &max, "3"]).is_err(), "needs --http");
    }
}
