//! The audit trail: one JSON line per decision on a `tools/call`, written by
//! `m1nd serve --audit FILE` and `m1nd gateway --audit FILE` alike.
//!
//! # The invariant
//!
//! No call runs (or, behind the gateway, reaches the upstream) unless its
//! decision is in the audit file first: the line that lets it through is
//! appended before it runs, and a call whose line cannot be appended is
//! refused, with an error that says so (fail closed). A refused call gets a
//! `refused` line; a call let through gets an `answered` line once it is
//! answered, with its latency. Each front end keeps that order where it
//! decides (`service/trail.rs` for `serve`, the gateway's `state.rs`,
//! `surface_audit.rs` and `shadow.rs`); this module holds what they share:
//! the file, the line's shape, the session's digest, what is written of the
//! arguments, and what a line that cannot be written means ([`Unrecorded`]).
//!
//! Argument values are never written unless `--audit-arguments` asks: then
//! `hashed` (blake3 of the arguments object as JSON) or `plain`.
//!
//! The file is opened once, for appending (`O_APPEND`), and each line is one
//! `write` of the whole line under a lock, so lines never interleave.

mod unrecorded;

pub use unrecorded::{Gate, Unrecorded};

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde::Serialize;
use serde_json::{Map, Value};

/// The session of a call that came over stdio.
pub const STDIO: &str = "stdio";

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
        "cannot open the audit file {path} for appending: {source}; m1nd does not start without its audit \
         trail: give --audit a file in a directory that exists and that m1nd may write"
    )]
    Open { path: String, source: std::io::Error },
    #[error("cannot append to the audit file {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// What became of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// `serve`: checked and let through; written before it runs.
    Admitted,
    /// `gateway`: checked and let through; written before it is sent upstream.
    Forwarded,
    /// Refused; nothing ran and nothing was sent upstream.
    Refused,
    /// The answer (or the failure) of a call let through.
    Answered,
    /// `gateway --shadow`: the shadow policy would have decided otherwise;
    /// written before the enforced decision's line, and nothing else follows
    /// from it.
    Shadow,
}

/// One line of the audit file. `E` is what a front end adds of its own
/// (the gateway's upstream tool and pinned definition; nothing for `serve`),
/// written among the other fields.
#[derive(Debug, Serialize)]
pub struct Record<'a, E> {
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: String,
    /// `stdio`, or `http:` and a digest of the HTTP session's id (never the id itself), after
    /// `agent:NAME/` when a per-agent access token named the caller: [`session`].
    pub session: &'a str,
    /// The tool name as the client wrote it (made printable and capped).
    pub name: String,
    pub decision: Decision,
    /// The policy's name for the tool, once resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb: Option<&'a str>,
    /// What the front end adds.
    #[serde(flatten)]
    pub own: E,
    /// A refusal's kind (or a law's code), and on `answered` lines a failure's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// What the client was told when it was refused, or why the call failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The policy's digest (`m1nd policy digest`).
    pub policy: &'a str,
    /// Milliseconds the call took to be answered (`answered` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Whether the answer was an error (`answered` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Only with `--audit-arguments`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

impl<'a, E: Default> Record<'a, E> {
    /// A line with what every decision carries (the caller fills in the rest).
    pub fn new(session: &'a str, name: &str, decision: Decision, policy: &'a str) -> Self {
        Record {
            time: crate::clock::now_utc(),
            session,
            name: m1nd_policy::sanitize::display(name, m1nd_policy::sanitize::cap::VALUE),
            decision,
            verb: None,
            own: E::default(),
            code: None,
            reason: None,
            policy,
            latency_ms: None,
            is_error: None,
            arguments: None,
        }
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

    /// What `--audit-arguments` asked to be written of the arguments.
    pub fn arguments_mode(&self) -> AuditArguments {
        self.arguments
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
    pub fn write<E: Serialize>(&self, record: &Record<'_, E>) -> Result<(), AuditError> {
        let failed = |source| AuditError::Write { path: self.display.clone(), source };
        let mut line = serde_json::to_vec(record).map_err(|e| failed(std::io::Error::other(e)))?;
        line.push(b'\n');
        let mut file = self.file.lock().map_err(|_| failed(std::io::Error::other("a writer panicked")))?;
        file.write_all(&line).and_then(|()| file.flush()).map_err(failed)
    }
}

/// The session a call came on: [`STDIO`], or for Streamable HTTP `http:` and
/// the first 16 hex digits of blake3 of its `mcp-session-id` (the id itself
/// lets anyone holding it talk in the session, so it is not written), or
/// `http` for a request of no session.
pub fn session(context: &RequestContext<RoleServer>) -> String {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return STDIO.into();
    };
    let http = match parts.headers.get("mcp-session-id") {
        Some(id) => format!("http:{}", &blake3::hash(id.as_bytes()).to_hex()[..16]),
        None => "http".into(),
    };
    // A per-agent access token names the caller (its `sub`, checked to be plain text).
    match parts.extensions.get::<crate::lane::Agent>() {
        Some(agent) => format!("agent:{}/{http}", agent.0),
        None => http,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(decision: Decision) -> Record<'static, ()> {
        Record {
            time: "2026-12-02T09:00:00Z".into(),
            verb: Some("read_file"),
            ..Record::new(STDIO, "Read_File", decision, "p")
        }
    }

    #[test]
    fn lines_are_appended_one_json_object_each() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "{\"earlier\":true}\n").unwrap();
        let audit = Audit::open(&path, AuditArguments::Omitted).unwrap();
        audit.write(&record(Decision::Admitted)).unwrap();
        audit.write(&record(Decision::Refused)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[1]["decision"], "admitted");
        assert_eq!(lines[2]["decision"], "refused");
        assert_eq!(lines[2]["name"], "Read_File");
        assert_eq!(lines[2]["verb"], "read_file");
        assert!(lines[2].get("arguments").is_none());
        let keys: Vec<&str> = lines[2].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["time", "session", "name", "decision", "verb", "policy"], "nothing of `()` is written");
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
            let failed = full.write(&record(Decision::Admitted)).unwrap_err().to_string();
            assert!(failed.contains("/dev/full"), "{failed}");
        }
    }
}
