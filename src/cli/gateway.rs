//! `m1nd gateway` and `m1nd policy import`: the guard in front of another
//! MCP server, and the policy it starts from.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use m1nd::gateway::{self, ImportOptions, Options};
use m1nd::mcp::attestation::{self, Pinned};
use m1nd_policy::gateway::Gateway;

mod fleet;
mod upstream;

use upstream::{ChildArgs, RemoteArgs, upstream};

use super::audit::AuditArgs;
use super::flags::positive_seconds;
use super::http::HttpArgs;
use super::read_only::{READ_ONLY_ENV, read_only_from_env};
use super::{Failure, emit};
use m1nd::transport::http;

#[derive(Debug, Args)]
pub struct GatewayArgs {
    /// The gateway policy directory (tools.toml and read_only_denied.toml).
    #[arg(long, value_name = "DIR", required_unless_present = "fleet")]
    policy: Option<PathBuf>,
    /// Serve several upstreams as one: the fleet directory's fleet.toml names each upstream with
    /// its own gateway policy directory, name prefix, and command or URL (law M017 keeps their
    /// names apart). Takes the place of --policy, --upstream and the command after `--`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["policy", "shadow", "upstream", "command"])]
    fleet: Option<PathBuf>,
    /// Hide and refuse every tool the deny list names, whatever the policy's `mode` (also:
    /// M1ND_READ_ONLY=1). Nothing on the command line makes a read-only policy read-write.
    #[arg(long)]
    read_only: bool,
    /// Refuse to start unless the gateway policy has this digest (`m1nd policy digest DIR`).
    #[arg(long, value_name = "HEX")]
    expect_digest: Option<String>,
    /// Seconds one forwarded call may take before it is answered with an error.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    call_timeout: f64,
    /// List the upstream's tools again at least every SECONDS, so a definition changed without
    /// `list_changed` is hidden and refused (0: only when a client lists tools or the upstream
    /// says they changed).
    #[arg(long, value_name = "SECONDS", default_value_t = gateway::DEFAULT_RECHECK.as_secs_f64())]
    recheck: f64,
    #[command(flatten)]
    audit: AuditArgs,
    /// Check every tools/call against the gateway policy in DIR too, and record in the audit
    /// file each call it would decide differently. A dry run: only --policy decides, so nothing
    /// the shadow allows gets through. Needs --audit, where its decisions go.
    #[arg(long, value_name = "DIR", requires = "audit")]
    shadow: Option<PathBuf>,
    #[command(flatten)]
    http: HttpArgs,
    /// Reach a Streamable HTTP upstream at URL (https:// or http://) instead of starting one.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    #[command(flatten)]
    remote: RemoteArgs,
    #[command(flatten)]
    child: ChildArgs,
    /// The upstream MCP server to start, after `--`.
    #[arg(last = true, required_unless_present_any = ["upstream", "fleet"], value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Where to write the policy (or, with --update, the reviewed policy to compare).
    #[arg(long, value_name = "DIR")]
    policy: PathBuf,
    /// Propose denying only the tools that do not hint `readOnlyHint: true`.
    #[arg(long)]
    read_only_from_hints: bool,
    /// Compare the reviewed policy with the upstream now: each changed definition as a readable
    /// diff, tools new upstream, tools no longer listed. Exits 1 when definitions changed.
    #[arg(long)]
    update: bool,
    /// With --update: write the update into the policy (the changed `definition` pins in
    /// tools.toml, and definitions.json); the deny list and the mode stay as reviewed.
    #[arg(long, requires = "update")]
    apply: bool,
    /// Reach a Streamable HTTP upstream at URL (https:// or http://) instead of starting one.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    #[command(flatten)]
    remote: RemoteArgs,
    #[command(flatten)]
    child: ChildArgs,
    /// The upstream MCP server to start, after `--`.
    #[arg(last = true, required_unless_present = "upstream", value_name = "CMD")]
    command: Vec<OsString>,
}

/// One thread: a forwarded call hops between the two rmcp services, and on
/// one thread no hop waits for another thread to wake.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::usage(format!("cannot start the async runtime: {e}")))
}

/// Many sessions at once: the same multi-threaded runtime as `serve --http`.
fn http_runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::usage(format!("cannot start the async runtime: {e}")))
}

/// What the command line says of every session, whichever upstreams serve
/// it: the mode, the timeouts, the recheck interval (no audit or shadow yet).
fn options(args: &GatewayArgs) -> Result<Options, Failure> {
    let read_only = args.read_only || read_only_from_env(std::env::var_os(READ_ONLY_ENV))?;
    let call_timeout = positive_seconds(args.call_timeout, "--call-timeout")?;
    let recheck = Duration::try_from_secs_f64(args.recheck)
        .map_err(|_| Failure::usage("--recheck must be a number of seconds, 0 or more"))?;
    let recheck = (!recheck.is_zero()).then_some(recheck);
    Ok(Options { read_only, call_timeout, recheck, ..Options::default() })
}

