//! What the guard suites send, and one client interface over every transport.
//!
//! The name forms and argument shapes live here once, so the stdio suite and
//! the transport parity matrix attack with the same inputs.

use m1nd::COCKPIT;
use m1nd_policy::ArgKind;
use serde_json::{Map, Value, json};

use super::Mcp;
use super::http::{Era, HttpMcp};

/// Every way a client may write a verb's name.
pub fn aliases(verb: &str) -> Vec<String> {
    vec![
        verb.to_owned(),
        format!("m1nd.{verb}"),
        format!("m1nd_{verb}"),
        verb.to_ascii_uppercase(),
        format!("M1ND.{}", verb.to_ascii_uppercase()),
        format!("M1nd_{verb}"),
        format!("  {verb}  "),
        format!("\t m1nd.{verb}\n"),
    ]
}

/// Arguments that would satisfy the verb, so only the guard can refuse it.
pub fn plausible_arguments(verb: &str) -> Value {
    let def = COCKPIT.verb(verb).expect("table verb");
    let args: Map<String, Value> = COCKPIT
        .takes(def)
        .map(|t| {
            (t.name.to_owned(), if t.ty.map(|t| t.kind) == Some(ArgKind::Integer) { json!(1) } else { json!("x") })
        })
        .collect();
    Value::Object(args)
}

/// The argument shapes every denied verb is tried with.
pub fn denied_shapes(verb: &str) -> [Value; 3] {
    [plausible_arguments(verb), json!({}), json!({"action": "status"})]
}

/// `persist` arguments a read-only session must refuse (status-only).
pub fn persist_refused() -> Vec<Value> {
    vec![
        json!({"action": "save"}),
        json!({"action": "load"}),
        json!({"action": "checkpoint"}),
        json!({"action": "SAVE "}),
        json!({}),
        json!({"action": 5}),
        json!({"action": null}),
        json!({"action": ["status"]}),
        json!({"action": "status!"}),
        json!({"action": "x".repeat(10_000)}),
    ]
}

/// Names refused in every session, with a phrase the refusal must contain.
pub const REFUSED_EVERYWHERE: [(&str, &str); 7] = [
    ("frobnicate", "unknown tool `frobnicate`"),
    ("m1nd.docter", "did you mean `doctor`"),
    ("", "unknown tool"),
    ("l\u{0435}arn", "look-alike of `learn`"),
    ("m\u{0435}morize", "look-alike of `memorize`"),
    ("receipt_import", "`receipt_import` is retired"),
    ("mission_post", "`mission_post` is retired"),
];

/// An MCP client, whatever carries its messages.
pub trait Client {
    /// Which transport and era, for assertion messages.
    fn label(&self) -> &'static str;
    /// `tools/call`'s result.
    fn call(&mut self, name: &str, arguments: Value) -> Value;
    /// `tools/list`'s tools.
    fn tools(&mut self) -> Vec<Value>;
    /// The server's instructions, as the client received them.
    fn instructions(&self) -> &str;
    /// The server still answers.
    fn assert_alive(&mut self);
}

impl Client for Mcp {
    fn label(&self) -> &'static str {
        "stdio"
    }
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        Mcp::call(self, name, arguments)
    }
    fn tools(&mut self) -> Vec<Value> {
        Mcp::tools(self)
    }
    fn instructions(&self) -> &str {
        &self.instructions
    }
    fn assert_alive(&mut self) {
        Mcp::assert_alive(self)
    }
}

impl Client for HttpMcp {
    fn label(&self) -> &'static str {
        match self.era {
            Era::Session => "http (session)",
            Era::Stateless => "http (stateless 2026-07-28)",
        }
    }
    /// The result without 2026-07-28's envelope: that revision marks every
    /// finished result `resultType: "complete"`, which older ones lack.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let mut result = HttpMcp::call(self, name, arguments);
        if self.era == Era::Stateless {
            let kind = result.as_object_mut().and_then(|r| r.remove("resultType"));
            assert_eq!(kind, Some(json!("complete")), "{name:?}: {result}");
        }
        result
    }
    fn tools(&mut self) -> Vec<Value> {
        HttpMcp::tools(self)
    }
    fn instructions(&self) -> &str {
        &self.instructions
    }
    fn assert_alive(&mut self) {
        HttpMcp::assert_alive(self)
    }
}

/// One client per transport and era on `store`: stdio first, then HTTP with
/// a session, then stateless HTTP.
pub fn every_transport(store: &std::path::Path, read_only: bool) -> Vec<Box<dyn Client>> {
    let args: &[&str] = if read_only { &["--read-only"] } else { &[] };
    vec![
        Box::new(Mcp::start(store, args, &[])),
        Box::new(HttpMcp::start(store, Era::Session, args, &[])),
        Box::new(HttpMcp::start(store, Era::Stateless, args, &[])),
    ]
}
