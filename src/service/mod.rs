//! The service: the one typed core between every front end and the store.
//!
//! ```text
//!   stdio ─┐                 ┌─ MCP tools/call, tools/list (mcp::Server)
//!   HTTP ──┼─ transport ─────┤
//!          │                 └─ the human's pages: cockpit, tray, events
//!   CLI ───┴──────────────────────────┐
//!                                     ▼
//!          Service ── guard → handle → arguments ── kept answer? (no hop)
//!               │ reads, by lane                         │ writes
//!               ▼                                        ▼
//!          the read pool: N threads,             the writer: one thread,
//!          a connection each, a fair queue       group commits, the version watch
//! ```
//!
//! # What the service promises
//!
//! 1. **One way into the store.** The MCP handler on both transports, the
//!    tray's pages, acts and event streams, and the CLI's cockpit all call a
//!    [`Service`]. It alone holds the store's connections: one writer thread
//!    (`writer.rs`) lands every write of this process, and a small pool of
//!    readers (`readers.rs`) run reads in parallel, each on a connection and
//!    a read transaction of its own. The looks (the cockpit and the tray,
//!    cheap and bounded by the table's budgets) have a reader and a queue of
//!    their own, so a person's look never waits behind another client's
//!    `trace`.
//! 2. **Each verb resolved once.** A call's name goes through the
//!    [`Guard`] once and comes out as a [`Resolved`] handle; the handler
//!    ([`dispatch`]), the argument check and the store's reads are found from
//!    that handle by index, never by the name again. Refusals (the guard,
//!    the served-verb check, the arguments) are decided on the caller's task
//!    and never reach a thread of the store.
//! 3. **Typed errors.** Everything that fails is a [`ServiceError`], whose
//!    [`ErrorKind`] is the one place a failure becomes an HTTP status or a
//!    JSON-RPC code: a caller's mistake is 400 or 409, never 503.
//! 4. **Answers as bytes, kept.** A tool call's [`Answer`] carries the MCP
//!    result serialised once. The cockpit's answers over one state are kept
//!    (`answers.rs`), keyed by the store file's mark (its identity and
//!    SQLite's change counter); a caller compares that with the file's mark
//!    now and takes a kept answer without going to a reader at all.
//! 5. **Durable group commit.** Writes that wait together land together: one
//!    transaction, one sync, each write in a savepoint of its own; each is
//!    acknowledged only after the commit that holds it is durable.
//! 6. **Fair, bounded, stoppable reads.** Reads wait in one line per client
//!    (a lane) and are taken in turn; the lines and each queue are capped and
//!    a call past a cap is refused saying which. Each read has a time budget;
//!    a read whose caller left is dropped when its turn comes, and a running
//!    one stops at SQLite's next checkpoint.
//! 7. **Events pushed.** The writer publishes every store version it
//!    commits, or notices another process committed, on one
//!    [`tokio::sync::watch`] channel ([`Service::versions`]). Between changes
//!    an open tray tab costs no store read; changes made elsewhere are found
//!    by one cheap shared check of the database's `data_version`.

mod answer;
mod answers;
mod arguments;
mod call;
pub mod dispatch;
mod error;
mod fair;
mod held;
pub mod help;
mod jobs;
mod listen;
mod metrics;
pub mod output_schema;
mod readers;
mod stats;
mod trail;
mod writer;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use m1nd_policy::guard::{Guard, Resolved};
use m1nd_policy::runtime::{Request, View};
use rmcp::model::JsonObject;
use tokio::sync::{oneshot, watch};

use crate::COCKPIT;
use crate::audit::{self, Audit};
use crate::calls::Call as Calls;
use crate::store::tray::{Act, Acted, TrayState};
use crate::store::{Change, Done, Location, Op, Probe, Refusal, Write};

