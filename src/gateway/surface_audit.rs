//! The audit trail (`--audit`) of a request for a prompt, a resource or a
//! completion: the same lines as a `tools/call`, with the request's method.
//!
//! The invariant is the trail's own (see [`crate::audit`]): a request
//! reaches the upstream only once its `forwarded` line is written (a request
//! whose line cannot be written is refused, and the error says so); a
//! refused one gets a `refused` line with its code and reason; an answer
//! gets an `answered` line with the upstream's latency, and one that cannot
//! be recorded is withheld.

use m1nd_policy::gateway::surfaces::SurfaceRefused;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::audit::{Audit, Decision, Gate, Record, Unrecorded, Upstream, session};
use super::state::State;

/// One request's place in the trail.
pub struct Trail<'a> {
    audit: Option<&'a Audit>,
    session: String,
    method: &'static str,
    /// The prompt's name, the URI, or the reference, as the client wrote it.
    name: &'a str,
    policy: &'a str,
    /// Behind a fleet, the upstream whose policy decides.
    upstream: Option<&'a str>,
}

impl<'a> Trail<'a> {
    pub fn new(state: &'a State, context: &RequestContext<RoleServer>, method: &'static str, name: &'a str) -> Self {
        let audit = state.options.audit.as_deref();
        let upstream = state.options.member.as_deref();
        Self { audit, session: session(context), method, name, policy: &state.digest, upstream }
    }

    fn line<'b>(&'b self, decision: Decision, forwarded: Option<&'b str>) -> Record<'b> {
        Record {
            verb: forwarded,
            own: Upstream { method: Some(self.method), upstream: self.upstream, ..Upstream::default() },
            ..Record::new(&self.session, self.name, decision, self.policy)
        }
    }

    /// Decide one request: a refusal is recorded and returned; an allowed
    /// request (`checked` holds what is forwarded) is recorded, sent with
    /// `send`, and its answer recorded before it is returned.
    pub async fn run<T>(
        self,
        checked: Result<String, SurfaceRefused>,
        send: impl AsyncFnOnce(String) -> Result<T, McpError>,
    ) -> Result<T, McpError> {
        let forwarded = match checked {
            Ok(forwarded) => forwarded,
            Err(refused) => return Err(self.refuse(refused)),
        };
        if let Some(audit) = self.audit
            && let Err(error) = audit.write(&self.line(Decision::Forwarded, Some(&forwarded)))
        {
            let unrecorded = Unrecorded::Before { what: self.method.to_owned(), gate: Gate::ForwardRequest, error };
            return Err(McpError::internal_error(unrecorded.to_string(), None));
        }
        let started = std::time::Instant::now();
        let answer = send(forwarded.clone()).await;
        if let Some(audit) = self.audit {
            let line = Record {
                latency_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
                is_error: Some(answer.is_err()),
                ..self.line(Decision::Answered, Some(&forwarded))
            };
            if let Err(error) = audit.write(&line) {
                let unrecorded = Unrecorded::Answer { what: self.method.to_owned(), gate: Gate::ForwardRequest, error };
                return Err(McpError::internal_error(unrecorded.to_string(), None));
            }
        }
        answer
    }

    /// The error a refused request gets, once its line is written.
    fn refuse(&self, refused: SurfaceRefused) -> McpError {
        let (code, told) = (refused.code(), refused.to_string());
        let mut message = told.clone();
        if let Some(audit) = self.audit {
            let line = Record { code: Some(code), reason: Some(told.clone()), ..self.line(Decision::Refused, None) };
            if let Err(error) = audit.write(&line) {
                message = Unrecorded::Refusal { told, error }.to_string();
            }
        }
        McpError::invalid_params(message, Some(serde_json::json!({"code": code})))
    }
}
