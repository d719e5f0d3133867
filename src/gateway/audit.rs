//! `m1nd gateway --audit FILE`: one JSON line per decision on a `tools/call`.
//!
//! # The invariant
//!
//! No call reaches the upstream unless its decision is in the audit file
//! first: the `forwarded` line is appended before the request is written to
//! the upstream, and a call whose line cannot be appended is refused, with an
//! error that says so (fail closed). A refused call gets a `refused` line;
//! a forwarded one gets an `answered` line when the upstream answers (or
//! fails to), with the upstream's latency, and if that line cannot be
//! appended the client is told so instead of getting the result.
//!
//! Argument values are never written unless `--audit-arguments` asks: then
//! `hashed` (blake3 of the arguments object as JSON) or `plain`.
//!
//! With `--shadow DIR`, a call the shadow policy would decide differently
//! gets a `shadow` line first, naming both decisions (see shadow.rs); the
//! enforced decision's own lines follow as always.
//!
//! The file is opened once, for appending (`O_APPEND`), and each line is one
//! `write` of the whole line under a lock, so lines never interleave.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use m1nd_core::gateway::{Forward, GatewayRefused};
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde::Serialize;
use serde_json::{Map, Value};

/// What is written of a call's arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AuditArguments {
    /// Nothing (the default: values may hold secrets).
    #[default]
    Omitted,
    /// `blake3:` and the hex digest of the arguments object, as JSON.
    Hashed,
    /// The arguments as the client sent them.
    Plain,
}

/// The audit file, open for appending.
#[derive(Debug)]
pub struct Audit {
    display: String,
    file: Mutex<File>,
    arguments: AuditArguments,
}

/// Why the audit trail could not be kept.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(
        "cannot open the audit file {path} for appending: {source}; the gateway does not start without its \
         audit trail: give --audit a file in a directory that exists and that the gateway may write"
    )]
    Open { path: String, source: std::io::Error },
    #[error("cannot append to the audit file {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// What became of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Checked and let through; written before it is sent upstream.
    Forwarded,
    /// Refused by the gateway; nothing was sent upstream.
    Refused,
    /// The upstream's answer (or its failure) to a forwarded call.
    Answered,
    /// The shadow policy would have decided otherwise; written before the
    /// enforced decision's line, and nothing else follows from it.
    Shadow,
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

/// One line of the audit file.
#[derive(Debug, Serialize)]
pub struct Record<'a> {
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: String,
    /// `stdio`, or `http:` and a digest of the HTTP session's id (never the id itself).
    pub session: &'a str,
    /// The tool name as the client wrote it (made printable and capped).
    pub name: String,
    pub decision: Decision,
    /// The policy's name for the tool, once resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb: Option<&'a str>,
    /// The upstream's name for the tool, once resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'a str>,
    /// A refusal's kind: [`code`]'s, or `not-connected` when no upstream is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// What the client was told when it was refused, or why the upstream failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The gateway policy's digest (`m1nd policy digest DIR`).
    pub policy: &'a str,
    /// The digest of the tool's definition, as `tools.toml` pins it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<&'a str>,
    /// Milliseconds the upstream took to answer (`answered` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Whether the upstream's answer was an error (`answered` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Only with `--audit-arguments`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The enforced policy's decision (`shadow` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforced: Option<Verdict<'a>>,
    /// The shadow policy's decision, with its digest (`shadow` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow: Option<Verdict<'a>>,
}

impl<'a> Record<'a> {
    /// A line with what every decision carries (the caller fills in the rest).
    pub fn new(session: &'a str, name: &str, decision: Decision, policy: &'a str) -> Self {
        Record {
            time: crate::store::now_utc(),
            session,
            name: m1nd_core::sanitize::display(name, m1nd_core::sanitize::cap::VALUE),
            decision,
            verb: None,
            tool: None,
            code: None,
            reason: None,
            policy,
            definition: None,
            latency_ms: None,
            is_error: None,
            arguments: None,
            enforced: None,
            shadow: None,
        }
    }
}

impl<'a> Record<'a> {
    /// The line of a call resolved to the policy's `verb`, the upstream's
    /// `tool`, and the digest of its served `definition`.
    pub fn resolved(self, verb: &'a str, tool: &'a str, definition: Option<&'a str>) -> Self {
        Record { verb: Some(verb), tool: Some(tool), definition, ..self }
    }
}

