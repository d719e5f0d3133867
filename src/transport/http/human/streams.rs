//! The tray's live stream of store versions, `GET /tray/events`.
//!
//! # The invariant
//!
//! 1. A stream delivers only while the tray session that opened it lives,
//!    and for at most its lifetime; at most [`StreamCaps::max`] are open at
//!    once, and they hold none of the server's serving slots.
//!
//! # Why it holds
//!
//! - The session named by the stream's cookie is looked up again before
//!   every event and at least every [`CHECK_EVERY`] between events: once
//!   the human logs out, or the session expires or is evicted, the next
//!   look-up fails and the stream ends (its body closes).
//! - The stream ends at its lifetime ([`StreamCaps::lifetime`]) whatever
//!   happens; the page's `EventSource` reconnects, and a reconnect is
//!   checked like any request: without a session it gets 401 and stays shut.
//! - A stream holds one of [`StreamCaps::max`] permits for as long as its
//!   body lives; past the cap the answer is 503 naming the flag. The
//!   serving slots (`slots.rs`) exempt this path, so however many streams
//!   are open, `/mcp` is served.
//! - Its events come from the service's version watch, so an open tab costs
//!   no store read of its own.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;

use super::checks::{cookie, session};
use super::{Human, Refused};

/// The path the tray page's `EventSource` opens.
pub const EVENTS_PATH: &str = "/tray/events";

/// How many event streams may be open at once, by default.
pub const DEFAULT_MAX_EVENT_STREAMS: usize = 64;

/// How long an event stream lasts before the page reconnects, by default.
pub const DEFAULT_EVENT_STREAM_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// How often an idle stream checks that its session still lives.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long a stream stays silent before it sends a comment, so that a
/// client that went away is noticed (the write fails) and its place freed.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The event streams' cap and lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamCaps {
    /// Streams open at once (`--max-event-streams`).
    pub max: usize,
    /// How long one stream lasts (`--event-stream-lifetime`).
    pub lifetime: Duration,
}

impl Default for StreamCaps {
    fn default() -> Self {
        Self { max: DEFAULT_MAX_EVENT_STREAMS, lifetime: DEFAULT_EVENT_STREAM_LIFETIME }
    }
}

/// How many event streams are open, read when asked (`/metrics`).
#[derive(Clone, Debug)]
pub struct OpenStreams {
    max: usize,
    open: Arc<Semaphore>,
}

impl OpenStreams {
    pub fn now(&self) -> usize {
        self.max - self.open.available_permits()
    }
}

/// The permits of the open streams.
pub struct EventStreams {
    caps: StreamCaps,
    open: Arc<Semaphore>,
}

impl EventStreams {
    pub fn new(caps: StreamCaps) -> Self {
        Self { caps, open: Arc::new(Semaphore::new(caps.max)) }
    }

    /// How many streams are open now, as a handle that stays current.
    pub fn open_count(&self) -> OpenStreams {
        OpenStreams { max: self.caps.max, open: Arc::clone(&self.open) }
    }

    /// A permit for one more stream, or the refusal naming the cap.
    fn open(&self) -> Result<OwnedSemaphorePermit, Refused> {
        Arc::clone(&self.open).try_acquire_owned().map_err(|_| {
            Refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "streams",
                format!(
                    "{} event streams are open, the server's cap (--max-event-streams); close a tray tab, or start \
                     the server with a higher --max-event-streams",
                    self.caps.max
                ),
            )
        })
    }
}

/// `store` events carrying the store_version whenever it moves, the current
/// one first, for as long as the session and the stream's lifetime last.
pub(super) async fn tray_events(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = session(&human, &headers) {
        return refused.into_response();
    }
    let permit = match human.streams.open() {
        Ok(permit) => permit,
        Err(refused) => return refused.into_response(),
    };
    let watching = Watching {
        cookie: cookie(&headers).map(str::to_owned),
        versions: human.service.versions(),
        ends: Instant::now() + human.streams.caps.lifetime,
        first: true,
        last_sent: Instant::now(),
        human,
        _open: permit,
    };
    let events = futures_util::stream::unfold(watching, |mut watching| async move {
        let event = watching.next().await?;
        Some((Ok::<_, Infallible>(event), watching))
    });
    Sse::new(events).into_response()
}

/// One open stream: whose it is, what it watches, when it ends.
struct Watching {
    human: Arc<Human>,
    /// The `Cookie` header that opened the stream, looked up again and again.
    cookie: Option<String>,
    versions: watch::Receiver<Option<u64>>,
    ends: Instant,
    /// Whether the current version is still to be sent.
    first: bool,
    /// When the stream last sent anything.
    last_sent: Instant,
    /// This stream's place under the cap, given back when the body drops.
    _open: OwnedSemaphorePermit,
}

impl Watching {
    /// Whether the stream may still deliver: its lifetime is not over and
    /// its session still lives.
    fn live(&self) -> bool {
        Instant::now() < self.ends && self.human.authority.session(self.cookie.as_deref()).is_some()
    }

    /// The next event to send — a `store` event, or a keep-alive comment
    /// after [`KEEP_ALIVE`] of silence — or `None` once the stream is over.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if !self.live() {
                return None;
            }
            // Only the first look marks the version seen: a later change
            // is left for `changed()` below, which must not miss it.
            let current = if std::mem::take(&mut self.first) { *self.versions.borrow_and_update() } else { None };
            if let Some(version) = current {
                return Some(self.sent(Event::default().event("store").data(version.to_string())));
            }
            let quiet_until = self.last_sent + KEEP_ALIVE;
            if Instant::now() >= quiet_until {
                return Some(self.sent(Event::default().comment("keep-alive")));
            }
            let wake = (Instant::now() + CHECK_EVERY).min(self.ends).min(quiet_until);
            tokio::select! {
                changed = self.versions.changed() => {
                    // The service stopped: nothing more will come.
                    changed.ok()?;
                    let version = *self.versions.borrow_and_update();
                    if let Some(version) = version
                        && self.live()
                    {
                        return Some(self.sent(Event::default().event("store").data(version.to_string())));
                    }
                }
                () = tokio::time::sleep_until(wake) => {}
            }
        }
    }

    /// Note that `event` is being sent now.
    fn sent(&mut self, event: Event) -> Event {
        self.last_sent = Instant::now();
        event
    }
}
