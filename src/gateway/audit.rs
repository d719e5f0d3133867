//! `m1nd gateway --audit FILE`: what the gateway's lines add to the shared
//! audit trail ([`crate::audit`], which states the invariant and holds the
//! file, the line and the session's digest).
//!
//! A call the gateway lets through gets a `forwarded` line before the
//! request is written to the upstream, and an `answered` line when the
//! upstream answers (or fails to), with the upstream's latency; if that line
//! cannot be appended the client is told so instead of getting the result.
//! Each line of a resolved call also names the upstream's tool and the
//! digest of its definition as `tools.toml` pins it ([`Upstream`]).
//!
//! With `--shadow DIR`, a call the shadow policy would decide differently
//! gets a `shadow` line first, naming both decisions (see shadow.rs); the
//! enforced decision's own lines follow as always.

use m1nd_policy::gateway::{Forward, GatewayRefused};
use serde::Serialize;

/// The shared items `session.rs` reaches through this module.
pub use crate::audit::{Audit, Decision, Gate, Unrecorded, session};

/// What a gateway line adds: the upstream's side of a resolved call.
#[derive(Debug, Default, Serialize)]
pub struct Upstream<'a> {
    /// The request, for anything but a `tools/call` (`prompts/get`,
    /// `resources/read`, `resources/subscribe`, `completion/complete`);
    /// `name` is then the prompt's name, the URI or the completed reference
    /// as the client wrote it, and `verb` what was forwarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'a str>,
    /// Behind a fleet (`m1nd gateway --fleet`): the upstream whose policy
    /// decided, by its name in `fleet.toml`; `policy` is that policy's digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<&'a str>,
    /// The upstream's name for the tool, once resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'a str>,
    /// The digest of the tool's definition, as `tools.toml` pins it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<&'a str>,
    /// The enforced policy's decision (`shadow` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforced: Option<Verdict<'a>>,
    /// The shadow policy's decision, with its digest (`shadow` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow: Option<Verdict<'a>>,
}

/// What one policy would do with a call, on a `shadow` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Would {
    Forward,
    Refuse,
}

/// One policy's decision on a call, as a `shadow` line names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict<'a> {
    /// The policy's digest (`m1nd policy digest DIR`).
    pub policy: &'a str,
    pub decision: Would,
    /// The policy's name for the tool, when it would forward the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb: Option<String>,
    /// A refusal's kind, as [`code`] names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// What the client is (or would be) told when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl<'a> Verdict<'a> {
    /// The verdict of the policy with digest `policy` that checked a call as `checked`.
    pub fn of(policy: &'a str, checked: &Result<Forward, GatewayRefused>) -> Self {
        let (decision, verb, code, reason) = match checked {
            Ok(forward) => (Would::Forward, Some(forward.verb.clone()), None, None),
            Err(refused) => (Would::Refuse, None, Some(code(refused)), Some(refused.to_string())),
        };
        Verdict { policy, decision, verb, code, reason }
    }

    /// Whether two policies decide a call differently: one forwards and the
    /// other refuses, or both refuse for a different reason or code. Two
    /// forwards agree, whatever the policies call the tool.
    pub fn differs(&self, other: &Verdict<'_>) -> bool {
        (self.decision, self.code, &self.reason) != (other.decision, other.code, &other.reason)
    }
}

/// One line of the gateway's audit file.
pub type Record<'a> = crate::audit::Record<'a, Upstream<'a>>;

impl<'a> Record<'a> {
    /// The line of a call resolved to the policy's `verb`, the upstream's
    /// `tool`, and the digest of its served `definition`.
    pub fn resolved(self, verb: &'a str, tool: &'a str, definition: Option<&'a str>) -> Self {
        Record { verb: Some(verb), own: Upstream { tool: Some(tool), definition, ..self.own }, ..self }
    }
}

/// A refusal's kind, for the `code` field.
pub fn code(refused: &GatewayRefused) -> &'static str {
    match refused {
        GatewayRefused::Guard(_) => "guard",
        GatewayRefused::Hidden(_) => "hidden",
        GatewayRefused::NotOffered { .. } => "not-offered",
        GatewayRefused::UndeclaredArgument { .. } => "undeclared-argument",
        GatewayRefused::MissingArgument { .. } => "missing-argument",
        GatewayRefused::Pin { .. } => "pin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// A resolved line names the upstream's tool and definition beside the shared fields.
    #[test]
    fn a_resolved_line_names_the_upstream_tool_and_its_definition() {
        let line = Record::new("stdio", "Read_File", Decision::Forwarded, "p").resolved(
            "read_file",
            "fs_read_file",
            Some("blake3:00"),
        );
        let value: Value = serde_json::to_value(&line).unwrap();
        assert_eq!(value["verb"], "read_file");
        assert_eq!(value["tool"], "fs_read_file");
        assert_eq!(value["definition"], "blake3:00");
        assert_eq!(value["decision"], "forwarded");
        let unresolved: Value = serde_json::to_value(Record::new("stdio", "x", Decision::Refused, "p")).unwrap();
        assert!(unresolved.get("tool").is_none() && unresolved.get("definition").is_none(), "{unresolved}");
    }
}
