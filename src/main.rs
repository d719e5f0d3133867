//! The `m1nd` command: the cockpit, policy checks, the store and the MCP server.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
