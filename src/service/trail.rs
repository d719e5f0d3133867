//! `m1nd serve --audit FILE`: a call's decisions on the audit trail
//! ([`crate::audit`]), written where the service decides, so both
//! transports (and stdio's fast path) record every `tools/call` the same way.
//!
//! # What each call gets, in order
//!
//! 1. **Refused** by the guard, the served-verb check or the argument check
//!    ([`Service::call_in`](super::Service::call_in)): a `refused` line with
//!    its code (a law's, such as `M013`, or the refusal's kind) and what the
//!    client is told, unless that text may hold an argument's value and
//!    values are not written plain. Nothing ran.
//! 2. **Let through**: an `admitted` line, before anything is queued for the
//!    store. If it cannot be appended the call is refused saying so, and it
//!    never runs: a write changes nothing.
//! 3. **Answered**: an `answered` line with the latency, `is_error`, and a
//!    failure's code. If it cannot be appended, the result is withheld and
//!    the client is told why (what the call wrote stands).
//!
//! A call the client cancels while it runs has its `admitted` line and no
//! `answered` one: the answer is never made. Without `--audit` every step is
//! a no-op.

use std::time::Duration;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::{Answer, ServiceError};
use crate::COCKPIT;
use crate::audit::{Audit, AuditArguments, Decision, Gate, Unrecorded};

/// One line of `serve`'s audit file: the shared fields and nothing of its own.
type Record<'a> = crate::audit::Record<'a, ()>;

/// The audit trail of one call.
pub(super) struct Trail<'a> {
    audit: Option<&'a Audit>,
    session: &'a str,
    name: &'a str,
    /// What is written of the arguments, computed once for every line.
    arguments: Option<Value>,
}

impl<'a> Trail<'a> {
    /// The trail of the call of `name` with `args` on `session`, if there is an audit file.
    pub fn new(audit: Option<&'a Audit>, session: &'a str, name: &'a str, args: Option<&JsonObject>) -> Self {
        let arguments = audit.and_then(|a| a.arguments(args));
        Self { audit, session, name, arguments }
    }

    fn line(&self, decision: Decision, verb: Option<&'a str>) -> Record<'a> {
        Record {
            verb,
            arguments: self.arguments.clone(),
            ..Record::new(self.session, self.name, decision, &COCKPIT.digest)
        }
    }

    /// `line` with `failure`'s code, and its text when it holds no argument
    /// value or values are written plain.
    fn failed(&self, audit: &Audit, line: Record<'a>, failure: &ServiceError) -> Record<'a> {
        let plain = audit.arguments_mode() == AuditArguments::Plain;
        let reason = (plain || !failure.echoes_a_value()).then(|| failure.to_string());
        Record { code: Some(failure.code()), reason, ..line }
    }

    /// The answer to a call refused before it ran, once the refusal is recorded.
    pub fn refused(&self, verb: Option<&'a str>, refused: ServiceError) -> Answer {
        let Some(audit) = self.audit else { return Answer::error(refused) };
        match audit.write(&self.failed(audit, self.line(Decision::Refused, verb), &refused)) {
            Ok(()) => Answer::error(refused),
            Err(error) => Answer::error(Unrecorded::Refusal { told: refused.to_string(), error }),
        }
    }

    /// Record that `verb` is let through; if that fails, the answer refusing it.
    pub fn admitted(&self, verb: &'a str) -> Result<(), Answer> {
        let Some(audit) = self.audit else { return Ok(()) };
        audit
            .write(&self.line(Decision::Admitted, Some(verb)))
            .map_err(|error| Answer::error(Unrecorded::Before { what: format!("`{verb}`"), gate: Gate::Run, error }))
    }

    /// The answer to `verb`, which took `latency`, once it is recorded.
    pub fn answered(&self, verb: &'a str, outcome: Result<Answer, ServiceError>, latency: Duration) -> Answer {
        let Some(audit) = self.audit else { return outcome.unwrap_or_else(Answer::error) };
        let line = self.line(Decision::Answered, Some(verb));
        let (line, answer) = match outcome {
            Ok(answer) => (Record { is_error: Some(answer.is_error()), ..line }, answer),
            Err(failure) => {
                (Record { is_error: Some(true), ..self.failed(audit, line, &failure) }, Answer::error(failure))
            }
        };
        let line = Record { latency_ms: Some(latency.as_secs_f64() * 1000.0), ..line };
        match audit.write(&line) {
            Ok(()) => answer,
            Err(error) => Answer::error(Unrecorded::Answer { what: format!("`{verb}`"), gate: Gate::Run, error }),
        }
    }
}
