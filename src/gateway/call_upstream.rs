//! One forwarded call to the upstream, under the gateway's time limit.
//!
//! A call whose client asked for progress is sent with rmcp's lower-level
//! `send_request_with_option`, which names the progress token rmcp gave the
//! request, so the upstream's progress on it can be routed back
//! (`progress.rs`); any other call is rmcp's own `call_tool`. Both give the
//! same answer for the same upstream reply:
//!
//! 1. The time limit covers the upstream's answer only. Once it has come,
//!    waiting for the progress still on its way (bounded on its own) never
//!    turns a completed call into a timed-out one.
//! 2. A reply is read as `call_tool` reads it, including the replies it
//!    accepts without `content` ([`tool_result`]).
//! 3. A call the gateway stops waiting for is cancelled upstream, as
//!    `call_tool` cancels one.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientRequest, MetaObject,
    ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient, RoleServer};
use tokio::time::error::Elapsed;

use super::progress::ProgressRoutes;

/// Send `params` upstream and wait at most `timeout` for the answer. With
/// an `asker` (the client and the progress token its request carried), the
/// upstream's progress on the call goes back to that client.
pub(super) async fn call_upstream(
    routes: &Arc<ProgressRoutes>,
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    asker: Option<(Peer<RoleServer>, ProgressToken)>,
    timeout: Duration,
) -> Result<Result<CallToolResult, ServiceError>, Elapsed> {
    let Some((client, asked)) = asker else {
        return tokio::time::timeout(timeout, peer.call_tool(params)).await;
    };
    let mut route = None;
    let answered = tokio::time::timeout(timeout, async {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer.send_request_with_option(request, PeerRequestOptions::no_options()).await?;
        route = routes.open(client, asked, handle.progress_token.clone());
        let mut abandoned = Abandoned { peer: peer.clone(), id: Some(handle.id.clone()) };
        let answered = handle.await_response().await;
        abandoned.id = None;
        answered.and_then(tool_result)
    })
    .await;
    if let (Ok(_), Some(route)) = (&answered, route) {
        route.settle().await;
    }
    answered
}

/// A `tools/call` reply, read as rmcp's `call_tool` reads it: a tool result,
/// or a reply rmcp decodes as something else because it has no `content`
/// (an empty result, a task acknowledgement, only `_meta`), which is a
/// result without content. Anything else is not an answer to a call.
fn tool_result(reply: ServerResult) -> Result<CallToolResult, ServiceError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct MetaOnly {
        #[serde(rename = "_meta")]
        meta: MetaObject,
    }
    let (result_type, meta) = match reply {
        ServerResult::CallToolResult(result) => return Ok(result),
        ServerResult::EmptyResult(_) => (None, None),
        ServerResult::TaskAckResult(ack) => (Some(ack.result_type), ack.meta),
        ServerResult::CustomResult(custom) => match serde_json::from_value::<MetaOnly>(custom.0) {
            Ok(MetaOnly { meta }) => (None, Some(meta)),
            Err(_) => return Err(ServiceError::UnexpectedResponse),
        },
        _ => return Err(ServiceError::UnexpectedResponse),
    };
    let mut result = CallToolResult::default();
    result.result_type = result_type;
    result.meta = meta;
    Ok(result)
}

/// Cancels its request upstream when dropped while still armed.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        // Dropped outside a runtime (the process ending), there is no one to tell.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let reason = "the gateway stopped waiting for the answer".to_owned();
        runtime
            .spawn(async move { peer.notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason))).await });
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CustomResult, EmptyResult};
    use serde_json::json;

    use super::*;

    #[test]
    fn a_reply_without_content_is_a_result_without_content_as_call_tool_reads_it() {
        let result = tool_result(ServerResult::EmptyResult(EmptyResult {})).expect("empty");
        assert!(result.content.is_empty() && result.meta.is_none());
        let meta_only = ServerResult::CustomResult(CustomResult(json!({ "_meta": { "k": 1 } })));
        let result = tool_result(meta_only).expect("only _meta");
        assert_eq!(serde_json::to_value(&result.meta).expect("meta"), json!({ "k": 1 }));
        let other = ServerResult::CustomResult(CustomResult(json!({ "surprise": true })));
        assert!(matches!(tool_result(other), Err(ServiceError::UnexpectedResponse)));
    }
}
