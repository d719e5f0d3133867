//! Newline-delimited JSON-RPC on stdin/stdout that answers bad lines.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word,
//! and answers well-formed JSON of the wrong shape with an error that has
//! lost the request id. Here every bad line gets a JSON-RPC error and the
//! session goes on:
//!
//! - not JSON: `-32700` (parse error), no id, as JSON-RPC 2.0 prescribes;
//! - JSON that is not a valid message: `-32600` (invalid request), carrying
//!   the request's id when it has one, so the client can match it;
//! - a line over [`MAX_LINE_BYTES`]: `-32600`, and the line is skipped.
//!
//! A malformed notification (no id) gets no answer, as notifications never do.
//! Writing goes through rmcp's framed writer, so answers never interleave.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{CallToolRequest, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcRequest, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::{StdioReader, StdioWriter, stdio_pipes};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::task::JoinHandle;

/// The longest line read, as rmcp's own transport allows.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Stdin read line by line; stdout written by rmcp's framed writer.
pub struct Stdio {
    read: BufReader<StdioReader>,
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, StdioWriter>,
    /// Error answers still being written; `close` waits for them.
    pending: Vec<JoinHandle<Result<(), std::io::Error>>>,
}

enum Line {
    Whole,
    Oversized,
    End,
}

impl Stdio {
    /// Must be called inside the runtime: when stdin and stdout are pipes (as
    /// MCP clients launch servers) they are driven without blocking threads.
    pub fn new() -> Self {
        let (read, write) = stdio_pipes();
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new_server(tokio::io::empty(), write),
            pending: Vec::new(),
        }
    }

    /// Read one line into `self.line`, never holding more than the limit.
    /// Cancellation-safe: bytes are moved and consumed with no await between,
    /// so a cancelled read resumes where it stopped.
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) | Err(_) => return Line::End,
                Ok(available) => available,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let oversized = !self.discarding && self.line.len() + take > MAX_LINE_BYTES;
            if !self.discarding && !oversized {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if oversized {
                self.line.clear();
                self.discarding = newline.is_none();
                return Line::Oversized;
            }
            if newline.is_some() {
                if self.discarding {
                    self.discarding = false;
                    continue;
                }
                return Line::Whole;
            }
        }
    }

    /// Send an error answer in the background (receiving may be cancelled).
    fn answer(&mut self, error: ErrorData, id: Option<RequestId>) {
        let message: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::error(error, id);
        self.pending.retain(|answer| !answer.is_finished());
        self.pending.push(tokio::spawn(self.write.send(message)));
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Line::End => return None,
                Line::Oversized => {
                    let why = format!("a message longer than {MAX_LINE_BYTES} bytes was skipped");
                    self.answer(ErrorData::invalid_request(why, None), None);
                    continue;
                }
                Line::Whole => {}
            }
            let line = std::mem::take(&mut self.line);
            match classify(&line) {
                Parsed::Message(message) => return Some(*message),
                Parsed::Skip => {}
                Parsed::Answer(error, id) => self.answer(error, id),
            }
            // Keep the buffer's capacity for the next line.
            self.line = line;
            self.line.clear();
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        for answer in self.pending.drain(..) {
            let _ = answer.await;
        }
        self.write.close().await
    }
}

/// The params of the methods this server answers, for errors.
const SHAPES: &[(&str, &str)] = &[
    ("initialize", "{ protocolVersion: string, capabilities: object, clientInfo: { name, version } }"),
    ("ping", "no params or an object"),
    ("tools/list", "no params or { cursor?: string }"),
    ("tools/call", "{ name: string, arguments?: object }"),
];

/// The expected params of a method this server answers.
pub fn shape_of(method: &str) -> Option<&'static str> {
    SHAPES.iter().find(|(m, _)| *m == method).map(|(_, shape)| *shape)
}

enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Blank lines and bad notifications.
    Skip,
    Answer(ErrorData, Option<RequestId>),
}

fn classify(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    if let Some(message) = tools_call(line) {
        return Parsed::Message(Box::new(message));
    }
    if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        return Parsed::Message(Box::new(message));
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Parsed::Answer(
                ErrorData::parse_error(format!("parse error: the line is not JSON ({e})"), None),
                None,
            );
        }
    };
    let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let is_notification = value.get("id").is_none() && value.get("method").is_some();
    let method = value.get("method").and_then(Value::as_str).map(|m| m.chars().take(64).collect::<String>());
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(_) if is_notification => Parsed::Skip,
        Err(e) => {
            let error = match method.as_deref().map(|m| (m, shape_of(m))) {
                Some((method, Some(shape))) => {
                    ErrorData::invalid_params(format!("invalid params for `{method}`: expected {shape}"), None)
                }
                Some((method, None)) => ErrorData::invalid_request(
                    cap(format!("invalid request: `{method}` with these params is not a valid MCP request ({e})")),
                    None,
                ),
                None => ErrorData::invalid_request(
                    cap(format!("invalid request: not a JSON-RPC 2.0 message this server understands ({e})")),
                    None,
                ),
            };
            Parsed::Answer(error, id)
        }
    }
}

