//! What changed upstream since a gateway policy was reviewed, tool by tool,
//! in words a person can review: the plan `policy import --update` shows and
//! `--apply` writes.
//!
//! 1. **The policy's own view decides.** Which upstream tool is which verb,
//!    and whether its definition changed, is what the gateway itself sees:
//!    [`View`] over the listing, with a read-write guard so that denied tools
//!    are compared too. Nothing here matches names a second way.
//! 2. **Readable when it can be.** A changed definition is shown as a line
//!    diff of the reviewed definition (from `definitions.json`, found by the
//!    pin's digest) against the upstream's now ([`super::readable`]). Without a
//!    stored definition only the digests can be compared; the upstream's
//!    definition is then shown whole, with how to get the readable form.
//! 3. **Only changed definitions are pending.** A changed definition hides
//!    and refuses its tool until the pin is updated, so it is what `--apply`
//!    applies and what makes `--update` exit non-zero. A tool new upstream is
//!    hidden (undeclared) and only proposed; a declared tool the upstream no
//!    longer lists is refused as not offered and only reported: neither
//!    changes what a session reaches, and neither is edited for the user.

use std::fmt::Write as _;

use m1nd_core::gateway::{Gateway, View, Why, digest};
use m1nd_core::guard::{Guard, printable};
use m1nd_core::names::spec::toml_key;
use serde_json::Value;

use super::import::verb_block;
use super::readable;
use super::reviewed::{DEFINITIONS_FILE, Reviewed};

/// A declared tool whose definition is not the one pinned.
#[derive(Clone, Debug, PartialEq)]
pub struct Changed {
    /// The policy's name for the tool.
    pub verb: String,
    /// The digest tools.toml pins.
    pub pinned: String,
    /// The digest of the upstream's definition now.
    pub live: String,
    /// The upstream's definition now.
    pub now: Value,
    /// The reviewed definition, when `definitions.json` holds it.
    pub reviewed: Option<Value>,
    /// Arguments the new definition takes that tools.toml does not declare.
    pub undeclared: Vec<String>,
}

/// Everything `--update` found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub changed: Vec<Changed>,
    /// Upstream tools the policy does not declare, as listed.
    pub added: Vec<Value>,
    /// Declared verbs the upstream no longer lists.
    pub removed: Vec<String>,
    /// The reviewed definitions once the changes are applied: for every
    /// pinned verb, in tools.toml's order, the definition its pin matches,
    /// from the listing or the stored file.
    pub store: Vec<Value>,
    /// Whether the policy has a `definitions.json`.
    pub had_store: bool,
}

impl Plan {
    /// Compare `listed` with `gateway`'s pins and the stored `reviewed` definitions.
    pub fn new(gateway: &Gateway, listed: &[Value], reviewed: Option<&Reviewed>) -> Self {
        let guard = Guard::new(&gateway.policy, false);
        let view = View::new(gateway, &guard, listed);
        let listed_with = |d: &str| listed.iter().find(|l| digest(l) == d);
        let mut plan = Plan { had_store: reviewed.is_some(), ..Plan::default() };
        let mut seen: Vec<&str> = view.offered().iter().map(|o| o.verb.as_str()).collect();
        for hidden in view.hidden() {
            match &hidden.why {
                Why::Changed { verb, pinned, live } => {
                    let Some(now) = listed_with(live) else { continue };
                    let declared = gateway.policy.verb(verb);
                    let declares =
                        |a: &str| declared.is_some_and(|v| v.requires.iter().chain(v.accepts.iter()).any(|d| d == a));
                    let undeclared = now
                        .get("inputSchema")
                        .and_then(|s| s.get("properties"))
                        .and_then(Value::as_object)
                        .map(|p| p.keys().map(String::as_str).filter(|a| !declares(a)).map(printable).collect())
                        .unwrap_or_default();
                    plan.changed.push(Changed {
                        verb: verb.clone(),
                        pinned: pinned.clone(),
                        live: live.clone(),
                        now: now.clone(),
                        reviewed: reviewed.and_then(|r| r.pinned(pinned)).cloned(),
                        undeclared,
                    });
                    seen.push(verb);
                }
                Why::Ambiguous { verb } | Why::Retired { verb } => seen.push(verb),
                Why::Undeclared => plan.added.extend(
                    listed
                        .iter()
                        .filter(|l| {
                            l.get("name").and_then(Value::as_str).map(printable).as_ref() == Some(&hidden.upstream)
                        })
                        .filter(|l| !plan.added.contains(l))
                        .cloned()
                        .collect::<Vec<_>>(),
                ),
                Why::LookAlike { .. } | Why::Malformed | Why::OutsideSpec { .. } => {}
            }
        }
        plan.removed = gateway
            .policy
            .verbs
            .iter()
            .filter(|v| !v.retired && !seen.contains(&&*v.name))
            .map(|v| v.name.to_string())
            .collect();
        for tool in gateway.tools.iter() {
            let Some(pin) = tool.definition.as_deref() else { continue };
            let pin = plan.changed.iter().find(|c| *c.verb == *tool.verb).map_or(pin, |c| c.live.as_str());
            if let Some(definition) = listed_with(pin).or_else(|| reviewed.and_then(|r| r.pinned(pin))) {
                plan.store.push(definition.clone());
            }
        }
        plan
    }

