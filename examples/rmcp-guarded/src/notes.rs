//! The server being guarded: an ordinary rmcp server with three tools,
//! written as any rmcp server is, with no knowledge of the policy.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct Folder {
    /// The folder: `inbox` or `archive`.
    pub folder: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct NoteName {
    pub folder: String,
    pub name: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct Note {
    pub folder: String,
    pub name: String,
    pub text: String,
}

/// Notes kept in memory, shared by every session (each session's handler is a clone).
#[derive(Clone, Default)]
pub struct Notes {
    notes: Arc<Mutex<BTreeMap<(String, String), String>>>,
}

#[tool_router(vis = "pub")]
impl Notes {
    #[tool(description = "Lists the names of the notes in one folder.", annotations(read_only_hint = true))]
    fn list_notes(&self, Parameters(Folder { folder }): Parameters<Folder>) -> String {
        let notes = self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let names: Vec<_> = notes.keys().filter(|(f, _)| *f == folder).map(|(_, name)| name.as_str()).collect();
        format!("{folder}: [{}]", names.join(", "))
    }

    #[tool(description = "Reads one note.", annotations(read_only_hint = true))]
    fn read_note(&self, Parameters(NoteName { folder, name }): Parameters<NoteName>) -> Result<String, String> {
        let notes = self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        notes.get(&(folder.clone(), name.clone())).cloned().ok_or_else(|| format!("no note `{name}` in {folder}"))
    }

    #[tool(description = "Writes one note, replacing any note of that name.", annotations(destructive_hint = true))]
    fn write_note(&self, Parameters(Note { folder, name, text }): Parameters<Note>) -> String {
        let mut notes = self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        notes.insert((folder.clone(), name.clone()), text);
        format!("wrote {folder}/{name}")
    }
}

#[tool_handler]
impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-guarded-notes", env!("CARGO_PKG_VERSION")))
            .with_instructions("Notes in two folders, `inbox` and `archive`.")
    }
}
