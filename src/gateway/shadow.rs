//! `m1nd gateway --shadow DIR`: a candidate policy tried on live traffic
//! before it is deployed.
//!
//! # The invariant
//!
//! The shadow policy only watches. Every `tools/call` is checked by the
//! enforced policy, which alone decides what reaches the upstream and what
//! the client is answered; the same call is checked by the shadow policy
//! too, against its own view of the same upstream listing, and when the two
//! decide differently (one forwards and the other refuses, or both refuse
//! for a different reason or code) a `shadow` line naming both decisions and
//! both digests is appended to the audit trail, before the enforced
//! decision's own lines. A call the shadow would allow and the enforced
//! policy refuses never reaches the upstream.
//!
//! The shadow is compiled and checked like the enforced policy, and gets its
//! session mode by the same rule (its own `mode`, made read-only by the
//! command line), so a dry run here is of the policy as it would be deployed
//! with the same command line: no mode lets a write through that the
//! enforced policy refuses.

use m1nd_policy::gateway::{self, Forward, Gateway, GatewayRefused, View};
use m1nd_policy::guard::Guard;
use serde_json::{Map, Value};

use super::audit::{Audit, Decision, Gate, Record, Unrecorded, Upstream, Verdict};

/// The shadow policy, compiled, with the guard of its session mode.
pub struct Shadow {
    gateway: &'static Gateway,
    guard: Guard<'static>,
    digest: String,
}

impl Shadow {
    /// The shadow of a session whose command line asked for read-only when
    /// `read_only`: the same rule as the enforced policy's mode.
    pub fn new(gateway: &'static Gateway, read_only: bool) -> Self {
        let mode = gateway.mode.with_command_line(read_only);
        Self {
            gateway,
            guard: Guard::for_gateway(gateway, mode.is_read_only()),
            digest: m1nd_policy::policy::gateway_digest(gateway),
        }
    }

    /// The shadow policy's digest, as `m1nd policy digest DIR` prints it.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The shadow's view of `listed`, the upstream listing the enforced view
    /// is built from.
    pub fn view(&self, listed: &[Value]) -> View {
        View::new(self.gateway, &self.guard, listed)
    }

    /// What the shadow would do with a call, through its `view`.
    fn check(
        &self,
        view: &View,
        name: &str,
        arguments: Option<&Map<String, Value>>,
    ) -> Result<Forward, GatewayRefused> {
        gateway::check(self.gateway, &self.guard, view, name, arguments)
    }

