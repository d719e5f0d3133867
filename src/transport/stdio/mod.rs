//! Newline-delimited JSON-RPC on stdin/stdout: framing only.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word.
//! Here every bad line can get a JSON-RPC error and the session goes on; what
//! a line *is* is decided beside the handler, in [`request`].
//! This file reads lines, writes answers and keeps three promises:
//!
//! - **Bounded work per line.** A line is read at most [`MAX_LINE_BYTES`]
//!   long (the rest of a longer one is skipped as it streams past, and the
//!   line is answered with `-32600`), parsed once, and forgotten. A bad line
//!   costs O(its length) and leaves nothing behind: no task, no buffer.
//! - **No error storm.** Error answers to bad lines are rate-bound by a token
//!   bucket: [`ERROR_BURST`] at once, then [`ERRORS_PER_SECOND`]. Past that,
//!   bad lines are counted instead of answered, and one error (no id) says
//!   how many went unanswered, sent with the next error the bucket allows or
//!   when the session closes. Answers wait in a queue of at most
//!   [`ERROR_BURST`] answers; a peer that does not read its stdout makes
//!   the server count, not buffer (`errors.rs`).
//! - **One answer per request id.** A request whose id is already in flight
//!   (read, not yet answered) is refused with `-32600` before it reaches the
//!   handler, so it cannot run unanswered: rmcp keeps one answer slot per id,
//!   and a second request with the same id would run, commit its write, and
//!   lose its answer. The refusal is not rate-bound: it answers a
//!   well-formed request, as every request is answered. An id is free again
//!   once its answer is written. rmcp drops the answer of a request the
//!   client cancelled, so a cancelled id stays taken for the rest of the
//!   session: use a new id (clients number their requests).
//! - **A bounded window.** With [`MAX_IN_FLIGHT`] requests unanswered (or
//!   answered but not yet written: a client that reads its stdout slowly
//!   holds answers in the server), no more lines are read until an answer is
//!   written, so a client that pipelines
//!   100,000 requests costs the memory of the window, not of its backlog
//!   (rmcp runs every request it is handed at once). While waiting, an
//!   empty input buffer is still watched for the end of stdin.
//!
//! A malformed notification (no id) gets no answer, as notifications never do.
//! Writing goes through one writer task (`out.rs`), so answers never interleave.
//!
//! When the transport serves m1nd's own [`Server`], a `tools/call` of a
//! session that initialized the legacy way is answered by the service
//! directly and its kept answer written as bytes, and a `ping` with rmcp's
//! empty result (`fast.rs`); every promise above holds for those too.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::RoleServer;
use rmcp::model::ServerResult;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, JsonRpcNotification, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::{StdioReader, stdio_pipes};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use m1nd_policy::sanitize::{cap, display};

#[cfg(feature = "store")]
use super::ServeError;
use super::request::{self, Parsed};
#[cfg(feature = "store")]
use crate::mcp::Server;

mod errors;
#[cfg_attr(not(feature = "store"), path = "no_fast_path.rs")]
mod fast;
mod out;

use errors::ErrorAnswers;
pub use errors::{ERROR_BURST, ERRORS_PER_SECOND};
use fast::FastPath;
use out::{Frame, Out, Writing};

/// Serve MCP on stdin/stdout until the client closes stdin.
#[cfg(feature = "store")]
pub fn run(server: Server) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ServeError::Runtime)?;
    // Stdin and stdout are taken inside the runtime, which drives them.
    runtime.block_on(async move { serve(server, Stdio::new()).await })
}

/// Serve `server` on `transport` until its input ends. The transport answers
/// m1nd's own calls itself where it may (`fast.rs`).
#[cfg(feature = "store")]
pub async fn serve<R: AsyncRead + Unpin + Send + 'static>(
    server: Server,
    transport: Stdio<R>,
) -> Result<(), ServeError> {
    use rmcp::ServiceExt;
    let transport = transport.answering(server.service().clone());
    let service = server.serve(transport).await.map_err(|e| ServeError::Start(e.to_string()))?;
    service.waiting().await.map_err(|e| ServeError::Ended(e.to_string()))?;
    Ok(())
}

