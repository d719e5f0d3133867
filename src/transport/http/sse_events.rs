//! An event stream passed on byte for byte, except the one event a caller
//! rewrites.
//!
//! Parsing a stream into events and writing them out again would lose what
//! a parser drops (comments, the keep-alives rmcp sends while an answer is
//! being made) and re-frame every event. [`rewrite_one_event`] instead cuts
//! the bytes at the blank lines that end events, shows each whole event to
//! the caller, and sends it on unchanged unless the caller returns a
//! replacement; after the first replacement it stops looking and passes the
//! rest through as it comes. An event longer than [`MAX_EVENT_BYTES`] is
//! passed through unread, and looking stops, so memory stays bounded.

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt, stream};

/// The longest event kept whole to be shown to the caller (rmcp's own
/// bound on an event it reads).
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// `body` with the first event for which `rewrite` returns bytes replaced
/// by them. Every other byte passes unchanged and in order.
pub fn rewrite_one_event<S, E, F>(body: S, rewrite: F) -> impl Stream<Item = Result<Bytes, E>>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    F: FnMut(&[u8]) -> Option<Vec<u8>>,
{
    let state = Cutter { body, rewrite, held: BytesMut::new(), looking: true, ended: false };
    stream::unfold(state, |mut state| async move {
        loop {
            if state.ended {
                return None;
            }
            match state.body.next().await {
                Some(Ok(chunk)) => {
                    let out = state.take(chunk);
                    if !out.is_empty() {
                        return Some((Ok(out), state));
                    }
                }
                Some(Err(e)) => return Some((Err(e), state)),
                None => {
                    state.ended = true;
                    let rest = state.held.split().freeze();
                    if !rest.is_empty() {
                        return Some((Ok(rest), state));
                    }
                }
            }
        }
    })
}

struct Cutter<S, F> {
    body: S,
    rewrite: F,
    /// Bytes of an event not yet ended.
    held: BytesMut,
    /// Whether events are still shown to `rewrite`.
    looking: bool,
    ended: bool,
}

impl<S, F: FnMut(&[u8]) -> Option<Vec<u8>>> Cutter<S, F> {
    /// What can be sent on once `chunk` has arrived.
    fn take(&mut self, chunk: Bytes) -> Bytes {
        if !self.looking {
            return chunk;
        }
        self.held.extend_from_slice(&chunk);
        let mut out = BytesMut::new();
        while self.looking {
            let Some(end) = event_end(&self.held) else {
                if self.held.len() > MAX_EVENT_BYTES {
                    self.looking = false;
                    out.extend_from_slice(&self.held.split());
                }
                break;
            };
            let event = self.held.split_to(end);
            match (self.rewrite)(&event) {
                Some(replacement) => {
                    out.extend_from_slice(&replacement);
                    self.looking = false;
                    out.extend_from_slice(&self.held.split());
                }
                None => out.extend_from_slice(&event),
            }
        }
        out.freeze()
    }
}

/// Where the first whole event in `bytes` ends: just after the blank line
/// that closes it (`\n\n` or `\r\n\r\n`).
fn event_end(bytes: &[u8]) -> Option<usize> {
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|at| at + 2);
    let crlf = bytes.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The data of one event: its `data:` lines (each without the field name
/// and one leading space), joined with `\n`, as SSE defines it; `None`
/// when it has none.
pub fn event_data(event: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(event).ok()?;
    let data: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|value| value.strip_prefix(' ').unwrap_or(value))
        .collect();
    (!data.is_empty()).then(|| data.join("\n"))
}

/// `event` with its data replaced by `data` (one `data:` line where the
/// first was), every other line kept in its place as written, its line
/// ending included: a line that ends in a lone `\r` written back with
/// another ending would read as a different line, or as a blank one.
pub fn with_data(event: &[u8], data: &str) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(event).ok()?;
    let mut out = String::with_capacity(text.len() + data.len());
    let mut written = false;
    for written_line in text.split_inclusive('\n') {
        // The line as `str::lines` (and so `event_data`) reads it.
        let line = written_line.strip_suffix("\r\n").or(written_line.strip_suffix('\n')).unwrap_or(written_line);
        if line.starts_with("data:") {
            if !written {
                out.push_str("data: ");
                out.push_str(data);
                out.push('\n');
                written = true;
            }
        } else if !line.is_empty() {
            out.push_str(written_line);
            if !written_line.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out.push('\n');
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    async fn through(chunks: &[&str], rewrite: impl FnMut(&[u8]) -> Option<Vec<u8>>) -> String {
        let body = stream::iter(chunks.iter().map(|c| Ok::<_, Infallible>(Bytes::from(c.to_string()))));
        let out: Vec<_> = rewrite_one_event(body, rewrite).collect().await;
        out.into_iter().map(|b| String::from_utf8(b.expect("ok").to_vec()).expect("utf-8")).collect()
    }

    const STREAM: &str =
        "id: 0\nretry: 3000\ndata: \n\n:\n\ndata: {\"id\":1}\n\nid: 7\ndata: {\"id\":3}\n\n: keep-alive\n\n";

    #[tokio::test]
    async fn every_byte_passes_unchanged_when_nothing_is_rewritten_however_it_is_cut() {
        for cut in [1, 2, 3, 7, 50, STREAM.len()] {
            let chunks: Vec<String> =
                STREAM.as_bytes().chunks(cut).map(|c| String::from_utf8(c.to_vec()).expect("ascii")).collect();
            let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
            assert_eq!(through(&chunks, |_| None).await, STREAM, "cut every {cut} bytes");
        }
    }

    #[tokio::test]
    async fn only_the_first_matching_event_is_replaced_and_comments_stay() {
        let out = through(&[STREAM], |event| {
            (event_data(event).as_deref() == Some("{\"id\":3}")).then(|| with_data(event, "{\"id\":3,\"x\":1}"))?
        })
        .await;
        let expected = STREAM.replace("data: {\"id\":3}", "data: {\"id\":3,\"x\":1}");
        assert_eq!(out, expected);
        assert!(out.contains(":\n\n") && out.contains(": keep-alive\n\n"), "comments pass: {out}");
    }

    #[tokio::test]
    async fn an_unended_stream_sends_what_it_holds_at_the_end() {
        assert_eq!(through(&["data: x\n\ndata: partial"], |_| None).await, "data: x\n\ndata: partial");
    }

    #[test]
    fn fuzz_sse_a_line_ending_in_a_carriage_return_is_kept_as_written() {
        // `\r` alone then `\r\n`: written back as `\r\n`, the line read as
        // empty, and its event's other lines changed.
        let event = b"id: 7\r\ndata: {\"id\":3}\r\n\r\r\nx\r\n\r\n";
        let out = with_data(event, "{}").expect("UTF-8");
        assert_eq!(String::from_utf8_lossy(&out), "id: 7\r\ndata: {}\n\r\r\nx\r\n\n");
        let others = |e: &[u8]| -> Vec<String> {
            let text = String::from_utf8_lossy(e).into_owned();
            text.lines().filter(|l| !l.is_empty() && !l.starts_with("data:")).map(str::to_owned).collect()
        };
        assert_eq!(others(&out), others(event));
    }

    #[test]
    fn data_lines_are_read_as_sse_defines_them() {
        assert_eq!(event_data(b"id: 1\ndata: a\ndata:b\n\n").as_deref(), Some("a\nb"));
        assert_eq!(event_data(b": comment\n\n"), None);
        assert_eq!(with_data(b"id: 1\ndata: a\ndata: b\n\n", "c").as_deref(), Some(&b"id: 1\ndata: c\n\n"[..]));
    }
}
