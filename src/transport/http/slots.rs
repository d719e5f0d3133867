//! How much `serve --http` takes on at once, and how long a client may take
//! to send a request.
//!
//! # The invariant
//!
//! 1. A request holds one of the [`Limits::max_requests`] serving slots only
//!    from the moment it has wholly arrived — head and body — until its
//!    answer has been sent. A client that is slow to send, or idle between
//!    requests, holds no serving slot, so however many of them there are,
//!    they cannot keep another client's request waiting.
//!
//! # Why it holds
//!
//! - hyper hands a request to the service only once its head has arrived,
//!   and closes a connection whose head has not arrived within
//!   [`Limits::arrival_timeout`] (its header-read timer, which starts again
//!   each time a kept-alive connection goes idle, so an idle connection is
//!   closed too). A slowloris client never reaches [`admit`].
//! - [`admit`] reads the body before it takes a slot: within the arrival
//!   timeout (else 408), at most [`MAX_BODY_BYTES`] (else 413), and bodies
//!   still arriving hold at most [`MAX_ARRIVING_BYTES`] between them (else
//!   503), so a slow body holds memory that is bounded, and no slot.
//! - The slot's permit travels inside the answer's body and is released when
//!   that body ends or is dropped (the client went away).
//! - The tray's event stream takes no serving slot: it is exempt here and
//!   held to a cap and a lifetime of its own (`human::streams`).
//! - Every connection, whatever it is doing, holds one of
//!   [`Limits::max_connections`]: the bound on sockets and tasks. Past it, a
//!   new connection is answered 503 naming the flag and closed, within
//!   [`REFUSAL_TIME`] and by at most [`MAX_REFUSING`] tasks at once (in a
//!   flood, the rest are closed unanswered).
//!
//! Each refusal names the cap that was hit and the flag that sets it.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use http_body::Frame;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::MAX_BODY_BYTES;

/// How many connections may be open at once, by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How many requests are served at once, by default.
pub const DEFAULT_MAX_REQUESTS: usize = 256;

/// How long a client may take to send a request's head, and then its body.
pub const DEFAULT_ARRIVAL_TIMEOUT: Duration = Duration::from_secs(5);

/// The most body bytes held, between all requests still arriving (a tool
/// call is a few hundred bytes; this is 64 bodies of the largest size).
pub const MAX_ARRIVING_BYTES: usize = 64 * MAX_BODY_BYTES;

/// How long a refused connection is given to read its 503.
pub const REFUSAL_TIME: Duration = Duration::from_secs(1);

/// How many refused connections are answered at once; past it (a flood),
/// one is closed unanswered rather than take another task.
pub const MAX_REFUSING: usize = 64;

/// How much of a refused connection's request is read (and dropped) so that
/// closing it does not reset the connection before the 503 is read.
const REFUSAL_DRAIN_BYTES: usize = 64 * 1024;

/// The caps and the timeout one listener keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once (`--max-connections`).
    pub max_connections: usize,
    /// Requests served at once (`--max-requests`).
    pub max_requests: usize,
    /// How long a request's head, and then its body, may take to arrive
    /// (`--arrival-timeout`).
    pub arrival_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_requests: DEFAULT_MAX_REQUESTS,
            arrival_timeout: DEFAULT_ARRIVAL_TIMEOUT,
        }
    }
}

/// Why a connection or a request was not served.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(
        "the server has {max} connections open, its cap (--max-connections); try again shortly, or start it with a \
         higher --max-connections"
    )]
    Connections { max: usize },
    #[error(
        "the server is serving {max} requests, its cap (--max-requests); try again shortly, or start it with a higher \
         --max-requests"
    )]
    Requests { max: usize },
    #[error("request bodies still arriving hold {MAX_ARRIVING_BYTES} bytes, the server's cap; try again shortly")]
    Arriving,
    #[error("the request's body did not arrive within {} s (--arrival-timeout)", .timeout.as_secs_f64())]
    Slow { timeout: Duration },
    #[error("a request body is at most {MAX_BODY_BYTES} bytes")]
    TooLarge,
    #[error("the request's body could not be read: {0}")]
    Unreadable(String),
}

impl Refusal {
    fn status(&self) -> StatusCode {
        match self {
            Self::Connections { .. } | Self::Requests { .. } | Self::Arriving => StatusCode::SERVICE_UNAVAILABLE,
            Self::Slow { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unreadable(_) => StatusCode::BAD_REQUEST,
        }
    }

    /// The code a client can act on.
    fn code(&self) -> &'static str {
        match self {
            Self::Connections { .. } | Self::Requests { .. } | Self::Arriving => "busy",
            Self::Slow { .. } => "slow",
            Self::TooLarge => "too_large",
            Self::Unreadable(_) => "body",
        }
    }

