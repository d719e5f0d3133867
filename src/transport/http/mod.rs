//! `m1nd serve --http`: the same server over MCP Streamable HTTP.
//!
//! # The invariant
//!
//! HTTP adds a way in, never a way around. Every MCP message that arrives
//! here is handed to rmcp's [`StreamableHttpService`], which calls the one
//! [`Server`] value this process built — the same type, the same table, the
//! same [`Guard`](m1nd_policy::guard::Guard) the stdio transport calls — so a
//! `tools/call` meets the guard in [`Service::call`]
//! before anything touches the store, whichever transport carried it. Nothing
//! in this module reads a tool name or an argument: what sits in front of
//! rmcp decides only *who* may talk and *how long* they may take.
//!
//! # What sits in front
//!
//! - [`addr`]: `--http ADDR` as a person writes it (`localhost:1338`),
//!   resolved to the one address that is bound and printed.
//! - [`security`]: the loopback-or-token rule for the listening address, the
//!   bearer token, rmcp's `Host` and `Origin` allow-lists, no CORS.
//! - `bad_body.rs`: a body rmcp cannot parse as a message gets a JSON-RPC
//!   error (400) instead of rmcp's 415.
//! - Limits ([`slots`] keeps them, and says why they hold):
//!   - a request takes one of `--max-requests` serving slots (default
//!     [`slots::DEFAULT_MAX_REQUESTS`]) only once its head and body have
//!     wholly arrived, and gives it back when its answer has been sent; past
//!     the cap it gets 503 naming the flag. A slow or idle client holds none.
//!   - a request's head, and then its body, must each arrive within
//!     `--arrival-timeout` (default [`slots::DEFAULT_ARRIVAL_TIMEOUT`]): a
//!     head that does not is cut off (so is a kept-alive connection idle that
//!     long), a body that does not gets 408. Bodies still arriving hold at
//!     most [`slots::MAX_ARRIVING_BYTES`] between them (else 503).
//!   - a request not answered within `--request-timeout` gets 408.
//!   - a body over [`MAX_BODY_BYTES`] gets 413 (counted as it arrives,
//!     whatever `Content-Length` claims); headers over [`MAX_HEADER_BYTES`]
//!     get 431.
//!   - at most `--max-connections` connections are open at once (default
//!     [`slots::DEFAULT_MAX_CONNECTIONS`]), whatever they are doing; one more
//!     is answered 503 naming the flag and closed.
//!   - the tray's event streams have a cap (`--max-event-streams`) and a
//!     lifetime (`--event-stream-lifetime`) of their own, take no serving
//!     slot, and end when their session logs out or expires
//!     (`human::streams`).
//!   - at most `--max-sessions` MCP sessions are held, each closed after
//!     `--session-idle` unused, and an `initialize` past the cap gets 503
//!     ([`sessions`]: why it refuses the newcomer rather than evict anyone).
//!
//! # The human's pages
//!
//! The same listener serves the person at the terminal ([`human`]): the
//! cockpit at `/` and the tray at `/tray`, on a host name of this server's
//! own (`m1nd-<random>.localhost`, named only in the login link), behind a
//! one-time login link, a session cookie, same-origin and CSRF checks. They are routed beside `/mcp`, not through it: nothing that
//! arrives on `/mcp` reaches the tray's acts, and a request to them without
//! the person's session is refused.
//!
//! # Both protocol eras
//!
//! A client that sends `initialize` (protocol 2025-11-25 and older) gets a
//! session (`Mcp-Session-Id`); a 2026-07-28 client sends each request on its
//! own, with its version and capabilities in `_meta`, and rmcp serves it
//! statelessly, checking `Mcp-Method`/`Mcp-Name` against the body as that
//! revision requires.

