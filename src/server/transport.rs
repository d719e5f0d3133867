//! Newline-delimited JSON-RPC on stdin/stdout: framing only.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word.
//! Here every bad line can get a JSON-RPC error and the session goes on; what
//! a line *is* is decided beside the handler, in [`request`](super::request).
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
//!   [`ERROR_BURST`] for one writer task; a peer that does not read its
//!   stdout makes the server count, not buffer.
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
//! Writing goes through rmcp's framed writer, so answers never interleave.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, JsonRpcNotification, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::{StdioReader, StdioWriter, stdio_pipes};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use m1nd_core::sanitize::{cap, display};

use super::request::{self, Parsed};

/// The longest line read, as rmcp's own transport allows.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Error answers the bucket allows at once (and the most that wait to be written).
pub const ERROR_BURST: usize = 64;

/// Error answers the bucket allows per second once the burst is spent.
pub const ERRORS_PER_SECOND: u32 = 16;

/// Requests handed to rmcp and not yet answered, at most.
pub const MAX_IN_FLIGHT: usize = 64;

/// Messages handed to rmcp between two yields to the runtime.
const YIELD_EVERY: usize = 16;

/// A line buffer that grew past this is given back after its line.
const KEEP_LINE_CAPACITY: usize = 1 << 20;

type Sending = Pin<Box<dyn Future<Output = Result<(), std::io::Error>> + Send>>;

/// Stdin read line by line; stdout written by rmcp's framed writer.
pub struct Stdio {
    read: BufReader<StdioReader>,
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, StdioWriter>,
    errors: ErrorAnswers,
    /// Ids of requests handed to rmcp and not yet answered.
    in_flight: HashSet<RequestId>,
    /// Ids of cancelled requests, whose answers rmcp drops.
    cancelled: HashSet<RequestId>,
    /// Answers handed to the writer and not yet written.
    writing: Arc<AtomicUsize>,
    /// Told each time an answer leaves the window.
    answered: Arc<Notify>,
    /// Messages handed to rmcp since the transport last yielded.
    handed: usize,
}

enum Line {
    Whole,
    Oversized,
    End,
}

impl Stdio {
    /// Must be called inside the runtime: when stdin and stdout are pipes (as
    /// MCP clients launch servers) they are driven without blocking threads.
    pub fn new() -> Self {
        let (read, write) = stdio_pipes();
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new_server(tokio::io::empty(), write),
            errors: ErrorAnswers::new(),
            in_flight: HashSet::new(),
            cancelled: HashSet::new(),
            writing: Arc::new(AtomicUsize::new(0)),
            answered: Arc::new(Notify::new()),
            handed: 0,
        }
    }

    /// Wait while the window is full. False when stdin ended meanwhile.
    async fn window(&mut self) -> bool {
        while self.in_flight.len() + self.writing.load(Ordering::Acquire) >= MAX_IN_FLIGHT {
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
        true
    }

    /// A request id is taken while its request is in flight or was cancelled.
    fn taken(&self, id: &RequestId) -> bool {
        self.in_flight.contains(id) || self.cancelled.contains(id)
    }

    /// Note what a message handed to rmcp does to the window.
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

    /// Answer a bad line, if the bucket allows; otherwise count it.
    fn answer(&mut self, error: ErrorData, id: Option<RequestId>) {
        let now = Instant::now();
        if !self.errors.bucket.take(now) {
            self.errors.unanswered += 1;
            return;
        }
        if self.errors.unanswered > 0 {
            let summary = self.errors.summary();
            let sending = self.write.send(JsonRpcMessage::error(summary, None));
            self.errors.queue(Box::pin(sending));
            if !self.errors.bucket.take(now) {
                self.errors.unanswered += 1;
                return;
            }
        }
        let sending = self.write.send(JsonRpcMessage::error(error, id));
        self.errors.queue(Box::pin(sending));
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let mut slot = None;
        if let Some(id) = answered {
            self.cancelled.remove(id);
            if self.in_flight.remove(id) {
                slot = Some(Writing::start(&self.writing, &self.answered));
            }
        }
        let sending = self.write.send(item);
        async move {
            let written = sending.await;
            drop(slot);
            written
        }
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
                    self.answer(ErrorData::invalid_request(why, None), None);
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
                                let sending = self
                                    .write
                                    .send(JsonRpcMessage::error(ErrorData::invalid_request(why, None), Some(id)));
                                self.errors.queue(Box::pin(sending));
                            }
                            message => {
                                self.track(&message);
                                return Some(message);
                            }
                        },
                        Parsed::Skip => continue,
                        Parsed::Answer(error, id) => self.answer(error, id),
                    }
                }
            }
            // Let the writer and the handlers run between bad lines.
            tokio::task::yield_now().await;
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if self.errors.unanswered > 0 {
            let summary = self.errors.summary();
            let sending = self.write.send(JsonRpcMessage::error(summary, None));
            self.errors.queue(Box::pin(sending));
        }
        self.errors.finish().await;
        self.write.close().await
    }
}