    fn body(&self) -> String {
        json!({ "ok": false, "code": self.code(), "error": self.to_string() }).to_string()
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response = (
            self.status(),
            [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")],
            self.body(),
        )
            .into_response();
        if self.status() == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// What the connections of one listener share.
pub struct Budget {
    limits: Limits,
    connections: Arc<Semaphore>,
    requests: Arc<Semaphore>,
    arriving: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    /// Paths whose requests take no serving slot (the event stream, which
    /// keeps a cap of its own).
    exempt: &'static [&'static str],
}

impl Budget {
    pub fn new(limits: Limits, exempt: &'static [&'static str]) -> Self {
        Self {
            limits,
            connections: Arc::new(Semaphore::new(limits.max_connections)),
            requests: Arc::new(Semaphore::new(limits.max_requests)),
            arriving: Arc::new(Semaphore::new(MAX_ARRIVING_BYTES)),
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
            exempt,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// A place for one more connection, held while it is open.
    pub fn connection(&self) -> Result<OwnedSemaphorePermit, Refusal> {
        Arc::clone(&self.connections)
            .try_acquire_owned()
            .map_err(|_| Refusal::Connections { max: self.limits.max_connections })
    }

    /// Answer `stream` with `refusal` and close it, on a task of its own;
    /// while [`MAX_REFUSING`] others are being answered, close it at once.
    pub fn turn_away(&self, stream: TcpStream, refusal: Refusal) {
        if let Ok(answering) = Arc::clone(&self.refusing).try_acquire_owned() {
            tokio::spawn(async move {
                refuse(stream, refusal).await;
                drop(answering);
            });
        }
    }

    /// Read `body` whole, within the arrival timeout, holding its bytes
    /// against [`MAX_ARRIVING_BYTES`] while it arrives.
    async fn arrive(&self, body: Body) -> Result<Bytes, Refusal> {
        let timeout = self.limits.arrival_timeout;
        let read = async {
            let mut held: Option<OwnedSemaphorePermit> = None;
            let mut bytes = Vec::new();
            let mut stream = body.into_data_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| Refusal::Unreadable(e.to_string()))?;
                if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(Refusal::TooLarge);
                }
                let n = u32::try_from(chunk.len()).map_err(|_| Refusal::TooLarge)?;
                if n > 0 {
                    let more = Arc::clone(&self.arriving).try_acquire_many_owned(n).map_err(|_| Refusal::Arriving)?;
                    match held.as_mut() {
                        Some(held) => held.merge(more),
                        None => held = Some(more),
                    }
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Bytes::from(bytes))
        };
        tokio::time::timeout(timeout, read).await.map_err(|_| Refusal::Slow { timeout })?
    }
}

/// Middleware: a request that has wholly arrived takes a serving slot, held
/// until its answer has been sent; past the cap it gets 503.
pub async fn admit(State(budget): State<Arc<Budget>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = match budget.arrive(body).await {
        Ok(bytes) => bytes,
        Err(refusal) => return refusal.into_response(),
    };
    let request = Request::from_parts(parts, Body::from(bytes));
    if budget.exempt.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    let Ok(slot) = Arc::clone(&budget.requests).try_acquire_owned() else {
        return Refusal::Requests { max: budget.limits.max_requests }.into_response();
    };
    next.run(request).await.map(|inner| Body::new(Holding { inner, _slot: slot }))
}

/// Answer a connection over the cap with `refusal` and close it, within
/// [`REFUSAL_TIME`].
async fn refuse(mut stream: TcpStream, refusal: Refusal) {
    let body = refusal.body();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\
         Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let answer = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await?;
        // Read what the client sent, so that closing does not reset the
        // connection before it has read the answer.
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < REFUSAL_DRAIN_BYTES {
            match stream.read(&mut sink).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<(), std::io::Error>(())
    };
    let _ = tokio::time::timeout(REFUSAL_TIME, answer).await;
}

/// An answer's body that holds its request's serving slot until it ends or
/// is dropped.
struct Holding {
    inner: Body,
    _slot: OwnedSemaphorePermit,
}

impl HttpBody for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max_requests: usize) -> Budget {
        Budget::new(
            Limits { max_connections: 2, max_requests, arrival_timeout: Duration::from_millis(200) },
            &["/exempt"],
        )
    }

    #[test]
    fn refusals_name_their_flag() {
        assert!(Refusal::Connections { max: 3 }.to_string().contains("--max-connections"));
        assert!(Refusal::Requests { max: 3 }.to_string().contains("--max-requests"));
        assert!(Refusal::Slow { timeout: Duration::from_secs(5) }.to_string().contains("--arrival-timeout"));
    }

    #[test]
    fn connections_are_counted_while_held() {
        let budget = budget(1);
        let first = budget.connection().expect("first");
        let _second = budget.connection().expect("second");
        assert!(matches!(budget.connection(), Err(Refusal::Connections { max: 2 })));
        drop(first);
        assert!(budget.connection().is_ok());
    }

    #[test]
    fn bodies_arrive_whole_within_the_caps() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
        runtime.block_on(async {
            let budget = budget(1);
            assert_eq!(budget.arrive(Body::from("abc")).await.expect("read"), "abc");
            assert_eq!(budget.arriving.available_permits(), MAX_ARRIVING_BYTES, "arriving bytes are given back");
            let huge = Body::from(vec![b' '; MAX_BODY_BYTES + 1]);
            assert!(matches!(budget.arrive(huge).await, Err(Refusal::TooLarge)));
            let never = Body::from_stream(futures_util::stream::pending::<Result<Bytes, std::io::Error>>());
            assert!(matches!(budget.arrive(never).await, Err(Refusal::Slow { .. })));
        });
    }
}
