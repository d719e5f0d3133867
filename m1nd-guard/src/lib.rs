//! The policy guard, in process, for any rmcp server.
//!
//! `m1nd gateway` applies a reviewed gateway policy to an MCP server it runs
//! as a child. This crate applies the same policy inside the server itself:
//! [`Guarded`] wraps any [`rmcp::ServerHandler`], lists only the tools the
//! policy serves (under its names, with its annotations), checks every call
//! with the gateway's own decision ([`policy::gateway::check`]) before the
//! handler sees it, refuses the rest in the gateway's words, and attests the
//! policy's digest and the session's mode in `initialize`, as the gateway
//! does. The policy is a directory (`tools.toml`, `read_only_denied.toml`)
//! that [`gateway!`] checks against every law while the crate compiles: a
//! broken policy, a missing directory or a policy of the wrong kind does not
//! build.
//!
//! One dependency (`m1nd-guard`) and five lines:
//!
//! ```no_run
//! # use rmcp::schemars;
//! # use rmcp::{ServerHandler, ServiceExt, handler::server::wrapper::Parameters, tool, tool_handler, tool_router};
//! # #[derive(Clone)]
//! # struct Notes { tool_router: rmcp::handler::server::router::tool::ToolRouter<Self> }
//! # #[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
//! # struct Name { name: String }
//! # #[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
//! # struct Note { name: String, text: String }
//! # #[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
//! # struct Folder { folder: String, limit: Option<u32> }
//! # #[tool_router]
//! # impl Notes {
//! #     fn new() -> Self { Self { tool_router: Self::tool_router() } }
//! #     #[tool] fn read_note(&self, Parameters(n): Parameters<Name>) -> String { n.name }
//! #     #[tool] fn write_note(&self, Parameters(n): Parameters<Note>) -> String { n.text }
//! #     #[tool] fn list_notes(&self, Parameters(f): Parameters<Folder>) -> String { f.folder }
//! # }
//! # #[tool_handler]
//! # impl ServerHandler for Notes {}
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // Checked when this crate compiles; the path is relative to the crate root.
//! static POLICY: m1nd_guard::Embedded = m1nd_guard::gateway!("tests/policy");
//!
//! // Fails at start, naming each tool and tools.toml, if the router and the policy disagree.
//! let guarded = m1nd_guard::Guarded::new(Notes::new(), &POLICY, &Notes::tool_router())?;
//! guarded.serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(()) }
//! ```
//!
//! and, beside the server's own tests, the same check without starting it:
//!
//! ```no_run
//! # use rmcp::model::Tool;
//! # static POLICY: m1nd_guard::Embedded = m1nd_guard::gateway!("tests/policy");
//! # let tools: Vec<Tool> = Vec::new();
//! m1nd_guard::check_tools(&POLICY, &tools).unwrap(); // or a ToolRouter
//! ```
//!
//! The session's mode is the policy's (`mode` in `tools.toml`; read-only
//! when it names none); [`Guarded::read_only`] makes it read-only, as the
//! gateway's `--read-only` does, and nothing makes a read-only policy
//! read-write. Everything the inner handler answers is data: it is escaped by
//! the gateway's rule before a client sees it (see [`neutralise`]).

pub use m1nd_macros::gateway;
pub use m1nd_policy as policy;
pub use m1nd_policy::SessionMode;
/// A gateway policy compiled into the binary by [`gateway!`].
pub use m1nd_policy::gateway::Embedded;

pub mod attestation;
mod guarded;
pub mod neutralise;
mod passed_on;
mod state;
mod surfaces;
mod tools;

pub use guarded::Guarded;
pub use tools::{GuardError, ListsTools, Mismatch, ToolsMismatch, check_tool_names, check_tools};
