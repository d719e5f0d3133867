//! What a guarded server attests about itself, in the `_meta` of its
//! `initialize` result (and of `server/discover`, which rmcp answers from the
//! same server config): the object `m1nd gateway` serves, so a client pins an
//! in-process guard exactly as it pins the gateway.
//!
//! `{"io.m1nd/attestation": {"policy": "<64 hex>", "mode": "read-only", "definitions": "<64 hex>"}}`
//!
//! - `policy` is the gateway policy's digest, what `m1nd policy digest DIR`
//!   prints ([`m1nd_policy::policy::gateway_digest`]);
//! - `mode` the session's mode (a read-only request wins over the policy's);
//! - `definitions` the digest of the definitions the session is served
//!   ([`m1nd_policy::gateway::definitions_digest`]).
//!
//! The key is this crate's word only: an `io.m1nd/attestation` the inner
//! handler put in its own `_meta` is replaced, never merged.

use m1nd_policy::SessionMode;
use rmcp::model::MetaObject;
use serde_json::json;

/// The project-prefixed `_meta` key the attestation is served under.
pub const META_KEY: &str = "io.m1nd/attestation";

/// `meta` (the inner handler's own `_meta`, if any) with the attestation set.
pub fn attest(meta: Option<MetaObject>, policy: &str, mode: SessionMode, definitions: &str) -> MetaObject {
    let mut meta = meta.unwrap_or_default();
    meta.0.insert(META_KEY.to_owned(), json!({ "policy": policy, "mode": mode.key(), "definitions": definitions }));
    meta
}

/// Who asked for a read-only session the policy would have let write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskedBy {
    /// `m1nd gateway --read-only`.
    CommandLine,
    /// The server's own code ([`crate::Guarded::read_only`]).
    Server,
}

/// What a client is told about its session's mode and where it came from,
/// in the words both guards use (`m1nd gateway` and [`crate::Guarded`]).
/// `asked` is who asked for read-only, if anyone did.
pub fn announce(mode: SessionMode, declared: SessionMode, asked: Option<AskedBy>) -> String {
    let why = match (declared, asked) {
        (SessionMode::ReadWrite, Some(AskedBy::CommandLine)) => {
            "asked for on the command line; the policy allows read-write"
        }
        (SessionMode::ReadWrite, Some(AskedBy::Server)) => "asked for by the server; the policy allows read-write",
        _ => "the policy's mode",
    };
    let what = match mode {
        SessionMode::ReadOnly => "tools that write are neither listed nor callable",
        SessionMode::ReadWrite => "every tool the policy declares may be called, each call checked before it runs",
    };
    format!("Mode: {mode} ({why}): {what}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attestation_replaces_a_forged_one_and_keeps_the_rest() {
        let forged = json!({ META_KEY: {"policy": "0"}, "example.org/x": 1 });
        let meta = attest(serde_json::from_value(forged).ok(), "p", SessionMode::ReadOnly, "d");
        assert_eq!(meta.0[META_KEY], json!({ "policy": "p", "mode": "read-only", "definitions": "d" }));
        assert_eq!(meta.0["example.org/x"], 1);
        assert_eq!(attest(None, "p", SessionMode::ReadWrite, "d").0[META_KEY]["mode"], "read-write");
    }

    #[test]
    fn the_announcement_says_the_mode_and_why() {
        let asked = announce(SessionMode::ReadOnly, SessionMode::ReadWrite, Some(AskedBy::Server));
        assert!(asked.starts_with("Mode: read-only (asked for by the server;"), "{asked}");
        assert!(announce(SessionMode::ReadWrite, SessionMode::ReadWrite, None).contains("each call checked"));
        let typed = announce(SessionMode::ReadOnly, SessionMode::ReadWrite, Some(AskedBy::CommandLine));
        assert!(typed.contains("asked for on the command line"), "{typed}");
        assert!(
            announce(SessionMode::ReadOnly, SessionMode::ReadOnly, Some(AskedBy::Server)).contains("policy's mode")
        );
    }
}
