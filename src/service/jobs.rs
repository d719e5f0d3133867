//! The work the service hands to its threads, and how a job knows its
//! caller still wants it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use m1nd_policy::runtime::Request;
use tokio::sync::oneshot;

use super::answer::Answer;
use super::error::ServiceError;
use crate::store::tray::TrayState;
use crate::store::{Change, Done, PersistAction, Read, Refusal};

/// What a reader does for a job.
pub enum ReadWork {
    /// The cockpit card, or one of the store's reads.
    /// `read` is `None` for the cockpit, which answers `request`; a store
    /// read takes the text arguments `pairs`, read from the typed call.
    Call {
        read: Option<Read>,
        request: Request,
        pairs: Vec<(&'static str, String)>,
        reply: oneshot::Sender<Result<Answer, ServiceError>>,
    },
    /// `persist status` or `persist load`: the counts, checked against `expected`.
    Persist { action: PersistAction, expected: Option<u64>, reply: oneshot::Sender<Result<Answer, ServiceError>> },
    /// The cockpit's view for the human's pages and the CLI.
    View { request: Request, reply: oneshot::Sender<Result<Answer, ServiceError>> },
    /// What the tray shows.
    Tray { reply: oneshot::Sender<Result<TrayState, ServiceError>> },
    /// What `GET /health` reports of the store.
    Health { reply: oneshot::Sender<Result<StoreHealth, ServiceError>> },
}

impl ReadWork {
    /// Whether this is a look: the cockpit (MCP or the human's pages), the
    /// tray, or a health check. A look is bounded by the table's budgets and
    /// costs about a millisecond, so looks have a reader of their own and
    /// never wait behind the argument-driven reads (`trace` and the like): a
    /// load balancer's check must not fail because a long read is running.
    pub fn is_look(&self) -> bool {
        matches!(
            self,
            ReadWork::Call { read: None, .. } | ReadWork::View { .. } | ReadWork::Tray { .. } | ReadWork::Health { .. }
        )
    }
}

/// What a health check learns by reading the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreHealth {
    /// The `store_version` the read saw.
    pub store_version: u64,
    /// How far this machine's clock is ahead of the database's, in
    /// milliseconds (behind when negative); `None` on SQLite, which has no
    /// clock of its own. Replicas write the database's time, so this never
    /// misorders a write, but it is worth watching: this machine's logs and
    /// timeouts use its own clock.
    pub clock_skew_millis: Option<i64>,
}

/// A read, with its deadline and its caller's flag.
pub struct ReadJob {
    pub work: ReadWork,
    pub cancel: Cancel,
    /// When the job's time budget runs out, queueing included.
    pub deadline: Instant,
}

impl ReadJob {
    /// Whether whoever sent the job has stopped waiting for its answer.
    pub fn abandoned(&self) -> bool {
        self.cancel.is_set()
            || match &self.work {
                ReadWork::Call { reply, .. } | ReadWork::Persist { reply, .. } => reply.is_closed(),
                ReadWork::View { reply, .. } => reply.is_closed(),
                ReadWork::Tray { reply } => reply.is_closed(),
                ReadWork::Health { reply } => reply.is_closed(),
            }
    }
}

/// A write for the writer's next group commit.
pub struct WriteJob {
    pub change: Change,
    pub reply: oneshot::Sender<Result<Done, Refusal>>,
}

/// Set when the caller of a job goes away (its future was dropped: the
/// client cancelled, or its connection closed). A job checks it before it
/// starts, and a running read checks it at SQLite's progress checkpoints.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A guard that sets the flag when dropped, whichever way its scope ends.
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Sets its [`Cancel`] when dropped.
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.0.store(true, Ordering::Relaxed);
    }
}
