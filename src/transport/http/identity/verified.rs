//! Tokens already verified, so an agent's next request with the same token
//! costs a hash and a lookup instead of a signature check.
//!
//! An agent sends the same access token on every request until it
//! expires, and checking its signature is most of what admitting a request
//! costs: beside an agent looping on many connections, those checks take
//! the processor from everyone else. A token that verified is remembered,
//! by its BLAKE3 digest (the token itself is not kept), with the agent it
//! names and its `exp`, and is admitted again from here until then.
//!
//! What could make the remembered answer wrong is looked at on every use:
//! - the key set changed (a key rotated out, the JWKS re-read): everything
//!   remembered is forgotten, so each token's signature is checked against
//!   the keys now trusted;
//! - the token expired: it is verified afresh, which refuses it;
//! - the agent was revoked: the caller checks revocation after the lookup,
//!   not once per token.
//!
//! Only admissions are remembered; a refused token is checked in full each
//! time. At most [`MOST_REMEMBERED`] tokens are held; when full, the
//! expired ones go, and if none has expired, all of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use crate::lane::Agent;

/// The most tokens remembered at once.
pub(super) const MOST_REMEMBERED: usize = 4096;

/// Verified tokens under the key set they were verified against.
pub(super) struct Verified<K> {
    held: Mutex<Held<K>>,
}

struct Held<K> {
    /// The key set the tokens were checked against.
    keys: Weak<K>,
    tokens: HashMap<[u8; 32], Remembered>,
}

#[derive(Clone)]
struct Remembered {
    agent: Agent,
    /// The token's `exp`, in seconds since the epoch.
    expires: u64,
}

impl<K> Default for Verified<K> {
    fn default() -> Self {
        Verified { held: Mutex::new(Held { keys: Weak::new(), tokens: HashMap::new() }) }
    }
}

impl<K> Verified<K> {
    /// The agent `token` named when it verified against `keys`, while it
    /// has not expired at `now` (seconds since the epoch).
    pub(super) fn agent(&self, token: &str, keys: &Arc<K>, now: u64) -> Option<Agent> {
        let mut held = self.under(keys);
        let digest = digest(token);
        let remembered = held.tokens.get(&digest)?;
        if now < remembered.expires {
            return Some(remembered.agent.clone());
        }
        held.tokens.remove(&digest);
        None
    }

    /// `token` verified against `keys` and names `agent` until `expires`.
    pub(super) fn remember(&self, token: &str, keys: &Arc<K>, agent: &Agent, expires: u64, now: u64) {
        let mut held = self.under(keys);
        if held.tokens.len() >= MOST_REMEMBERED {
            held.tokens.retain(|_, remembered| now < remembered.expires);
            if held.tokens.len() >= MOST_REMEMBERED {
                held.tokens.clear();
            }
        }
        held.tokens.insert(digest(token), Remembered { agent: agent.clone(), expires });
    }

    /// The tokens remembered under `keys`: none, if the key set changed
    /// since they were (what was verified before is forgotten).
    fn under(&self, keys: &Arc<K>) -> std::sync::MutexGuard<'_, Held<K>> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if !std::ptr::eq(held.keys.as_ptr(), Arc::as_ptr(keys)) {
            held.tokens.clear();
            held.keys = Arc::downgrade(keys);
        }
        held
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.held.lock().unwrap().tokens.len()
    }
}

fn digest(token: &str) -> [u8; 32] {
    *blake3::hash(token.as_bytes()).as_bytes()
}

/// Seconds since the epoch.
pub(super) fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(name: &str) -> Agent {
        Agent(name.into())
    }

    #[test]
    fn a_remembered_token_is_admitted_until_it_expires() {
        let (verified, keys) = (Verified::default(), Arc::new(1));
        assert!(verified.agent("t", &keys, 100).is_none(), "nothing remembered yet");
        verified.remember("t", &keys, &agent("ana"), 200, 100);
        assert_eq!(verified.agent("t", &keys, 199).map(|a| a.0), Some("ana".into()));
        assert!(verified.agent("t", &keys, 200).is_none(), "expired at its exp");
        assert_eq!(verified.len(), 0, "an expired token is forgotten");
        assert!(verified.agent("u", &keys, 100).is_none(), "another token is not admitted");
    }

    #[test]
    fn a_new_key_set_forgets_every_token() {
        let (verified, old, new) = (Verified::default(), Arc::new(1), Arc::new(1));
        verified.remember("t", &old, &agent("ana"), u64::MAX, 0);
        assert!(verified.agent("t", &old, 0).is_some());
        assert!(verified.agent("t", &new, 0).is_none(), "checked against the keys trusted now");
        assert!(verified.agent("t", &old, 0).is_none(), "and forgotten, not kept for the old set");
    }

    #[test]
    fn the_tokens_held_are_bounded() {
        let (verified, keys) = (Verified::default(), Arc::new(1));
        for n in 0..MOST_REMEMBERED {
            verified.remember(&format!("t{n}"), &keys, &agent("ana"), u64::MAX, 0);
        }
        assert_eq!(verified.len(), MOST_REMEMBERED);
        verified.remember("one more", &keys, &agent("ana"), u64::MAX, 0);
        assert_eq!(verified.len(), 1, "none had expired, so all went");
        assert!(verified.agent("one more", &keys, 0).is_some());
        for n in 0..MOST_REMEMBERED - 1 {
            verified.remember(&format!("t{n}"), &keys, &agent("ana"), 1, 0);
        }
        verified.remember("kept", &keys, &agent("ana"), u64::MAX, 5);
        assert_eq!(verified.len(), 2, "the expired went, the live stayed");
    }
}
