//! Memory freed by closed sessions handed back to the system.
//!
//! # The invariant
//!
//! 1. Within [`PERIOD`] of a session closing, the pages the allocator holds
//!    free are returned to the system, at most once per [`PERIOD`].
//!
//! glibc's malloc keeps what a program frees for its own reuse: after 20,000
//! sessions had been closed the server's RSS stayed at its peak, and each
//! later flood of sessions grew it further, spread over malloc's per-thread
//! arenas. `malloc_trim(0)` gives the free pages of every arena back
//! (`madvise(MADV_DONTNEED)`). It walks the heap under malloc's locks, so it
//! runs on a blocking thread, and only when sessions have closed since the
//! last time. Elsewhere than glibc it does nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, Weak};
use std::time::Duration;

/// How often, at most, freed memory is handed back.
pub const PERIOD: Duration = Duration::from_secs(2);

/// Notes that memory was freed, and hands it back in the background.
#[derive(Debug)]
pub struct GiveBack {
    pending: Arc<AtomicBool>,
    started: Once,
}

impl Default for GiveBack {
    fn default() -> Self {
        Self { pending: Arc::new(AtomicBool::new(false)), started: Once::new() }
    }
}

impl GiveBack {
    /// Memory was freed: hand it back within [`PERIOD`]. The first call
    /// starts the background task on the current tokio runtime (there is one
    /// wherever rmcp closes a session); the task ends with `self`.
    pub fn freed(&self) {
        self.pending.store(true, Ordering::Release);
        self.started.call_once(|| {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(hand_back_while(Arc::downgrade(&self.pending)));
            }
        });
    }
}

/// Every [`PERIOD`], trim if anything was freed, while `pending` lives.
async fn hand_back_while(pending: Weak<AtomicBool>) {
    loop {
        tokio::time::sleep(PERIOD).await;
        let Some(flag) = pending.upgrade() else { return };
        let freed = flag.swap(false, Ordering::AcqRel);
        // Not held across the trim: the task must not keep its owner's flag
        // alive while it waits (the owner may be gone by then).
        drop(flag);
        if freed {
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: `malloc_trim` takes no pointer and touches only glibc's own
    // heap bookkeeping, under its own locks; it is safe to call from any
    // thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_is_handed_back_within_the_period_and_the_task_ends_with_its_owner() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async {
            let give_back = GiveBack::default();
            give_back.freed();
            assert!(give_back.pending.load(Ordering::Acquire));
            let deadline = tokio::time::Instant::now() + PERIOD * 3;
            while give_back.pending.load(Ordering::Acquire) {
                assert!(tokio::time::Instant::now() < deadline, "nothing handed back within {:?}", PERIOD * 3);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let weak = Arc::downgrade(&give_back.pending);
            drop(give_back);
            assert!(weak.upgrade().is_none(), "the task keeps its owner's flag alive");
        });
        // Without a runtime, noting is harmless.
        GiveBack::default().freed();
    }
}
