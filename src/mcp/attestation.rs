//! What the server attests about itself: the digests of the policy it was
//! compiled from and of the widget template built into it, and the session's
//! mode (`read-only` or `read-write`), served in the `_meta` of `initialize` (and of
//! `server/discover`, which rmcp answers from the same server config), so
//! that a client can pin the exact policy and template it reviewed.
//! `m1nd gateway` serves the same object with its gateway policy's digest
//! and, instead of a widget, the digest of the upstream definitions it
//! serves (see [`gateway_meta`]).
//!
//! The value under [`META_KEY`] is an object keyed by what is attested
//! (`policy`, `widget`, `definitions`, `mode`), so further digests can sit
//! beside them without changing the shape a pinning client already reads.

#[cfg(feature = "store")]
use crate::{COCKPIT, widget};
use m1nd_policy::SessionMode;
use rmcp::model::MetaObject;
use serde_json::{Map, json};

/// The project-prefixed `_meta` key the attestation is served under.
pub use m1nd_guard::attestation::META_KEY;

/// `{ "io.m1nd/attestation": { "policy": "<64 hex>", "widget": "<64 hex>", "mode": "read-only" } }`.
#[cfg(feature = "store")]
pub fn meta(mode: SessionMode) -> MetaObject {
    attested(json!({ "policy": &*COCKPIT.digest, "widget": widget::full_digest(), "mode": mode.key() }))
}

/// What `m1nd gateway` attests: `policy` is the gateway policy's digest
/// (`m1nd_policy::policy::gateway_digest`, what `m1nd policy digest DIR`
/// prints), `mode` the session's mode (read-only on the command line wins
/// over the policy's), and `definitions` the digest of the upstream
/// definitions the session is served (`m1nd_policy::gateway::definitions_digest`).
/// With `--shadow DIR`, `shadow_policy` is the shadow policy's digest: a
/// policy evaluated beside `policy` and recorded, never enforced. The key is
/// absent without one, so a client pinning `policy` alone sees no change.
pub fn gateway_meta(policy: &str, mode: SessionMode, definitions: &str, shadow: Option<&str>) -> MetaObject {
    // The object the in-process guard attests, with the shadow beside it.
    let mut meta = m1nd_guard::attestation::attest(None, policy, mode, definitions);
    if let (Some(shadow), Some(value)) = (shadow, meta.0.get_mut(META_KEY)) {
        value["shadow_policy"] = shadow.into();
    }
    meta
}

/// What `m1nd gateway --fleet` attests: `policy` is the fleet's digest
/// (`m1nd_policy::gateway::fleet::Fleet::digest`, what `m1nd policy digest DIR`
/// prints for a fleet), `mode` read-write when any member's session may
/// write, `definitions` the digest of every definition served under its
/// served name, and `upstreams` each member's name, prefix, policy digest
/// and mode, so a client can pin any one of them.
pub fn fleet_meta(fleet: &str, mode: SessionMode, definitions: &str, upstreams: Vec<serde_json::Value>) -> MetaObject {
    attested(json!({ "policy": fleet, "mode": mode.key(), "definitions": definitions, "upstreams": upstreams }))
}

fn attested(value: serde_json::Value) -> MetaObject {
    MetaObject(Map::from_iter([(META_KEY.to_owned(), value)]))
}

/// Why a pinned deployment refuses to start.
#[derive(Debug, PartialEq, Eq)]
pub enum PinError {
    /// The pin is not a digest at all (usage error).
    Malformed(String),
    /// The pin is a digest, but of another policy (refusal).
    Mismatch { expected: String, actual: String, pinned: Pinned },
}

/// Whose digest a pin is checked against, for the refusal's words.
#[derive(Debug, PartialEq, Eq)]
pub enum Pinned {
    /// The policy compiled into this binary (`m1nd serve`).
    Compiled,
    /// A gateway policy directory (`m1nd gateway`), as the user wrote it.
    Gateway { display: String },
    /// A fleet directory (`m1nd gateway --fleet`), as the user wrote it.
    Fleet { display: String },
}