/// A `tools/call` request parsed straight as one.
///
/// rmcp's message type tries every client request shape in turn (`tools/call`
/// is the fourteenth) and builds an error for each that does not match, which
/// makes a tool call several times dearer to parse than a `ping`. A line that
/// is a request (an `id`, no `result`, no `error`: the shape rmcp checks first)
/// for `tools/call` is parsed with rmcp's own types for that request instead.
/// Anything else, and any call this fails on, takes the general path, which
/// decides as it always did.
fn tools_call(line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
    let shape: Shape<'_> = serde_json::from_slice(line).ok()?;
    if shape.method.as_deref() != Some("tools/call") || !shape.id.0 || shape.result.0 || shape.error.0 {
        return None;
    }
    let call: JsonRpcRequest<CallToolRequest> = serde_json::from_slice(line).ok()?;
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(call.id, ClientRequest::from(call.request))))
}

/// The keys that decide what kind of message a line is.
#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Present,
    #[serde(default)]
    result: Present,
    #[serde(default)]
    error: Present,
}

/// Whether a key is there at all, whatever its value (`null` included).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| Present(true))
    }
}

fn cap(text: String) -> Cow<'static, str> {
    if text.chars().count() <= 300 {
        return Cow::Owned(text);
    }
    let mut cut: String = text.chars().take(300).collect();
    cut.push('…');
    Cow::Owned(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> (i32, Option<RequestId>) {
        match classify(line.as_bytes()) {
            Parsed::Answer(e, id) => (e.code.0, id),
            Parsed::Message(m) => panic!("{line}: parsed as {m:?}"),
            Parsed::Skip => panic!("{line}: skipped"),
        }
    }

    #[test]
    fn bad_lines_get_errors_with_the_id_when_there_is_one() {
        assert_eq!(answer("{not json"), (-32700, None));
        assert_eq!(answer("[1, 2"), (-32700, None));
        assert_eq!(
            answer(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#),
            (-32602, Some(RequestId::Number(7)))
        );
        assert_eq!(
            answer(r#"{"jsonrpc":"2.0","id":8,"method":"tools/frob","params":5}"#).1,
            Some(RequestId::Number(8))
        );
        assert_eq!(answer(r#"{"id":"x","method":"tools/list"}"#).1, Some(RequestId::String("x".into())));
        assert_eq!(answer("42"), (-32600, None));
    }

    #[test]
    fn tools_call_parses_as_the_general_path_does() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"method":"tools/call","params":{"name":"north","arguments":{"x":[1,{"y":null}]}},"id":2,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c\u006fckpit","_meta":{"progressToken":7}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cockpit","arguments":{}},"extra":true}"#,
        ];
        for line in lines {
            let fast = tools_call(line.as_bytes()).unwrap_or_else(|| panic!("{line}: not taken"));
            let general: RxJsonRpcMessage<RoleServer> = serde_json::from_slice(line.as_bytes()).expect(line);
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{line}");
            assert_eq!(
                serde_json::to_value(&fast).expect("fast"),
                serde_json::to_value(&general).expect("general"),
                "{line}"
            );
        }
    }

    #[test]
    fn tools_call_leaves_every_other_line_to_the_general_path() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit"},"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit"},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"cockpit"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"cockpit"}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cockpit"}}]"#,
            "{not json",
        ];
        for line in lines {
            assert!(tools_call(line.as_bytes()).is_none(), "{line}");
        }
        // And the general path answers them as before.
        assert_eq!(answer(lines[5]), (-32602, Some(RequestId::Number(1))));
        assert!(matches!(classify(lines[0].as_bytes()), Parsed::Message(_)));
    }

    #[test]
    fn good_lines_and_blank_lines() {
        assert!(matches!(
            classify(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
            Parsed::Message(_)
        ));
        assert!(matches!(classify(b"  \r\n"), Parsed::Skip));
        assert!(matches!(classify(br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":5}"#), Parsed::Skip));
    }
}