pub use answer::Answer;
pub use answers::KEPT;
pub use arguments::{ArgumentError, Checked, MAX_STRING_BYTES, ValueProblem};
pub use dispatch::Handler;
pub use error::{ErrorKind, ServiceError};
pub use fair::{Lane, QueueCaps, QueueFull};
pub use jobs::StoreHealth;
pub use metrics::gauge;
pub use stats::Stats;
pub use writer::VERSION_CHECK;

use answers::Answers;
use fair::FairQueue;
use jobs::{Cancel, ReadJob, ReadWork, WriteJob};
use stats::{Counters, Decision};
use trail::Trail;
use writer::{Message, WriterHandle};

/// A read's time budget when none is given: from its arrival to its answer.
pub const DEFAULT_CALL_BUDGET: Duration = Duration::from_secs(10);

/// How a service is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// Refuse every verb that writes.
    pub read_only: bool,
    /// Where the store is: a directory (`.m1nd` by default) or a PostgreSQL database.
    pub store: Location,
    /// Reader threads (each with a connection of its own).
    pub readers: usize,
    /// How many reads may wait.
    pub queue: QueueCaps,
    /// How long a read may take, waiting included.
    pub call_budget: Duration,
    /// Where each `tools/call`'s decision is recorded before it runs (`--audit`).
    pub audit: Option<Arc<Audit>>,
}

impl Options {
    /// The defaults for `store`: read-write, two readers, the default caps and budget.
    pub fn new(store: impl Into<Location>) -> Self {
        Self {
            read_only: false,
            store: store.into(),
            readers: default_readers(),
            queue: QueueCaps::default(),
            call_budget: DEFAULT_CALL_BUDGET,
            audit: None,
        }
    }

    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }
}

/// One reader per core, at least two (a slow read never holds up every
/// other), at most four (beyond that readers wait on the same disk).
pub fn default_readers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4)
}

/// The typed core. Cheap to clone: every clone talks to the same threads.
#[derive(Clone)]
pub struct Service(Arc<Shared>);

struct Shared {
    guard: Guard<'static>,
    read_only: bool,
    call_budget: Duration,
    /// The argument-driven reads, for the read pool.
    reads: Arc<FairQueue<ReadJob>>,
    /// The looks (cockpit, tray), for the look reader ([`ReadWork::is_look`]).
    looks: Arc<FairQueue<ReadJob>>,
    writer: WriterHandle,
    answers: Arc<Answers>,
    probe: Arc<Probe>,
    counters: Arc<Counters>,
    /// The `help` answer: it depends only on the table and the session's mode.
    help: Answer,
    /// The audit file, if `--audit` gave one.
    audit: Option<Arc<Audit>>,
    /// Set when the service goes: the listener (PostgreSQL) stops.
    stopped: Arc<AtomicBool>,
}

impl Drop for Shared {
    /// The readers stop once the queue is closed; the writer once its sender goes.
    fn drop(&mut self) {
        self.reads.close();
        self.looks.close();
        self.stopped.store(true, Ordering::Relaxed);
    }
}

/// A call the guard, the served-verb check and the argument check let
/// through: its verb, what answers it, and its arguments read into their
/// type (boxed: the enum of every verb's arguments is large).
struct Decided {
    verb: &'static m1nd_policy::Verb,
    handler: Handler,
    call: Box<crate::calls::Call>,
}