impl std::fmt::Display for PinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PinError::Malformed(written) => write!(
                f,
                "--expect-digest {written:?} is not a policy digest: it is 64 hex digits, as `{}` prints",
                crate::invocation::m1nd("policy digest")
            ),
            PinError::Mismatch { expected, actual, pinned: Pinned::Compiled } => write!(
                f,
                "this m1nd was built from policy {actual}, not the pinned {expected}; refusing to serve an unreviewed \
                 policy: review the change with `{}`, then update the pin or deploy the reviewed build",
                crate::invocation::m1nd("policy diff")
            ),
            PinError::Mismatch { expected, actual, pinned: Pinned::Gateway { display } } => write!(
                f,
                "the gateway policy {display} has digest {actual}, not the pinned {expected}; refusing to start on an \
                 unreviewed policy: review the change with `{}`, then update the pin to what `{}` prints, or deploy \
                 the reviewed policy directory",
                crate::invocation::m1nd(&format!("policy diff REVIEWED_DIR {display}")),
                crate::invocation::m1nd(&format!("policy digest {display}"))
            ),
            PinError::Mismatch { expected, actual, pinned: Pinned::Fleet { display } } => write!(
                f,
                "the fleet {display} has digest {actual}, not the pinned {expected}; refusing to start on an \
                 unreviewed fleet: review each changed member policy with `{}`, then update the pin to what `{}` \
                 prints, or deploy the reviewed fleet directory",
                crate::invocation::m1nd("policy diff REVIEWED_DIR DIR"),
                crate::invocation::m1nd(&format!("policy digest {display}"))
            ),
        }
    }
}

/// Whether the compiled-in policy is the one the deployment pinned.
/// Hex digits compare case-insensitively; anything else is malformed.
#[cfg(feature = "store")]
pub fn check_pin(expected: &str) -> Result<(), PinError> {
    check_digest(expected, &COCKPIT.digest, Pinned::Compiled)
}

/// Whether `actual` (a policy's digest) is the one the deployment pinned.
/// Hex digits compare case-insensitively; anything else is malformed.
pub fn check_digest(expected: &str, actual: &str, pinned: Pinned) -> Result<(), PinError> {
    let trimmed = expected.trim();
    if trimmed.len() != 64 || !trimmed.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PinError::Malformed(expected.chars().take(80).collect()));
    }
    if trimmed.eq_ignore_ascii_case(actual) {
        Ok(())
    } else {
        Err(PinError::Mismatch { expected: trimmed.to_ascii_lowercase(), actual: actual.to_owned(), pinned })
    }
}

#[cfg(all(test, feature = "store"))]
mod tests {
    use super::*;

    #[test]
    fn the_served_meta_carries_the_compiled_digest() {
        assert_eq!(meta(SessionMode::ReadOnly).0[META_KEY]["policy"], *COCKPIT.digest);
        for mode in SessionMode::ALL {
            assert_eq!(meta(mode).0[META_KEY]["mode"], mode.key());
        }
        assert_eq!(COCKPIT.digest, m1nd_policy::policy::digest(&COCKPIT));
    }

    #[test]
    fn a_pin_is_checked_exactly() {
        assert_eq!(check_pin(&COCKPIT.digest), Ok(()));
        assert_eq!(check_pin(&format!(" {} ", COCKPIT.digest.to_ascii_uppercase())), Ok(()));
        let other = "0".repeat(64);
        assert!(matches!(check_pin(&other), Err(PinError::Mismatch { .. })));
        assert!(check_pin(&other).unwrap_err().to_string().contains(&*COCKPIT.digest));
        for bad in ["", "abc", &"g".repeat(64), &format!("{}0", COCKPIT.digest)] {
            assert!(matches!(check_pin(bad), Err(PinError::Malformed(_))), "{bad:?}");
        }
    }

    #[test]
    fn a_gateway_pin_names_both_digests_the_directory_and_what_to_do() {
        let actual = "a".repeat(64);
        let gateway = || Pinned::Gateway { display: "policies/git".into() };
        assert_eq!(check_digest(&actual.to_ascii_uppercase(), &actual, gateway()), Ok(()));
        let refused = check_digest(&"b".repeat(64), &actual, gateway()).unwrap_err().to_string();
        for needed in [&*actual, &*"b".repeat(64), "policies/git", "policy diff", "policy digest policies/git"] {
            assert!(refused.contains(needed), "{needed:?} missing from {refused}");
        }
        assert!(matches!(check_digest("nope", &actual, gateway()), Err(PinError::Malformed(_))));
    }

    #[test]
    fn the_gateway_attests_its_policy_mode_and_definitions() {
        let meta = gateway_meta("p", SessionMode::ReadOnly, "d", None);
        assert_eq!(meta.0[META_KEY], json!({ "policy": "p", "mode": "read-only", "definitions": "d" }));
        let shadowed = gateway_meta("p", SessionMode::ReadWrite, "d", Some("s"));
        assert_eq!(
            shadowed.0[META_KEY],
            json!({ "policy": "p", "mode": "read-write", "definitions": "d", "shadow_policy": "s" })
        );
    }
}