    /// The `shadow` line of a call the enforced policy (digest `policy`)
    /// decided as `enforced`, or `None` when the shadow decides the same.
    fn divergence<'a>(
        &'a self,
        line: Record<'a>,
        enforced: &Result<Forward, GatewayRefused>,
        shadow: &Result<Forward, GatewayRefused>,
    ) -> Option<Record<'a>> {
        let enforced = Verdict::of(line.policy, enforced);
        let shadow = Verdict::of(&self.digest, shadow);
        enforced.differs(&shadow).then_some(Record {
            decision: Decision::Shadow,
            own: Upstream { enforced: Some(enforced), shadow: Some(shadow), ..line.own },
            ..line
        })
    }

    /// Check the call named `line.name` with the shadow and, if it decides
    /// otherwise than `enforced`, append the `shadow` line to `audit`.
    ///
    /// Fail closed: when that line cannot be appended, a call the enforced
    /// policy would forward is not, and `Err` says what the client is told;
    /// a call it refuses is refused with its own reason and the failure.
    pub fn watch(
        &self,
        audit: Option<&Audit>,
        line: Record<'_>,
        view: &View,
        request: (&str, Option<&Map<String, Value>>),
        enforced: &Result<Forward, GatewayRefused>,
    ) -> Result<(), Unrecorded> {
        let Some(audit) = audit else {
            return Ok(());
        };
        let (name, arguments) = request;
        let shown = line.name.clone();
        let Some(line) = self.divergence(line, enforced, &self.check(view, name, arguments)) else {
            return Ok(());
        };
        audit.write(&line).map_err(|error| match enforced {
            Err(refused) => Unrecorded::Refusal { told: refused.to_string(), error },
            Ok(_) => Unrecorded::Before { what: format!("`{shown}`"), gate: Gate::Forward, error },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd_policy::{PolicyFile, PolicySources, compile_gateway};
    use serde_json::json;

    /// A gateway policy of `mode` declaring `echo` (taking `text`, and
    /// `note` when `note`) and `write_note`, which its deny list names.
    fn policy(mode: &str, note: bool) -> &'static Gateway {
        let accepts = if note { "accepts = [\"note\"]\n" } else { "" };
        let tools = format!(
            "mode = \"{mode}\"\n\n[verbs.echo]\nsummary = \"Echoes.\"\nrequires = [\"text\"]\n{accepts}\n\
             [verbs.write_note]\nsummary = \"Writes.\"\nrequires = [\"path\"]\n"
        );
        let deny = "tools = [\"write_note\"]\n";
        let sources = PolicySources::from_bytes("p", |f| match f {
            PolicyFile::Tools => Some(tools.as_bytes()),
            PolicyFile::Deny => Some(deny.as_bytes()),
            _ => None,
        });
        Box::leak(Box::new(compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)))))
    }

    fn listed() -> Vec<Value> {
        ["echo", "write_note"].iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect()
    }

    /// The shadow line (if any) of a call, with `enforced` deciding and `shadow` watching.
    fn line(
        enforced: &'static Gateway,
        shadow: &Shadow,
        read_only: bool,
        name: &str,
        arguments: Value,
    ) -> Option<Value> {
        let guard = Guard::for_gateway(enforced, enforced.mode.with_command_line(read_only).is_read_only());
        let view = View::new(enforced, &guard, &listed());
        let arguments = arguments.as_object();
        let decided = gateway::check(enforced, &guard, &view, name, arguments);
        let record = Record::new("stdio", name, Decision::Refused, "enforced");
        let checked = shadow.check(&shadow.view(&listed()), name, arguments);
        shadow.divergence(record, &decided, &checked).map(|r| serde_json::to_value(r).unwrap())
    }

    #[test]
    fn a_write_the_enforced_policy_refuses_and_the_shadow_allows_is_a_shadow_line() {
        let shadow = Shadow::new(policy("read-write", true), false);
        let line = line(policy("read-only", true), &shadow, false, "write_note", json!({"path": "/x"})).unwrap();
        assert_eq!(line["decision"], "shadow");
        assert_eq!(line["enforced"]["decision"], "refuse");
        assert_eq!(line["enforced"]["code"], "guard");
        assert_eq!(line["enforced"]["policy"], "enforced");
        assert_eq!(line["shadow"], json!({"policy": shadow.digest(), "decision": "forward", "verb": "write_note"}));
    }

    #[test]
    fn a_read_the_shadow_refuses_names_its_reason_and_code() {
        let shadow = Shadow::new(policy("read-write", false), false);
        let line = line(policy("read-write", true), &shadow, false, "echo", json!({"text": "hi", "note": "n"}));
        let line = line.expect("the shadow refuses `note`");
        assert_eq!(line["enforced"], json!({"policy": "enforced", "decision": "forward", "verb": "echo"}));
        assert_eq!(line["shadow"]["code"], "undeclared-argument");
        assert!(line["shadow"]["reason"].as_str().unwrap().contains("`note`"), "{line}");
    }

    #[test]
    fn the_same_decision_writes_nothing_and_a_different_refusal_does() {
        let shadow = Shadow::new(policy("read-write", false), false);
        let enforced = policy("read-only", true);
        assert_eq!(line(enforced, &shadow, false, "echo", json!({"text": "hi"})), None);
        // Both refuse a missing `text` alike.
        assert_eq!(line(enforced, &shadow, false, "echo", json!({})), None);
        // Refused by both, for a different reason: read-only against a missing argument.
        let both = line(enforced, &shadow, false, "write_note", json!({})).expect("different refusals");
        assert_eq!((&both["enforced"]["code"], &both["shadow"]["code"]), (&json!("guard"), &json!("missing-argument")));
    }

    #[test]
    fn read_only_on_the_command_line_makes_the_shadow_read_only_too() {
        let shadow = Shadow::new(policy("read-write", true), true);
        assert_eq!(line(policy("read-write", true), &shadow, true, "write_note", json!({"path": "/x"})), None);
        let write = Shadow::new(policy("read-write", true), false);
        assert!(line(policy("read-write", true), &write, true, "write_note", json!({"path": "/x"})).is_some());
    }
}
