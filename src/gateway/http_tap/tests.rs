//! The HTTP tap against a hand-written Streamable HTTP upstream on loopback.

use std::time::Duration;

use rmcp::model::{ListToolsRequest, PingRequest, RequestId};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::gateway::https::{HttpClientOptions, client};

/// How long one test may take, the upstream included.
const WITHIN: Duration = Duration::from_secs(20);

/// Written as an answer's id, the upstream puts there the id of the request it answers.
const ECHOED_ID: &str = "\"@request-id\"";

/// A response as an upstream writes it: `id` (JSON text) and a listing of `tools`.
fn answer(id: &str, tools: Value) -> String {
    format!(r#"{{"jsonrpc": "2.0", "id": {id}, "result": {{"tools": {tools}}}}}"#)
}

/// A listing page answering `id`: `start-job`, described as `description`,
/// declares `execution` when `declares` does; `plain` never does.
fn page(id: &str, description: &str, declares: bool) -> String {
    let mut start_job = json!({"name": "start-job", "description": description, "inputSchema": {"type": "object"}});
    if declares {
        start_job["execution"] = json!({"taskSupport": "optional"});
    }
    answer(id, json!([start_job, {"name": "plain", "inputSchema": {"type": "object"}}]))
}

/// A listing as an upstream writes it: `start-job` declares `execution`.
fn listing() -> String {
    page("1", "starts a job", true)
}

/// One request as the upstream read it: its header lines, lowercased, and its body.
#[derive(Debug, PartialEq)]
struct Seen {
    headers: Vec<String>,
    body: Vec<u8>,
}

/// An upstream on loopback that answers its first connections, one
/// request each, with `answers` (status line, content type, body) in
/// order, and keeps what each request was.
struct Upstream {
    url: String,
    seen: Arc<std::sync::Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Upstream {
    async fn answering(answers: Vec<(&'static str, &'static str, String)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            for (status, content_type, body) in answers {
                let Ok((mut stream, _)) = listener.accept().await else { return };
                let Some(request) = read_request(&mut stream).await else { return };
                let id = serde_json::from_slice::<Value>(&request.body).ok().map(|body| body["id"].clone());
                let body = body.replace(ECHOED_ID, &id.unwrap_or_default().to_string());
                kept.lock().unwrap().push(request);
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: \
                     close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
                let _ = stream.shutdown().await;
            }
        });
        Self { url, seen, task }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Vec<Seen>> {
        self.seen.lock().unwrap()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One HTTP/1.1 request with a `Content-Length` body, at most 64 KiB.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let read = stream.read(&mut chunk).await.ok().filter(|n| *n > 0 && bytes.len() < 65_536)?;
        bytes.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..end]).to_lowercase();
    let headers: Vec<String> = head.lines().skip(1).map(str::to_owned).collect();
    let length: usize =
        headers.iter().find_map(|h| h.strip_prefix("content-length:")).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    let mut body = bytes[end + 4..].to_vec();
    while body.len() < length.min(65_536) {
        let read = stream.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&chunk[..read]);
    }
    Some(Seen { headers, body })
}

fn tap(url: &str) -> (HttpTap, Arc<Declared>) {
    let declared = Arc::new(Declared::new(8));
    (HttpTap::new(client(url, url, &HttpClientOptions::default()).unwrap(), Arc::clone(&declared)), declared)
}

fn tools_list() -> ClientJsonRpcMessage {
    ClientJsonRpcMessage::request(ClientRequest::ListToolsRequest(ListToolsRequest::default()), RequestId::Number(1))
}

/// The `execution` the gateway lists for each of `names` once rmcp's reading is restored.
fn executions<const N: usize>(declared: &Declared, names: [&str; N]) -> [Option<Value>; N] {
    let mut tools = names.map(|name| json!({"name": name}));
    declared.restore(&mut tools);
    tools.map(|tool| tool.get("execution").cloned())
}

/// What the gateway lists for `start-job` once rmcp's reading is restored.
fn execution_of_start_job(declared: &Declared) -> Option<Value> {
    let [start_job, plain] = executions(declared, ["start-job", "plain"]);
    assert_eq!(plain, None, "`plain` declares no execution");
    start_job
}