    /// Whether `--apply` would write anything: a pin to update, or reviewed
    /// definitions to store that the file does not hold yet.
    pub fn applies(&self, reviewed: Option<&Reviewed>) -> bool {
        !self.changed.is_empty() || reviewed.map_or(!self.store.is_empty(), |r| r.definitions != self.store)
    }

    /// The report, naming the policy's files under `dir` as the user wrote it.
    pub fn report(&self, dir: &str) -> String {
        let mut out = String::new();
        let tools = format!("{dir}/tools.toml");
        if self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty() {
            let _ = writeln!(out, "{tools}: every pin matches the upstream");
            return out;
        }
        let _ = writeln!(
            out,
            "{tools} against the upstream now: {} changed, {} new upstream, {} no longer listed\n",
            counted(self.changed.len(), "definition"),
            counted(self.added.len(), "tool"),
            self.removed.len()
        );
        for changed in &self.changed {
            self.changed_section(changed, dir, &mut out);
        }
        for added in &self.added {
            added_section(added, &mut out);
        }
        for verb in &self.removed {
            let _ = writeln!(
                out,
                "- `{verb}`: declared in tools.toml, no longer listed by the upstream; the gateway refuses it as not \
                 offered. If it is gone for good, remove `[verbs.{}]` and its entry in read_only_denied.toml.\n",
                toml_key(verb)
            );
        }
        if !self.had_store && !self.changed.is_empty() {
            let _ = writeln!(
                out,
                "{dir} keeps no reviewed definitions ({DEFINITIONS_FILE}), so only digests could be compared. \
                 `--apply` stores the definitions it pins, and the next `--update` shows each change as a readable \
                 diff. To see this change readably, run the upstream version you reviewed with `--update --apply` \
                 first (every pin matches, so it only stores the reviewed definitions), then this one with \
                 `--update`."
            );
        }
        out
    }

    fn changed_section(&self, changed: &Changed, dir: &str, out: &mut String) {
        let verb = &changed.verb;
        let _ =
            writeln!(out, "~ `{verb}`: its definition changed since it was reviewed; hidden and refused until applied");
        let _ = writeln!(out, "    reviewed  {}", changed.pinned);
        let _ = writeln!(out, "    upstream  {}", changed.live);
        match &changed.reviewed {
            Some(reviewed) => {
                let was = format!("{verb} (reviewed, {dir}/{DEFINITIONS_FILE})");
                out.push_str(&readable::diff(reviewed, &changed.now, &was, &format!("{verb} (upstream now)")));
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {DEFINITIONS_FILE} holds no definition with the reviewed digest, so only the digests can be \
                     compared. The upstream's definition now:"
                );
                for line in readable::render(&changed.now).lines() {
                    let _ = writeln!(out, "  + {line}");
                }
            }
        }
        if !changed.undeclared.is_empty() {
            let _ = writeln!(
                out,
                "  note: it now takes {}, which `[verbs.{}]` does not declare: the gateway refuses a call that sends \
                 it; add it to `accepts` (or `requires`) if it should be forwarded",
                changed.undeclared.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "),
                toml_key(verb)
            );
        }
        out.push('\n');
    }
}

/// A new upstream tool: proposed, never declared for the user.
fn added_section(definition: &Value, out: &mut String) {
    let name = definition.get("name").and_then(Value::as_str).unwrap_or_default();
    let _ = writeln!(
        out,
        "+ `{}`: new upstream; tools.toml does not declare it, so the gateway hides and refuses it, and `--apply` \
         leaves it out. To offer it, review its definition and add this to tools.toml, and its name to \
         read_only_denied.toml unless read-only sessions may call it:",
        printable(name)
    );
    for line in verb_block(definition, name).lines() {
        let _ = writeln!(out, "    {}", readable::visible(line));
    }
    let _ = writeln!(out, "  its definition:");
    for line in readable::render(definition).lines() {
        let _ = writeln!(out, "  + {line}");
    }
    out.push('\n');
}

/// `1 definition`, `2 definitions`.
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
