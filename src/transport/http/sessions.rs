//! A cap on the MCP sessions `--http` holds, and idle ones closed.
//!
//! # The invariant
//!
//! 1. At most `max` sessions exist at once, and a session nobody has used for
//!    `idle` is closed and its slot freed. A legacy client (protocol
//!    2025-11-25 and older) gets a session by sending `initialize`, and rmcp's
//!    [`LocalSessionManager`] keeps one for ever if asked to, so without a cap
//!    any local process could grow the server's memory without bound (5,000
//!    `initialize` calls took it from 36 to 299 MB).
//!
//! # How
//!
//! - [`CappedSessions`] is rmcp's [`LocalSessionManager`] with a slot
//!   ([`OwnedSemaphorePermit`]) held by each session: a session is created
//!   only with a slot, and its slot is given back when rmcp closes it. rmcp
//!   closes a session on `DELETE`, and when its worker quits, which it does
//!   after [`SessionConfig::keep_alive`] without an event: that is `idle`.
//!   (In rmcp 3.11 the task that serves a session calls `close_session` when
//!   the session ends, idle timeout included, and that removes its handle
//!   from the map; `tests/http_sessions.rs` checks that the slot comes back
//!   and the old id then gets 404.) What closed sessions freed is handed back
//!   to the system (`give_back`).
//! - [`refuse_when_full`], in front of rmcp, looks at a request that can be
//!   an `initialize` (no `Mcp-Session-Id`, and no `Mcp-Method` or one naming
//!   `initialize`: a 2026-07-28 request always names its method, so those are
//!   never held back or read here). An `initialize` takes a slot there, before
//!   rmcp sees it, and hands it to [`CappedSessions::create_session`] through a
//!   task-local; with no slot left it is answered 503 with a JSON-RPC error
//!   naming the cap, the flag, and what to do — rmcp would have turned a
//!   refusal in `create_session` into a bare 500. (At the cap this 503 comes
//!   before rmcp's `Host` and `Origin` checks: either way nothing is served.)
//!
//! # Why refuse rather than evict
//!
//! At the cap a new `initialize` is refused; no live session is evicted. A
//! session is a client's conversation: closing the longest-idle one to make
//! room lets whoever opens sessions fastest end everyone else's, which turns
//! a memory cap into a way to cut other clients off. Refusing costs only the
//! newcomer, tells it why, and is temporary: idle sessions are closed after
//! `idle` anyway, and a 2026-07-28 client needs no session at all. Requests
//! in existing sessions and stateless requests are never refused here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcError, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::peek::peek;
use crate::error_kind::ErrorKind;

mod give_back;

/// The flag that sets [`SessionLimits::max`] (without its dashes).
pub const MAX_SESSIONS_FLAG: &str = "max-sessions";
/// The flag that sets [`SessionLimits::idle`] (without its dashes).
pub const SESSION_IDLE_FLAG: &str = "session-idle";

/// Sessions held at once by default. A session that only said `initialize`
/// holds about 55 KiB (rmcp's worker, its channels and tasks; measured by
/// `scripts/loadtest/sessions.py`, docs/benchmarks.md §3), so the cap bounds
/// sessions to about 55 MB plus what the allocator keeps.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// The largest `--max-sessions` taken (a bound, not a suggestion).
pub const MAX_MAX_SESSIONS: usize = 1_000_000;
/// How long a session may go unused before it is closed, by default.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);

/// The headers rmcp reads a session and a method from.
const SESSION_HEADER: &str = "mcp-session-id";
const METHOD_HEADER: &str = "mcp-method";
const INITIALIZE: &str = "initialize";

/// How many sessions, and for how long unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    max: usize,
    idle: Duration,
}

/// A limit that cannot be served.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SessionLimitsError {
    #[error("--{MAX_SESSIONS_FLAG} must be between 1 and {MAX_MAX_SESSIONS}, not {0}")]
    Max(usize),
    #[error("--{SESSION_IDLE_FLAG} must be a positive number of seconds")]
    Idle,
}

impl SessionLimits {
    /// `max` sessions at once, each closed after `idle` unused.
    pub fn new(max: usize, idle: Duration) -> Result<Self, SessionLimitsError> {
        if !(1..=MAX_MAX_SESSIONS).contains(&max) {
            return Err(SessionLimitsError::Max(max));
        }
        if idle.is_zero() {
            return Err(SessionLimitsError::Idle);
        }
        Ok(Self { max, idle })
    }

    pub fn max(&self) -> usize {
        self.max
    }

    pub fn idle(&self) -> Duration {
        self.idle
    }
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self { max: DEFAULT_MAX_SESSIONS, idle: DEFAULT_SESSION_IDLE }
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    /// Every slot is held (only reached when rmcp creates a session without
    /// going through [`refuse_when_full`], which answers this case itself).
    #[error("{}", full_message(*.0))]
    Full(SessionLimits),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

tokio::task_local! {
    /// The slot [`refuse_when_full`] took for the `initialize` it passes on.
    static RESERVED: RefCell<Option<OwnedSemaphorePermit>>;
}

/// rmcp's in-memory sessions, at most `max` of them, closed when idle.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    limits: SessionLimits,
    slots: Arc<Semaphore>,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
    freed: give_back::GiveBack,
}

