//! Command-line interface (clap derive).
//!
//! Exit codes: 0 success; 1 policy violations or a refusal (the store
//! already exists, `store check` found damage, ...); 2 usage errors, bad
//! references and I/O errors.

mod audit;
#[cfg(feature = "store")]
mod cockpit;
mod flags;
mod gateway;
mod http;
#[cfg(feature = "store")]
mod init;
mod policy;
mod read_only;
mod revision;
#[cfg(feature = "store")]
mod serve;
#[cfg(feature = "store")]
mod store;

use std::process::ExitCode;

#[cfg(feature = "store")]
use clap::Args;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "m1nd",
    version,
    about = "The m1nd cockpit: a compile-time checked, read-only menu over a shared store"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How messages on stderr are written: text for a person, json (one object per line) for a
    /// log collector. What is shown is chosen by M1ND_LOG (e.g. `m1nd=debug,rmcp=warn`).
    #[arg(long, global = true, value_enum, default_value_t = LogFormatArg::Text)]
    log_format: LogFormatArg,
}

/// `--log-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LogFormatArg {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the cockpit card (root, or the level a reference selects).
    #[cfg(feature = "store")]
    Cockpit(cockpit::CockpitArgs),
    /// Check, expand, digest, diff or import a policy directory.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Create a store (empty, or seeded with a demo state).
    #[cfg(feature = "store")]
    Init(init::InitArgs),
    /// Serve MCP over stdio (or Streamable HTTP with --http).
    #[cfg(feature = "store")]
    Serve(serve::ServeArgs),
    /// Put the compiled guard in front of another MCP server, served on stdio or (--http) Streamable HTTP.
    Gateway(Box<gateway::GatewayArgs>),
    /// Manage the store.
    #[cfg(feature = "store")]
    #[command(subcommand)]
    Store(StoreCommand),
}

#[cfg(feature = "store")]
#[derive(Debug, Subcommand)]
enum StoreCommand {
    /// Create a store from the JSON store's `state.json` (the file is only read).
    Import(store::ImportArgs),
    /// Check the store's file: every page's checksum and SQLite's integrity_check (never writes).
    Check(store::CheckArgs),
    /// Give a store made before page checksums a checksum on every page (rewrites it in place, in one transaction).
    AddChecksums(store::AddChecksumsArgs),
    /// Change the store's size cap (the largest its file may grow).
    SetMaxBytes(store::SetMaxBytesArgs),
    /// Copy the store to a new file, consistently, while servers run (a checked copy, checksums included).
    Backup(store::BackupArgs),
}

#[derive(Debug, Subcommand)]
enum PolicyCommand {
    /// Run the laws on a policy directory, with the same messages as the compiler.
    Check(policy::CheckArgs),
    /// Print what `cockpit!` (or, for a gateway policy, `gateway!`) expands the policy to.
    Expand(policy::ExpandArgs),
    /// List an upstream MCP server's tools and write a gateway policy to review.
    Import(gateway::ImportArgs),
    /// Print the policy's digest (what `serve` attests and `--expect-digest` pins).
    Digest(policy::DigestArgs),
    /// Say what a policy change does to safety: loosened first, then tightened, verbs, menu, budget, digest.
    Diff(policy::DiffArgs),
}

/// The store option shared by several commands.
#[cfg(feature = "store")]
#[derive(Debug, Args)]
struct StoreArg {
    /// Where the store is: a directory, or a PostgreSQL database (a `postgres://` URL or a libpq
    /// keyword string; every command but `store check`, `backup` and `add-checksums` takes one).
    // The variable's value is never shown in `--help`: a URL may hold a password.
    // Read as an OS string, so that a directory whose name is not UTF-8 still works.
    #[arg(
        long,
        value_name = "DIR",
        env = STORE_ENV,
        hide_env_values = true,
        default_value = m1nd::store::DEFAULT_DIR,
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), m1nd::store::Location::from)
    )]
    store: m1nd::store::Location,
}

/// A `--store` that names a file, not a directory, refused with what to
/// give instead; a store directory that does not exist yet is for the
/// store's own open to report, with the command that creates it.
#[cfg(feature = "store")]
fn check_store_dir(dir: &std::path::Path) -> Result<(), Failure> {
    let Ok(meta) = std::fs::metadata(dir) else { return Ok(()) };
    if meta.is_dir() {
        return Ok(());
    }
    let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    Err(Failure::usage(format!(
        "--store {} is a file, not a directory: a store is a directory holding {}; give that directory, or \
         create a store in a new one with `{}`",
        shown.display(),
        m1nd::store::DB_FILE,
        m1nd::invocation::m1nd("init --store NEW_DIR")
    )))
}

/// The variable that names the store when `--store` is not given.
#[cfg(feature = "store")]
pub const STORE_ENV: &str = "M1ND_STORE";

#[cfg(feature = "store")]
impl StoreArg {
    /// The store directory, or a usage error (exit 2) for a location this
    /// command cannot use, shown without its password.
    fn dir(&self) -> Result<&std::path::Path, Failure> {
        self.store.dir().map_err(|e| Failure::usage(e.to_string()))
    }

    /// Where the store is, for a command that takes either backend.
    fn location(&self) -> &m1nd::store::Location {
        &self.store
    }
}

/// The size limit a new store declares.
#[cfg(feature = "store")]
#[derive(Debug, Args)]
struct MaxBytesArg {
    /// The largest the store may grow, in bytes (at least 262144, 256 KiB); a
    /// write past it is refused.
    #[arg(long, value_name = "BYTES", default_value_t = m1nd::store::DEFAULT_MAX_BYTES)]
    max_bytes: u64,
}