pub mod addr;
mod bad_body;
mod closed;
#[cfg(feature = "store")]
pub mod health;
#[cfg(feature = "store")]
pub mod human;
pub mod identity;
#[cfg(feature = "store")]
pub(crate) mod kept_answers;
#[cfg(feature = "store")]
pub mod metrics;
pub mod peek;
pub mod reviewed_tools;
pub mod security;
pub mod sessions;
pub mod slots;
pub mod sse_events;
#[cfg(test)]
mod test_responses;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use tokio::net::TcpListener;
use tower_http::timeout::TimeoutLayer;

use super::ServeError;
use crate::lane::Lane;
#[cfg(feature = "store")]
use crate::mcp::Server;
#[cfg(feature = "store")]
use crate::service::Service;
use security::Token;

/// Where `--http` listens when no address is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:1338";

/// The path MCP is served at.
pub const MCP_PATH: &str = "/mcp";

/// The largest request body read (a tool call is a few hundred bytes).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The largest request head (request line and headers) read.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// How long a client may take to send a request and get its answer, by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How `--http` is set up.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// Browser origins admitted on `/mcp` (none by default).
    pub allowed_origins: Vec<String>,
    /// `Host` names admitted besides the loopback names.
    pub allowed_hosts: Vec<String>,
    /// The bearer token every request must carry, if set.
    pub token: Option<Token>,
    /// Per-agent access tokens instead (`identity`), if set.
    pub identity: Option<Arc<identity::Identity>>,
    /// Bounds answering a request once it has arrived (`slots` bounds its arrival).
    pub request_timeout: Duration,
    /// How long a tray session lasts after its login.
    #[cfg(feature = "store")]
    pub session_lifetime: Duration,
    /// The caps on connections and requests, and the arrival timeout.
    pub limits: slots::Limits,
    /// The tray's event streams: their cap and lifetime.
    #[cfg(feature = "store")]
    pub event_streams: human::streams::StreamCaps,
    /// How many MCP sessions are held, and for how long unused.
    pub sessions: sessions::SessionLimits,
}

/// Serve MCP over HTTP, and the human's pages, until the process is stopped.
#[cfg(feature = "store")]
pub fn run(service: Service, http: HttpOptions) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let (listener, bound) = listen(&http).await?;
        let instance = human::instance::InstanceHost::random()?;
        let authority = human::authority::Authority::new(instance.base(bound.port()), http.session_lifetime)?;
        let login_link = authority.login_link();
        let hosts = http.allowed_hosts.clone();
        let mut http = http;
        http.allowed_hosts.push(instance.name().to_owned());
        let streams = human::streams::EventStreams::new(http.event_streams);
        let sessions = Arc::new(sessions::CappedSessions::new(http.sessions));
        let metrics = metrics::router(&service, metrics::Open::new(&sessions, &streams), &http);
        let human = human::Human { authority, service: service.clone(), hosts, instance, streams };
        let health = health::router(service.clone(), &http);
        let pages = human::router(Arc::new(human));
        let around_mcp = kept_answers::layer(kept_answers::Written::default());
        let app = router(Server::new(service), &http, sessions, Some(pages), around_mcp).merge(health).merge(metrics);
        tracing::info!("serving MCP on http://{bound}{MCP_PATH}");
        tracing::info!(
            target: human::authority::LOGIN_LINK_TARGET,
            "the tray: open {login_link} (the link works once)"
        );
        accept(listener, app, slots::Budget::new(http.limits, &[human::EVENTS_PATH])).await
    })
}

/// Serve any MCP server handler (the gateway) at `http.addr`, behind the
/// same checks and limits as `m1nd serve --http`, until the process stops.
/// It has no human pages: those belong to the m1nd store. `around_mcp` wraps
/// rmcp's `/mcp` service in the server's own layers, inside every check
/// (the gateway's `tools/list` answer; `std::convert::identity` for none).
pub async fn serve<S>(server: S, http: HttpOptions, around_mcp: impl FnOnce(Router) -> Router) -> Result<(), ServeError>
where
    S: ServerHandler + Clone + Send + Sync + 'static,
{
    let (listener, bound) = listen(&http).await?;
    let sessions = Arc::new(sessions::CappedSessions::new(http.sessions));
    let app = router(server, &http, sessions, None, around_mcp);
    tracing::info!("serving MCP on http://{bound}{MCP_PATH}");
    accept(listener, app, slots::Budget::new(http.limits, &[])).await
}