/// Which of the gateway's policies a directory is, for its refusals.
#[derive(Clone, Copy)]
enum Role {
    /// `--policy`: the policy that decides.
    Enforced,
    /// `--shadow`: the candidate that only watches.
    Shadow,
}

/// Compile the gateway policy in `dir`, or refuse to start with every
/// violation rendered as `policy check --gateway` renders it, naming `dir`.
fn load(dir: &Path, role: Role) -> Result<(Gateway, String), Failure> {
    if matches!(role, Role::Shadow) && !dir.is_dir() {
        return Err(Failure::usage(format!(
            "the shadow policy directory `{}` does not exist; give --shadow a gateway policy directory to check \
             beside --policy (`m1nd policy import` writes one)",
            dir.display()
        )));
    }
    let display = super::policy::display(dir)?;
    super::policy::kind::expect_gateway(
        &display,
        &m1nd_policy::PolicySources::read_dir(dir, &display),
        match role {
            Role::Enforced => {
                "m1nd's own policy is compiled into `m1nd serve`; give --policy a gateway policy directory"
            }
            Role::Shadow => "give --shadow a gateway policy directory to check beside --policy",
        },
    )?;
    // Validate before deploy: the same laws and messages as `policy check --gateway`.
    let policy = gateway::load(dir, &display).map_err(|e| {
        let rendered = match e {
            gateway::GatewayError::Policy(rendered) => rendered,
            other => vec![other.to_string()],
        };
        eprintln!("{}", rendered.join("\n\n"));
        let n = rendered.len();
        let whose = match role {
            Role::Enforced => display.clone(),
            Role::Shadow => format!("the shadow policy {display}"),
        };
        Failure::refused(format!("{whose} breaks {n} law{}; the gateway does not start", if n == 1 { "" } else { "s" }))
    })?;
    Ok((policy, display))
}

pub fn run(args: GatewayArgs) -> Result<(), Failure> {
    if let Some(dir) = args.fleet.clone() {
        return fleet::run(&dir, args);
    }
    let Some(policy_dir) = &args.policy else {
        return Err(Failure::usage("name the gateway policy with --policy DIR, or a fleet with --fleet DIR"));
    };
    let (policy, display) = load(policy_dir, Role::Enforced)?;
    let shadow = args.shadow.as_deref().map(|dir| load(dir, Role::Shadow)).transpose()?;
    if let Some(pin) = &args.expect_digest {
        let pinned = Pinned::Gateway { display: display.clone() };
        attestation::check_digest(pin, &m1nd_policy::policy::gateway_digest(&policy), pinned)?;
    }
    let options = options(&args)?;
    let upstream = upstream(args.upstream, args.command, args.remote, args.child)?;
    let http = args.http.options()?;
    // One policy per process (and its shadow), alive until it exits.
    let policy = Box::leak(Box::new(policy));
    let shadow = shadow.map(|(shadow, dir)| {
        tracing::info!(
            "shadow policy {dir} ({}): checked beside the enforced policy; every call it would decide \
             differently is recorded in the audit trail, and nothing it allows is forwarded unless the enforced \
             policy allows it",
            m1nd_policy::policy::gateway_digest(&shadow)
        );
        &*Box::leak(Box::new(shadow))
    });
    let options = Options { audit: args.audit.open()?, shadow, ..options };
    let Some(http) = http else {
        return runtime()?.block_on(async move {
            gateway::serve(policy, options, upstream, m1nd::transport::stdio::Stdio::new())
                .await
                .map_err(|e| Failure::usage(e.to_string()))
        });
    };
    http_runtime()?.block_on(async move {
        let connected = gateway::connect(policy, options, upstream).await.map_err(|e| Failure::usage(e.to_string()))?;
        let served = serve_http(connected.server.clone(), http).await;
        connected.close().await;
        served
    })
}

/// Serve a gateway's or a fleet's server over Streamable HTTP, behind the
/// same checks and limits as `m1nd serve --http`, with `tools/list` answered
/// from the reviewed definitions (`reviewed_tools`), until the process stops.
async fn serve_http<S>(server: S, options: http::HttpOptions) -> Result<(), Failure>
where
    S: rmcp::ServerHandler + gateway::ListsReviewedTools + Clone + Send + Sync + 'static,
{
    let around_mcp = http::reviewed_tools::keep_definitions(server.clone());
    http::serve(server, options, around_mcp).await.map_err(|e| Failure::usage(e.to_string()))
}

pub fn import(args: ImportArgs) -> Result<(), Failure> {
    let options = ImportOptions {
        upstream: upstream(args.upstream, args.command, args.remote, args.child)?,
        dir: args.policy,
        read_only_from_hints: args.read_only_from_hints,
        update: args.update,
    };
    let report = runtime()?.block_on(gateway::import(options, args.apply)).map_err(|e| {
        // `--update` compiles the reviewed policy first: show each violation as `policy check` does.
        if let gateway::GatewayError::Policy(rendered) = &e {
            eprintln!("{}", rendered.join("\n\n"));
        }
        Failure::usage(e.to_string())
    })?;
    emit(&report.text)?;
    report.pending.map_or(Ok(()), |pending| Err(Failure::refused(pending)))
}
