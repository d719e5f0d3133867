//! The annotations a session sees on a forwarded tool: the upstream's, as
//! given, made no less cautious by the policy.
//!
//! The invariant: the policy may only make a tool look more cautious, never
//! less, and changes nothing it has no say on.
//!
//! - `readOnlyHint` is lowered to `false` for a verb that may write (denied,
//!   or status-only, in `read_only_denied.toml`), and set so even where the
//!   upstream said nothing, since `false` is the cautious reading. For a verb
//!   that never writes, the upstream's hint passes unchanged: the deny list
//!   says what a read-only session may call, not that a tool changes
//!   nothing, so the policy adds no `true` of its own.
//! - `destructiveHint`, `idempotentHint` and `openWorldHint` pass unchanged:
//!   the policy has no notion of them, and leaving one out already means its
//!   cautious default (destructive, not idempotent, open world).
//! - A hint whose value is not a boolean is dropped: a client could not read
//!   it as a hint, and keeping it would let it be read as anything.
//! - Any other key (`title`, or one a later specification adds) carries the
//!   upstream's own words, so it is served only when the policy pinned the
//!   definition, as the other words of a definition are (see
//!   `gateway/definition.rs`).

use serde_json::{Map, Value};

/// The hint the policy lowers for a verb that may write.
pub const READ_ONLY: &str = "readOnlyHint";

/// The hints MCP defines, each a boolean.
pub const HINTS: [&str; 4] = [READ_ONLY, "destructiveHint", "idempotentHint", "openWorldHint"];

/// The annotations served for `definition`: `may_write` when the deny list
/// denies the verb or makes it status-only; `pinned` when a person reviewed
/// the definition.
pub fn served(definition: &Value, pinned: bool, may_write: bool) -> Value {
    let mut served = Map::new();
    if let Some(Value::Object(given)) = definition.get("annotations") {
        for (key, value) in given {
            let keep = if HINTS.contains(&key.as_str()) { value.is_boolean() } else { pinned };
            if keep {
                served.insert(key.clone(), value.clone());
            }
        }
    }
    if may_write {
        served.insert(READ_ONLY.into(), Value::Bool(false));
    }
    Value::Object(served)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with(annotations: Value) -> Value {
        json!({"name": "t", "annotations": annotations})
    }

    #[test]
    fn what_the_upstream_said_passes_unchanged_for_a_verb_that_never_writes() {
        let given =
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
        assert_eq!(served(&with(given.clone()), false, false), given);
        let cautious = json!({"readOnlyHint": false, "openWorldHint": true});
        assert_eq!(served(&with(cautious.clone()), false, false), cautious);
    }

    #[test]
    fn nothing_is_added_where_the_upstream_said_nothing_unless_it_is_caution() {
        assert_eq!(served(&json!({"name": "t"}), true, false), json!({}));
        assert_eq!(served(&with(json!({})), true, false), json!({}));
        assert_eq!(served(&json!({"name": "t"}), true, true), json!({"readOnlyHint": false}));
    }

    #[test]
    fn a_verb_that_may_write_is_never_read_only_and_keeps_its_other_hints() {
        let given = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true});
        assert_eq!(
            served(&with(given), true, true),
            json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true})
        );
        assert_eq!(served(&with(json!({"destructiveHint": true})), false, true)["destructiveHint"], json!(true));
    }

    #[test]
    fn words_wait_for_a_review_and_a_hint_must_be_a_boolean() {
        let given = json!({"title": "Reads it", "readOnlyHint": "yes", "openWorldHint": 1, "destructiveHint": true});
        assert_eq!(served(&with(given.clone()), false, false), json!({"destructiveHint": true}));
        assert_eq!(served(&with(given), true, false), json!({"title": "Reads it", "destructiveHint": true}));
        assert_eq!(served(&with(json!("readOnlyHint")), true, false), json!({}), "annotations that are not an object");
    }
}
