//! Which downstream sessions subscribed to which resource, so that the
//! upstream's `notifications/resources/updated` reaches those sessions only
//! (surfaces.rs checks each subscription against the policy first).

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::{ErrorData as McpError, Peer, RoleServer};

/// How many resources the sessions of one gateway may subscribe to in all.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// Which downstream sessions subscribed to which URI: each session by the
/// key the audit trail names it by (`stdio`, or `http:` and a digest of its
/// `Mcp-Session-Id`), with the handle its updates are sent on.
#[derive(Default)]
pub struct Subscriptions(Mutex<HashMap<String, Vec<Subscriber>>>);

pub struct Subscriber {
    pub session: String,
    pub peer: Peer<RoleServer>,
}

impl Subscriptions {
    pub fn add(&self, uri: String, subscriber: Subscriber) -> Result<(), McpError> {
        let Ok(mut all) = self.0.lock() else { return Err(McpError::internal_error("subscriptions lost", None)) };
        all.retain(|_, sessions| {
            sessions.retain(|s| !s.peer.is_transport_closed());
            !sessions.is_empty()
        });
        let count: usize = all.values().map(Vec::len).sum();
        if count >= MAX_SUBSCRIPTIONS {
            return Err(McpError::invalid_request(
                format!(
                    "the gateway holds at most {MAX_SUBSCRIPTIONS} subscriptions across its sessions; unsubscribe \
                     from a resource first"
                ),
                None,
            ));
        }
        let sessions = all.entry(uri).or_default();
        sessions.retain(|s| s.session != subscriber.session);
        sessions.push(subscriber);
        Ok(())
    }

    /// Forget one session's subscription; says whether it was the last one
    /// to that URI (then the upstream is told too).
    pub fn remove(&self, uri: &str, session: &str) -> bool {
        let Ok(mut all) = self.0.lock() else { return false };
        let Some(sessions) = all.get_mut(uri) else { return false };
        let before = sessions.len();
        sessions.retain(|s| s.session != session && !s.peer.is_transport_closed());
        let removed = sessions.len() < before;
        if sessions.is_empty() {
            all.remove(uri);
            return removed;
        }
        false
    }

    pub fn sessions(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        let Ok(all) = self.0.lock() else { return Vec::new() };
        let open = |s: &&Subscriber| !s.peer.is_transport_closed();
        all.get(uri).map(|s| s.iter().filter(open).map(|s| s.peer.clone()).collect()).unwrap_or_default()
    }
}