/// Bind `http.addr`, once the exposure rule allows it.
async fn listen(http: &HttpOptions) -> Result<(TcpListener, SocketAddr), ServeError> {
    security::check_exposure(http.addr, http.token.is_some() || http.identity.is_some())?;
    let listener =
        TcpListener::bind(http.addr).await.map_err(|source| ServeError::Listen { addr: http.addr, source })?;
    let bound = listener.local_addr().map_err(|source| ServeError::Listen { addr: http.addr, source })?;
    Ok((listener, bound))
}

/// `/mcp` and what guards it, then the human's pages when there are any
/// (they carry their own guards: a bearer token is for MCP clients, a person
/// logs in with a link).
fn router<S>(
    server: S,
    http: &HttpOptions,
    sessions: Arc<sessions::CappedSessions>,
    pages: Option<Router>,
    around_mcp: impl FnOnce(Router) -> Router,
) -> Router
where
    S: ServerHandler + Clone + Send + Sync + 'static,
{
    let mcp =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&sessions), security::rmcp_config(http));
    let mut app = around_mcp(Router::new().route_service(MCP_PATH, mcp))
        .layer(axum::middleware::from_fn(closed::ok_when_closed))
        .layer(axum::middleware::from_fn_with_state(sessions, sessions::refuse_when_full))
        .layer(axum::middleware::from_fn(bad_body::explain));
    app = security::guarded(app, http);
    if let Some(identity) = &http.identity {
        let metadata = identity.metadata().to_string();
        let answer = move || {
            let metadata = metadata.clone();
            async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], metadata) }
        };
        let tail = format!("{}{MCP_PATH}", identity::METADATA_PATH);
        app = app
            .route(identity::METADATA_PATH, axum::routing::get(answer.clone()))
            .route(&tail, axum::routing::get(answer));
    }
    if let Some(pages) = pages {
        app = app.merge(pages);
    }
    app.layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, http.request_timeout))
}

/// Accept connections for ever, each served on its own task, within
/// `budget` (see [`slots`]).
async fn accept(listener: TcpListener, app: Router, budget: slots::Budget) -> Result<(), ServeError> {
    let limits = budget.limits();
    let budget = Arc::new(budget);
    let app = app.layer(axum::middleware::from_fn_with_state(Arc::clone(&budget), slots::admit));
    let mut accepted: u64 = 0;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let held = match budget.connection() {
            Ok(held) => held,
            Err(refusal) => {
                budget.turn_away(stream, refusal);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // Each connection is a lane of its own in the service's fair queue
        // (an MCP session's calls share the session's lane; see mcp::handler).
        accepted += 1;
        let service = TowerToHyperService::new(app.clone().layer(axum::Extension(Lane::connection(accepted))));
        tokio::spawn(async move {
            let mut http1 = hyper::server::conn::http1::Builder::new();
            http1
                .timer(TokioTimer::new())
                .header_read_timeout(limits.arrival_timeout)
                .max_header_size(MAX_HEADER_BYTES);
            // A connection that ends badly concerns only its client.
            let _ = http1.serve_connection(TokioIo::new(stream), service).await;
            drop(held);
        });
    }
}

#[cfg(test)]
mod tests {
    /// The deployment file refuses a body past [`super::MAX_BODY_BYTES`] itself
    /// (a replica's early 413 could be lost in the reset of its close), so its
    /// limit is this one.
    #[test]
    fn the_balancer_refuses_the_bodies_a_replica_refuses() {
        let cfg = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/haproxy.cfg"));
        let rule = cfg.lines().find(|l| l.trim_start().starts_with("http-request deny deny_status 413"));
        let rule = rule.expect("deploy/haproxy.cfg refuses oversized bodies");
        assert!(rule.ends_with(&format!("gt {} }}", super::MAX_BODY_BYTES)), "{rule}");
    }
}
