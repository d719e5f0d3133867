//! What the guard does not pass on from the handler it wraps, and the error
//! a client gets instead: the calls (guarded.rs) and the prompts and
//! resources (surfaces.rs) refuse it in the same words.

use rmcp::ErrorData as McpError;

/// What an answer that asks the client for input did.
pub(crate) const INPUT: &str = "asked the client for input (`input_required`)";

/// A handler answer the guard does not pass on, as the gateway refuses an
/// upstream's: its content could not be checked as a result is.
pub(crate) fn not_passed_on(verb: &str, what: &str) -> McpError {
    McpError::invalid_request(
        format!("`{verb}`: the server's handler {what}, which the guard does not pass on to a client"),
        None,
    )
}
