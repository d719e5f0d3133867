//! What an upstream's `tools/list` declares that rmcp's `Tool` has no field
//! for (today `execution`), heard on the raw messages of the upstream so that
//! the gateway's view, its pins and `policy import` see the tool the upstream
//! wrote, not rmcp's reading of it. A stdio upstream is heard here, through
//! [`Tap`]; a Streamable HTTP one through `http_tap.rs`, by the same
//! rule ([`Declared::hear`]).
//!
//! The contract (points 1 and 2 are the stdio tap's):
//!
//! 1. [`Tap`] passes every byte through unchanged and in order: rmcp reads
//!    exactly what the upstream wrote. It only watches.
//! 2. It inspects each complete newline-delimited line no longer than
//!    rmcp's own bound (`DEFAULT_MAX_LINE_LENGTH`, which rmcp drops anyway);
//!    a longer line is not inspected, and its bytes are not kept.
//! 3. A message (a stdio line, an SSE event's data, an HTTP response body)
//!    that is a response whose `result` holds a `tools` array records, for
//!    every entry with a string `name`, the [`DROPPED`] keys it has — or
//!    that it has none, so a later listing without `execution` clears an
//!    earlier one. Each message is heard before rmcp can deliver the
//!    response it holds, so a listing's keys are recorded before its
//!    `list_tools` returns.
//! 4. Memory is bounded: at most twice as many tools as a listing may hold
//!    are remembered (the last listing's and the next one's; the caller
//!    passes its listing bound), and once a listing is done
//!    only the names it listed are kept ([`Declared::restore`]). Nothing is
//!    forgotten when a listing starts: rmcp may answer `list_tools` from its
//!    cache (an upstream's `ttlMs`) without a request the tap could hear, and
//!    then the last listing's keys are the ones that belong to it.
//!
//! An upstream could put a `tools` array in another response; it gains
//! nothing by it: it already writes its own listing, and a pinned definition
//! that changes is hidden, not served.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, ReadBuf};

/// The keys of a tool definition that rmcp's `Tool` drops and the gateway
/// reviews: each is restored into the listed JSON from what the tap heard.
pub(super) const DROPPED: [&str; 1] = ["execution"];

/// What the last listing declared, by tool name: the `DROPPED` keys each
/// tool had (an empty map: none).
#[derive(Debug)]
pub struct Declared {
    heard: Mutex<HashMap<String, Map<String, Value>>>,
    /// How many names are remembered at most.
    remembered: usize,
}

impl Declared {
    /// For listings of at most `tools` tools (the upstream's `LIST_BOUNDS`).
    pub fn new(tools: usize) -> Self {
        Self { heard: Mutex::default(), remembered: tools.saturating_mul(2) }
    }

    /// Hear one whole message as the upstream wrote it (a stdio line, an
    /// SSE event's data, an HTTP response body): if it is a response whose
    /// `result` holds a `tools` array, record that page (see the module's
    /// contract, point 3). The one rule for every tap.
    pub(super) fn hear(&self, message: &[u8]) {
        // Most messages are not listings: skip them without parsing. A key
        // can spell `tools` with `\u` escapes only (no letter of it has a
        // short escape), so a message with neither is no listing.
        let holds = |needle: &[u8]| message.windows(needle.len()).any(|w| w == needle);
        if !holds(TOOLS) && !holds(b"\\u") {
            return;
        }
        // Read whole, every string checked, as rmcp reads a message: a line
        // that is not JSON, or not an object, is no response and records
        // nothing (serde's struct reading would skip an ignored string
        // unchecked, and take a struct from an array).
        let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(message) else { return };
        if let Some(Value::Array(tools)) = message.get("result").and_then(|result| result.get("tools")) {
            self.record(tools);
        }
    }

    /// How many names are remembered now (at most twice the listing bound).
    #[cfg_attr(not(feature = "store"), expect(dead_code, reason = "read by the fuzz targets, through m1nd::fuzzing"))]
    pub fn held(&self) -> usize {
        self.heard.lock().map_or(0, |heard| heard.len())
    }

