//! The read queue: every client gets its turn.
//!
//! Calls wait in one line per *lane* (a client: a stdio session, an HTTP
//! connection), and the readers take the front call of each waiting lane in
//! turn. A client that sends a thousand calls waits behind its own calls, not
//! in front of everyone else's: another client's call waits for at most one
//! call from each busy lane ahead of it. Both the lines and the whole queue
//! are capped; a call past a cap is refused at once, saying which cap.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

pub use crate::lane::Lane;

/// How many calls may wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueCaps {
    /// Calls one client may have waiting.
    pub per_lane: usize,
    /// Calls all clients together may have waiting.
    pub total: usize,
}

impl Default for QueueCaps {
    fn default() -> Self {
        Self { per_lane: 32, total: 1024 }
    }
}

/// A call refused because a queue is full; nothing was run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueFull {
    #[error("this client already has {0} calls waiting (the cap, --max-queued-per-client); wait for their answers")]
    Lane(usize),
    #[error("the server already has {0} calls waiting (the cap, --max-queued); retry shortly")]
    Total(usize),
    #[error("the server is stopping")]
    Closed,
}

pub struct FairQueue<T> {
    caps: QueueCaps,
    inner: Mutex<Lines<T>>,
    ready: Condvar,
}

struct Lines<T> {
    lines: HashMap<Lane, VecDeque<T>>,
    /// Lanes with a call waiting, in the order they get their next turn.
    turns: VecDeque<Lane>,
    waiting: usize,
    closed: bool,
}

impl<T> FairQueue<T> {
    pub fn new(caps: QueueCaps) -> Self {
        let lines = Lines { lines: HashMap::new(), turns: VecDeque::new(), waiting: 0, closed: false };
        Self { caps, inner: Mutex::new(lines), ready: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, Lines<T>> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queue `item` at the back of `lane`'s line.
    pub fn push(&self, lane: Lane, item: T) -> Result<(), QueueFull> {
        let mut inner = self.lock();
        if inner.closed {
            return Err(QueueFull::Closed);
        }
        if inner.waiting >= self.caps.total {
            return Err(QueueFull::Total(self.caps.total));
        }
        let line = inner.lines.entry(lane).or_default();
        if line.len() >= self.caps.per_lane {
            return Err(QueueFull::Lane(self.caps.per_lane));
        }
        line.push_back(item);
        if line.len() == 1 {
            inner.turns.push_back(lane);
        }
        inner.waiting += 1;
        drop(inner);
        self.ready.notify_one();
        Ok(())
    }

    /// The next call, in turn; waits up to `wait` for one. `None` when the
    /// wait ran out, or the queue is closed and empty.
    pub fn pop(&self, wait: Duration) -> Option<T> {
        let mut inner = self.lock();
        loop {
            if let Some(lane) = inner.turns.pop_front() {
                // A lane takes a turn only while its line holds a call.
                let Some(line) = inner.lines.get_mut(&lane) else { continue };
                let Some(item) = line.pop_front() else { continue };
                if line.is_empty() {
                    inner.lines.remove(&lane);
                } else {
                    inner.turns.push_back(lane);
                }
                inner.waiting -= 1;
                return Some(item);
            }
            if inner.closed {
                return None;
            }
            let (next, timeout) = self.ready.wait_timeout(inner, wait).unwrap_or_else(|poisoned| poisoned.into_inner());
            inner = next;
            if timeout.timed_out() && inner.turns.is_empty() {
                return None;
            }
        }
    }

    /// Refuse everything from now on and wake every waiting reader.
    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// Whether the queue refuses new calls.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// How many calls wait now.
    pub fn waiting(&self) -> usize {
        self.lock().waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Duration = Duration::from_millis(1);

    #[test]
    fn lanes_take_turns() {
        let queue = FairQueue::new(QueueCaps::default());
        for n in 0..5 {
            queue.push(Lane(1), (1, n)).expect("push");
        }
        queue.push(Lane(2), (2, 0)).expect("push");
        queue.push(Lane(3), (3, 0)).expect("push");
        queue.push(Lane(2), (2, 1)).expect("push");
        let order: Vec<(u64, i32)> = std::iter::from_fn(|| queue.pop(NOW)).collect();
        assert_eq!(order, [(1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (1, 2), (1, 3), (1, 4)]);
        assert_eq!(queue.waiting(), 0);
    }

    #[test]
    fn caps_refuse_and_say_which() {
        let queue = FairQueue::new(QueueCaps { per_lane: 2, total: 3 });
        queue.push(Lane(1), 0).expect("1");
        queue.push(Lane(1), 1).expect("2");
        assert_eq!(queue.push(Lane(1), 2), Err(QueueFull::Lane(2)));
        queue.push(Lane(2), 3).expect("3");
        assert_eq!(queue.push(Lane(3), 4), Err(QueueFull::Total(3)));
        assert!(QueueFull::Lane(2).to_string().contains("--max-queued-per-client"));
        queue.pop(NOW).expect("one taken");
        queue.push(Lane(3), 5).expect("room again");
        queue.close();
        assert_eq!(queue.push(Lane(4), 6), Err(QueueFull::Closed));
        assert_eq!(std::iter::from_fn(|| queue.pop(NOW)).count(), 3, "what waits is still served");
    }
}
