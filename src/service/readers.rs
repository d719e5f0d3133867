//! The read pool: a few threads, each with a connection of its own, running
//! reads in parallel on their own read transactions.
//!
//! They take their work from one [`FairQueue`], so every client gets its
//! turn. A job whose caller left is dropped when its turn comes; a job past
//! its deadline is answered "over budget" without running; a running read
//! stops at the store's next checkpoint when either happens
//! ([`Store::stop_when`](crate::store::Store::stop_when)). Nothing here
//! writes: a read never blocks a reader, and in rollback-journal mode it
//! only makes the writer's commit wait for the read to end.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::answer::Answer;
use super::answers::Answers;
use super::call;
use super::error::ServiceError;
use super::fair::FairQueue;
use super::held::Held;
use super::jobs::{Cancel, ReadJob, ReadWork, StoreHealth};
use super::stats::Counters;
use crate::store::{Location, Probe, StoreError};

/// How long an idle reader waits for work before looking whether to stop.
const IDLE: Duration = Duration::from_millis(500);

/// What one reader's running job may still take, for its checkpoints.
#[derive(Default)]
struct Budget(Mutex<Option<(Instant, Cancel)>>);

impl Budget {
    fn set(&self, deadline: Instant, cancel: Cancel) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((deadline, cancel));
    }

    /// Whether the running job should stop now.
    fn spent(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|(deadline, cancel)| cancel.is_set() || Instant::now() > *deadline)
    }
}

/// What every reader shares.
pub struct Shared {
    pub queue: Arc<FairQueue<ReadJob>>,
    pub answers: Arc<Answers>,
    pub probe: Arc<Probe>,
    pub counters: Arc<Counters>,
}

/// Start `count` readers over the store at `store`, their threads named
/// `m1nd-{name}-N`.
pub fn start(name: &str, count: usize, store: &Location, shared: &Shared) -> std::io::Result<()> {
    for n in 0..count.max(1) {
        let reader = Reader {
            held: Held::new(store.clone()),
            queue: Arc::clone(&shared.queue),
            answers: Arc::clone(&shared.answers),
            probe: Arc::clone(&shared.probe),
            counters: Arc::clone(&shared.counters),
            budget: Arc::new(Budget::default()),
        };
        std::thread::Builder::new().name(format!("m1nd-{name}-{n}")).spawn(move || reader.serve())?;
    }
    Ok(())
}

struct Reader {
    held: Held,
    queue: Arc<FairQueue<ReadJob>>,
    answers: Arc<Answers>,
    probe: Arc<Probe>,
    counters: Arc<Counters>,
    budget: Arc<Budget>,
}

impl Reader {
    fn serve(mut self) {
        loop {
            let Some(job) = self.queue.pop(IDLE) else {
                if self.queue.is_closed() {
                    return;
                }
                continue;
            };
            if job.abandoned() {
                self.counters.count(&self.counters.abandoned);
                continue;
            }
            if Instant::now() > job.deadline {
                self.counters.count(&self.counters.over_budget);
                answer_over_budget(job.work);
                continue;
            }
            self.counters.count(&self.counters.reads);
            self.budget.set(job.deadline, job.cancel.clone());
            self.run(job.work, job.deadline);
        }
    }

    fn run(&mut self, work: ReadWork, deadline: Instant) {
        let budget = Arc::clone(&self.budget);
        let (answers, probe) = (&self.answers, &self.probe);
        let held = &mut self.held;
        let mut with = |f: &mut dyn FnMut(&mut crate::store::Store) -> Result<Answer, ServiceError>| {
            held.with(|store| {
                let budget = Arc::clone(&budget);
                store.stop_when(deadline, move || budget.spent());
                f(store)
            })
        };
        match work {
            ReadWork::Call { read, request, pairs, reply } => {
                let done = with(&mut |store| call::read(store, answers, probe, read, &request, &pairs));
                let _ = reply.send(done);
            }
            ReadWork::Persist { action, expected, reply } => {
                let done = with(&mut |store| call::persist_read(store, action, expected));
                let _ = reply.send(done);
            }
            ReadWork::View { request, reply } => {
                let answer = held.with(|store| call::cockpit(&store.snapshot()?, answers, probe, request));
                let _ = reply.send(answer);
            }
            ReadWork::Tray { reply } => {
                let _ = reply.send(held.with(|store| store.tray().map_err(ServiceError::from)));
            }
            ReadWork::Health { reply } => {
                let _ = reply.send(held.with(|store| {
                    Ok(StoreHealth { store_version: store.version()?, clock_skew_millis: store.clock_skew_millis()? })
                }));
            }
        }
    }
}

/// A job that waited past its deadline: told so, not run.
fn answer_over_budget(work: ReadWork) {
    let over = || ServiceError::Store(StoreError::Stopped);
    match work {
        ReadWork::Call { reply, .. } | ReadWork::Persist { reply, .. } => {
            let _ = reply.send(Err(over()));
        }
        ReadWork::View { reply, .. } => {
            let _ = reply.send(Err(over()));
        }
        ReadWork::Tray { reply } => {
            let _ = reply.send(Err(over()));
        }
        ReadWork::Health { reply } => {
            let _ = reply.send(Err(over()));
        }
    }
}