    /// Record one page of a listing.
    pub(super) fn record(&self, tools: &[Value]) {
        let Ok(mut heard) = self.heard.lock() else { return };
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            if heard.len() >= self.remembered && !heard.contains_key(name) {
                continue;
            }
            let kept = DROPPED.iter().filter_map(|key| Some(((*key).to_owned(), tool.get(*key)?.clone()))).collect();
            heard.insert(name.to_owned(), kept);
        }
    }

    /// Put back into each of `tools` (a whole listing, as rmcp's `Tool`
    /// serialized them) the [`DROPPED`] keys the upstream declared for it,
    /// and only those; then forget every name the listing does not hold.
    pub fn restore(&self, tools: &mut [Value]) {
        let Ok(mut heard) = self.heard.lock() else { return };
        let listed: std::collections::HashSet<&str> =
            tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).collect();
        heard.retain(|name, _| listed.contains(name.as_str()));
        for tool in tools {
            let Some(object) = tool.as_object_mut() else { continue };
            for key in DROPPED {
                object.remove(key);
            }
            let declared = object.get("name").and_then(Value::as_str).and_then(|name| heard.get(name));
            if let Some(declared) = declared {
                object.extend(declared.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
    }
}

/// An upstream's stdout, read through: see the module's contract.
pub struct Tap<R> {
    inner: R,
    lines: Lines,
}

impl<R> Tap<R> {
    pub fn new(inner: R, declared: Arc<Declared>) -> Self {
        Self::inspecting(inner, declared, DEFAULT_MAX_LINE_LENGTH)
    }

    /// A tap that inspects lines of at most `max` bytes (`new` passes
    /// rmcp's bound; the fuzz target a small one, to reach the bound).
    pub fn inspecting(inner: R, declared: Arc<Declared>, max: usize) -> Self {
        Self { inner, lines: Lines::new(declared, max) }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = read {
            this.lines.hear(&buf.filled()[before..]);
        }
        read
    }
}

/// The line being read, and what to do with each complete one.
struct Lines {
    declared: Arc<Declared>,
    line: Vec<u8>,
    /// The current line passed `max`: skip to its end.
    overlong: bool,
    max: usize,
}

impl Lines {
    fn new(declared: Arc<Declared>, max: usize) -> Self {
        Self { declared, line: Vec::new(), overlong: false, max }
    }

    fn hear(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, ended) = match bytes.iter().position(|b| *b == b'\n') {
                Some(end) => (&bytes[..end], true),
                None => (bytes, false),
            };
            bytes = &bytes[part.len() + usize::from(ended)..];
            if !self.overlong && self.line.len() + part.len() <= self.max {
                self.line.extend_from_slice(part);
            } else {
                self.overlong = true;
                self.line = Vec::new();
            }
            if ended {
                if !self.overlong {
                    self.inspect();
                }
                self.line.clear();
                self.overlong = false;
            }
        }
    }

    fn inspect(&self) {
        self.declared.hear(&self.line);
    }
}