/// How a store failure ends a command: an existing store is a refusal (1),
/// anything else an I/O or usage error (2).
#[cfg(feature = "store")]
fn store_failure(e: m1nd::store::StoreError) -> Failure {
    match e {
        m1nd::store::StoreError::AlreadyExists { .. } => Failure::refused(e.to_string()),
        other => Failure::usage(other.to_string()),
    }
}

/// Output format of `policy check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// As rustc shows it.
    Text,
    /// An array of diagnostics, for tools.
    Json,
    /// A SARIF 2.1.0 log, for code scanning and editors.
    Sarif,
    /// GitHub Actions workflow commands: an annotation per violation.
    Github,
}

/// A command that did not succeed: what to print and how to exit.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Policy violations or a refusal: exit 1.
    pub fn refused(message: impl Into<String>) -> Self {
        Self { code: 1, message: message.into() }
    }

    /// A usage, reference or I/O error: exit 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
}

/// A pin that is not a digest is a usage error (2); a digest of another
/// policy is a refusal (1).
impl From<m1nd::mcp::attestation::PinError> for Failure {
    fn from(e: m1nd::mcp::attestation::PinError) -> Self {
        use m1nd::mcp::attestation::PinError;
        match e {
            PinError::Malformed(_) => Failure::usage(e.to_string()),
            PinError::Mismatch { .. } => Failure::refused(e.to_string()),
        }
    }
}

/// A write past `RLIMIT_FSIZE` raises SIGXFSZ, whose default action kills
/// the process. Ignored, the write fails with `EFBIG` instead, which the
/// store reports as a refused write (and rolls back), so a server under a
/// file-size limit keeps answering.
#[cfg(unix)]
fn survive_file_size_limits() {
    // SAFETY: `signal` with `SIG_IGN` installs no handler code; it only sets
    // the disposition of one signal, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(not(unix))]
fn survive_file_size_limits() {}

/// Write `text` to stdout, ending it with a newline. A closed pipe (`| head`)
/// ends the output quietly; any other write error is an I/O failure.
pub fn emit(text: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    match out.write_all(text.as_bytes()).and_then(|()| out.write_all(newline.as_bytes())).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::usage(format!("cannot write to stdout: {e}"))),
    }
}

/// What `m1nd --version` prints after the name: the crate's version and the
/// digest of the policy compiled into this binary (the one `m1nd policy
/// digest` prints for `policy/` and `initialize` attests), so an installed
/// binary says which policy it enforces.
#[cfg(feature = "store")]
fn version() -> String {
    format!("{} (policy {})", env!("CARGO_PKG_VERSION"), m1nd::COCKPIT.digest)
}

/// Built without the store, the binary enforces no policy of its own (each
/// gateway's is a directory given at start), and says what it is instead.
#[cfg(not(feature = "store"))]
fn version() -> String {
    format!("{} (the gateway alone: built without the store)", env!("CARGO_PKG_VERSION"))
}

pub fn main() -> ExitCode {
    use std::io::Write;
    survive_file_size_limits();
    let command = <Cli as clap::CommandFactory>::command().version(version());
    let cli = match command.try_get_matches().and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m)) {
        Ok(cli) => cli,
        // Help and version exit 0; usage errors exit 2.
        Err(e) => e.exit(),
    };
    let format = match cli.log_format {
        LogFormatArg::Text => m1nd::log::LogFormat::Text,
        LogFormatArg::Json => m1nd::log::LogFormat::Json,
    };
    let filter = std::env::var(m1nd::log::LOG_ENV).ok();
    if let Err(e) = m1nd::log::init(format, filter.as_deref().filter(|f| !f.trim().is_empty())) {
        let _ = writeln!(std::io::stderr(), "error: {e}");
        return ExitCode::from(2);
    }
    let outcome = match cli.command {
        #[cfg(feature = "store")]
        Command::Cockpit(args) => cockpit::run(args),
        Command::Policy(PolicyCommand::Check(args)) => policy::check(args),
        Command::Policy(PolicyCommand::Expand(args)) => policy::expand(args),
        Command::Policy(PolicyCommand::Digest(args)) => policy::digest(args),
        Command::Policy(PolicyCommand::Diff(args)) => policy::diff(args),
        #[cfg(feature = "store")]
        Command::Init(args) => init::run(args),
        #[cfg(feature = "store")]
        Command::Serve(args) => serve::run(args),
        Command::Gateway(args) => gateway::run(*args),
        Command::Policy(PolicyCommand::Import(args)) => gateway::import(args),
        #[cfg(feature = "store")]
        Command::Store(StoreCommand::Import(args)) => store::import(args),
        #[cfg(feature = "store")]
        Command::Store(StoreCommand::Check(args)) => store::check(args),
        #[cfg(feature = "store")]
        Command::Store(StoreCommand::AddChecksums(args)) => store::add_checksums(args),
        #[cfg(feature = "store")]
        Command::Store(StoreCommand::SetMaxBytes(args)) => store::set_max_bytes(args),
        #[cfg(feature = "store")]
        Command::Store(StoreCommand::Backup(args)) => store::backup(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !failure.message.is_empty() {
                let _ = writeln!(std::io::stderr(), "error: {}", failure.message);
            }
            ExitCode::from(failure.code)
        }
    }
}
