//! The human's acts on the tray: `POST /tray/stamp` and `POST /tray/ratify`.
//! Each one is checked ([`super::checks::check_write`]), held to its
//! policy verb being human-only, read as a small JSON body, and handed to
//! the service's [`act`](crate::service::Service::act), which lands it once
//! or refuses it whole.

use std::sync::Arc;

use crate::COCKPIT;
use crate::store::tray::{Act, ActRefused, Acted, RECEIPT_HASH_LEN};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use m1nd_policy::sanitize::{cap, display};
use serde_json::json;

use super::checks::check_write;
use super::{Human, answer, problem, service_problem};

/// The largest act request read.
pub const MAX_FORM_BYTES: usize = 8 * 1024;

/// The policy's verb for each act: the tray performs an act only while the
/// policy makes its verb human-only (M013 keeps that verb out of MCP).
pub const fn verb(act: Act) -> &'static str {
    match act {
        Act::Stamp => "mission_stamp",
        Act::Ratify => "system_blocks_ratify",
    }
}

/// What an act names: exactly what the human saw.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StampForm {
    mission: String,
    receipt_hash: String,
    store_version: u64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RatifyForm {
    block: String,
    receipt_hash: String,
    store_version: u64,
}

pub(super) async fn stamp(State(human): State<Arc<Human>>, request: Request) -> Response {
    act(human, request, Act::Stamp).await
}

pub(super) async fn ratify(State(human): State<Arc<Human>>, request: Request) -> Response {
    act(human, request, Act::Ratify).await
}

/// An act's body that is not the form it must be.
#[derive(Debug, thiserror::Error)]
#[error("{shape}: {detail}")]
pub(crate) struct BadForm {
    /// What the act's body is, said to the sender.
    shape: &'static str,
    /// serde's account of what was wrong, sanitised.
    detail: String,
}

/// What a stamp's body is, said to a sender that wrote something else.
const STAMP_SHAPE: &str = "a stamp is {\"mission\", \"receipt_hash\", \"store_version\"}";

/// What a ratification's body is.
const RATIFY_SHAPE: &str = "a ratification is {\"block\", \"receipt_hash\", \"store_version\"}";

/// `(target, receipt_hash, store_version)` from the act's JSON body.
pub(crate) fn form(act: Act, bytes: &[u8]) -> Result<(String, String, u64), BadForm> {
    let bad = |shape, e: serde_json::Error| BadForm { shape, detail: display(&e.to_string(), cap::DETAIL) };
    // serde reads a struct from a JSON array too (`["msn_1", "…", 3]`);
    // an act is the object the page sends, and nothing else.
    if bytes.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) != Some(&b'{') {
        let shape = match act {
            Act::Stamp => STAMP_SHAPE,
            Act::Ratify => RATIFY_SHAPE,
        };
        return Err(BadForm { shape, detail: "the body is not a JSON object".to_owned() });
    }
    match act {
        Act::Stamp => serde_json::from_slice::<StampForm>(bytes)
            .map(|f| (f.mission, f.receipt_hash, f.store_version))
            .map_err(|e| bad(STAMP_SHAPE, e)),
        Act::Ratify => serde_json::from_slice::<RatifyForm>(bytes)
            .map(|f| (f.block, f.receipt_hash, f.store_version))
            .map_err(|e| bad(RATIFY_SHAPE, e)),
    }
}

/// What a form that parses but names no act is told.
pub(crate) const NOT_WELL_FORMED: &str = "the target is an id and `receipt_hash` 64 lowercase hex digits";

/// The longest target id an act may name, in bytes.
pub const MAX_TARGET_BYTES: usize = 256;

/// Whether a parsed form can name an act: a target of 1 to
/// [`MAX_TARGET_BYTES`] bytes and a receipt hash of exactly
/// [`RECEIPT_HASH_LEN`] lowercase hex digits. Checked before the store opens.
pub(crate) fn well_formed(target: &str, receipt_hash: &str) -> bool {
    let hash_ok = receipt_hash.len() == RECEIPT_HASH_LEN
        && receipt_hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hash_ok && !target.is_empty() && target.len() <= MAX_TARGET_BYTES
}

async fn act(human: Arc<Human>, request: Request, act: Act) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refused) = check_write(&human.authority, &parts.headers) {
        return refused.into_response();
    }
    if !COCKPIT.human_only.contains(verb(act)) {
        return problem(
            StatusCode::FORBIDDEN,
            "policy",
            format!("the policy does not make `{}` human-only, so the tray does not perform it", verb(act)),
        );
    }
    let json_body = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
    if !json_body {
        return problem(StatusCode::UNSUPPORTED_MEDIA_TYPE, "form", "the request is a JSON body (application/json)");
    }
    let Ok(bytes) = axum::body::to_bytes(Body::new(body), MAX_FORM_BYTES).await else {
        return problem(StatusCode::PAYLOAD_TOO_LARGE, "form", format!("a request is at most {MAX_FORM_BYTES} bytes"));
    };
    let (target, receipt_hash, store_version) = match form(act, &bytes) {
        Ok(form) => form,
        Err(why) => return problem(StatusCode::BAD_REQUEST, "form", why.to_string()),
    };
    if !well_formed(&target, &receipt_hash) {
        return problem(StatusCode::BAD_REQUEST, "form", NOT_WELL_FORMED);
    }
    let outcome = human.service.act(act, target, receipt_hash, store_version).await;
    let done = match act {
        Act::Stamp => "stamped",
        Act::Ratify => "ratified",
    };
    match outcome {
        Ok(Acted::Now { store_version }) => {
            answer(StatusCode::OK, &json!({ "ok": true, done: true, "store_version": store_version }))
        }
        Ok(Acted::Already { store_version, at }) => answer(
            StatusCode::OK,
            &json!({
                "ok": true, done: false, "already": true, "store_version": store_version,
                "note": format!("already {done} at store_version {store_version} ({at}); nothing more was written"),
            }),
        ),
        Err(e) => service_problem(&e),
    }
}

/// The code a page reads to know what happened to its act.
pub(super) fn code(refused: &ActRefused) -> &'static str {
    match refused {
        ActRefused::Unknown { .. } => "unknown",
        ActRefused::NotWaiting { .. } => "not_waiting",
        ActRefused::StateMoved { .. } => "state_moved",
        ActRefused::FutureVersion { .. } | ActRefused::VersionZero => "form",
        ActRefused::Store(_) => "store",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every act the tray performs is a human-only, denied verb of the policy.
    #[test]
    fn every_act_is_a_human_only_verb() {
        for act in [Act::Stamp, Act::Ratify] {
            assert!(COCKPIT.human_only.contains(verb(act)), "`{}` is not human-only", verb(act));
            assert!(COCKPIT.deny.denies(verb(act)), "`{}` is not denied", verb(act));
        }
    }
}
