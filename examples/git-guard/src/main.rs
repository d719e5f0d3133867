//! A read-only git guard as its own binary, for teams who want the build step.
//!
//! `gateway!` runs the laws on the reviewed policy while this crate compiles
//! (a pin on an argument `git_status` does not take, say, is a compile error
//! pointing into tools.toml), and the binary serves it with the library form
//! of `m1nd gateway`:
//!
//! ```sh
//! cargo run -p m1nd-example-git-guard -- .venv/bin/mcp-server-git
//! ```

use std::process::ExitCode;

use m1nd::gateway::{Options, Upstream, serve};
use m1nd_policy::gateway::Embedded;

/// The policy `tests/gateway` reviewed for mcp-server-git, one source for both.
static POLICY: Embedded = m1nd_macros::gateway!("../../tests/gateway/policies/git");

fn main() -> ExitCode {
    let mut upstream = std::env::args_os().skip(1);
    let Some(command) = upstream.next() else {
        eprintln!("usage: m1nd-example-git-guard CMD [ARGS...]   (the upstream server, e.g. mcp-server-git)");
        return ExitCode::from(2);
    };
    let policy = match POLICY.gateway() {
        Ok(policy) => policy,
        Err(rendered) => {
            eprintln!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let options = Options { read_only: true, ..Options::default() };
    let served = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
        .and_then(|runtime| {
            runtime
                .block_on(serve(policy, options, Upstream::new(command, upstream), rmcp::transport::stdio()))
                .map_err(|e| e.to_string())
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
