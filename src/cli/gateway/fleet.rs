//! `m1nd gateway --fleet DIR`: compile the fleet (every member's laws and
//! M017, as `m1nd policy check DIR` and `fleet!` do), reach every upstream
//! it names, and serve them as one, over stdio or Streamable HTTP.

use std::path::Path;

use m1nd::gateway::GatewayService;
use m1nd::gateway::fleet::{self as served, ConnectedFleet};
use m1nd::mcp::attestation::{self, Pinned};
use m1nd_policy::gateway::fleet::{Fleet, FleetSources, compile_fleet};
use rmcp::ServiceExt;

use super::{GatewayArgs, http_runtime, options, runtime, serve_http};
use crate::cli::Failure;

/// Compile the fleet in `dir`, or refuse to start with every problem
/// rendered as `policy check` renders it.
pub fn load(dir: &Path) -> Result<(Fleet, String), Failure> {
    let display = crate::cli::policy::display(dir)?;
    let sources = FleetSources::read_dir(dir, &display);
    let fleet = compile_fleet(&sources).map_err(|problems| {
        let rendered: Vec<String> = problems.iter().map(|p| format!("error: {}", p.render(&sources))).collect();
        eprintln!("{}", rendered.join("\n\n"));
        let n = rendered.len();
        Failure::refused(format!(
            "the fleet {display} breaks {n} law{}; the gateway does not start",
            if n == 1 { "" } else { "s" }
        ))
    })?;
    Ok((fleet, display))
}

pub fn run(dir: &Path, args: GatewayArgs) -> Result<(), Failure> {
    let (fleet, display) = load(dir)?;
    let digest = fleet.digest();
    if let Some(pin) = &args.expect_digest {
        attestation::check_digest(pin, &digest, Pinned::Fleet { display: display.clone() })?;
    }
    let upstreams = fleet
        .members
        .iter()
        .map(|m| {
            served::upstream_of(&m.entry.endpoint, dir)
                .map_err(|e| Failure::usage(format!("upstream `{}` of the fleet {display}: {e}", m.entry.name)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options = super::Options { audit: args.audit.open()?, ..options(&args)? };
    let http = args.http.options()?;
    // One fleet per process, alive until it exits.
    let fleet: &'static Fleet = Box::leak(Box::new(fleet));
    let connect = async move {
        served::connect_fleet(fleet, digest, options, upstreams).await.map_err(|e| Failure::usage(e.to_string()))
    };
    let Some(http) = http else {
        return runtime()?.block_on(async move {
            let connected = connect.await?;
            let ended = serve_stdio(&connected).await;
            connected.close().await;
            ended
        });
    };
    http_runtime()?.block_on(async move {
        let connected = connect.await?;
        let served = serve_http(connected.server.clone(), http).await;
        connected.close().await;
        served
    })
}

async fn serve_stdio(connected: &ConnectedFleet) -> Result<(), Failure> {
    let running = GatewayService::new(connected.server.clone())
        .serve(m1nd::transport::stdio::Stdio::new())
        .await
        .map_err(|e| Failure::usage(format!("the downstream MCP session did not start: {e}")))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| Failure::usage(format!("the downstream session ended abnormally: {e}")))
}
