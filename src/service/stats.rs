//! What the service's threads have done, counted as they go: for tests that
//! prove what a thing costs (no store read for an idle tab, one commit for
//! many writes) and for benches.

use std::sync::atomic::{AtomicU64, Ordering};

/// The counters, shared by the service's threads.
#[derive(Default)]
pub struct Counters {
    pub reads: AtomicU64,
    pub kept_hits: AtomicU64,
    pub writes: AtomicU64,
    pub commits: AtomicU64,
    pub abandoned: AtomicU64,
    pub over_budget: AtomicU64,
    pub checks: AtomicU64,
    pub check_reads: AtomicU64,
    pub notified: AtomicU64,
    pub roots_composed: AtomicU64,
}

impl Counters {
    pub fn count(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn add(&self, counter: &AtomicU64, n: usize) {
        counter.fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub fn stats(&self) -> Stats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Stats {
            reads: get(&self.reads),
            kept_hits: get(&self.kept_hits),
            writes: get(&self.writes),
            commits: get(&self.commits),
            abandoned: get(&self.abandoned),
            over_budget: get(&self.over_budget),
            checks: get(&self.checks),
            check_reads: get(&self.check_reads),
            notified: get(&self.notified),
            roots_composed: get(&self.roots_composed),
        }
    }
}

/// A copy of the counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Reads run on a reader (each one read transaction).
    pub reads: u64,
    /// Cockpit calls answered from a kept answer without a reader.
    pub kept_hits: u64,
    /// Changes handed to the writer.
    pub writes: u64,
    /// Group commits (each one transaction and one sync).
    pub commits: u64,
    /// Jobs dropped unrun because their caller had left.
    pub abandoned: u64,
    /// Reads refused because they waited past their time budget.
    pub over_budget: u64,
    /// Cheap `data_version` checks made while the writer was idle.
    pub checks: u64,
    /// Store reads made by those checks (only when one saw a change), and
    /// by the listener of a PostgreSQL store.
    pub check_reads: u64,
    /// Times the listener of a PostgreSQL store heard another commit (many
    /// notifications heard together count once).
    pub notified: u64,
    /// Cockpit roots the writer composed after a commit (one read each).
    pub roots_composed: u64,
}
