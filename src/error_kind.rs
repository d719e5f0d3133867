//! What a failure means to the caller, apart from who failed: the one place a
//! failure becomes an HTTP status, a JSON-RPC error code or an audit line's
//! `code`. It sits below every floor, so the service's errors and the
//! transports' own refusals (a full session table, say) speak alike, in the
//! gateway-only build too.

/// What a failure means to the caller, and so how each protocol says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong; the same request will fail again (400).
    Invalid,
    /// The policy or the session's mode forbids it (403).
    Forbidden,
    /// What the request names does not exist (404).
    NotFound,
    /// The state is not what the caller saw: re-read and decide again (409).
    Conflict,
    /// The store has no room for the write (507).
    Full,
    /// The store cannot serve right now; retrying later may work (503).
    Unavailable,
    /// A cap on what a client may have waiting was hit: slow down (429).
    Busy,
    /// A fault of the server or its data (500).
    Internal,
}

impl ErrorKind {
    /// The HTTP status this kind is answered with.
    pub const fn http_status(self) -> u16 {
        match self {
            ErrorKind::Invalid => 400,
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::Conflict => 409,
            ErrorKind::Full => 507,
            ErrorKind::Unavailable => 503,
            ErrorKind::Busy => 429,
            ErrorKind::Internal => 500,
        }
    }

    /// The kind's name, as an audit line's `code` writes it.
    pub const fn key(self) -> &'static str {
        match self {
            ErrorKind::Invalid => "invalid",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::NotFound => "not-found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Full => "full",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Busy => "busy",
            ErrorKind::Internal => "internal",
        }
    }

    /// The JSON-RPC error code for a protocol-level answer of this kind.
    /// (A tool call's failures are tool results with `isError`, not errors.)
    pub const fn jsonrpc_code(self) -> i32 {
        match self {
            ErrorKind::Invalid | ErrorKind::Forbidden | ErrorKind::Conflict => -32602,
            ErrorKind::NotFound => -32002,
            ErrorKind::Full | ErrorKind::Unavailable | ErrorKind::Busy | ErrorKind::Internal => -32603,
        }
    }
}
