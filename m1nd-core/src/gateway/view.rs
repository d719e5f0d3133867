//! The policy's view of an upstream's tools: what a session lists, and why
//! everything else is hidden.
//!
//! The invariant: a tool is offered only if the policy declares it (names
//! normalised as for m1nd, exactly one upstream tool per verb), it is not
//! retired, the session may call it, and — when the policy pins its
//! definition — the live definition has the pinned digest. Everything else
//! is hidden, with the reason kept so that a call to it is refused with that
//! reason. What is offered carries the upstream's annotations, made no less
//! cautious by the policy (see [`super::annotations`]), and the upstream's
//! own words (title, description, icons, `_meta`) only when the policy
//! pinned (so a person reviewed) them; see [`super::definition`] for what is
//! served.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::annotations;
use super::definition::{digest, input_schema, served};
use crate::gateway_table::{Gateway, PinRule};
use crate::guard::{Guard, MAX_NAME_BYTES, printable};
use crate::names::{Folding, NameIndex, Resolution, spec};
use crate::table::VerbId;

/// A tool the session may see and call.
#[derive(Clone, Debug, PartialEq)]
pub struct Offered {
    /// The verb's handle in the gateway's table.
    pub id: VerbId,
    /// The policy's (canonical) name: what the session calls.
    pub verb: String,
    /// The upstream's own name: what is forwarded.
    pub upstream: String,
    /// The definition served downstream.
    pub tool: Value,
    /// The digest of the upstream's definition, as `tools.toml` pins it
    /// (equal to the pin when there is one).
    pub definition: String,
}

/// An upstream tool that is not offered, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// The upstream's name, made printable.
    pub upstream: String,
    pub why: Why,
}

/// Why an upstream tool is hidden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// The policy does not declare it (fail closed).
    Undeclared,
    /// A non-ASCII imitation of a declared verb.
    LookAlike { verb: String },
    /// The policy retired the verb it names.
    Retired { verb: String },
    /// Two upstream tools fold to the same verb; neither is offered.
    Ambiguous { verb: String },
    /// Its definition is not the one reviewed.
    Changed { verb: String, pinned: String, live: String },
    /// No usable name.
    Malformed,
    /// A name the MCP specification does not allow, which no policy can declare.
    OutsideSpec { problem: String },
}

impl std::fmt::Display for Hidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = &self.upstream;
        match &self.why {
            Why::Undeclared => {
                write!(
                    f,
                    "the upstream offers `{name}`, which the policy does not declare in tools.toml: hidden and refused"
                )
            }
            Why::LookAlike { verb } => {
                write!(f, "the upstream's `{name}` is a look-alike of `{verb}` (non-ASCII letters): hidden and refused")
            }
            Why::Retired { verb } => {
                write!(f, "the upstream's `{name}` is `{verb}`, which tools.toml retires: hidden and refused")
            }
            Why::Ambiguous { verb } => write!(
                f,
                "the upstream offers more than one tool named `{verb}` once case, `-`, `_`, `.` and the `m1nd.` prefix are folded: `{name}` is hidden and refused"
            ),
            Why::Changed { verb, pinned, live } => write!(
                f,
                "`{verb}`'s definition changed since it was reviewed (tools.toml pins {}, live {}): hidden and refused until a person reviews it with `m1nd policy import --update`",
                short_digest(pinned),
                short_digest(live)
            ),
            Why::Malformed => f.write_str("the upstream listed a tool without a usable name: hidden"),
            Why::OutsideSpec { problem } => write!(
                f,
                "the upstream offers `{name}`, a name no policy can declare ({problem}; {}): hidden and refused",
                spec::SPEC_RULE
            ),
        }
    }
}

/// What one session sees of the upstream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    offered: Vec<Offered>,
    hidden: Vec<Hidden>,
    /// The guard's rule for names, so a hidden tool is found by any spelling.
    folding: Folding,
}

