//! Where a `tools/call`'s handler may leave its answer for the transport to
//! write from the answer's own bytes, instead of giving rmcp a copy to
//! serialise (`transport/http/kept_answers.rs` says when and why).
//!
//! The transport puts an empty [`AnswerSlot`] in a request's HTTP
//! extensions; rmcp hands those to the handler with the request, and
//! [`hand_over`] fills the slot. A request without a slot is answered as
//! always, so every other transport and caller is unchanged.

use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;

use crate::service::Answer;

/// One request's slot, shared by the transport (which takes the answer out)
/// and the handler (which puts it in).
#[derive(Clone, Default)]
pub struct AnswerSlot(Arc<Mutex<Option<Answer>>>);

impl AnswerSlot {
    fn put(&self, answer: Answer) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(answer);
        }
    }

    /// The answer the handler left, if it left one.
    pub fn take(&self) -> Option<Answer> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// What a call's handler gives rmcp: the result itself, or, when the request
/// carries a slot, an empty stand-in, the answer itself left in the slot.
pub fn hand_over(context: &RequestContext<RoleServer>, answer: Answer) -> CallToolResult {
    let slot = context.extensions.get::<axum::http::request::Parts>().and_then(|p| p.extensions.get::<AnswerSlot>());
    match slot {
        Some(slot) => {
            slot.put(answer);
            CallToolResult::success(Vec::new())
        }
        None => CallToolResult::from(answer),
    }
}
