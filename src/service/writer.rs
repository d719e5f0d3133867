//! The writer: one thread, one connection, every write of this process.
//!
//! It takes the first write waiting, then every other write already waiting
//! (up to [`MAX_BATCH`]), and lands them together in one group commit
//! ([`Store::apply`](crate::store::Store::apply)): one transaction, one sync,
//! each write in a savepoint of its own. Each caller gets its own result, and
//! only after the commit that holds its write is durable. So while one
//! commit syncs, the writes that arrive queue up and share the next one:
//! under load, many writes per sync; alone, a write waits for nobody. On a
//! disk that syncs faster than clients answer, a commit would be done before
//! the writers it acknowledged had sent their next writes, and groups would
//! shrink to a write or two per sync; so a group waits up to [`LINGER`] for
//! as many writes as the group before it held (PostgreSQL's `commit_delay`
//! and `commit_siblings` make the same trade).
//!
//! # Writes, and only writes
//!
//! The writer composes nothing for readers: the cockpit is composed when
//! someone asks for it, on a reader, and kept there ([`super::answers`]).
//! Composing the root after every commit would put a read transaction and
//! about a million instructions on the write path of every group, for a
//! kept answer that the next commit makes stale anyway, and a person's look
//! has a reader of its own (`looks`), so it waits at most for the commit in
//! flight, never behind other clients' reads.
//!
//! # The version watch
//!
//! After every commit the version it reached is published on a [`watch`]
//! channel. While anyone watches and no write comes for [`VERSION_CHECK`],
//! the writer asks SQLite whether another connection committed (`PRAGMA
//! data_version`, no transaction) and reads the version only then. So N open
//! event streams cost one cheap check per period between them, and no store
//! read at all while nothing changes. A PostgreSQL store is not polled: the
//! listener hears other replicas' commits (`listen.rs`).

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::held::Held;
use super::jobs::WriteJob;
use super::stats::Counters;
use crate::store::{Change, Done, Location, MAX_BATCH, Probe, Refusal, StoreError};

/// How long the writer waits for a write before it checks whether another
/// process changed the store (only while someone watches the version).
pub const VERSION_CHECK: Duration = Duration::from_millis(250);

/// The longest a group commit waits for the writers of the group before it
/// (see [`Writer::linger`]): a write's latency grows by at most this, and
/// only while others are writing too.
pub const LINGER: Duration = Duration::from_millis(2);

/// What the writer is sent.
pub enum Message {
    Write(WriteJob),
    /// Someone began watching the version: it wakes a writer that waited
    /// with no deadline, and reads the version if none was read yet.
    Watched,
}

/// The sending side, held by the service.
pub struct WriterHandle {
    pub messages: mpsc::Sender<Message>,
    pub versions: watch::Sender<Option<u64>>,
}

/// Start the writer over the store at `store`; on PostgreSQL it tells
/// `probe` of its own commits, so answers kept from before them are not
/// handed out (`store::NewestHeard`).
pub fn start(store: Location, counters: Arc<Counters>, probe: Arc<Probe>) -> std::io::Result<WriterHandle> {
    let (messages, queue) = mpsc::channel::<Message>();
    let (versions, _) = watch::channel(None);
    let mut writer = Writer {
        // A database's other writers are heard by the listener (`listen.rs`).
        polls: matches!(store, Location::Dir(_)),
        held: Held::new(store),
        versions: versions.clone(),
        counters,
        probe,
        last_group: 0,
        data_version: None,
    };
    std::thread::Builder::new().name("m1nd-write".to_owned()).spawn(move || writer.serve(&queue))?;
    Ok(WriterHandle { messages, versions })
}

struct Writer {
    /// Whether the idle check looks for other writers' commits (SQLite).
    polls: bool,
    held: Held,
    versions: watch::Sender<Option<u64>>,
    counters: Arc<Counters>,
    probe: Arc<Probe>,
    /// How many writes the last group commit held.
    last_group: usize,
    /// SQLite's `data_version` when the version was last published.
    data_version: Option<i64>,
}