impl View {
    /// The view of `listed` (the upstream's `tools/list` items, as JSON).
    pub fn new(gateway: &Gateway, guard: &Guard<'_>, listed: &[Value]) -> Self {
        let names = NameIndex::with_folding(gateway.policy.verbs.iter().map(|v| &*v.name), guard.folding());
        let mut claimed = HashSet::new();
        let mut candidates = Vec::new();
        let mut hidden = Vec::new();
        for definition in listed {
            let Some(name) = definition.get("name").and_then(Value::as_str) else {
                hidden.push(Hidden { upstream: String::new(), why: Why::Malformed });
                continue;
            };
            let upstream = printable(name);
            if name.len() > MAX_NAME_BYTES {
                // Far outside the specification: refused before any lookup, as the guard does.
                let problem = format!("it is {} bytes long", name.len());
                hidden.push(Hidden { upstream, why: Why::OutsideSpec { problem } });
                continue;
            }
            // The index was built from the table's verbs in order: its positions are handles.
            match names.locate(name).map(|i| u32::try_from(i).map(VerbId::__at)) {
                Ok(Ok(id)) => {
                    let Some(def) = gateway.policy.verb_at(id) else { continue };
                    let verb = &*def.name;
                    if !claimed.insert(id) {
                        hidden.push(Hidden { upstream, why: Why::Ambiguous { verb: verb.to_owned() } });
                    } else {
                        candidates.push((id, def, name, definition));
                    }
                }
                Err(Resolution::LookAlike { verb, .. }) => {
                    hidden.push(Hidden { upstream, why: Why::LookAlike { verb: verb.to_owned() } })
                }
                Ok(Err(_)) | Err(_) => {
                    // M001 keeps a name outside the specification out of every policy: say so.
                    let why = spec::spec_problem(name).map_or(Why::Undeclared, |problem| Why::OutsideSpec { problem });
                    hidden.push(Hidden { upstream, why })
                }
            }
        }
        let mut offered = Vec::new();
        for (id, def, name, definition) in candidates {
            let upstream = printable(name);
            let verb = &*def.name;
            if hidden.iter().any(|h| matches!(&h.why, Why::Ambiguous { verb: v } if v == verb)) {
                hidden.push(Hidden { upstream, why: Why::Ambiguous { verb: verb.to_owned() } });
                continue;
            }
            if def.retired {
                hidden.push(Hidden { upstream, why: Why::Retired { verb: verb.to_owned() } });
                continue;
            }
            let pinned = gateway.tool_at(id).and_then(|t| t.definition.as_deref());
            let live = digest(definition);
            if let Some(pinned) = pinned
                && pinned != live
            {
                hidden.push(Hidden {
                    upstream,
                    why: Why::Changed { verb: verb.to_owned(), pinned: pinned.to_owned(), live },
                });
                continue;
            }
            if !guard.shows(def) {
                continue;
            }
            let may_write = !gateway.policy.deny.never_writes(verb);
            let mut schema = input_schema(definition);
            narrow(&mut schema, gateway, guard, id, verb);
            let annotations = annotations::served(definition, pinned.is_some(), may_write);
            let tool = served(definition, verb, &def.summary, pinned.is_some(), schema, annotations);
            offered.push(Offered { id, verb: verb.to_owned(), upstream: name.to_owned(), tool, definition: live });
        }
        Self { offered, hidden, folding: guard.folding() }
    }

    /// The tools a session lists, in upstream order.
    pub fn offered(&self) -> &[Offered] {
        &self.offered
    }

    /// The digest of the definitions this view serves, attested to clients
    /// as `definitions`: see [`definitions_digest`].
    pub fn definitions_digest(&self) -> String {
        definitions_digest(self.offered.iter().map(|o| (&*o.verb, &*o.definition)))
    }

    /// What the upstream offers that the session does not see, with why.
    pub fn hidden(&self) -> &[Hidden] {
        &self.hidden
    }

    /// The offered tool of a verb the guard resolved.
    pub fn find(&self, id: VerbId) -> Option<&Offered> {
        self.offered.iter().find(|o| o.id == id)
    }

    /// Why a declared verb or a written upstream name is hidden, if it is.
    pub fn why_hidden(&self, verb_or_name: &str) -> Option<&Hidden> {
        let written = self.folding.written(verb_or_name);
        self.hidden.iter().find(|h| {
            self.folding.written(&h.upstream) == written
                || matches!(&h.why, Why::Changed { verb, .. } | Why::Ambiguous { verb } | Why::Retired { verb } if verb == verb_or_name)
        })
    }
}

