//! The tray's own host name: `m1nd-<32 random hex digits>.localhost`, drawn
//! once per server start.
//!
//! # The invariant
//!
//! The human's session lives on a host name that only this server's login
//! link names. Cookies have no port scope: a cookie set on `127.0.0.1` (or
//! `localhost`) goes to every server on that host, whatever its port, so any
//! other local server could receive the session and replay it, and a second
//! m1nd server's login would overwrite the first's. A host-only cookie on a
//! name of its own goes only to that name. Browsers (chromium included)
//! resolve every `*.localhost` name to the loopback address without asking
//! DNS, so the name needs no set-up; its label carries 128 random bits, so a
//! page that wants to send the browser to the same name on another port
//! cannot guess it. The name is printed only inside the login link.

use super::authority::{LoginError, random_hex};

/// What every instance's label starts with, so a person reading the address
/// bar sees whose it is.
const LABEL_PREFIX: &str = "m1nd-";

/// Random bytes in the label: 128 bits, 32 hex digits (a label holds 63).
const LABEL_BYTES: usize = 16;

/// The special-use domain (RFC 6761) browsers resolve to loopback.
const LOCALHOST: &str = ".localhost";

/// This server's host name for the human's pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceHost(String);

impl InstanceHost {
    /// A fresh name, from the operating system's randomness.
    pub fn random() -> Result<Self, LoginError> {
        Ok(Self(format!("{LABEL_PREFIX}{}{LOCALHOST}", random_hex(LABEL_BYTES)?)))
    }

    /// The name, lower-case, without a port.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// `http://<name>:<port>`, where the login links point.
    pub fn base(&self, port: u16) -> String {
        format!("http://{}:{port}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_one_unguessable_label_under_localhost() {
        let a = InstanceHost::random().expect("a name");
        let b = InstanceHost::random().expect("another");
        assert_ne!(a, b, "two starts drew the same name");
        let label = a.name().strip_suffix(LOCALHOST).expect("under .localhost");
        let digits = label.strip_prefix(LABEL_PREFIX).expect("the prefix");
        assert_eq!(digits.len(), 2 * LABEL_BYTES);
        assert!(digits.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{digits}");
        assert!(label.len() <= 63 && !label.contains('.'), "one DNS label: {label}");
        assert_eq!(a.base(1338), format!("http://{}:1338", a.name()));
    }
}
