//! The downstream clients whose calls are in flight upstream: where an
//! upstream's request to a client (sampling, elicitation, roots) may go.
//!
//! One upstream connection serves every session, and a request the upstream
//! sends its client does not say which call it belongs to (over stdio
//! nothing links the two). The promises:
//!
//! 1. Such a request is relayed only when the gateway can tell whose it is:
//!    exactly one call is in flight on the connection, so the only session
//!    the upstream is serving is the one that made it ([`Callers::only`]).
//!    With none, or with several, it is refused and says why; it never goes
//!    to a session picked among several.
//! 2. A call is counted from before it is sent until its answer (or its
//!    abandonment) is in, by an [`InFlight`] that removes it when dropped,
//!    so a request the upstream sends while working on it is seen.
//! 3. Memory is bounded by the calls in flight: one entry each.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::{Peer, RoleServer};

/// The client of each call in flight on one upstream connection (a
/// downstream peer; generic only so that the counting is tested alone).
#[derive(Debug)]
pub(super) struct Callers<C = Peer<RoleServer>> {
    next: AtomicU64,
    in_flight: Mutex<Vec<(u64, C)>>,
}

impl<C> Default for Callers<C> {
    fn default() -> Self {
        Self { next: AtomicU64::new(0), in_flight: Mutex::new(Vec::new()) }
    }
}

/// Who is asked for what the upstream requests of a client.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Asked<C = Peer<RoleServer>> {
    /// The one call in flight is this client's.
    Only(C),
    /// No call is in flight.
    Nobody,
    /// This many calls are in flight, from one session or several.
    Several(usize),
}

/// One call in flight; dropping it ends it.
#[derive(Debug)]
pub(super) struct InFlight<'a, C = Peer<RoleServer>> {
    callers: &'a Callers<C>,
    id: u64,
}

impl<C: Clone> Callers<C> {
    /// Count a call by `client` as in flight until the guard is dropped.
    pub(super) fn enter(&self, client: C) -> InFlight<'_, C> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut calls) = self.in_flight.lock() {
            calls.push((id, client));
        }
        InFlight { callers: self, id }
    }

    /// The client to ask: the one whose call is the only one in flight.
    pub(super) fn only(&self) -> Asked<C> {
        let Ok(calls) = self.in_flight.lock() else { return Asked::Nobody };
        match calls.as_slice() {
            [] => Asked::Nobody,
            [(_, client)] => Asked::Only(client.clone()),
            several => Asked::Several(several.len()),
        }
    }
}

impl<C> Drop for InFlight<'_, C> {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.callers.in_flight.lock() {
            calls.retain(|(id, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_one_call_in_flight_has_a_client_to_ask() {
        let callers: Callers<&str> = Callers::default();
        assert_eq!(callers.only(), Asked::Nobody);
        let a = callers.enter("a");
        assert_eq!(callers.only(), Asked::Only("a"));
        {
            let _b = callers.enter("b");
            assert_eq!(callers.only(), Asked::Several(2), "two sessions' calls: neither is asked");
            let _again = callers.enter("b");
            assert_eq!(callers.only(), Asked::Several(3));
        }
        assert_eq!(callers.only(), Asked::Only("a"), "the others ended");
        drop(a);
        assert_eq!(callers.only(), Asked::Nobody);
    }
}
