//! The `m1nd` command: the cockpit, policy checks, the store and the MCP server.

mod cli;
mod server;

fn main() -> std::process::ExitCode {
    cli::main()
}
