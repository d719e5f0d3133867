//! Which client a call comes from. The service's fair queue gives each lane
//! its share; the transports name the lane (one per agent a per-agent token
//! names, else one per MCP session, else one per accepted connection), so
//! the type sits below both.

/// The agent a per-agent access token named (its `sub`, checked to be
/// plain text by `transport::http::identity`): a request extension, read
/// for the call's lane and the audit trail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent(pub std::sync::Arc<str>);

/// Which client a call comes from, for its fair share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lane(pub u64);

impl Lane {
    /// The bit that keeps session lanes apart from connection lanes.
    const SESSION: u64 = 1 << 63;

    /// The lane of the `n`th connection a listener accepted (`n` from 1;
    /// lane 0 is the default one of stdio and the CLI).
    pub fn connection(n: u64) -> Self {
        Lane(n & !Self::SESSION)
    }

    /// The lane of an MCP session, whichever connection carries its calls:
    /// a legacy HTTP client opens many connections over one session.
    pub fn session(id: &str) -> Self {
        Self::hashed("session", id)
    }

    /// The lane of an agent a per-agent access token named, whatever
    /// connections and sessions its calls arrive on: an agent that opens
    /// forty connections still gets one share.
    pub fn agent(name: &str) -> Self {
        Self::hashed("agent", name)
    }

    fn hashed(kind: &str, id: &str) -> Self {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        (kind, id).hash(&mut hasher);
        Lane(hasher.finish() | Self::SESSION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_and_connections_get_lanes_apart() {
        assert_eq!(Lane::session("a"), Lane::session("a"), "a session keeps its lane across connections");
        assert_ne!(Lane::session("a"), Lane::session("b"));
        assert_eq!(Lane::agent("alice"), Lane::agent("alice"));
        assert_ne!(Lane::agent("alice"), Lane::session("alice"), "an agent is not a session of the same name");
        assert_ne!(Lane::connection(1), Lane::connection(2));
        assert_ne!(Lane::connection(1), Lane::default(), "lane 0 is stdio's and the CLI's");
        for n in [1, 2, u64::MAX] {
            assert_eq!(Lane::connection(n).0 & Lane::SESSION, 0, "a connection lane never looks like a session's");
        }
        assert_ne!(Lane::session("a").0 & Lane::SESSION, 0);
    }
}
