//! Each agent's requests take turns: at most [`AT_ONCE`] of one agent are
//! worked on at a time, the rest wait (costing nothing) in arrival order,
//! and past [`MOST_WAITING`] waiting the agent is told to come back later.
//!
//! The fair queue of the readers (`service::fair`) shares out the readers
//! per agent, but everything before a reader (reading the request, checking
//! its token, dispatching, writing the answer) runs on the server's few
//! worker threads in whatever order requests arrive. An agent looping on
//! forty connections then has forty requests in that work at once, and
//! another agent's one request waits for a processor behind them, not for a
//! reader. Measured with `scripts/bench-agents.sh` (docs/benchmarks.md §6):
//! another agent's `doctor` p50 rose 5.5× beside 40 looping connections
//! and 1.9× beside 4; with turns of 4 it rose 2.4–3.4×, with turns of 2
//! 1.9–2.3×, and the looping agent was served as fast either way (the
//! processors, not its turns, bound it). Holding each agent to a few
//! requests at a time gives forty connections the footprint of two.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::lane::Agent;

/// Requests of one agent worked on at once.
pub const AT_ONCE: usize = 2;

/// Requests of one agent waiting for a turn; past it, refused (429).
pub const MOST_WAITING: usize = 64;

/// Agents remembered; past it, those with nothing in hand are forgotten.
const MOST_AGENTS: usize = 4096;

/// The turns of every agent.
#[derive(Default)]
pub(super) struct Turns {
    agents: Mutex<HashMap<Arc<str>, Arc<Semaphore>>>,
}

/// An agent has [`MOST_WAITING`] requests waiting already.
#[derive(Debug, thiserror::Error)]
#[error(
    "this agent already has {AT_ONCE} requests being served and {MOST_WAITING} waiting; wait for answers \
     before sending more"
)]
pub struct TooManyWaiting;

impl Turns {
    /// Wait for `agent`'s turn; the permit is the turn, held until dropped.
    pub(super) async fn take(&self, agent: &Agent) -> Result<OwnedSemaphorePermit, TooManyWaiting> {
        let turns = {
            let mut agents = self.agents.lock().unwrap_or_else(|p| p.into_inner());
            if agents.len() >= MOST_AGENTS && !agents.contains_key(&agent.0) {
                agents.retain(|_, turns| Arc::strong_count(turns) > 1);
            }
            Arc::clone(agents.entry(Arc::clone(&agent.0)).or_insert_with(|| Arc::new(Semaphore::new(AT_ONCE))))
        };
        // Every holder of this Arc but the map is a request waiting or served.
        if Arc::strong_count(&turns) > 1 + AT_ONCE + MOST_WAITING {
            return Err(TooManyWaiting);
        }
        // The semaphore is never closed.
        turns.acquire_owned().await.map_err(|_| TooManyWaiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_agent_is_served_a_few_at_a_time_and_others_are_not_held_up() {
        let turns = Arc::new(Turns::default());
        let (busy, other) = (Agent("busy".into()), Agent("other".into()));
        let mut held = Vec::new();
        for _ in 0..AT_ONCE {
            held.push(turns.take(&busy).await.expect("a turn"));
        }
        let waiting = {
            let (turns, busy) = (Arc::clone(&turns), busy.clone());
            tokio::spawn(async move { turns.take(&busy).await.map(drop) })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the fifth waits for a turn");
        let _other = turns.take(&other).await.expect("another agent goes straight in");
        held.pop();
        waiting.await.expect("joins").expect("its turn came");
    }

    #[tokio::test]
    async fn past_the_waiting_cap_an_agent_is_refused() {
        let turns = Arc::new(Turns::default());
        let busy = Agent("busy".into());
        let _held: Vec<_> = futures_util::future::join_all((0..AT_ONCE).map(|_| turns.take(&busy))).await;
        let mut waiting = Vec::new();
        for _ in 0..MOST_WAITING {
            let (turns, busy) = (Arc::clone(&turns), busy.clone());
            waiting.push(tokio::spawn(async move { turns.take(&busy).await.map(drop) }));
        }
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(turns.take(&busy).await.is_err(), "one more than the cap");
        waiting.iter().for_each(tokio::task::JoinHandle::abort);
    }
}
