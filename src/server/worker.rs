//! Tool calls run on a thread of their own, one at a time, in arrival order.
//!
//! A call may block: the store takes file locks, syncs to disk, and opens
//! whatever stands at its path (a FIFO blocks an open until a writer comes).
//! On the runtime's one thread a blocked call would also stop stdin from
//! being read, so the server would not even see the client leave. Here the
//! runtime only reads, writes and waits: when stdin closes, the session ends
//! (rmcp waits at most a few seconds for answers still being made) and the
//! process exits, whatever a call is doing. Calls still take turns as they did
//! on the runtime's thread, so the store sees the same order.

use std::sync::Arc;
use std::sync::mpsc;

use rmcp::model::{CallToolResult, JsonObject};
use tokio::sync::oneshot;

use super::call::Session;
use super::reply;

/// The sending end of the call thread.
pub struct Calls {
    jobs: mpsc::Sender<Job>,
}

struct Job {
    name: String,
    args: Option<JsonObject>,
    answer: oneshot::Sender<CallToolResult>,
}

impl Calls {
    /// Start the thread that answers calls with `session`.
    pub fn start(session: Arc<Session>) -> std::io::Result<Self> {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new().name("m1nd-calls".to_owned()).spawn(move || {
            for job in queue {
                let answer = session.call(&job.name, job.args.as_ref());
                let _ = job.answer.send(answer);
            }
        })?;
        Ok(Self { jobs })
    }

    /// Answer one call on the call thread.
    pub async fn call(&self, name: String, args: Option<JsonObject>) -> CallToolResult {
        let (answer, answered) = oneshot::channel();
        if self.jobs.send(Job { name, args, answer }).is_err() {
            return reply::error("the call could not be run: the server's call thread has stopped");
        }
        answered.await.unwrap_or_else(|_| {
            reply::error("the call failed before it was answered; nothing is known to have changed")
        })
    }
}