/// An answer on its way out: it holds its place in the window until it is
/// written (or dropped), then makes room.
struct Writing {
    writing: Arc<AtomicUsize>,
    answered: Arc<Notify>,
}

impl Writing {
    fn start(writing: &Arc<AtomicUsize>, answered: &Arc<Notify>) -> Self {
        writing.fetch_add(1, Ordering::AcqRel);
        Self { writing: writing.clone(), answered: answered.clone() }
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        self.writing.fetch_sub(1, Ordering::AcqRel);
        self.answered.notify_one();
    }
}

/// Error answers to bad lines: the bucket, the count of the unanswered, and
/// one writer task that writes what the bucket let through, in order.
struct ErrorAnswers {
    bucket: Bucket,
    unanswered: u64,
    queue: Option<mpsc::Sender<Sending>>,
    writer: Option<JoinHandle<()>>,
}

impl ErrorAnswers {
    fn new() -> Self {
        let (queue, mut pending) = mpsc::channel::<Sending>(ERROR_BURST);
        let writer = tokio::spawn(async move {
            while let Some(sending) = pending.recv().await {
                let _ = sending.await;
            }
        });
        Self { bucket: Bucket::new(Instant::now()), unanswered: 0, queue: Some(queue), writer: Some(writer) }
    }

    /// Hand an answer to the writer; a full queue means stdout is not being
    /// read, and the answer is counted instead.
    fn queue(&mut self, sending: Sending) {
        let queued = self.queue.as_ref().is_some_and(|queue| queue.try_send(sending).is_ok());
        if !queued {
            self.unanswered += 1;
        }
    }

    /// The one error that stands for the bad lines that were not answered.
    fn summary(&mut self) -> ErrorData {
        let count = std::mem::take(&mut self.unanswered);
        ErrorData::invalid_request(
            format!(
                "{count} more bad lines were not answered one by one: this server answers at most {ERROR_BURST} \
                 bad lines at once and {ERRORS_PER_SECOND} per second after that"
            ),
            None,
        )
    }

    /// Write what is queued, then stop the writer.
    async fn finish(&mut self) {
        drop(self.queue.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
    }
}

/// A token bucket: [`ERROR_BURST`] tokens, refilled at [`ERRORS_PER_SECOND`].
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(now: Instant) -> Self {
        Self { tokens: ERROR_BURST as f64, at: now }
    }

    fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at);
        self.at = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * f64::from(ERRORS_PER_SECOND)).min(ERROR_BURST as f64);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// How long the bucket takes to allow one more answer after it is empty.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_a_steady_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(start);
        let burst = (0..1000).filter(|_| bucket.take(start)).count();
        assert_eq!(burst, ERROR_BURST);
        // One second later: one second's worth, not a new burst.
        let later = start + Duration::from_secs(1);
        let refilled = (0..1000).filter(|_| bucket.take(later)).count();
        assert_eq!(refilled, ERRORS_PER_SECOND as usize);
        let refill = Duration::from_millis(1000 / u64::from(ERRORS_PER_SECOND));
        assert!(!bucket.take(later + refill / 2));
        assert!(bucket.take(later + refill + refill / 2));
        // A long pause refills to the burst and no further.
        let rested = later + Duration::from_secs(3600);
        assert_eq!((0..1000).filter(|_| bucket.take(rested)).count(), ERROR_BURST);
    }
}
