//! What the service's threads have done, counted as they go: for tests that
//! prove what a thing costs (no store read for an idle tab, one commit for
//! many writes), for benches, and for `GET /metrics`, which registers these
//! very counters ([`Counters::register`]) so that one count serves all three.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

/// What became of a call, as `m1nd_calls_total` labels it.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Decision {
    /// Refused before it ran (the guard, the served-verb or argument check).
    Refused,
    /// Ran, and answered without an error.
    Answered,
    /// Ran, and failed (the store could not, a stale version, a budget).
    Failed,
}

impl prometheus_client::encoding::EncodeLabelValue for Decision {
    fn encode(&self, encoder: &mut prometheus_client::encoding::LabelValueEncoder<'_>) -> Result<(), std::fmt::Error> {
        use std::fmt::Write;
        encoder.write_str(match self {
            Decision::Refused => "refused",
            Decision::Answered => "answered",
            Decision::Failed => "failed",
        })
    }
}

/// A call's labels: its verb as the table names it (never the caller's
/// spelling, which would be unbounded and the caller's words), and what
/// became of it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CallLabels {
    pub verb: &'static str,
    pub decision: Decision,
}

/// A verb's label, for its latency.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerbLabel {
    pub verb: &'static str,
}

/// The verb label of a call that named no verb of the table.
pub const UNRESOLVED: &str = "unresolved";

/// The counters, shared by the service's threads.
pub struct Counters {
    pub reads: Counter,
    pub kept_hits: Counter,
    pub writes: Counter,
    pub commits: Counter,
    pub abandoned: Counter,
    pub over_budget: Counter,
    pub checks: Counter,
    pub check_reads: Counter,
    pub notified: Counter,
    /// Calls by verb and decision.
    pub calls: Family<CallLabels, Counter>,
    /// How long the calls that ran took, by verb, from admission to answer.
    pub call_seconds: Family<VerbLabel, Histogram>,
    /// How many changes each group commit carried.
    pub commit_group: Histogram,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            reads: Counter::default(),
            kept_hits: Counter::default(),
            writes: Counter::default(),
            commits: Counter::default(),
            abandoned: Counter::default(),
            over_budget: Counter::default(),
            checks: Counter::default(),
            check_reads: Counter::default(),
            notified: Counter::default(),
            calls: Family::default(),
            // 50 µs to about 13 s: a kept cockpit to a read past its budget.
            call_seconds: Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.000_05, 4.0, 10))),
            // 1 to 512 changes a commit.
            commit_group: Histogram::new(exponential_buckets(1.0, 2.0, 10)),
        }
    }
}

impl Counters {
    pub fn count(&self, counter: &Counter) {
        counter.inc();
    }

    pub fn add(&self, counter: &Counter, n: usize) {
        counter.inc_by(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// Count one call: its verb (or [`UNRESOLVED`]), what became of it,
    /// and, when it ran, how long it took.
    pub fn call(&self, verb: Option<&'static str>, decision: Decision, took: Option<std::time::Duration>) {
        let verb = verb.unwrap_or(UNRESOLVED);
        self.calls.get_or_create(&CallLabels { verb, decision }).inc();
        if let Some(took) = took {
            self.call_seconds.get_or_create(&VerbLabel { verb }).observe(took.as_secs_f64());
        }
    }

    /// Register every count in `registry`, under the names `/metrics` shows.
    pub fn register(&self, registry: &mut Registry) {
        let counters: [(&str, &str, &Counter); 9] = [
            ("reads", "Reads run on a reader, each one read transaction", &self.reads),
            ("kept_hits", "Cockpit calls answered from a kept answer, without a reader", &self.kept_hits),
            ("writes", "Changes handed to the writer", &self.writes),
            ("commits", "Group commits: each one transaction, and on SQLite one sync", &self.commits),
            ("abandoned", "Jobs dropped unrun because their caller had left", &self.abandoned),
            ("over_budget", "Reads refused because they waited past their time budget", &self.over_budget),
            ("idle_checks", "Looks for other writers' commits while the writer was idle (SQLite)", &self.checks),
            ("check_reads", "Store reads made because a check or the listener saw a commit", &self.check_reads),
            ("notified", "Times the listener heard other replicas' commits (PostgreSQL)", &self.notified),
        ];
        for (name, help, counter) in counters {
            registry.register(name, help, counter.clone());
        }
        registry.register("calls", "Tool calls, by verb and what became of them", self.calls.clone());
        registry.register_with_unit(
            "call_duration",
            "How long admitted calls took, from admission to answer, by verb",
            Unit::Seconds,
            self.call_seconds.clone(),
        );
        registry.register("commit_group_size", "Changes carried by each group commit", self.commit_group.clone());
    }

    pub fn stats(&self) -> Stats {
        Stats {
            reads: self.reads.get(),
            kept_hits: self.kept_hits.get(),
            writes: self.writes.get(),
            commits: self.commits.get(),
            abandoned: self.abandoned.get(),
            over_budget: self.over_budget.get(),
            checks: self.checks.get(),
            check_reads: self.check_reads.get(),
            notified: self.notified.get(),
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
}
