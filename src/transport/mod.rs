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

/// How rmcp writes a successful JSON-RPC response, in its order: these
/// pieces around the id's JSON and the result's, then `}`. The transports that write a
/// kept answer's bytes themselves (stdio's fast path, HTTP's kept answers)
/// put them around the bytes, so the envelope is spelled once.
pub(crate) mod envelope {
    pub const BEFORE_ID: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";
    pub const BEFORE_RESULT: &[u8] = b",\"result\":";
}

use std::net::SocketAddr;

/// Why serving could not start or stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {addr}: {source}{}", listen_advice(*.addr, .source))]
    Listen { addr: SocketAddr, source: std::io::Error },
    /// The address would expose the server without the protection it needs.
    #[error(transparent)]
    Exposure(#[from] http::security::SecurityError),
    #[cfg(feature = "store")]
    #[error("cannot start the tray's login: {0}")]
    Login(#[from] http::human::authority::LoginError),
    #[error("the MCP session did not start: {0}")]
    Start(String),
    #[error("the MCP session ended abnormally: {0}")]
    Ended(String),
    #[cfg(feature = "store")]
    #[error(transparent)]
    Service(#[from] crate::service::ServiceError),
}

/// What to do when the address cannot be listened on, for the two causes a
/// person can fix: another program holds the port, or the port needs
/// privileges this process lacks.
fn listen_advice(addr: SocketAddr, source: &std::io::Error) -> String {
    match source.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "; another program is listening on port {port} (`ss -ltnp 'sport = :{port}'` names it): stop it, or \
             give another port, e.g. --http {ip}:{other}",
            port = addr.port(),
            ip = shown_ip(addr),
            other = addr.port().wrapping_add(1).max(1024),
        ),
        std::io::ErrorKind::PermissionDenied if addr.port() < 1024 => format!(
            "; ports below 1024 need privileges this process lacks: give a port from 1024 up, e.g. --http {}:1338",
            shown_ip(addr)
        ),
        std::io::ErrorKind::AddrNotAvailable => {
            format!(
                "; no interface of this machine has {}: give one it has, e.g. --http 127.0.0.1:{}",
                addr.ip(),
                addr.port()
            )
        }
        _ => String::new(),
    }
}

/// The IP as `--http` takes it: an IPv6 address in brackets.
fn shown_ip(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(v4) => v4.ip().to_string(),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_in_use_is_named_with_the_way_out() {
        let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = held.local_addr().expect("addr");
        let source = std::net::TcpListener::bind(addr).expect_err("in use");
        let said = ServeError::Listen { addr, source }.to_string();
        let port = addr.port();
        assert!(said.contains(&format!("another program is listening on port {port}")), "{said}");
        assert!(said.contains("--http 127.0.0.1:"), "{said}");
    }

    #[test]
    fn other_failures_say_only_what_happened() {
        let addr: SocketAddr = "127.0.0.1:9".parse().expect("addr");
        let source = std::io::Error::other("odd");
        assert_eq!(ServeError::Listen { addr, source }.to_string(), "cannot listen on 127.0.0.1:9: odd");
    }
}
