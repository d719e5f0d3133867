//! Readers and writers of one process taking turns at SQLite's file lock.
//!
//! # The invariant
//!
//! 1. **A reader blocked by a commit of this process tries again as soon as
//!    that commit ends**, not after a nap: every connection's busy handler
//!    ([`wait_for_lock`]) waits on a condition variable that the end of each
//!    write transaction signals ([`Writing`]). It still gives up after
//!    [`BUSY_TIMEOUT`], as SQLite's own handler did.
//! 2. **A write transaction of this process does not begin while a reader of
//!    this process is waiting for its read lock** ([`Writing::begin`]), for
//!    at most [`LET_IN`]. Readers that got in make the next commit wait for
//!    their read to end, as SQLite always does; readers arriving during a
//!    commit are let in before the one after.
//!
//! # Why
//!
//! In rollback-journal mode a commit holds the lock that keeps new readers
//! out. SQLite's default busy handler sleeps 1 to 100 ms between tries, and a
//! writer with writes queued back to back takes the lock again well within
//! that: readers starved while the writes flowed. Measured with 32 writers
//! and no other reads (`scripts/loadtest/team.py --readers 0`), the human's
//! cockpit waited 1.8 s at p50. The two rules make a read wait for at most
//! about one commit.
//!
//! Other processes are not told when this one commits, nor this one when
//! they do: a reader waiting for another process's lock wakes every
//! [`RETRY`] and tries again. The turnstile is one per process, shared by
//! every store it opens; a test that opens several stores only makes them
//! take turns with each other too.

use std::cell::Cell;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::BUSY_TIMEOUT;

/// The longest a write waits for this process's readers to get their lock.
pub const LET_IN: Duration = Duration::from_millis(10);

/// How often a connection blocked by a lock tries again when nothing wakes it.
pub const RETRY: Duration = Duration::from_millis(1);

#[derive(Default)]
struct Counts {
    /// Write transactions of this process that have ended.
    ended: u64,
    /// Readers of this process waiting for their read lock.
    waiting: usize,
}

struct Turnstile {
    counts: Mutex<Counts>,
    changed: Condvar,
}

static TURNSTILE: Turnstile =
    Turnstile { counts: Mutex::new(Counts { ended: 0, waiting: 0 }), changed: Condvar::new() };

impl Turnstile {
    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

thread_local! {
    /// When this thread's connection first found the lock taken, this time.
    static BLOCKED_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The busy handler of every store connection: `count` is how many times it
/// was called for the lock being waited for (0 the first time). Returns
/// whether SQLite should try again.
pub fn wait_for_lock(count: i32) -> bool {
    let now = Instant::now();
    let since = BLOCKED_SINCE.with(|since| {
        if count == 0 || since.get().is_none() {
            since.set(Some(now));
        }
        since.get().unwrap_or(now)
    });
    if now.duration_since(since) >= BUSY_TIMEOUT {
        BLOCKED_SINCE.with(|since| since.set(None));
        return false;
    }
    let counts = TURNSTILE.lock();
    let seen = counts.ended;
    let _ = TURNSTILE.changed.wait_timeout_while(counts, RETRY, |counts| counts.ended == seen);
    true
}

/// A reader of this process on its way to its read lock; gone once it holds
/// it (or gave up).
#[must_use = "the reader counts as waiting only while this is held"]
pub struct Arriving(());

impl Arriving {
    pub fn new() -> Self {
        TURNSTILE.lock().waiting += 1;
        Arriving(())
    }
}

impl Drop for Arriving {
    fn drop(&mut self) {
        let mut counts = TURNSTILE.lock();
        counts.waiting = counts.waiting.saturating_sub(1);
        drop(counts);
        TURNSTILE.changed.notify_all();
    }
}

/// A write transaction of this process, from just before it begins to just
/// after it ended (committed or rolled back).
#[must_use = "the end of the write is signalled when this is dropped"]
pub struct Writing(());

impl Writing {
    /// Let this process's waiting readers take their lock first (for at most
    /// [`LET_IN`]), then stand for the write about to begin.
    pub fn begin() -> Self {
        let counts = TURNSTILE.lock();
        let _ = TURNSTILE.changed.wait_timeout_while(counts, LET_IN, |counts| counts.waiting > 0);
        Writing(())
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        TURNSTILE.lock().ended += 1;
        TURNSTILE.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_write_waits_for_a_reader_on_its_way_but_not_past_let_in() {
        let arriving = Arriving::new();
        let (began, began_rx) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let started = Instant::now();
            let writing = Writing::begin();
            began.send(started.elapsed()).ok();
            drop(writing);
        });
        let waited = began_rx.recv_timeout(Duration::from_secs(5)).expect("the write began");
        assert!(waited >= LET_IN, "the write began after {waited:?}, before the reader got in");
        drop(arriving);
        writer.join().expect("the writer thread");
    }

    #[test]
    fn a_blocked_connection_gives_up_after_the_busy_timeout() {
        assert!(wait_for_lock(0), "the first try waits and tries again");
        BLOCKED_SINCE.with(|since| since.set(Instant::now().checked_sub(BUSY_TIMEOUT)));
        assert!(!wait_for_lock(1), "blocked for the whole busy timeout: give up");
        assert!(wait_for_lock(0), "a new lock to wait for starts a new timeout");
    }
}