/// The longest line read, as rmcp's own transport allows.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Requests handed to rmcp and not yet answered, at most.
pub const MAX_IN_FLIGHT: usize = 64;

/// Messages handed to rmcp between two yields to the runtime.
const YIELD_EVERY: usize = 16;

/// A line buffer that grew past this is given back after its line.
const KEEP_LINE_CAPACITY: usize = 1 << 20;

/// Input read line by line; output written by one writer task.
pub struct Stdio<R = StdioReader> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    out: Out,
    writer: Option<JoinHandle<()>>,
    errors: ErrorAnswers,
    /// Ids of requests read and not yet answered (by rmcp or the fast path).
    in_flight: HashSet<RequestId>,
    /// Ids of cancelled requests, whose answers are dropped.
    cancelled: HashSet<RequestId>,
    /// Answers handed to the writer and not yet written.
    writing: Arc<AtomicUsize>,
    /// Told each time an answer leaves the window.
    answered: Arc<Notify>,
    /// Messages handed to rmcp since the transport last yielded.
    handed: usize,
    /// The calls answered here rather than by rmcp, when serving m1nd.
    fast: Option<FastPath>,
}

enum Line {
    Whole,
    Oversized,
    End,
}

impl Stdio {
    /// Stdin and stdout. Must be called inside the runtime: when they are
    /// pipes (as MCP clients launch servers) they are driven without
    /// blocking threads.
    #[expect(
        clippy::new_without_default,
        reason = "taking stdin and stdout needs a runtime; a default would hide that"
    )]
    pub fn new() -> Self {
        let (read, write) = stdio_pipes();
        Self::over(read, write)
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Stdio<R> {
    /// Any reader and writer: a test's pipes, or stdin and stdout.
    pub fn over<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        let (out, writer) = Out::start(write);
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            out,
            writer: Some(writer),
            errors: ErrorAnswers::new(),
            in_flight: HashSet::new(),
            cancelled: HashSet::new(),
            writing: Arc::new(AtomicUsize::new(0)),
            answered: Arc::new(Notify::new()),
            handed: 0,
            fast: None,
        }
    }

    /// Answer `tools/call` through `service` where rmcp would answer it the
    /// same way (see `fast.rs`).
    #[cfg(feature = "store")]
    pub fn answering(mut self, service: crate::service::Service) -> Self {
        self.fast = Some(FastPath::new(service));
        self
    }

    /// How many calls the fast path has answered so far, when it is on.
    pub fn fast_path_calls(&self) -> Option<Arc<std::sync::atomic::AtomicU64>> {
        self.fast.as_ref().map(FastPath::calls)
    }

    /// Forget the ids the fast path has answered.
    fn reap(&mut self) {
        if let Some(fast) = &mut self.fast {
            for id in fast.answered() {
                self.in_flight.remove(&id);
            }
        }
    }

    /// Wait while the window is full. False when the input ended meanwhile.
    async fn window(&mut self) -> bool {
        loop {
            self.reap();
            if self.in_flight.len() + self.writing.load(Ordering::Acquire) < MAX_IN_FLIGHT {
                return true;
            }
            if !self.read.buffer().is_empty() {
                self.answered.notified().await;
                continue;
            }
            tokio::select! {
                () = self.answered.notified() => {}
                filled = self.read.fill_buf() => {
                    if matches!(filled, Ok([]) | Err(_)) {
                        return false;
                    }
                }
            }
        }
    }

    /// A request id is taken while its request is in flight or was cancelled.
    fn taken(&self, id: &RequestId) -> bool {
        self.in_flight.contains(id) || self.cancelled.contains(id)
    }

    /// Note what a message handed on does to the window.
    fn track(&mut self, message: &RxJsonRpcMessage<RoleServer>) {
        match message {
            JsonRpcMessage::Request(request) => {
                self.in_flight.insert(request.id.clone());
            }
            JsonRpcMessage::Notification(JsonRpcNotification {
                notification: ClientNotification::CancelledNotification(cancel),
                ..
            }) => {
                if let Some(id) = &cancel.params.request_id
                    && self.in_flight.remove(id)
                {
                    if let Some(fast) = &mut self.fast {
                        fast.cancel(id);
                    }
                    self.cancelled.insert(id.clone());
                }
            }
            _ => {}
        }
    }
    /// Read one line into `self.line`, never holding more than the limit.
    /// Cancellation-safe: bytes are moved and consumed with no await between,
    /// so a cancelled read resumes where it stopped.
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) | Err(_) => return Line::End,
                Ok(available) => available,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let oversized = !self.discarding && self.line.len() + take > MAX_LINE_BYTES;
            if !self.discarding && !oversized {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if oversized {
                self.line.clear();
                self.discarding = newline.is_none();
                return Line::Oversized;
            }
            if newline.is_some() {
                if self.discarding {
                    self.discarding = false;
                    continue;
                }
                return Line::Whole;
            }
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for Stdio<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(response) => {
                if let (Some(fast), ServerResult::InitializeResult(_)) = (&mut self.fast, &response.result) {
                    fast.settle();
                }
                Some(&response.id)
            }
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let mut frame = Frame::message(&item);
        if let Some(id) = answered {
            self.cancelled.remove(id);
            if self.in_flight.remove(id) {
                frame = frame.holding(Writing::start(&self.writing, &self.answered));
            }
        }
        let out = self.out.clone();
        async move { out.send(frame).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // While stdin has lines ready, reading never waits, and the tasks rmcp
        // spawns per message (notifications have no window) would pile up
        // until the runtime forced a yield. Yield every few messages instead,
        // here where nothing has been read yet, so a cancelled receive loses nothing.
        self.handed += 1;
        if self.handed.is_multiple_of(YIELD_EVERY) {
            tokio::task::yield_now().await;
        }
        loop {
            if !self.window().await {
                return None;
            }
            match self.read_line().await {
                Line::End => return None,
                Line::Oversized => {
                    let why = format!("a message longer than {MAX_LINE_BYTES} bytes was skipped");
                    self.errors.answer(&self.out, ErrorData::invalid_request(why, None), None);
                }
                Line::Whole => {
                    let parsed = request::parse(&self.line);
                    if self.line.capacity() > KEEP_LINE_CAPACITY {
                        self.line = Vec::new();
                    }
                    self.line.clear();
                    match parsed {
                        Parsed::Message(message) => match *message {
                            JsonRpcMessage::Request(request) if self.taken(&request.id) => {
                                let id = request.id;
                                let shown = display(&id.to_string(), cap::NAME);
                                let state = if self.in_flight.contains(&id) {
                                    "is already in flight"
                                } else {
                                    "was cancelled in this session"
                                };
                                let why = format!(
                                    "invalid request: request id {shown} {state}; this request was not run. \
                                     Send it with an id of its own"
                                );
                                // A well-formed request: answered as every request is, outside the bucket.
                                self.errors.refuse(&self.out, ErrorData::invalid_request(why, None), id);
                            }
                            JsonRpcMessage::Request(request)
                                if self.fast.as_ref().is_some_and(|fast| fast.takes(&request)) =>
                            {
                                self.in_flight.insert(request.id.clone());
                                if let Some(fast) = &mut self.fast {
                                    fast.spawn(request, &self.out, &self.writing, &self.answered);
                                }
                            }
                            message => {
                                self.track(&message);
                                return Some(message);
                            }
                        },
                        Parsed::Skip => continue,
                        Parsed::Answer(error, id) => self.errors.answer(&self.out, error, id),
                    }
                }
            }
            // Let the writer and the handlers run between bad lines.
            tokio::task::yield_now().await;
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(fast) = &mut self.fast {
            fast.close().await;
        }
        self.errors.close(&self.out);
        // A peer that closed its end cannot be told more; that is how sessions end.
        let _ = self.out.finish().await;
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}
