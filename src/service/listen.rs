//! The version watch on a PostgreSQL store: other replicas' commits,
//! heard through `LISTEN/NOTIFY` (`store::Listener`) instead of the
//! writer's idle polling, which serves a SQLite store.
//!
//! One thread, `m1nd-listen`, keeps a connection of its own. When a commit
//! to this store is heard it reads the version once and tells every
//! watcher (a tray tab's event stream, say) if it moved. Reads are
//! coalesced: at most one per [`COALESCE`], however many notifications
//! arrive, so a storm costs a bounded number of reads, and one of junk or
//! of other stores costs none. When the connection is lost (a database
//! restart, a network fault) it listens afresh, waiting a little longer
//! each time up to [`MOST_BACKOFF`], and reads the version once on
//! reconnecting, since commits made meanwhile were not heard.
//!
//! Its connection is the replica's one lasting tie to the database, so it
//! is also what tells the operator of an outage: one warning when the
//! database is lost and one line when it is back, with how long it was
//! gone ([`Reach`]), however many reconnections fail in between.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::stats::Counters;
use crate::store::{Heard, Listener, NewestHeard, PostgresUrl, Probe, StoreError};

/// The least time between two reads of the version.
pub const COALESCE: Duration = Duration::from_millis(25);

/// How long one wait for notifications lasts, between looks at whether the
/// service has stopped.
const WAIT: Duration = Duration::from_millis(250);

/// The first wait before listening again after a failure, and the longest.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
pub const MOST_BACKOFF: Duration = Duration::from_secs(2);

/// Start the listener for the store at `url`; it stops once `stopped` is set.
pub fn start(
    url: PostgresUrl,
    versions: watch::Sender<Option<u64>>,
    counters: Arc<Counters>,
    probe: Arc<Probe>,
    stopped: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let listen = Listen { url, versions, counters, probe, stopped, last_read: None, reach: Reach::default() };
    std::thread::Builder::new().name("m1nd-listen".to_owned()).spawn(move || listen.serve())?;
    Ok(())
}

struct Listen {
    url: PostgresUrl,
    versions: watch::Sender<Option<u64>>,
    counters: Arc<Counters>,
    /// Told what is heard, so kept cockpit answers last exactly while the
    /// version they were composed at is the newest heard (`store::NewestHeard`).
    probe: Arc<Probe>,
    stopped: Arc<AtomicBool>,
    last_read: Option<Instant>,
    reach: Reach,
}

/// Whether the database answered this thread last time it asked, and
/// since when it has not: each change is logged once.
#[derive(Default)]
struct Reach {
    lost_since: Option<Instant>,
}

impl Reach {
    /// The database failed to answer; logged only when it answered before.
    fn lost(&mut self, why: &StoreError) {
        if self.lost_since.is_none() {
            self.lost_since = Some(Instant::now());
            tracing::warn!(
                "lost the database ({why}); calls that need it are refused until it is back, and it is asked \
                 again every {} s at most",
                MOST_BACKOFF.as_secs()
            );
        }
    }

    /// The database answered; logged only when it had been lost.
    fn reached(&mut self) {
        if let Some(since) = self.lost_since.take() {
            tracing::info!("the database is back, after {} ms without it", since.elapsed().as_millis());
        }
    }
}

impl Listen {
    fn serve(mut self) {
        let mut backoff = FIRST_BACKOFF;
        while !self.stopped.load(Ordering::Relaxed) {
            let listener = match Listener::open(&self.url) {
                Ok(listener) => listener,
                Err(e) => {
                    self.deaf(&e);
                    self.pause(backoff);
                    backoff = (backoff * 2).min(MOST_BACKOFF);
                    continue;
                }
            };
            self.reach.reached();
            backoff = FIRST_BACKOFF;
            // Whatever committed while nobody listened; from here on, what is heard is vouched for.
            if let Some(version) = self.read(&listener) {
                self.probe.newest().into_iter().for_each(|h| h.listening_at(version));
                self.tell(version);
            }
            while !self.stopped.load(Ordering::Relaxed) {
                match listener.wait(WAIT) {
                    Ok(Heard::Nothing) => {}
                    Ok(Heard::Commits) => {
                        self.counters.count(&self.counters.notified);
                        self.coalesce();
                        // What arrived while coalescing is covered by the read below.
                        if let Err(e) = listener.wait(Duration::ZERO) {
                            self.deaf(&e);
                            break;
                        }
                        match self.read(&listener) {
                            Some(version) => {
                                self.probe.newest().into_iter().for_each(|h| h.heard(version));
                                self.tell(version);
                            }
                            // A version that cannot be read may have moved: vouch for nothing.
                            None => self.probe.newest().into_iter().for_each(NewestHeard::deaf),
                        }
                    }
                    Err(e) => {
                        self.deaf(&e);
                        break;
                    }
                }
            }
        }
    }

    /// Wait until [`COALESCE`] has passed since the last read.
    fn coalesce(&self) {
        if let Some(last) = self.last_read {
            let since = last.elapsed();
            if since < COALESCE {
                std::thread::sleep(COALESCE - since);
            }
        }
    }

    /// The database is lost: said once, and nothing heard is vouched for.
    fn deaf(&mut self, why: &StoreError) {
        self.probe.newest().into_iter().for_each(NewestHeard::deaf);
        self.reach.lost(why);
    }

    /// Read the version.
    fn read(&mut self, listener: &Listener) -> Option<u64> {
        self.last_read = Some(Instant::now());
        self.counters.count(&self.counters.check_reads);
        listener.version().ok()
    }

    /// Tell the watchers `version` if it moved. Called after the probe was
    /// told, so a watcher woken by a commit never gets a cockpit kept from
    /// before it.
    fn tell(&self, version: u64) {
        self.versions.send_if_modified(|seen| {
            let moved = *seen < Some(version);
            if moved {
                *seen = Some(version);
            }
            moved
        });
    }

    /// Sleep `pause`, waking early if the service stops.
    fn pause(&self, pause: Duration) {
        let until = Instant::now() + pause;
        while !self.stopped.load(Ordering::Relaxed) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20).min(until.saturating_duration_since(Instant::now())));
        }
    }
}