impl Writer {
    fn serve(&mut self, queue: &mpsc::Receiver<Message>) {
        loop {
            let first = if self.polls && self.versions.receiver_count() > 0 {
                match queue.recv_timeout(VERSION_CHECK) {
                    Ok(message) => message,
                    Err(RecvTimeoutError::Timeout) => {
                        self.check_version();
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            } else {
                match queue.recv() {
                    Ok(message) => message,
                    Err(_) => return,
                }
            };
            let mut batch = Vec::new();
            let mut lingered = Duration::ZERO;
            let mut next = Some(first);
            while let Some(message) = next.take() {
                match message {
                    // The watcher already holds the last version published; the
                    // periodic check keeps it fresh. Only a first one needs a read.
                    Message::Watched if self.versions.borrow().is_none() => self.check_version(),
                    Message::Watched => {}
                    Message::Write(job) if job.reply.is_closed() => self.counters.count(&self.counters.abandoned),
                    Message::Write(job) => batch.push(job),
                }
                if batch.len() < MAX_BATCH {
                    next = queue.try_recv().ok().or_else(|| self.linger(queue, batch.len(), &mut lingered));
                }
            }
            self.last_group = batch.len();
            if !batch.is_empty() {
                self.commit(batch);
            }
        }
    }

    /// While the group has fewer writes than the last one, wait a little
    /// (at most [`LINGER`] per commit) for the writers of that group, whose
    /// next writes are on their way: one sync for them all instead of one
    /// for each few. A lone writer (a last group of one) never waits.
    fn linger(&self, queue: &mpsc::Receiver<Message>, have: usize, lingered: &mut Duration) -> Option<Message> {
        if have >= self.last_group.min(MAX_BATCH) || *lingered >= LINGER {
            return None;
        }
        let started = Instant::now();
        let message = queue.recv_timeout(LINGER - *lingered).ok();
        *lingered += started.elapsed();
        message
    }

    /// One group commit for `batch`; every caller gets its own result.
    fn commit(&mut self, batch: Vec<WriteJob>) {
        let changes: Vec<Change> = batch.iter().map(|job| job.change.clone()).collect();
        self.counters.count(&self.counters.commits);
        self.counters.add(&self.counters.writes, changes.len());
        self.counters.commit_group.observe(changes.len() as f64);
        let results = match self.held.with(|store| Ok::<_, StoreError>(store.apply(&changes))) {
            Ok(results) => results,
            Err(e) => changes.iter().map(|_| Err(Refusal::Store(e.clone()))).collect(),
        };
        // A store that moved or broke under the commit is opened afresh next time.
        if results.iter().any(|r| matches!(r, Err(Refusal::Store(e)) if !e.keeps_connection())) {
            self.held.reset();
        }
        let landed = results.iter().filter_map(|r| match r {
            Ok(Done::Memorized { store_version }) => Some(*store_version),
            Ok(Done::Persisted(outcome)) => Some(outcome.store_version),
            Ok(Done::Acted(acted)) => Some(acted.store_version()),
            Err(_) => None,
        });
        let newest = landed.max();
        // This replica's own commit is heard at once; the others' through `LISTEN`.
        if let (Some(version), Some(heard)) = (newest, self.probe.newest()) {
            heard.heard(version);
        }
        for (job, result) in batch.into_iter().zip(results) {
            let _ = job.reply.send(result);
        }
        self.publish(newest);
    }

    /// Tell every watcher about `version` if it moved. What SQLite's
    /// `data_version` says now is remembered, so the idle check does not
    /// read the store again for a change this thread already published.
    fn publish(&mut self, version: Option<u64>) {
        let Some(version) = version else { return };
        self.data_version = self.held.open_and_current().and_then(|s| s.data_version().ok());
        self.versions.send_if_modified(|seen| {
            let moved = *seen < Some(version);
            if moved {
                *seen = Some(version);
            }
            moved
        });
    }

    /// The idle check: has another connection committed since the version
    /// was last published? Only then is the version read.
    fn check_version(&mut self) {
        self.counters.count(&self.counters.checks);
        let now = self.held.open_and_current().and_then(|s| s.data_version().ok());
        if now.is_some() && now == self.data_version {
            return;
        }
        self.counters.count(&self.counters.check_reads);
        match self.held.with(|store| store.version()) {
            Ok(version) => {
                self.data_version = self.held.open_and_current().and_then(|s| s.data_version().ok());
                self.versions.send_if_modified(|seen| {
                    let moved = *seen != Some(version);
                    *seen = Some(version);
                    moved
                });
            }
            // Unreadable for now: say nothing, and look again next period.
            Err(_) => self.data_version = None,
        }
    }
}
