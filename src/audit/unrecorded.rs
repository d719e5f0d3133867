//! What a line that does not reach the audit trail means for the call it
//! records, in the words its caller is given. The trail's rule is one rule
//! wherever a decision is made (the service's calls, the gateway's calls and
//! other requests, the shadow policy's decisions, a fleet's routing): a
//! call whose line cannot be written before it runs does not run; an answer
//! whose line cannot be written is withheld; a refusal stays a refusal and
//! says that it went unrecorded. Each of those places builds one of these
//! values, so the rule is worded once.

use super::AuditError;

/// What a call's line would have let through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// A call that `m1nd serve` runs against its store.
    Run,
    /// A `tools/call` the gateway forwards to its upstream.
    Forward,
    /// Another request the gateway forwards (a prompt, a resource, a completion).
    ForwardRequest,
}

impl Gate {
    fn noun(self) -> &'static str {
        match self {
            Gate::Run | Gate::Forward => "call",
            Gate::ForwardRequest => "request",
        }
    }

    fn before(self) -> &'static str {
        match self {
            Gate::Run => "runs",
            Gate::Forward | Gate::ForwardRequest => "is forwarded",
        }
    }

    fn spared(self) -> &'static str {
        match self {
            Gate::Run => "it did not run and nothing changed",
            Gate::Forward | Gate::ForwardRequest => "nothing was sent to the upstream",
        }
    }

    fn after(self) -> &'static str {
        match self {
            Gate::Run => " (anything it wrote stands: read the store before calling again)",
            Gate::Forward | Gate::ForwardRequest => "",
        }
    }
}

/// A line the trail did not take, and what became of the call.
#[derive(Debug, thiserror::Error)]
pub enum Unrecorded {
    /// The line letting `what` through: it was refused instead.
    #[error(
        "{what} refused: {error}; every {noun} must be recorded in the audit trail before it {before}, so {spared}: \
         free space on the disk or fix the audit file, then try again",
        noun = .gate.noun(), before = .gate.before(), spared = .gate.spared()
    )]
    Before { what: String, gate: Gate, error: AuditError },
    /// The line of `what`'s answer: the answer is withheld.
    #[error(
        "{what} was answered, but the answer could not be recorded in the audit trail: {error}; the result is \
         withheld{after}",
        after = .gate.after()
    )]
    Answer { what: String, gate: Gate, error: AuditError },
    /// The line of a refusal: the caller still gets the refusal, `told`.
    /// The trail's words come first, since a refusal's own may be long.
    #[error("the refusal could not be recorded in the audit trail ({error}): {told}")]
    Refusal { told: String, error: AuditError },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed() -> AuditError {
        AuditError::Write { path: "audit.jsonl".into(), source: std::io::Error::other("disk full") }
    }

    #[test]
    fn each_line_says_what_became_of_the_call_and_what_to_do() {
        let run = Unrecorded::Before { what: "`memorize`".into(), gate: Gate::Run, error: failed() }.to_string();
        for needed in ["`memorize` refused", "disk full", "before it runs", "did not run and nothing changed"] {
            assert!(run.contains(needed), "{needed:?} missing from {run}");
        }
        let forward =
            Unrecorded::Before { what: "prompts/get".into(), gate: Gate::ForwardRequest, error: failed() }.to_string();
        assert!(
            forward.contains("every request must be recorded") && forward.contains("nothing was sent"),
            "{forward}"
        );
        let answer = Unrecorded::Answer { what: "`git_log`".into(), gate: Gate::Forward, error: failed() }.to_string();
        assert!(answer.ends_with("the result is withheld"), "{answer}");
        let ran = Unrecorded::Answer { what: "`memorize`".into(), gate: Gate::Run, error: failed() }.to_string();
        assert!(ran.contains("read the store before calling again"), "{ran}");
        let refusal = Unrecorded::Refusal { told: "unknown tool `x`".into(), error: failed() }.to_string();
        assert!(refusal.starts_with("the refusal could not be recorded") && refusal.ends_with("unknown tool `x`"));
    }
}