impl CappedSessions {
    pub fn new(limits: SessionLimits) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config = session_config(limits.idle);
        let slots = Arc::new(Semaphore::new(limits.max));
        Self { inner, limits, slots, held: Mutex::new(HashMap::new()), freed: give_back::GiveBack::default() }
    }

    /// How many sessions are open.
    pub fn open(&self) -> usize {
        self.limits.max - self.slots.available_permits()
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, OwnedSemaphorePermit>> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// rmcp's defaults, with the idle timeout set.
fn session_config(idle: Duration) -> SessionConfig {
    let mut config = SessionConfig::default();
    config.keep_alive = Some(idle);
    config
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let slot = RESERVED
            .try_with(|reserved| reserved.borrow_mut().take())
            .ok()
            .flatten()
            .or_else(|| Arc::clone(&self.slots).try_acquire_owned().ok())
            .ok_or(SessionsError::Full(self.limits))?;
        let (id, transport) = self.inner.create_session().await?;
        self.held().insert(id.clone(), slot);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        // The slot is freed whatever closing said: the session is out of the map.
        drop(self.held().remove(id));
        self.freed.freed();
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

/// Middleware: take a slot for an `initialize`, or answer 503 when none is
/// left; every other request passes untouched.
pub async fn refuse_when_full(State(sessions): State<Arc<CappedSessions>>, request: Request, next: Next) -> Response {
    if !may_initialize(request.method(), request.headers()) {
        return next.run(request).await;
    }
    let (request, peeked) = match peek(request).await {
        Ok(peeked) => peeked,
        Err(refused) => return refused,
    };
    if peeked.method.as_deref() != Some(INITIALIZE) {
        return next.run(request).await;
    }
    match Arc::clone(&sessions.slots).try_acquire_owned() {
        Ok(slot) => RESERVED.scope(RefCell::new(Some(slot)), next.run(request)).await,
        Err(_) => full(peeked.id, sessions.limits),
    }
}

/// Whether rmcp could take this request as an `initialize`: a POST outside
/// any session whose `Mcp-Method`, if any, names `initialize`.
fn may_initialize(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::POST
        && !headers.contains_key(SESSION_HEADER)
        && headers.get(METHOD_HEADER).is_none_or(|named| named.as_bytes() == INITIALIZE.as_bytes())
}

/// What a client is told when every slot is held.
fn full_message(limits: SessionLimits) -> String {
    format!(
        "the server holds its {} sessions (--{MAX_SESSIONS_FLAG}); close sessions you no longer use (DELETE /mcp \
         with their Mcp-Session-Id), wait for one to go unused for {} s (--{SESSION_IDLE_FLAG}), or use the \
         2026-07-28 stateless protocol, which needs no session",
        limits.max,
        limits.idle.as_secs_f64()
    )
}

/// 503 and a JSON-RPC error answering `id`.
fn full(id: Option<RequestId>, limits: SessionLimits) -> Response {
    let kind = ErrorKind::Unavailable;
    let error = ErrorData::new(ErrorCode(kind.jsonrpc_code()), full_message(limits), None);
    let body = serde_json::to_vec(&JsonRpcError::new(id, error)).unwrap_or_default();
    let status = StatusCode::from_u16(kind.http_status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_what_cannot_be_served() {
        let minute = Duration::from_secs(60);
        assert_eq!(SessionLimits::new(0, minute), Err(SessionLimitsError::Max(0)));
        assert_eq!(
            SessionLimits::new(MAX_MAX_SESSIONS + 1, minute),
            Err(SessionLimitsError::Max(MAX_MAX_SESSIONS + 1))
        );
        assert_eq!(SessionLimits::new(1, Duration::ZERO), Err(SessionLimitsError::Idle));
        assert_eq!(SessionLimits::new(5, minute).map(|l| (l.max(), l.idle())), Ok((5, minute)));
        assert!(SessionLimitsError::Max(0).to_string().contains("--max-sessions"));
    }

    #[test]
    fn only_requests_that_can_initialize_are_read() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, value.parse().expect("header"));
            }
            map
        };
        assert!(may_initialize(&Method::POST, &headers(&[])));
        assert!(may_initialize(&Method::POST, &headers(&[("Mcp-Method", "initialize")])));
        assert!(!may_initialize(&Method::POST, &headers(&[("Mcp-Method", "tools/call")])));
        assert!(!may_initialize(&Method::POST, &headers(&[("Mcp-Session-Id", "abc")])));
        assert!(!may_initialize(&Method::GET, &headers(&[])));
        assert!(!may_initialize(&Method::DELETE, &headers(&[])));
    }

    #[test]
    fn the_refusal_names_the_cap_the_flags_and_a_way_out() {
        let limits = SessionLimits::new(7, Duration::from_secs(2)).expect("limits");
        let message = full_message(limits);
        for needed in ["7 sessions", "--max-sessions", "--session-idle", "2026-07-28", "DELETE"] {
            assert!(message.contains(needed), "{needed}: {message}");
        }
    }

    #[test]
    fn a_slot_is_held_per_session_and_freed_when_closed() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async {
            let sessions = CappedSessions::new(SessionLimits::new(2, Duration::from_secs(60)).expect("limits"));
            let (first, _t1) = sessions.create_session().await.expect("first");
            let (_second, _t2) = sessions.create_session().await.expect("second");
            assert_eq!(sessions.open(), 2);
            let refused = sessions.create_session().await.err().expect("a third is refused");
            assert!(matches!(refused, SessionsError::Full(_)), "{refused}");
            sessions.close_session(&first).await.expect("close");
            assert_eq!(sessions.open(), 1);
            assert!(!sessions.has_session(&first).await.expect("has"));
            sessions.create_session().await.expect("a slot was freed");
        });
    }
}
