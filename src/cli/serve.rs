//! `m1nd serve`: MCP over stdio, or over Streamable HTTP with `--http`.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use super::audit::AuditArgs;
use super::{Failure, StoreArg};
use m1nd::mcp::Server;
use m1nd::mcp::attestation::{self, PinError};
use m1nd::service::{Options, QueueCaps, Service};
use m1nd::store::{Location, Store};
use m1nd::transport::http::human::streams::StreamCaps;
use m1nd::transport::http::sessions::{self, SessionLimits};
use m1nd::transport::http::{self, HttpOptions, security, slots};
use m1nd::transport::stdio;

/// The environment variable that turns read-only on.
pub const READ_ONLY_ENV: &str = "M1ND_READ_ONLY";

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Refuse every verb that writes (also: M1ND_READ_ONLY=1 or true).
    #[arg(long)]
    read_only: bool,
    #[command(flatten)]
    store: StoreArg,
    /// Refuse to start unless the compiled-in policy has this digest (`m1nd policy digest`).
    #[arg(long, value_name = "HEX")]
    expect_digest: Option<String>,
    #[command(flatten)]
    audit: AuditArgs,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    load: LoadArgs,
    /// Seconds a tray session lasts after its login link is opened.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = http::human::authority::DEFAULT_SESSION.as_secs_f64())]
    tray_session: f64,
    /// Tray event streams (`/tray/events`) open at once; past it one more gets 503.
    #[arg(long, value_name = "N", requires = "http", default_value_t = http::human::streams::DEFAULT_MAX_EVENT_STREAMS)]
    max_event_streams: usize,
    /// Seconds a tray event stream lasts before the page reconnects.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = http::human::streams::DEFAULT_EVENT_STREAM_LIFETIME.as_secs_f64())]
    event_stream_lifetime: f64,
}

impl ServeArgs {
    /// The tray's event streams' cap and lifetime.
    fn event_streams(&self) -> Result<StreamCaps, Failure> {
        Ok(StreamCaps {
            max: at_least_one(self.max_event_streams, "--max-event-streams")?,
            lifetime: positive_seconds(self.event_stream_lifetime, "--event-stream-lifetime")?,
        })
    }
}

/// How much work the server takes on at once, and for how long.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Reader threads, each with a connection of its own (reads run in parallel).
    #[arg(long, value_name = "N", default_value_t = m1nd::service::default_readers())]
    readers: usize,
    /// Reads that may wait at once, from all clients together; past it a call is refused.
    #[arg(long, value_name = "N", default_value_t = QueueCaps::default().total)]
    max_queued: usize,
    /// Reads that one client (a stdio session, an HTTP connection) may have waiting.
    #[arg(long, value_name = "N", default_value_t = QueueCaps::default().per_lane)]
    max_queued_per_client: usize,
    /// Seconds a read may take, waiting included; past it, it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = m1nd::service::DEFAULT_CALL_BUDGET.as_secs_f64())]
    call_budget: f64,
}

impl LoadArgs {
    /// The service's options for `store`, read-only or not.
    fn options(&self, store: Location, read_only: bool) -> Result<Options, Failure> {
        for (flag, n) in [
            ("--readers", self.readers),
            ("--max-queued", self.max_queued),
            ("--max-queued-per-client", self.max_queued_per_client),
        ] {
            if n == 0 {
                return Err(Failure::usage(format!("{flag} must be at least 1")));
            }
        }
        Ok(Options {
            readers: self.readers,
            queue: QueueCaps { per_lane: self.max_queued_per_client, total: self.max_queued },
            call_budget: positive_seconds(self.call_budget, "--call-budget")?,
            ..Options::new(store).read_only(read_only)
        })
    }
}

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
        Ok(Some(HttpOptions {
            addr,
            allowed_origins: self.allow_origin,
            allowed_hosts: self.allow_host,
            token: security::Token::from_env(std::env::var_os(security::TOKEN_ENV))
                .map_err(|e| Failure::usage(e.to_string()))?,
            request_timeout,
            session_lifetime: http::human::authority::DEFAULT_SESSION,
            limits,
            event_streams: StreamCaps::default(),
            sessions,
        }))
    }
}

/// A flag's count, refused unless it is at least 1.
fn at_least_one(n: usize, flag: &str) -> Result<usize, Failure> {
    if n == 0 {
        return Err(Failure::usage(format!("{flag} must be at least 1")));
    }
    Ok(n)
}

/// A flag's number of seconds, refused unless it is finite and positive.
fn positive_seconds(seconds: f64, flag: &str) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| Failure::usage(format!("{flag} must be a positive number of seconds")))
}

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    if let Some(pin) = &args.expect_digest {
        attestation::check_pin(pin).map_err(|e| match e {
            PinError::Malformed(_) => Failure::usage(e.to_string()),
            PinError::Mismatch { .. } => Failure::refused(e.to_string()),
        })?;
    }
    let from_env = read_only_from_env(std::env::var_os(READ_ONLY_ENV))?;
    let event_streams = args.event_streams()?;
    let read_only = args.read_only || from_env;
    let at = args.store.location();
    check_store(at)?;
    let options = args.load.options(at.clone(), read_only)?;
    let http = args.http.options()?;
    // Opened last of the checks, so a refused start leaves no new file behind.
    let options = Options { audit: args.audit.open()?, ..options };
    let service = Service::start(options).map_err(|e| Failure::usage(e.to_string()))?;
    let served = match http {
        None => stdio::run(Server::new(service)),
        Some(mut http) => {
            http.session_lifetime = positive_seconds(args.tray_session, "--tray-session")?;
            http.event_streams = event_streams;
            http::run(service, http)
        }
    };
    served.map_err(|e| Failure::usage(e.to_string()))
}