const TOOLS: &[u8] = b"\"tools\"";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::AsyncReadExt;

    /// A listing bound small enough to pass in a test.
    const BOUND: usize = 4;

    fn listing(tools: Value) -> String {
        format!("{}\n", json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}))
    }

    /// What rmcp's `Tool` keeps of a listed tool: `execution` is gone.
    fn as_rmcp_lists(name: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object"}})
    }

    /// A whole listing of `names`, restored.
    fn listed(declared: &Declared, names: &[&str]) -> Vec<Value> {
        let mut tools: Vec<Value> = names.iter().map(|name| as_rmcp_lists(name)).collect();
        declared.restore(&mut tools);
        tools
    }

    fn restored(declared: &Declared, name: &str) -> Value {
        listed(declared, &[name]).remove(0)
    }

    #[test]
    fn a_line_split_across_reads_is_heard_once_whole() {
        let declared = Arc::new(Declared::new(BOUND));
        let mut lines = Lines::new(Arc::clone(&declared), 1024);
        let line = listing(json!([{"name": "echo", "execution": {"taskSupport": "optional"}}, {"name": "add"}]));
        let (a, b) = line.as_bytes().split_at(17);
        let (b, c) = b.split_at(9);
        for part in [a, b, c] {
            lines.hear(part);
        }
        let tools = listed(&declared, &["echo", "add"]);
        assert_eq!(tools[0]["execution"], json!({"taskSupport": "optional"}));
        assert_eq!(tools[1], as_rmcp_lists("add"));
        assert!(lines.line.is_empty(), "nothing is kept once a line has ended");
    }

    #[test]
    fn an_overlong_line_is_not_inspected_and_the_next_one_is() {
        let declared = Arc::new(Declared::new(BOUND));
        let padding = "x".repeat(200);
        let first =
            listing(json!([{"name": "long", "description": padding, "execution": {"taskSupport": "required"}}]));
        let second = listing(json!([{"name": "short", "execution": {"taskSupport": "forbidden"}}]));
        let mut lines = Lines::new(Arc::clone(&declared), second.len());
        lines.hear(first.as_bytes());
        assert_eq!(restored(&declared, "long").get("execution"), None);
        assert!(lines.line.is_empty(), "the bytes of an over-long line are not kept");
        lines.hear(second.as_bytes());
        assert_eq!(restored(&declared, "short")["execution"], json!({"taskSupport": "forbidden"}));
    }

    #[test]
    fn lines_that_are_not_listings_record_nothing() {
        let declared = Arc::new(Declared::new(BOUND));
        let mut lines = Lines::new(Arc::clone(&declared), 1024);
        let others = [
            "not json at all, though it says \"tools\"\n".to_owned(),
            format!(
                "{}\n",
                json!({"jsonrpc": "2.0", "method": "x", "params": {"tools": [{"name": "a", "execution": 1}]}})
            ),
            format!("{}\n", json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "tools": "no"}})),
            format!("{}\n", json!({"jsonrpc": "2.0", "id": 3, "result": {"prompts": []}})),
        ];
        for line in &others {
            lines.hear(line.as_bytes());
        }
        assert!(declared.heard.lock().unwrap().is_empty());
    }

    #[test]
    fn fuzz_tap_a_line_that_is_not_a_json_response_records_nothing() {
        let declared = Arc::new(Declared::new(BOUND));
        let mut lines = Lines::new(Arc::clone(&declared), 1024);
        lines.hear(listing(json!([{"name": "echo", "execution": {"taskSupport": "optional"}}])).as_bytes());
        // Not UTF-8 in a member the tap does not read; and a response as an array.
        let mut not_json = br#"{"jsonrpc":"?","id":1,"result":{"tools":[{"name":"echo"}]}}"#.to_vec();
        not_json[12] = 0x98;
        not_json.push(b'\n');
        lines.hear(&not_json);
        lines.hear(b"[[[{\"name\": \"echo\", \"tools\": 1}]]]\n");
        assert_eq!(restored(&declared, "echo")["execution"], json!({"taskSupport": "optional"}));
        // A listing whose key is written with escapes is one.
        lines.hear(b"{\"id\": 2, \"result\": {\"tool\\u0073\": [{\"name\": \"echo\"}]}}\n");
        assert_eq!(restored(&declared, "echo").get("execution"), None);
    }

    #[test]
    fn a_listing_without_execution_clears_the_last_one() {
        let declared = Arc::new(Declared::new(BOUND));
        let mut lines = Lines::new(Arc::clone(&declared), 1024);
        lines.hear(listing(json!([{"name": "echo", "execution": {"taskSupport": "optional"}}])).as_bytes());
        assert!(restored(&declared, "echo").get("execution").is_some());
        lines.hear(listing(json!([{"name": "echo"}])).as_bytes());
        assert_eq!(restored(&declared, "echo").get("execution"), None);
    }

    #[test]
    fn restore_adds_only_the_dropped_keys_and_never_keeps_a_stale_one() {
        let declared = Declared::new(BOUND);
        declared.record(&[json!({"name": "echo", "execution": {"taskSupport": "optional"}, "x-other": 1})]);
        let mut tools = [json!({"name": "echo", "description": "d"}), json!({"name": "add", "execution": "stale"})];
        declared.restore(&mut tools);
        assert_eq!(tools[0], json!({"name": "echo", "description": "d", "execution": {"taskSupport": "optional"}}));
        assert_eq!(tools[1], json!({"name": "add"}));
    }

    #[test]
    fn memory_is_bounded_by_the_listing_bound() {
        let declared = Declared::new(BOUND);
        let mut tools: Vec<Value> = (0..=2 * BOUND).map(|i| json!({"name": format!("t{i}")})).collect();
        declared.record(&tools);
        assert_eq!(declared.heard.lock().unwrap().len(), 2 * BOUND, "the last listing's names and the next one's");
        // Once a listing is restored, only its names are kept.
        declared.restore(&mut tools[..3]);
        assert_eq!(declared.heard.lock().unwrap().len(), 3);
    }

    #[tokio::test]
    async fn every_byte_passes_through_unchanged() {
        let declared = Arc::new(Declared::new(BOUND));
        let mut bytes = listing(json!([{"name": "echo", "execution": {"taskSupport": "optional"}}])).into_bytes();
        bytes.extend_from_slice(b"junk without a newline");
        let mut tap = Tap::new(&bytes[..], Arc::clone(&declared));
        let mut read = Vec::new();
        tap.read_to_end(&mut read).await.unwrap();
        assert_eq!(read, bytes);
        assert!(restored(&declared, "echo").get("execution").is_some());
    }
}