/// The upstream's schema, narrowed to what the policy admits: an argument
/// pinned to exact values (or, read-only, a status-only argument) becomes
/// required and limited to those values, as in `m1nd serve`'s own schemas.
fn narrow(schema: &mut Value, gateway: &Gateway, guard: &Guard<'_>, id: VerbId, verb: &str) {
    let pinned = gateway.tool_at(id).into_iter().flat_map(|t| t.pins.iter()).filter_map(|pin| match &pin.rule {
        PinRule::Allowed(values) => Some((&*pin.argument, values.iter().map(|v| v.to_string()).collect::<Vec<_>>())),
        PinRule::Under { .. } => None,
    });
    let status = guard.read_only().then(|| gateway.policy.deny.status_only(verb)).flatten();
    let status = status.map(|rule| (&*rule.argument, rule.allowed.iter().map(|v| v.to_string()).collect()));
    for (argument, allowed) in pinned.chain(status) {
        let Some(object) = schema.as_object_mut() else { return };
        if let Some(Value::Object(property)) = object
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .map(|p| p.entry(argument).or_insert_with(|| json!({})))
        {
            property.insert("enum".into(), allowed.into_iter().map(Value::from).collect());
        }
        let required = object.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(list) = required
            && !list.iter().any(|r| r == argument)
        {
            list.push(Value::from(argument));
        }
    }
}

/// The tag that opens the text [`definitions_digest`] hashes, so the digest
/// can never be mistaken for one of another encoding.
pub const DEFINITIONS_ENCODING: &str = "m1nd-gateway-definitions-v1";

/// blake3 (hex, no prefix) of the text `m1nd-gateway-definitions-v1\n`
/// followed by one line `<verb> <definition digest>\n` per served tool,
/// sorted by verb: the verb is the policy's name for the tool (what a
/// session calls), the definition digest the one `tools.toml` pins
/// (`blake3:` and 64 hex). Verbs are MCP tool names (no spaces or line
/// breaks), so the text is unambiguous, and a client can recompute it from
/// `tools/list` names and the policy's pins with `b3sum`. A served prompt,
/// resource or template adds its line the same way, named `prompt:NAME`,
/// `resource:URI` or `template:URI-TEMPLATE` (see
/// [`super::surfaces::SurfaceView::attested`]), sorted with the rest.
pub fn definitions_digest<'a>(served: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut pairs: Vec<_> = served.into_iter().collect();
    pairs.sort_unstable();
    let mut text = format!("{DEFINITIONS_ENCODING}\n");
    for (verb, definition) in pairs {
        text.push_str(verb);
        text.push(' ');
        text.push_str(definition);
        text.push('\n');
    }
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

pub(super) fn short_digest(d: &str) -> &str {
    d.get(..crate::primitives::DIGEST_PREFIX.len() + 12).unwrap_or(d)
}

#[cfg(test)]
mod tests {
    use super::definitions_digest;

    const A: &str = "blake3:1111111111111111111111111111111111111111111111111111111111111111";
    const B: &str = "blake3:2222222222222222222222222222222222222222222222222222222222222222";

    #[test]
    fn the_definitions_digest_is_the_documented_text_and_ignores_order() {
        let text = format!("m1nd-gateway-definitions-v1\nread_file {B}\nwrite_file {A}\n");
        let expected = blake3::hash(text.as_bytes()).to_hex().to_string();
        assert_eq!(definitions_digest([("write_file", A), ("read_file", B)]), expected);
        assert_eq!(definitions_digest([("read_file", B), ("write_file", A)]), expected);
    }

    #[test]
    fn the_definitions_digest_changes_with_any_definition_or_tool() {
        let base = definitions_digest([("read_file", A), ("write_file", A)]);
        assert_ne!(definitions_digest([("read_file", B), ("write_file", A)]), base);
        assert_ne!(definitions_digest([("read_file", A)]), base);
        assert_ne!(definitions_digest([("read_file", A), ("write_files", A)]), base);
        assert_ne!(definitions_digest([]), base);
    }
}