/// The id of a listing answered as JSON, and its tools as `name: description`.
fn listed(answer: &StreamableHttpPostResponse) -> (RequestId, Vec<String>) {
    match answer {
        StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(response), _) => match &response.result {
            ServerResult::ListToolsResult(page) => {
                let tool = |t: &rmcp::model::Tool| format!("{}: {}", t.name, t.description.as_deref().unwrap_or(""));
                (response.id.clone(), page.tools.iter().map(tool).collect())
            }
            other => panic!("not a listing: {other:?}"),
        },
        other => panic!("not a JSON response: {other:?}"),
    }
}

/// rmcp's own reading of `page("1", "first asking", false)`: the first answer, standing.
fn first_answer() -> (RequestId, Vec<String>) {
    (RequestId::Number(1), vec!["start-job: first asking".to_owned(), "plain: ".to_owned()])
}

#[tokio::test]
async fn a_listing_answered_as_json_is_asked_again_under_an_id_of_its_own_and_the_heard_one_is_answered() {
    let json = "application/json; charset=utf-8";
    let first = ("200 OK", json, page("1", "first asking", false));
    let second = ("200 OK", json, page(ECHOED_ID, "second asking", true));
    let upstream = Upstream::answering(vec![first.clone(), second.clone(), first, second]).await;
    let (tap, declared) = tap(&upstream.url);
    let custom = HashMap::from([(HeaderName::from_static("x-tenant"), HeaderValue::from_static("t-1"))]);
    for _ in 0..2 {
        let answer = tokio::time::timeout(
            WITHIN,
            tap.post_message(
                upstream.url.as_str().into(),
                tools_list(),
                Some("s-1".into()),
                Some("tok".into()),
                custom.clone(),
            ),
        )
        .await
        .unwrap()
        .unwrap();
        let second_answer = vec!["start-job: second asking".to_owned(), "plain: ".to_owned()];
        assert_eq!(listed(&answer), (RequestId::Number(1), second_answer), "the second answer, under rmcp's id");
        assert_eq!(execution_of_start_job(&declared), Some(json!({"taskSupport": "optional"})));
    }
    let seen = upstream.seen();
    assert_eq!(seen.len(), 4, "each listing asked once by rmcp and once by the tap");
    let mut bodies: Vec<Value> = seen.iter().map(|s| serde_json::from_slice(&s.body).unwrap()).collect();
    let ids: Vec<Value> = bodies.iter_mut().map(|body| body.as_object_mut().unwrap().remove("id").unwrap()).collect();
    for round in [0, 2] {
        assert_eq!(ids[round], json!(1), "rmcp's id");
        let own = ids[round + 1].as_str();
        assert!(own.is_some_and(|id| id.starts_with("m1nd-tap-")), "a string id of the tap's: {}", ids[round + 1]);
        assert_eq!(bodies[round], bodies[round + 1], "the second asking is the first but for its id");
    }
    assert_ne!(ids[1], ids[3], "no id of the tap's is used twice");
    let headers = |s: &Seen| s.headers.iter().filter(|h| !h.starts_with("content-length:")).cloned().collect();
    let headers: Vec<Vec<String>> = seen.iter().map(headers).collect();
    assert_eq!(headers[0], headers[1], "the second asking is the first, header for header");
    for header in ["authorization: bearer tok", "x-tenant: t-1", "mcp-session-id: s-1"] {
        assert!(headers[1].iter().any(|h| h == header), "{header} in {:?}", headers[1]);
    }
}

