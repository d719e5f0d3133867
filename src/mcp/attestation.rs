//! What the server attests about itself: the digests of the policy it was
//! compiled from and of the widget template built into it, and the session's
//! mode (`read-only` or `read-write`), served in the `_meta` of `initialize` (and of
//! `server/discover`, which rmcp answers from the same server config), so
//! that a client can pin the exact policy and template it reviewed.
//!
//! The value under [`META_KEY`] is an object keyed by what is attested
//! (`policy`, `widget`, `mode`), so further digests can sit beside them without
//! changing the shape a pinning client already reads.

use crate::{COCKPIT, widget};
use m1nd_core::SessionMode;
use rmcp::model::MetaObject;
use serde_json::{Map, json};

/// The project-prefixed `_meta` key the attestation is served under.
pub const META_KEY: &str = "io.m1nd/attestation";

/// `{ "io.m1nd/attestation": { "policy": "<64 hex>", "widget": "<64 hex>", "mode": "read-only" } }`.
pub fn meta(mode: SessionMode) -> MetaObject {
    let attested = json!({ "policy": &*COCKPIT.digest, "widget": widget::full_digest(), "mode": mode.key() });
    MetaObject(Map::from_iter([(META_KEY.to_owned(), attested)]))
}

/// Why a pinned deployment refuses to start.
#[derive(Debug, PartialEq, Eq)]
pub enum PinError {
    /// The pin is not a digest at all (usage error).
    Malformed(String),
    /// The pin is a digest, but of another policy (refusal).
    Mismatch { expected: String },
}

impl std::fmt::Display for PinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PinError::Malformed(written) => write!(
                f,
                "--expect-digest {written:?} is not a policy digest: it is 64 hex digits, as `{}` prints",
                crate::invocation::m1nd("policy digest")
            ),
            PinError::Mismatch { expected } => write!(
                f,
                "this m1nd was built from policy {}, not the pinned {expected}; refusing to serve an unreviewed \
                 policy: review the change with `{}`, then update the pin or deploy the reviewed build",
                COCKPIT.digest,
                crate::invocation::m1nd("policy diff")
            ),
        }
    }
}

/// Whether the compiled-in policy is the one the deployment pinned.
/// Hex digits compare case-insensitively; anything else is malformed.
pub fn check_pin(expected: &str) -> Result<(), PinError> {
    let trimmed = expected.trim();
    if trimmed.len() != 64 || !trimmed.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PinError::Malformed(expected.chars().take(80).collect()));
    }
    if trimmed.eq_ignore_ascii_case(&COCKPIT.digest) {
        Ok(())
    } else {
        Err(PinError::Mismatch { expected: trimmed.to_ascii_lowercase() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_meta_carries_the_compiled_digest() {
        assert_eq!(meta(SessionMode::ReadOnly).0[META_KEY]["policy"], *COCKPIT.digest);
        for mode in SessionMode::ALL {
            assert_eq!(meta(mode).0[META_KEY]["mode"], mode.key());
        }
        assert_eq!(COCKPIT.digest, m1nd_core::policy::digest(&COCKPIT));
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
}
