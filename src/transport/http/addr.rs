//! `--http ADDR`: where to listen, written as a person writes it.
//!
//! # The invariant
//!
//! 1. `ADDR` is `IP:PORT`, `[IPv6]:PORT`, `HOST:PORT`, or an IP or `HOST`
//!    alone, which listens on [`DEFAULT_ADDR`]'s port. A bare number is
//!    refused, not read as a host: `1338` is not an address.
//! 2. A host name is resolved once, at start. Of its addresses the first
//!    IPv4 one is taken, else the first, and the server listens there and
//!    prints it. One address is chosen so that what is printed is what is
//!    bound.
//! 3. Resolving decides nothing about exposure: the loopback-or-token rule
//!    ([`security::check_exposure`](super::security::check_exposure)) judges
//!    the chosen address afterwards, so `localhost` needs no token and a name
//!    that resolves off the machine does.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use super::DEFAULT_ADDR;

/// Why an `--http` address was not understood.
#[derive(Debug, thiserror::Error)]
pub enum AddrError {
    #[error("the address is empty: write HOST:PORT, e.g. {DEFAULT_ADDR}")]
    Empty,
    #[error(
        "`{written}` names a port but no host: write 127.0.0.1:{port} to listen on this machine only (or \
         0.0.0.0:{port} for every interface, which also needs a token)"
    )]
    NoHost { written: String, port: u16 },
    #[error("`{0}` is not an address: write HOST:PORT, e.g. 127.0.0.1:{0}")]
    BarePort(String),
    #[error("`{port}` in `{written}` is not a port: a port is a number from 0 to 65535")]
    BadPort { written: String, port: String },
    #[error("cannot resolve the host name `{host}`: {source}; write an IP address such as 127.0.0.1 instead")]
    Unresolved { host: String, source: std::io::Error },
    #[error("the host name `{host}` resolves to no address")]
    NoAddress { host: String },
}

/// The port [`DEFAULT_ADDR`] names, used when `ADDR` has none.
pub fn default_port() -> u16 {
    DEFAULT_ADDR.parse::<SocketAddr>().map_or(0, |a| a.port())
}

/// Parse and, for a host name, resolve `written` (see the invariant).
pub fn parse(written: &str) -> Result<SocketAddr, AddrError> {
    let text = written.trim();
    if text.is_empty() {
        return Err(AddrError::Empty);
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Ok(ip) = text.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, default_port()));
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AddrError::BarePort(text.to_owned()));
    }
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => {
            let port = port
                .parse::<u16>()
                .map_err(|_| AddrError::BadPort { written: text.to_owned(), port: port.to_owned() })?;
            if host.is_empty() {
                return Err(AddrError::NoHost { written: text.to_owned(), port });
            }
            (host, port)
        }
        None => (text, default_port()),
    };
    let found: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|source| AddrError::Unresolved { host: host.to_owned(), source })?
        .collect();
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| found.first())
        .copied()
        .ok_or_else(|| AddrError::NoAddress { host: host.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_pass_as_written() {
        assert_eq!(parse("127.0.0.1:0").expect("v4").to_string(), "127.0.0.1:0");
        assert_eq!(parse("[::1]:8080").expect("v6").to_string(), "[::1]:8080");
        assert_eq!(parse(" 0.0.0.0:9 ").expect("trimmed").to_string(), "0.0.0.0:9");
    }

    #[test]
    fn an_address_without_a_port_takes_the_default_one() {
        assert_eq!(default_port(), 1338);
        assert_eq!(parse("127.0.0.1").expect("ip").to_string(), DEFAULT_ADDR);
        assert_eq!(parse("::1").expect("v6").port(), default_port());
    }

    #[test]
    fn localhost_resolves_to_loopback() {
        let addr = parse("localhost:1338").expect("localhost resolves");
        assert!(addr.ip().is_loopback(), "{addr}");
        assert_eq!(addr.port(), 1338);
        assert!(addr.is_ipv4(), "an IPv4 address is preferred: {addr}");
        assert_eq!(parse("LocalHost").expect("no port").port(), default_port());
    }

    #[test]
    fn what_is_not_an_address_says_what_to_write() {
        let bare = parse("1338").expect_err("a bare port");
        assert!(bare.to_string().contains("127.0.0.1:1338"), "{bare}");
        assert!(matches!(parse("localhost:http"), Err(AddrError::BadPort { .. })));
        assert!(matches!(parse("localhost:70000"), Err(AddrError::BadPort { .. })));
        assert!(matches!(parse("  "), Err(AddrError::Empty)));
        let hostless = parse(":45678").expect_err("no host");
        assert!(hostless.to_string().contains("127.0.0.1:45678"), "{hostless}");
        let unknown = parse("no-such-host.invalid:1338").expect_err("unresolvable");
        assert!(matches!(unknown, AddrError::Unresolved { .. } | AddrError::NoAddress { .. }), "{unknown}");
    }
}
