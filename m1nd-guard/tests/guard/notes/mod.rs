//! A tiny rmcp notes server, built as an rmcp server author builds one, that
//! records every call it gets: what reaches it is what the guard let through.

use std::sync::{Arc, Mutex};

use m1nd_guard::{Embedded, Guarded};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Map, Value};

/// The policy every test guards the notes server with.
pub static POLICY: Embedded = m1nd_guard::gateway!("tests/policy");

#[derive(serde::Deserialize, JsonSchema)]
pub struct Name {
    pub name: String,
}

#[derive(serde::Deserialize, JsonSchema)]
pub struct Note {
    pub name: String,
    pub text: String,
}

#[derive(serde::Deserialize, JsonSchema)]
pub struct Folder {
    pub folder: String,
    pub limit: Option<u32>,
}

/// `#[tool_handler]` asks `Self::tool_router()` for the routes: no router field.
#[derive(Clone, Default)]
pub struct Notes {
    /// Every call that reached the server: its tool and arguments.
    pub calls: Arc<Mutex<Vec<(String, String)>>>,
}

#[tool_router(vis = "pub")]
impl Notes {
    fn record(&self, tool: &str, what: String) {
        self.calls.lock().expect("calls").push((tool.to_owned(), what));
    }

    #[tool(description = "Reads one note, by its name.", annotations(read_only_hint = true))]
    fn read_note(&self, Parameters(n): Parameters<Name>) -> String {
        self.record("read_note", n.name.clone());
        // What a note may hold: a zero-width space and an escape sequence a reader never sees.
        format!("note {}: hello\u{200B}\u{1B}[2J", n.name)
    }

    /// Claims to only read: the policy's deny list knows better.
    #[tool(description = "Writes one note.", annotations(read_only_hint = true))]
    fn write_note(&self, Parameters(n): Parameters<Note>) -> String {
        self.record("write_note", format!("{}={}", n.name, n.text));
        format!("wrote {}", n.name)
    }

    #[tool(description = "Lists the notes of one folder.")]
    fn list_notes(&self, Parameters(f): Parameters<Folder>) -> String {
        self.record("list_notes", f.folder.clone());
        format!("{}: (empty, limit {})", f.folder, f.limit.unwrap_or(10))
    }
}

#[tool_handler]
impl ServerHandler for Notes {}

impl Notes {
    /// Every call that reached the server so far.
    pub fn seen(&self) -> Vec<(String, String)> {
        self.calls.lock().expect("calls").clone()
    }
}

/// A client session with `guarded`, over an in-memory duplex pipe.
pub async fn connect(guarded: Guarded<Notes>) -> RunningService<RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(server) = guarded.serve(server_side).await {
            let _ = server.waiting().await;
        }
    });
    ().serve(client_side).await.expect("the client connects")
}

/// A call with `arguments` (a JSON object).
pub fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let arguments: Map<String, Value> = serde_json::from_value(arguments).expect("an object");
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

/// The text of a result's blocks, joined.
pub fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

/// A tool of the given name, with an empty object schema.
pub fn bare_tool(name: &str) -> Tool {
    let schema = serde_json::from_value(serde_json::json!({"type": "object"})).expect("schema");
    Tool::new(name.to_owned(), "a tool", Arc::new(schema))
}