/// A server starts only if its store opens now, before it answers a
/// client's `initialize`: a missing store, a path that is a file, a
/// directory this user may not read, an unreachable database, a wrong
/// password, a database without a store or with a newer one are refused at
/// start (exit 2), naming the path and what to run, not at the first call of
/// a client that started m1nd in a directory nobody chose.
/// A clock that disagrees with the database's is worth a warning, not a
/// refusal: writes record the database's time.
fn check_store(at: &Location) -> Result<(), Failure> {
    if let Location::Dir(dir) = at {
        super::check_store_dir(dir)?;
    }
    let store = Store::open_at(at).map_err(|e| Failure::usage(e.to_string()))?;
    if let Ok(Some(skew)) = store.clock_skew_millis()
        && let Some(warning) = clock_warning(skew)
    {
        eprintln!("m1nd: warning: {warning}");
    }
    Ok(())
}

/// How far apart the clocks may be before a replica says so.
const CLOCK_TOLERANCE_MILLIS: i64 = 2_000;

/// The warning for a clock `skew` milliseconds ahead of the database's.
fn clock_warning(skew: i64) -> Option<String> {
    if skew.abs() <= CLOCK_TOLERANCE_MILLIS {
        return None;
    }
    let (seconds, way) = (skew.unsigned_abs() / 1000, if skew > 0 { "ahead of" } else { "behind" });
    Some(format!(
        "this machine's clock is {seconds} s {way} the database's; writes record the database's time, so their \
         order holds, but this server's logs and timeouts use its own clock: set it right (NTP)"
    ))
}

/// `1`/`true`/`yes`/`on` turn read-only on and `0`/`false`/`no`/`off` or empty
/// leave it off (any case). Anything else stops the server rather than guess:
/// a misspelt value must not silently start a writable session.
pub fn read_only_from_env(value: Option<std::ffi::OsString>) -> Result<bool, Failure> {
    let Some(value) = value else { return Ok(false) };
    let text = value.to_string_lossy().trim().to_ascii_lowercase();
    match text.as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "" | "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(Failure::usage(format!(
            "{READ_ONLY_ENV}={:?} is not understood; use 1 or true for read-only, 0 or false for read-write",
            m1nd_policy::sanitize::display(&value.to_string_lossy(), m1nd_policy::sanitize::cap::VALUE)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_past_the_tolerance_is_named_with_its_direction() {
        assert_eq!(clock_warning(0), None);
        assert_eq!(clock_warning(-CLOCK_TOLERANCE_MILLIS), None);
        let behind = clock_warning(-400 * 86_400_000).expect("warned");
        assert!(behind.contains("34560000 s behind the database's"), "{behind}");
        assert!(clock_warning(2_001).expect("warned").contains("2 s ahead of"));
    }

    #[test]
    fn env_values() {
        let parse = |v: &str| read_only_from_env(Some(v.into())).map_err(|f| f.code);
        assert_eq!(read_only_from_env(None).map_err(|f| f.code), Ok(false));
        for on in ["1", "true", "TRUE", " True ", "yes", "on"] {
            assert_eq!(parse(on), Ok(true), "{on}");
        }
        for off in ["", "0", "false", "no", "off"] {
            assert_eq!(parse(off), Ok(false), "{off}");
        }
        assert_eq!(parse("ture"), Err(2));
    }

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn http(args: &[&str]) -> Option<SocketAddr> {
        use clap::Parser;
        Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied())).expect("parses").serve.http.http
    }

    #[test]
    fn caps_of_zero_are_refused_naming_their_flag() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["serve", "--http", "127.0.0.1:0"].iter().chain(args)).expect("parses").serve
        };
        for flag in ["--max-requests", "--max-connections", "--arrival-timeout"] {
            let refused = parse(&[flag, "0"]).http.options().expect_err("refused");
            assert!(refused.message.contains(flag), "{}", refused.message);
        }
        for flag in ["--max-event-streams", "--event-stream-lifetime"] {
            let refused = parse(&[flag, "0"]).event_streams().expect_err("refused");
            assert!(refused.message.contains(flag), "{}", refused.message);
        }
        let defaults = parse(&[]);
        assert_eq!(defaults.event_streams().ok(), Some(StreamCaps::default()));
        assert_eq!(defaults.http.options().ok().flatten().map(|h| h.limits), Some(slots::Limits::default()));
    }

    #[test]
    fn http_listens_on_loopback_1338_unless_told() {
        assert_eq!(http(&[]), None, "stdio by default");
        assert_eq!(http(&["--http"]), Some("127.0.0.1:1338".parse().expect("addr")));
        assert_eq!(http(&["--http", "127.0.0.1:0"]), Some("127.0.0.1:0".parse().expect("addr")));
        assert_eq!(http(&["--http", "--read-only"]), Some(http::DEFAULT_ADDR.parse().expect("addr")));
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
        let limits = parse(&[&max, "3", &idle, "1.5"]).expect("parses").serve.http.sessions.limits().expect("limits");
        assert_eq!((limits.max(), limits.idle()), (3, Duration::from_millis(1500)));
        let default = parse(&[]).expect("parses").serve.http.sessions.limits().expect("limits");
        assert_eq!(default, SessionLimits::default());
        for bad in [[max.as_str(), "0"], [idle.as_str(), "0"], [idle.as_str(), "nan"]] {
            let refused = parse(&bad).expect("parses").serve.http.sessions.limits().expect_err("refused");
            assert!(refused.message.contains(bad[0]), "{}", refused.message);
        }
        assert!(Cli::try_parse_from(["serve", &max, "3"]).is_err(), "needs --http");
    }
}
