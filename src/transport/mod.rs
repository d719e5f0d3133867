//! The transports: how MCP messages, and the human's pages, reach the
//! [`Server`](crate::mcp::Server).
//!
//! - [`stdio`]: newline-delimited JSON-RPC on stdin/stdout, framing only.
//! - [`http`]: Streamable HTTP at `/mcp` beside the human's pages, behind
//!   the checks and limits that decide *who* may talk and for how long.
//!
//! Neither reads a tool name or an argument: every message goes to the one
//! server value, and every call from there to the one service.

pub mod http;
pub mod request;
pub mod stdio;

use std::net::SocketAddr;

/// Why serving could not start or stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    /// The address would expose the server without the protection it needs.
    #[error(transparent)]
    Exposure(#[from] http::security::SecurityError),
    #[error("cannot start the tray's login: {0}")]
    Login(#[from] http::human::authority::LoginError),
    #[error("the MCP session did not start: {0}")]
    Start(String),
    #[error("the MCP session ended abnormally: {0}")]
    Ended(String),
    #[error(transparent)]
    Service(#[from] crate::service::ServiceError),
}
