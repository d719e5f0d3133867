//! What an upstream writes to the gateway, read before rmcp reads it: the
//! stdout tap (`gateway/declared.rs`) and the middleware's peek at a POST
//! body (`transport/http/peek.rs`), through `m1nd::fuzzing`.
//!
//! The input: one byte that picks the listing bound (1 to 8 tools), one
//! that picks how the bytes are cut into reads (1 to 32 bytes each, from a
//! small generator) and the longest line inspected (16 to 271 bytes), then
//! the bytes an upstream writes (for the peek: a body a client sends).
//!
//! The tap:
//! 1. changes no byte: what is read through it is what the upstream wrote,
//!    however the reads cut it;
//! 2. remembers at most twice the listing bound of tool names;
//! 3. records what the module's contract says, checked with an oracle of
//!    its own over every whole line no longer than the bound: a line that is
//!    a JSON object (a response) whose `result` is an object holding a
//!    `tools` array records, for each entry with a string `name`, its
//!    `execution` or that it has none, the later line winning (while fewer
//!    names than the bound are held, or the name is held already). A listing
//!    of every such name restored afterwards carries exactly those keys.
//!
//! The peek hands rmcp the body unchanged, and when rmcp reads the body as
//! a request (its own message type, the oracle), it reads the same `method`
//! and `id`: a client cannot write an `initialize` rmcp takes and the
//! session cap does not see, or a `tools/list` whose answer escapes the
//! reviewed definitions.

use std::collections::HashMap;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use m1nd::fuzzing::{Declared, RoleServer, RxJsonRpcMessage, Tap, peek_body};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, ReadBuf};

pub fn check(data: &[u8]) {
    let [bound, cut, written @ ..] = data else { return };
    let bound = 1 + usize::from(bound % 8);
    let max = 16 + usize::from(*cut);
    tap(written, bound, max, *cut);
    peek(written);
}

fn tap(written: &[u8], bound: usize, max: usize, cut: u8) {
    let declared = Arc::new(Declared::new(bound));
    let mut reader = Tap::inspecting(Reads::new(written, cut), Arc::clone(&declared), max);
    let mut read = Vec::new();
    let mut cx = Context::from_waker(Waker::noop());
    let mut space = [0u8; 64];
    loop {
        let mut buf = ReadBuf::new(&mut space);
        match Pin::new(&mut reader).poll_read(&mut cx, &mut buf) {
            Poll::Ready(Ok(())) if buf.filled().is_empty() => break,
            Poll::Ready(Ok(())) => read.extend_from_slice(buf.filled()),
            Poll::Ready(Err(e)) => panic!("an in-memory read failed: {e}"),
            Poll::Pending => panic!("an in-memory read waited"),
        }
    }
    assert_eq!(read, written, "the tap changed the bytes rmcp reads");
    assert!(declared.held() <= 2 * bound, "{} names held for a listing bound of {bound}", declared.held());

    let expected = oracle(written, bound, max);
    let mut listing: Vec<Value> = expected.keys().map(|name| json!({"name": name})).collect();
    declared.restore(&mut listing);
    for tool in &listing {
        let name = tool["name"].as_str().expect("a name");
        assert_eq!(tool.get("execution"), expected[name].as_ref(), "the execution restored for {name:?}");
    }
}

/// What the tap should remember, by name: each whole line of at most `max`
/// bytes that is a response with a `tools` array, in order.
fn oracle(written: &[u8], bound: usize, max: usize) -> HashMap<String, Option<Value>> {
    let mut heard: HashMap<String, Option<Value>> = HashMap::new();
    let mut lines: Vec<&[u8]> = written.split(|b| *b == b'\n').collect();
    lines.pop(); // the bytes after the last newline are no whole line
    for line in lines.into_iter().filter(|l| l.len() <= max) {
        let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else { continue };
        let Some(Value::Object(result)) = message.get("result") else { continue };
        let Some(Value::Array(tools)) = result.get("tools") else { continue };
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            if heard.len() >= 2 * bound && !heard.contains_key(name) {
                continue;
            }
            heard.insert(name.to_owned(), tool.get("execution").cloned());
        }
    }
    heard
}

/// The bytes an upstream wrote, handed out a few at a time.
struct Reads<'a> {
    rest: &'a [u8],
    state: u32,
}

impl<'a> Reads<'a> {
    fn new(rest: &'a [u8], seed: u8) -> Self {
        Self { rest, state: u32::from(seed) | 1 }
    }
}

impl AsyncRead for Reads<'_> {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        self.state = self.state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let size = (1 + (self.state >> 16) % 32) as usize;
        let size = size.min(self.rest.len()).min(buf.remaining());
        let (now, later) = self.rest.split_at(size);
        buf.put_slice(now);
        self.rest = later;
        Poll::Ready(Ok(()))
    }
}

fn peek(body: &[u8]) {
    let mut future = pin!(peek_body(body.to_vec()));
    let Poll::Ready(peeked) = future.as_mut().poll(&mut Context::from_waker(Waker::noop())) else {
        panic!("peeking at a body in memory waited");
    };
    let (kept, peeked) = peeked.expect("a body within the bound is peeked");
    assert_eq!(kept, body, "the peek changed the body rmcp reads");
    let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(body) else { return };
    let message = serde_json::to_value(&message).expect("rmcp writes its own message");
    let (Some(method), Some(id)) = (message.get("method"), message.get("id")) else { return };
    assert_eq!(Some(method), peeked.method.map(Value::from).as_ref(), "rmcp reads another method");
    let peeked_id = peeked.id.map(|id| serde_json::to_value(id).expect("an id"));
    assert_eq!(Some(id), peeked_id.as_ref(), "rmcp reads another id");
}