/// A call refused before it ran: the verb it resolved to, if it got that
/// far, and why.
type Undecided = (Option<&'static str>, ServiceError);

impl Service {
    /// Start the writer and the readers for `options.store`. The store is
    /// opened on first use, so a server can start before its store exists
    /// and say so on every call instead of refusing to start.
    pub fn start(options: Options) -> Result<Self, ServiceError> {
        let guard = Guard::new(&COCKPIT, options.read_only);
        let help = help::answer(&guard);
        let counters = Arc::new(Counters::default());
        let reads = Arc::new(FairQueue::new(options.queue));
        let looks = Arc::new(FairQueue::new(options.queue));
        let answers = Arc::new(Answers::default());
        let probe = Arc::new(Probe::new(&options.store));
        let writer = writer::start(options.store.clone(), Arc::clone(&counters), Arc::clone(&probe))
            .map_err(ServiceError::Thread)?;
        let stopped = Arc::new(AtomicBool::new(false));
        if let Location::Postgres(url) = &options.store {
            let (versions, counters, stop) = (writer.versions.clone(), Arc::clone(&counters), Arc::clone(&stopped));
            listen::start(url.clone(), versions, counters, Arc::clone(&probe), stop).map_err(ServiceError::Thread)?;
        }
        let shared = |queue: &Arc<FairQueue<ReadJob>>| readers::Shared {
            queue: Arc::clone(queue),
            answers: Arc::clone(&answers),
            probe: Arc::clone(&probe),
            counters: Arc::clone(&counters),
        };
        readers::start("read", options.readers, &options.store, &shared(&reads)).map_err(ServiceError::Thread)?;
        readers::start("look", 1, &options.store, &shared(&looks)).map_err(ServiceError::Thread)?;
        Ok(Self(Arc::new(Shared {
            guard,
            read_only: options.read_only,
            call_budget: options.call_budget,
            reads,
            looks,
            writer,
            answers,
            probe,
            counters,
            help,
            audit: options.audit,
            stopped,
        })))
    }

    /// The guard every call of this service goes through.
    pub fn guard(&self) -> &Guard<'static> {
        &self.0.guard
    }

    /// Whether this service refuses every verb that writes.
    pub fn read_only(&self) -> bool {
        self.0.read_only
    }

    /// Answer one `tools/call` from a client with no lane of its own: stdio's.
    pub async fn call(&self, name: &str, args: Option<&JsonObject>) -> Answer {
        self.call_in(Lane::default(), audit::STDIO, name, args).await
    }

    /// Answer one `tools/call` from the client `lane`, on `session` (as the
    /// audit trail names it: [`audit::session`]). Never fails: a refusal
    /// or a failure is an answer with `isError`, whose text says what
    /// happened. Dropping the future (the client cancelled or left) drops
    /// the call from its queue, or stops it at its next checkpoint. With an
    /// audit file, nothing runs before its decision is recorded (`trail.rs`).
    pub async fn call_in(&self, lane: Lane, session: &str, name: &str, args: Option<&JsonObject>) -> Answer {
        let cancel = Cancel::default();
        let _cancel_on_drop = cancel.on_drop();
        let trail = Trail::new(self.0.audit.as_deref(), session, name, args);
        let call = match self.decide(name, args) {
            Ok(call) => call,
            Err(undecided) => {
                let (verb, refused) = *undecided;
                self.0.counters.call(verb, Decision::Refused, None);
                return trail.refused(verb, refused);
            }
        };
        let verb = &*call.verb.name;
        if let Err(refused) = trail.admitted(verb) {
            self.0.counters.call(Some(verb), Decision::Refused, None);
            return refused;
        }
        let started = Instant::now();
        let outcome = self.run(lane, call, cancel).await;
        let took = started.elapsed();
        let answer = trail.answered(verb, outcome, took);
        let decision = if answer.is_error() { Decision::Failed } else { Decision::Answered };
        self.0.counters.call(Some(verb), decision, Some(took));
        answer
    }

    /// What the guard, the served-verb check and the argument check decide,
    /// on the caller's task; a refusal names the verb once it is resolved
    /// (boxed: refusals are the rare path, and the error is large).
    fn decide(&self, name: &str, args: Option<&JsonObject>) -> Result<Decided, Box<Undecided>> {
        let refused = |verb: Option<&'static str>, e: ServiceError| Box::new((verb, e));
        let Resolved { id, verb } = self.0.guard.check(name, args).map_err(|e| refused(None, e.into()))?;
        let named = Some(&*verb.name);
        let handler =
            dispatch::handler(id).ok_or_else(|| refused(named, ServiceError::not_served(verb, &self.0.guard)))?;
        let checked = arguments::check(&COCKPIT, verb, args).map_err(|e| refused(named, e.into()))?;
        // A reference that cannot parse names nothing on any menu: refused
        // here, before a reader thread or a read transaction is spent on it.
        if handler == Handler::Cockpit
            && let Some(select) = checked.text("select")
        {
            m1nd_policy::runtime::parse_reference(select)
                .map_err(|e| refused(named, m1nd_policy::runtime::CockpitError::Reference(e).into()))?;
        }
        let untypable =
            |why: String| refused(named, ArgumentError::Untypable { verb: verb.name.to_string(), why }.into());
        let call = match crate::calls::Call::parse(&verb.name, checked.to_json()) {
            Some(Ok(call)) => call,
            Some(Err(e)) => return Err(untypable(e.to_string())),
            None => return Err(untypable("the policy declares no such verb".into())),
        };
        Ok(Decided { verb, handler, call: Box::new(call) })
    }

    /// Run a call that was let through.
    async fn run(&self, lane: Lane, call: Decided, cancel: Cancel) -> Result<Answer, ServiceError> {
        let Decided { verb, handler, call: typed } = call;
        match (handler, *typed) {
            (Handler::Help, _) => Ok(self.0.help.clone()),
            (Handler::Cockpit, Calls::Cockpit(args)) => {
                let request = call::cockpit_request(&args);
                if let Some(answer) = self.kept(&request) {
                    return Ok(answer);
                }
                self.read(lane, cancel, |reply| ReadWork::Call { read: None, request, pairs: Vec::new(), reply }).await
            }
            (Handler::Store(Op::Read(read)), typed) => {
                let pairs = call::read_pairs(&typed);
                let request = Request::default();
                self.read(lane, cancel, |reply| ReadWork::Call { read: Some(read), request, pairs, reply }).await
            }
            (Handler::Store(Op::Write(Write::Memorize)), Calls::Memorize(args)) => {
                call::written("memorize", self.write(call::memorize(args)).await)
            }
            (Handler::Store(Op::Write(Write::Persist)), Calls::Persist(args)) => {
                let action = call::persist_action(args.action);
                if action.writes() {
                    return call::written("persist", self.write(call::checkpoint(action, &args)).await);
                }
                let expected = args.expected_store_version;
                self.read(lane, cancel, |reply| ReadWork::Persist { action, expected, reply }).await
            }
            // `Call::parse` reads the verb's own type, so the handler and the
            // type always agree; a mismatch is a bug, answered as one.
            (_, _) => Err(ServiceError::Arguments(ArgumentError::Untypable {
                verb: verb.name.to_string(),
                why: "its handler takes another verb's arguments".into(),
            })),
        }
    }

    /// The kept cockpit answer for this state, if there is one: the store
    /// file's mark now, compared with the mark the answer was composed at.
    fn kept(&self, request: &Request) -> Option<Answer> {
        let answer = self.0.answers.get(self.0.probe.mark()?, request)?;
        self.0.counters.count(&self.0.counters.kept_hits);
        Some(answer)
    }

    /// The view of the cockpit answer kept for `request` over this state.
    fn kept_view(&self, request: &Request) -> Option<View> {
        let answer = self.0.answers.get(self.0.probe.mark()?, request)?;
        self.0.counters.count(&self.0.counters.kept_hits);
        answer.view().cloned()
    }

    /// The queue `work` waits in: the looks' or the read pool's.
    fn queue_for(&self, work: &ReadWork) -> &FairQueue<ReadJob> {
        if work.is_look() { &self.0.looks } else { &self.0.reads }
    }

    /// Queue a read for its reader and wait for its answer.
    async fn read<T>(
        &self,
        lane: Lane,
        cancel: Cancel,
        work: impl FnOnce(oneshot::Sender<Result<T, ServiceError>>) -> ReadWork,
    ) -> Result<T, ServiceError> {
        let (reply, answered) = oneshot::channel();
        let job = ReadJob { work: work(reply), cancel, deadline: Instant::now() + self.0.call_budget };
        self.queue_for(&job.work).push(lane, job)?;
        answered.await.unwrap_or(Err(ServiceError::Dropped))
    }

    /// Hand a change to the writer and wait until its commit is durable.
    async fn write(&self, change: Change) -> Result<Done, Refusal> {
        let (reply, answered) = oneshot::channel();
        if self.0.writer.messages.send(Message::Write(WriteJob { change, reply })).is_err() {
            return Err(Refusal::Store(crate::store::StoreError::Interrupted));
        }
        answered.await.unwrap_or(Err(Refusal::Store(crate::store::StoreError::Interrupted)))
    }

    /// The cockpit's view at `request` (for the human's pages and the CLI).
    /// The answer kept for this state is used when there is one, as for the
    /// MCP verb.
    pub async fn view(&self, request: Request) -> Result<View, ServiceError> {
        if let Some(view) = self.kept_view(&request) {
            return Ok(view);
        }
        let answer = self.read(Lane::default(), Cancel::default(), |reply| ReadWork::View { request, reply }).await?;
        view_of(&answer)
    }

    /// [`Service::view`], waiting on this thread (for the CLI).
    pub fn view_blocking(&self, request: Request) -> Result<View, ServiceError> {
        let (reply, answered) = oneshot::channel();
        let deadline = Instant::now() + self.0.call_budget;
        let job = ReadJob { work: ReadWork::View { request, reply }, cancel: Cancel::default(), deadline };
        self.queue_for(&job.work).push(Lane::default(), job)?;
        view_of(&answered.blocking_recv().unwrap_or(Err(ServiceError::Dropped))?)
    }

    /// What the tray shows.
    pub async fn tray(&self) -> Result<TrayState, ServiceError> {
        self.read(Lane::default(), Cancel::default(), |reply| ReadWork::Tray { reply }).await
    }

    /// What `GET /health` reports: the store read now, on a reader of the
    /// looks', so no long read holds it up.
    pub async fn health(&self) -> Result<StoreHealth, ServiceError> {
        self.read(Lane::default(), Cancel::default(), |reply| ReadWork::Health { reply }).await
    }

    /// The human's act on the tray: `target`, seen with `receipt_hash` at
    /// `seen_version`. Only the tray's pages call this; over MCP the verbs
    /// behind it are human-only and refused by the guard.
    pub async fn act(
        &self,
        act: Act,
        target: String,
        receipt_hash: String,
        seen_version: u64,
    ) -> Result<Acted, ServiceError> {
        match self.write(Change::Act { act, target, receipt_hash, seen_version }).await {
            Ok(Done::Acted(acted)) => Ok(acted),
            Ok(_) => Err(ServiceError::Dropped),
            Err(Refusal::Act(refused)) => Err(ServiceError::Act(refused)),
            Err(Refusal::Store(e)) => Err(ServiceError::Store(e)),
        }
    }

    /// Every store version this process commits or sees committed: `None`
    /// until the store has been read (or while it cannot be).
    pub fn versions(&self) -> watch::Receiver<Option<u64>> {
        let receiver = self.0.writer.versions.subscribe();
        // A stopped writer publishes nothing more; the receiver then just waits.
        let _ = self.0.writer.messages.send(Message::Watched);
        receiver
    }

    /// What the service's threads have done so far, for tests and benches.
    pub fn stats(&self) -> Stats {
        self.0.counters.stats()
    }
}

/// The view in a cockpit answer (every answer the cockpit composes or keeps
/// carries one; any other is a fault of this process, not of the caller).
fn view_of(answer: &Answer) -> Result<View, ServiceError> {
    answer.view().cloned().ok_or(ServiceError::Dropped)
}
