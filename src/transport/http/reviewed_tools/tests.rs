use serde_json::json;

use super::*;
use crate::transport::http::test_responses::{answer, body_of};

/// The view's tools in these tests: one that declares `execution`.
fn tools() -> Value {
    json!([{ "name": "start-job", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "optional" } }])
}

fn listing(id: i64) -> Listing<fn() -> Value> {
    Listing { id: RequestId::Number(id), tools }
}

/// rmcp's answer to `tools/list` number `id`: a tool without `execution`.
fn rmcp_result(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": [{ "name": "start-job", "inputSchema": { "type": "object" } }], "ttlMs": 5 } })
}

#[tokio::test]
async fn a_json_result_lists_the_view_s_tools_and_keeps_rmcp_s_other_keys() {
    let rmcp = answer("application/json", rmcp_result(3).to_string());
    let answered: Value = serde_json::from_str(&body_of(listing(3).in_json(rmcp).await).await).expect("json");
    assert_eq!(answered["result"]["tools"], tools());
    assert_eq!(answered["result"]["ttlMs"], 5, "rmcp's own keys stay");
    assert_eq!(answered["id"], 3);
}

#[tokio::test]
async fn an_answer_for_another_id_or_without_tools_passes_unchanged() {
    for kept in [rmcp_result(4), json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32603, "message": "no" } })] {
        let sent = kept.to_string();
        let answered = body_of(listing(3).in_json(answer("application/json", sent.clone())).await).await;
        assert_eq!(answered, sent);
    }
}

#[tokio::test]
async fn in_an_event_stream_only_the_result_is_rewritten_and_every_event_keeps_its_place() {
    let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": 1, "progress": 1 } });
    let stream = format!(
        "id: 0\nretry: 3000\ndata: \n\ndata: {progress}\n\ndata: {other}\n\nid: 7\ndata: {result}\n\n",
        other = rmcp_result(9),
        result = rmcp_result(3),
    );
    let answered = body_of(listing(3).in_event_stream(answer("text/event-stream", stream))).await;
    let events: Vec<Value> = answered
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|line| line.strip_prefix("data:")))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    assert_eq!(events.len(), 3, "{answered}");
    assert_eq!(events[0], progress);
    assert_eq!(events[1], rmcp_result(9), "another request's result is not touched");
    assert_eq!(events[2]["result"]["tools"], tools());
    assert!(answered.contains("id: 0") && answered.contains("retry: 3000"), "the priming event stays: {answered}");
    assert!(answered.contains("id: 7"), "an event keeps its id: {answered}");
}

#[test]
fn a_message_that_is_not_json_is_left_alone() {
    assert_eq!(listing(3).rewrite(b"not json"), None);
    assert_eq!(listing(3).rewrite(br#"{"id":3,"result":{"tools":"x"}}"#), None);
}

#[test]
fn the_content_type_is_read_without_its_parameters_and_case() {
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, "Text/Event-Stream; charset=utf-8".parse().expect("value"));
    assert_eq!(media_type(&headers).as_deref(), Some("text/event-stream"));
    assert_eq!(media_type(&HeaderMap::new()), None);
}
