//! `tools/call` answered straight from the service, its answer's bytes written
//! with the request id put in front; and `ping`, so that the floor every
//! "× a ping" figure is measured against is this same path.
//!
//! rmcp would answer the same call by cloning the kept result, serialising it
//! and freeing the copy; for a kept cockpit answer that was most of the round
//! trip. Here the transport hands the call to the [`Service`] itself and
//! writes the answer's serialised result inside the JSON-RPC envelope.
//!
//! # When, and why it is the same answer
//!
//! Only for a session whose lifecycle is settled the legacy way: an
//! `initialize` has been answered with an `InitializeResult`, and the call's
//! `_meta` names no protocol version. For such a call rmcp's handler checks
//! nothing more, calls the same [`Service::call`] through
//! [`Server`](crate::mcp::Server), and strips `resultType: "complete"` from the
//! result for the legacy peer; [`Answer::legacy_json`] is that result,
//! serialised. A `ping` gets rmcp's empty result, `{}`. A test drives one
//! session through both paths and compares the bytes. Everything else
//! (2026-07-28 requests, a call before `initialize`, other methods) goes to
//! rmcp as before.
//!
//! A call here keeps every promise of the transport: its id is in flight
//! until its answer is written, the window counts it, and a
//! `notifications/cancelled` for it stops it (the service then drops its job
//! if it has not started) and no answer is written, as rmcp does.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use rmcp::model::{ClientRequest, GetMeta, JsonRpcRequest, RequestId};
use tokio::sync::{Notify, mpsc};
use tokio::task::{AbortHandle, JoinSet};

use super::out::{Frame, Out, Writing};
use crate::service::{Answer, Service};

/// How long a closing session waits for calls still being answered.
const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// The calls this transport answers itself.
pub struct FastPath {
    service: Service,
    /// Set once an `initialize` has been answered: the legacy lifecycle.
    settled: bool,
    running: HashMap<RequestId, AbortHandle>,
    tasks: JoinSet<()>,
    /// Ids whose answers were written (sent before the window is told).
    done: mpsc::UnboundedReceiver<RequestId>,
    done_tx: mpsc::UnboundedSender<RequestId>,
    /// Calls and pings answered here, counted for tests and benches.
    calls: Arc<AtomicU64>,
}

impl FastPath {
    pub fn new(service: Service) -> Self {
        let (done_tx, done) = mpsc::unbounded_channel();
        let calls = Arc::default();
        Self { service, settled: false, running: HashMap::new(), tasks: JoinSet::new(), done, done_tx, calls }
    }

    /// The count of calls answered here.
    pub fn calls(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.calls)
    }

    /// The session's lifecycle is now the legacy one (an `initialize` was answered).
    pub fn settle(&mut self) {
        self.settled = true;
    }

    /// Whether this path answers `request`: a `tools/call` or a `ping` of a
    /// settled session whose `_meta` names no protocol version.
    pub fn takes(&self, request: &JsonRpcRequest<ClientRequest>) -> bool {
        self.settled
            && matches!(request.request, ClientRequest::CallToolRequest(_) | ClientRequest::PingRequest(_))
            && request.request.get_meta().protocol_version().is_none()
    }

    /// Answer `request` (one this path [`takes`](Self::takes)) on a task of its own.
    pub fn spawn(
        &mut self,
        request: JsonRpcRequest<ClientRequest>,
        out: &Out,
        writing: &Arc<AtomicUsize>,
        answered: &Arc<Notify>,
    ) {
        let id = request.id;
        // No call: a ping.
        let call = match request.request {
            ClientRequest::CallToolRequest(call) => Some(call.params),
            _ => None,
        };
        let (service, out, done) = (self.service.clone(), out.clone(), self.done_tx.clone());
        let (writing, answered) = (Arc::clone(writing), Arc::clone(answered));
        let key = id.clone();
        let calls = Arc::clone(&self.calls);
        let handle = self.tasks.spawn(async move {
            let result = match call {
                Some(params) => {
                    let answer: Answer = service.call(&params.name, params.arguments.as_ref()).await;
                    answer.legacy_json().clone()
                }
                // rmcp's `EmptyResult` for a legacy peer.
                None => Bytes::from_static(b"{}"),
            };
            let frame = Frame::response(&id, result).holding(Writing::start(&writing, &answered));
            let _ = out.send(frame).await;
            calls.fetch_add(1, Ordering::Relaxed);
            // The id goes before the wake-up, so the window finds it gone when it looks.
            let _ = done.send(id);
            answered.notify_one();
        });
        self.running.insert(key, handle);
    }

    /// Ids whose answers have been written since the last call.
    pub fn answered(&mut self) -> Vec<RequestId> {
        while self.tasks.try_join_next().is_some() {}
        let mut ids = Vec::new();
        while let Ok(id) = self.done.try_recv() {
            self.running.remove(&id);
            ids.push(id);
        }
        ids
    }

    /// Stop the call under `id`, if this path runs it: it writes nothing.
    pub fn cancel(&mut self, id: &RequestId) -> bool {
        self.running.remove(id).map(|task| task.abort()).is_some()
    }

    /// Wait a little for the calls still running, as rmcp waits for its own.
    pub async fn close(&mut self) {
        let _ = tokio::time::timeout(CLOSE_GRACE, async { while self.tasks.join_next().await.is_some() {} }).await;
        self.tasks.abort_all();
    }
}
