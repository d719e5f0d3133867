//! An rmcp server guarded in process by a compile-time policy.
//!
//! `notes.rs` is an ordinary rmcp server (`#[tool_router]`, three tools).
//! This file adds the guard: `gateway!` checks `policy/` against every law
//! while the example compiles, and [`Guarded`] serves only what it allows.
//! It fails at start, naming the tool and `tools.toml`, if the router and
//! the policy name different tools.
//!
//! ```sh
//! cargo run -p m1nd-example-rmcp-guarded                          # stdio, the policy's mode
//! cargo run -p m1nd-example-rmcp-guarded -- --read-only           # write_note hidden and refused
//! cargo run -p m1nd-example-rmcp-guarded -- --http 127.0.0.1:8080 # Streamable HTTP at /mcp
//! ```

mod http;
mod notes;

use std::process::ExitCode;

use m1nd_guard::{Embedded, Guarded};
use notes::Notes;
use rmcp::ServiceExt;

/// The reviewed policy beside this crate, checked when it compiles.
static POLICY: Embedded = m1nd_guard::gateway!("policy");

/// What the command line asks for.
struct Args {
    read_only: bool,
    http: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut args = Args { read_only: false, http: None };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--read-only" => args.read_only = true,
            "--http" => args.http = Some(given.next().ok_or("--http needs an address, e.g. 127.0.0.1:8080")?),
            other => {
                return Err(format!("unknown argument `{other}`; usage: rmcp-guarded [--read-only] [--http ADDR]"));
            }
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let guarded = match Guarded::new(Notes::default(), &POLICY, &Notes::tool_router()) {
        Ok(guarded) => guarded.read_only(args.read_only),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    eprintln!("rmcp-guarded: policy {} ({})", guarded.policy_digest(), guarded.mode());
    let served = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
        .and_then(|runtime| {
            runtime.block_on(async {
                match args.http {
                    Some(addr) => http::serve(guarded, &addr).await,
                    None => stdio(guarded).await,
                }
            })
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Serve one session on stdin and stdout until the client closes it.
async fn stdio(guarded: Guarded<Notes>) -> Result<(), String> {
    let running = guarded.serve(rmcp::transport::stdio()).await.map_err(|e| format!("stdio: {e}"))?;
    running.waiting().await.map(|_| ()).map_err(|e| format!("stdio: {e}"))
}