impl Audit {
    /// Open (creating it if needed) `path` for appending.
    pub fn open(path: &Path, arguments: AuditArguments) -> Result<Self, AuditError> {
        let display = path.display().to_string();
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map_err(|source| AuditError::Open { path: display.clone(), source })?;
        Ok(Self { display, file: Mutex::new(file), arguments })
    }

    /// What to write of `arguments`, as `--audit-arguments` says.
    pub fn arguments(&self, arguments: Option<&Map<String, Value>>) -> Option<Value> {
        let object = || Value::Object(arguments.cloned().unwrap_or_default());
        match self.arguments {
            AuditArguments::Omitted => None,
            AuditArguments::Hashed => {
                let text = object().to_string();
                Some(Value::from(format!("blake3:{}", blake3::hash(text.as_bytes()).to_hex())))
            }
            AuditArguments::Plain => Some(object()),
        }
    }

    /// Append one line, in one write.
    pub fn write(&self, record: &Record<'_>) -> Result<(), AuditError> {
        let failed = |source| AuditError::Write { path: self.display.clone(), source };
        let mut line = serde_json::to_vec(record).map_err(|e| failed(std::io::Error::other(e)))?;
        line.push(b'\n');
        let mut file = self.file.lock().map_err(|_| failed(std::io::Error::other("a writer panicked")))?;
        file.write_all(&line).and_then(|()| file.flush()).map_err(failed)
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

/// The session a call came on: `stdio`, or for Streamable HTTP `http:` and
/// the first 16 hex digits of blake3 of its `mcp-session-id` (the id itself
/// lets anyone holding it talk in the session, so it is not written).
pub fn session(context: &RequestContext<RoleServer>) -> String {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return "stdio".into();
    };
    match parts.headers.get("mcp-session-id") {
        Some(id) => format!("http:{}", &blake3::hash(id.as_bytes()).to_hex()[..16]),
        None => "http".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(decision: Decision) -> Record<'static> {
        Record {
            time: "2026-12-02T09:00:00Z".into(),
            session: "stdio",
            name: "Read_File".into(),
            decision,
            verb: Some("read_file"),
            tool: Some("read_file"),
            code: None,
            reason: None,
            policy: "p",
            definition: None,
            latency_ms: None,
            is_error: None,
            arguments: None,
            enforced: None,
            shadow: None,
        }
    }

    #[test]
    fn lines_are_appended_one_json_object_each() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "{\"earlier\":true}\n").unwrap();
        let audit = Audit::open(&path, AuditArguments::Omitted).unwrap();
        audit.write(&record(Decision::Forwarded)).unwrap();
        audit.write(&record(Decision::Refused)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[1]["decision"], "forwarded");
        assert_eq!(lines[2]["decision"], "refused");
        assert!(lines[2].get("arguments").is_none());
    }

    #[test]
    fn arguments_are_omitted_hashed_or_plain() {
        let dir = tempfile::tempdir().unwrap();
        let args: Map<String, Value> = serde_json::from_str(r#"{"token":"s3cret"}"#).unwrap();
        let open = |mode| Audit::open(&dir.path().join("a"), mode).unwrap();
        assert_eq!(open(AuditArguments::Omitted).arguments(Some(&args)), None);
        let hashed = open(AuditArguments::Hashed).arguments(Some(&args)).unwrap();
        let expected = format!("blake3:{}", blake3::hash(br#"{"token":"s3cret"}"#).to_hex());
        assert_eq!(hashed, Value::from(expected));
        assert!(!hashed.to_string().contains("s3cret"));
        assert_eq!(open(AuditArguments::Plain).arguments(Some(&args)), Some(Value::Object(args)));
    }

    #[test]
    fn an_unwritable_file_is_an_error_not_a_silent_skip() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir").join("audit.jsonl");
        let opened = Audit::open(&missing, AuditArguments::Omitted).unwrap_err().to_string();
        assert!(opened.contains("no-such-dir") && opened.contains("does not start"), "{opened}");
        if Path::new("/dev/full").exists() {
            let full = Audit::open(Path::new("/dev/full"), AuditArguments::Omitted).unwrap();
            let failed = full.write(&record(Decision::Forwarded)).unwrap_err().to_string();
            assert!(failed.contains("/dev/full"), "{failed}");
        }
    }
}
