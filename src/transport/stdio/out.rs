//! Stdout: one task writes every frame, in the order frames were handed to it.
//!
//! A frame is a whole message and its newline, so answers never interleave.
//! A response whose result is already serialised (a kept cockpit answer) is
//! written as the JSON-RPC envelope around those bytes, with only the id
//! serialised here; everything else is serialised once, when it is handed in.
//! A frame may hold its place in the transport's window ([`Writing`]) until it
//! is written. The queue is bounded: a peer that stops reading its stdout
//! fills it, and then answers wait (or, for error answers to bad lines, are
//! counted instead).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::transport::envelope;
use bytes::Bytes;
use rmcp::RoleServer;
use rmcp::model::RequestId;
use rmcp::service::TxJsonRpcMessage;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;

/// Frames waiting for the writer, at most.
pub const QUEUED: usize = 256;

/// The handing-in side of the writer task.
#[derive(Clone)]
pub struct Out {
    frames: mpsc::Sender<Frame>,
}

/// One message for stdout.
pub struct Frame {
    body: Body,
    /// Told once the frame is written (and flushed), or that it could not be.
    written: Option<oneshot::Sender<io::Result<()>>>,
    /// The frame's place in the window, given up once it is written.
    slot: Option<Writing>,
}

enum Body {
    /// A whole message, serialised.
    Whole(Vec<u8>),
    /// A response around a result serialised beforehand.
    Response { id: Vec<u8>, result: Bytes },
    /// Nothing more: flush and stop.
    End,
}

impl Frame {
    /// A message of rmcp's, serialised now.
    pub fn message(item: &TxJsonRpcMessage<RoleServer>) -> Self {
        // rmcp's own codec writes `serde_json::to_writer` and a newline; so does this.
        let body = serde_json::to_vec(item).unwrap_or_else(|e| {
            // Every message rmcp builds serialises; if one did not, say so rather than send nothing.
            format!("{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":-32603,\"message\":\"unserialisable answer: {e}\"}}}}")
                .into_bytes()
        });
        Self { body: Body::Whole(body), written: None, slot: None }
    }

    /// The response to `id` whose `result` member is `result`, byte for byte
    /// what rmcp writes for the same result.
    #[cfg_attr(
        all(not(feature = "store"), not(test)),
        expect(dead_code, reason = "only the fast path, which needs the store, writes kept answers")
    )]
    pub fn response(id: &RequestId, result: Bytes) -> Self {
        let id = serde_json::to_vec(id).unwrap_or_else(|_| b"null".to_vec());
        Self { body: Body::Response { id, result }, written: None, slot: None }
    }

    /// Hold `slot` until this frame is written.
    pub fn holding(mut self, slot: Writing) -> Self {
        self.slot = Some(slot);
        self
    }

    fn parts(&self) -> [&[u8]; 5] {
        match &self.body {
            Body::Whole(bytes) => [bytes, b"\n", b"", b"", b""],
            // The envelope's end, then the line's.
            Body::Response { id, result } => [envelope::BEFORE_ID, id, envelope::BEFORE_RESULT, result, b"}\n"],
            Body::End => [b"", b"", b"", b"", b""],
        }
    }
}

impl Out {
    /// Start the writer task over `sink`.
    pub fn start<W: AsyncWrite + Unpin + Send + 'static>(sink: W) -> (Self, JoinHandle<()>) {
        let (frames, queue) = mpsc::channel(QUEUED);
        (Self { frames }, tokio::spawn(write_all(queue, sink)))
    }

    /// Hand `frame` in and wait until it is written.
    pub async fn send(&self, mut frame: Frame) -> io::Result<()> {
        let (written, done) = oneshot::channel();
        frame.written = Some(written);
        self.frames.send(frame).await.map_err(|_| closed())?;
        done.await.unwrap_or_else(|_| Err(closed()))
    }

    /// Write what was handed in before this, then stop the writer.
    pub async fn finish(&self) -> io::Result<()> {
        self.send(Frame { body: Body::End, written: None, slot: None }).await
    }

    /// Hand `frame` in without waiting; false when the queue is full or closed.
    pub fn try_send(&self, frame: Frame) -> bool {
        self.frames.try_send(frame).is_ok()
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed")
}

/// Write frames in order; flush whenever the queue runs dry, and only then
/// tell the frames written so far that they are.
async fn write_all<W: AsyncWrite + Unpin>(mut queue: mpsc::Receiver<Frame>, sink: W) {
    let mut out = BufWriter::new(sink);
    let mut pending: Vec<Frame> = Vec::new();
    while let Some(frame) = queue.recv().await {
        let end = matches!(frame.body, Body::End);
        let mut failed = None;
        for part in frame.parts() {
            if let Err(e) = out.write_all(part).await {
                failed = Some(e);
                break;
            }
        }
        pending.push(frame);
        if failed.is_none() && !end && !queue.is_empty() {
            continue;
        }
        let flushed = match failed {
            Some(e) => Err(e),
            None => out.flush().await,
        };
        for frame in pending.drain(..) {
            if let Some(written) = frame.written {
                let _ = written.send(flushed.as_ref().map(|_| ()).map_err(|e| io::Error::new(e.kind(), e.to_string())));
            }
        }
        if end {
            return;
        }
    }
    let _ = out.flush().await;
}

/// An answer on its way out: it holds its place in the window until it is
/// written (or dropped), then makes room.
pub struct Writing {
    writing: Arc<AtomicUsize>,
    answered: Arc<Notify>,
}

impl Writing {
    pub fn start(writing: &Arc<AtomicUsize>, answered: &Arc<Notify>) -> Self {
        writing.fetch_add(1, Ordering::AcqRel);
        Self { writing: writing.clone(), answered: answered.clone() }
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        self.writing.fetch_sub(1, Ordering::AcqRel);
        self.answered.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock, JsonRpcMessage, ServerResult};

    use super::*;

    /// A response written around pre-serialised result bytes is the bytes
    /// rmcp's codec writes for the same message.
    #[tokio::test]
    async fn a_spliced_response_is_rmcps_own_bytes() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("a \"quoted\"\nline")]);
        result.structured_content = Some(serde_json::json!({ "b": [1, 2], "a": "ü" }));
        result.result_type = None;
        for id in [RequestId::Number(7), RequestId::String("req-\u{e9}\"x".into())] {
            let message: TxJsonRpcMessage<RoleServer> =
                JsonRpcMessage::response(ServerResult::CallToolResult(result.clone()), id.clone());
            let (client, server) = tokio::io::duplex(1 << 16);
            let (out, writer) = Out::start(server);
            out.send(Frame::message(&message)).await.expect("whole");
            let bytes = Bytes::from(serde_json::to_vec(&result).expect("serialise"));
            out.send(Frame::response(&id, bytes)).await.expect("spliced");
            drop(out);
            writer.await.expect("writer");
            let mut written = Vec::new();
            let mut client = client;
            tokio::io::AsyncReadExt::read_to_end(&mut client, &mut written).await.expect("read");
            let lines: Vec<&[u8]> = written.split_inclusive(|b| *b == b'\n').collect();
            assert_eq!(lines.len(), 2, "{}", String::from_utf8_lossy(&written));
            assert_eq!(lines[0], lines[1], "{}", String::from_utf8_lossy(&written));
        }
    }
}
