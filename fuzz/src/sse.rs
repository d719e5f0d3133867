//! The gateway's SSE splitter and rewriter over `--http`
//! (`transport/http/sse_events.rs`, `reviewed_tools.rs`), through
//! `m1nd::fuzzing`: rmcp's event stream, cut into events, each shown to a
//! rewriter, passed on byte for byte except the one event rewritten.
//!
//! The input: one byte that picks how the stream is cut into chunks (sizes
//! 1 to 32 from a small generator), one byte that picks the `tools/list`
//! request's id (0 to 3, or the string `"1"`), then the stream.
//!
//! Split (a rewriter that changes nothing):
//! 1. the bytes that come out are the bytes that went in, however cut;
//! 2. the events shown are the input's prefix, each ending with its first
//!    blank line (`\n\n` or `\r\n\r\n`), and what follows them holds no
//!    blank line: every whole event is shown, once, in order;
//! 3. no event shown is longer than `MAX_EVENT_BYTES` plus the chunk that
//!    ended it (the bound on what is held).
//!
//! Rewrite (the `tools/list` answer's rewriter): the output is the input
//! with exactly the first event whose data (its `data:` lines, one leading
//! space dropped, joined with `\n`, read here with an oracle of its own) is
//! a JSON message whose `id` is the request's and whose `result.tools` is an
//! array replaced, and only the first; every other byte passes unchanged.
//! The replacement's data is that message with `result.tools` the view's
//! tools and nothing else changed, and it keeps the event's other lines.

use std::cell::RefCell;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use futures_util::{Stream, stream};
use m1nd::fuzzing::{MAX_EVENT_BYTES, RequestId, event_data, rewrite_one_event, tools_list_event_rewriter};
use serde_json::{Value, json};

pub fn check(data: &[u8]) {
    let [cut, id, stream @ ..] = data else { return };
    let chunks = chunks(stream, *cut);
    let largest = chunks.iter().map(Vec::len).max().unwrap_or(0);

    let shown = RefCell::new(Vec::<Vec<u8>>::new());
    let out = run(&chunks, |event| {
        shown.borrow_mut().push(event.to_vec());
        None
    });
    assert_eq!(out, stream, "the stream changed though nothing was rewritten");
    let shown = shown.into_inner();
    let mut at = 0;
    for event in &shown {
        assert!(stream[at..].starts_with(event), "an event shown is not the next bytes of the stream");
        assert_eq!(first_blank_line_end(event), Some(event.len()), "an event shown is not one whole event: {event:?}");
        assert!(event.len() <= MAX_EVENT_BYTES + largest, "an event of {} bytes was held", event.len());
        at += event.len();
    }
    assert_eq!(first_blank_line_end(&stream[at..]), None, "a whole event was never shown: {:?}", &stream[at..]);

    let id = match id % 5 {
        4 => RequestId::String("1".into()),
        n => RequestId::Number(i64::from(n)),
    };
    let tools = json!([{"name": "reviewed", "execution": {"taskSupport": "forbidden"}}]);
    let mut rewriter = tools_list_event_rewriter(id.clone(), tools.clone());
    let out = run(&chunks, &mut rewriter);
    let target = shown.iter().position(|event| result_for(event, &id).is_some());
    let Some(target) = target else {
        assert_eq!(out, stream, "a stream without the result for {id:?} was changed");
        return;
    };
    let before: usize = shown[..target].iter().map(Vec::len).sum();
    let event = &shown[target];
    let after = &stream[before + event.len()..];
    assert!(out.starts_with(&stream[..before]), "an event before the result was changed");
    assert!(out.ends_with(after), "a byte after the result was changed");
    let replacement = &out[before..out.len() - after.len()];
    let mut expected = result_for(event, &id).expect("the result");
    expected["result"]["tools"] = tools;
    let written = event_data(replacement).and_then(|d| serde_json::from_str::<Value>(&d).ok());
    assert_eq!(written.as_ref(), Some(&expected), "the result's data, rewritten: {replacement:?}");
    let others = |e: &[u8]| -> Vec<String> {
        let text = String::from_utf8_lossy(e);
        text.lines().filter(|l| !l.is_empty() && !l.starts_with("data:")).map(str::to_owned).collect()
    };
    assert_eq!(others(replacement), others(event), "the result's other lines changed");
    assert_eq!(first_blank_line_end(replacement), Some(replacement.len()), "the rewritten event is not one event");
}

/// `stream` cut into chunks of 1 to 32 bytes, from the generator seeded with `seed`.
fn chunks(stream: &[u8], seed: u8) -> Vec<Vec<u8>> {
    let mut state = u32::from(seed) | 1;
    let mut out = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let size = (1 + (state >> 16) % 32) as usize;
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        out.push(chunk.to_vec());
        rest = tail;
    }
    out
}

/// The bytes `rewrite_one_event` sends on for `chunks`, driven to the end.
fn run(chunks: &[Vec<u8>], rewrite: impl FnMut(&[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    let body = stream::iter(chunks.iter().map(|c| Ok::<_, std::convert::Infallible>(Bytes::from(c.clone()))));
    let mut out = Vec::new();
    drain(rewrite_one_event(body, rewrite), |chunk| out.extend_from_slice(&chunk.expect("no error")));
    out
}

/// Poll a stream of ready items to its end: one in memory never waits.
fn drain<S: Stream>(stream: S, mut each: impl FnMut(S::Item)) {
    let mut stream = pin!(stream);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        match stream.as_mut().poll_next(&mut cx) {
            Poll::Ready(Some(item)) => each(item),
            Poll::Ready(None) => return,
            Poll::Pending => panic!("a stream of chunks in memory waited"),
        }
    }
}

/// Where the first blank line of `bytes` ends, if it has one.
fn first_blank_line_end(bytes: &[u8]) -> Option<usize> {
    (0..bytes.len()).find_map(|i| {
        let rest = &bytes[i..];
        if rest.starts_with(b"\n\n") {
            Some(i + 2)
        } else if rest.starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else {
            None
        }
    })
}

/// The message an event carries, when it is the result with tools for `id`.
fn result_for(event: &[u8], id: &RequestId) -> Option<Value> {
    let text = std::str::from_utf8(event).ok()?;
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some(value) = line.strip_prefix("data:") else { continue };
        let value = value.strip_prefix(' ').unwrap_or(value);
        match &mut data {
            Some(d) => {
                d.push('\n');
                d.push_str(value);
            }
            None => data = Some(value.to_owned()),
        }
    }
    let message: Value = serde_json::from_str(&data?).ok()?;
    let written: RequestId = serde_json::from_value(message.get("id")?.clone()).ok()?;
    (written == *id && message.get("result")?.get("tools")?.is_array()).then_some(message)
}
