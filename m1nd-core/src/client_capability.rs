//! What a gateway may offer its upstream on its clients' behalf: MCP's
//! client capabilities `sampling`, `elicitation` and `roots`.
//!
//! With each, an upstream may send a request the other way, to the client:
//! a model completion (`sampling/createMessage`), a question to the person
//! (`elicitation/create`) or the client's roots (`roots/list`). Each lets the
//! upstream reach past the gateway to a session's client, so the gateway
//! offers none unless the policy names it (`client_capabilities` in
//! tools.toml), and `policy diff` files each one added as a loosening. The
//! same words name each one in the policy, in MCP's `capabilities` object,
//! in errors and in the guide: [`ClientCapability::key`].

/// One client capability a gateway policy may offer its upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientCapability {
    /// The upstream may ask the session's client for a model completion.
    Sampling,
    /// The upstream may ask the session's client to ask its person.
    Elicitation,
    /// The upstream may ask for the session's client's roots.
    Roots,
}

impl ClientCapability {
    /// Every capability, in the order the policy's help lists them.
    pub const ALL: [ClientCapability; 3] =
        [ClientCapability::Sampling, ClientCapability::Elicitation, ClientCapability::Roots];

    /// The word for it: a value of `client_capabilities`, and the key of
    /// MCP's client `capabilities` object.
    pub const fn key(self) -> &'static str {
        match self {
            ClientCapability::Sampling => "sampling",
            ClientCapability::Elicitation => "elicitation",
            ClientCapability::Roots => "roots",
        }
    }

    /// The request an upstream sends to use it.
    pub const fn method(self) -> &'static str {
        match self {
            ClientCapability::Sampling => "sampling/createMessage",
            ClientCapability::Elicitation => "elicitation/create",
            ClientCapability::Roots => "roots/list",
        }
    }

    /// The capability a `client_capabilities` value names, exactly.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }
}

impl std::fmt::Display for ClientCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_and_nothing_else_does() {
        for capability in ClientCapability::ALL {
            assert_eq!(ClientCapability::from_key(capability.key()), Some(capability));
        }
        for near in ["Sampling", "elicitations", "root", "tools", ""] {
            assert_eq!(ClientCapability::from_key(near), None, "{near:?}");
        }
    }
}