#[tokio::test]
async fn a_second_answer_that_is_not_this_listing_is_neither_heard_nor_answered() {
    let declares = json!({"taskSupport": "optional"});
    let tools = json!([
        {"name": "start-job", "description": "second asking", "inputSchema": {"type": "object"}, "execution": declares},
        {"name": "plain", "inputSchema": {"type": "object"}},
        {"name": "stray", "inputSchema": {"type": "object"}, "execution": declares},
    ]);
    for (second, why) in [
        (answer("1", tools.clone()), "rmcp's id, not the one the tap asked with"),
        (answer("\"another\"", tools.clone()), "another id"),
        (format!(r#"{{"jsonrpc": "2.0", "id": {ECHOED_ID}, "result": {{}}}}"#), "a result that is no listing"),
        (answer(ECHOED_ID, json!([{"name": "stray", "execution": declares}])), "tools rmcp cannot read"),
    ] {
        let upstream = Upstream::answering(vec![
            ("200 OK", "application/json", page("1", "first asking", false)),
            ("200 OK", "application/json", second),
        ])
        .await;
        let (tap, declared) = tap(&upstream.url);
        let answer = tokio::time::timeout(
            WITHIN,
            tap.post_message(upstream.url.as_str().into(), tools_list(), None, None, HashMap::new()),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(listed(&answer), first_answer(), "rmcp's own answer stands: {why}");
        assert_eq!(upstream.seen().len(), 2);
        assert_eq!(executions(&declared, ["start-job", "plain", "stray"]), [None, None, None], "heard: {why}");
    }
}

#[tokio::test]
async fn an_sse_answer_is_heard_event_by_event_and_passed_through_unchanged() {
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": {"tools": [{"name": "start-job", "execution": "not a listing"}]}}})
    .to_string();
    let events = format!("event: message\ndata: {progress}\n\nevent: message\ndata: {}\n\n", listing());
    let upstream = Upstream::answering(vec![("200 OK", "text/event-stream", events)]).await;
    let (tap, declared) = tap(&upstream.url);
    let answer = tokio::time::timeout(WITHIN, async {
        let answer =
            tap.post_message(upstream.url.as_str().into(), tools_list(), None, None, HashMap::new()).await.unwrap();
        let StreamableHttpPostResponse::Sse(stream, _) = answer else { panic!("not an SSE answer: {answer:?}") };
        stream.map(|event| event.unwrap().data).collect::<Vec<_>>().await
    })
    .await
    .unwrap();
    assert_eq!(answer, [Some(progress), Some(listing())]);
    assert_eq!(execution_of_start_job(&declared), Some(json!({"taskSupport": "optional"})));
    assert_eq!(upstream.seen().len(), 1, "an SSE answer is heard on its way: no second asking");
}

#[tokio::test]
async fn a_request_that_is_not_a_listing_is_sent_once_and_answered_untouched() {
    let pong = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "start-job", "execution": 1}]}});
    let upstream = Upstream::answering(vec![("200 OK", "application/json", pong.to_string())]).await;
    let (tap, declared) = tap(&upstream.url);
    let ping = ClientJsonRpcMessage::request(ClientRequest::PingRequest(PingRequest::default()), RequestId::Number(1));
    let answer =
        tokio::time::timeout(WITHIN, tap.post_message(upstream.url.as_str().into(), ping, None, None, HashMap::new()))
            .await
            .unwrap()
            .unwrap();
    let StreamableHttpPostResponse::Json(message, _) = answer else { panic!("not a JSON answer: {answer:?}") };
    let parsed: ServerJsonRpcMessage = serde_json::from_value(pong).unwrap();
    assert_eq!(serde_json::to_value(message).unwrap(), serde_json::to_value(parsed).unwrap());
    assert_eq!(upstream.seen().len(), 1);
    assert_eq!(execution_of_start_job(&declared), None, "only a tools/list answer is asked again");
}

#[tokio::test]
async fn a_listing_that_cannot_be_heard_again_declares_nothing_rather_than_the_last_keys() {
    let refused = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "busy"}}).to_string();
    for (status, content_type, second) in [
        ("500 Internal Server Error", "text/plain", "busy".to_owned()),
        ("429 Too Many Requests", "application/json", refused.clone()),
        ("200 OK", "text/html", listing()),
        ("200 OK", "application/json", refused),
    ] {
        let upstream = Upstream::answering(vec![
            ("200 OK", "application/json", page("1", "first asking", false)),
            (status, content_type, second.clone()),
        ])
        .await;
        let (tap, declared) = tap(&upstream.url);
        declared.hear(listing().as_bytes());
        assert!(execution_of_start_job(&declared).is_some(), "an earlier listing's keys");
        let answer = tokio::time::timeout(
            WITHIN,
            tap.post_message(upstream.url.as_str().into(), tools_list(), None, None, HashMap::new()),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(listed(&answer), first_answer(), "rmcp's own answer stands: {second}");
        assert_eq!(upstream.seen().len(), 2);
        assert_eq!(execution_of_start_job(&declared), None, "{status} {content_type} {second}");
    }
}
