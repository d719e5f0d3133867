//! What a policy directory is compiled for.
//!
//! The same laws serve two products. A **cockpit** policy (`cockpit!`,
//! `m1nd policy check`) is m1nd's own: all four files, the menu included. A
//! **gateway** policy (`m1nd gateway`, `m1nd policy check --gateway`) guards
//! another server's tools: it needs only `tools.toml` and
//! `read_only_denied.toml`; `help_cards.toml` and `cockpit.toml` are optional,
//! and the laws about the menu govern it only when it has one. The law
//! registry (`laws/mod.rs`) says which laws need a menu.

/// The product a policy is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// m1nd's own server and menu: every file is required.
    Cockpit,
    /// A guard in front of another MCP server: the menu files are optional,
    /// argument names are the upstream's, and pins are enforced.
    Gateway,
}
