//! The upstream on the command line: a command after `--`, or `--upstream
//! URL` with the flags that say how to trust it and how to sign in to it.
//!
//! # The invariant
//!
//! The credential flags name where a secret is (a variable, a file), never
//! the secret itself, so it is not on the command line for `ps` to show,
//! not in a shell history, and not in `--help`.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;
use m1nd::gateway::{HttpSecrets, Upstream};

use crate::cli::Failure;

/// How to reach an upstream over HTTPS: shared by `gateway` and `policy import`.
#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// Also trust the certificate authorities in FILE (PEM) for the upstream's certificate, besides
    /// the machine's own roots.
    #[arg(long, value_name = "FILE", requires = "upstream", conflicts_with = "command")]
    upstream_ca: Option<PathBuf>,
    /// Send `Authorization: Bearer <token>` to the upstream, the token read from the environment
    /// variable NAME (never logged, never sent anywhere else).
    #[arg(long, value_name = "NAME", requires = "upstream", conflicts_with_all = ["command", "upstream_bearer_file"])]
    upstream_bearer_env: Option<OsString>,
    /// As --upstream-bearer-env, the token read from FILE (one line).
    #[arg(long, value_name = "FILE", requires = "upstream", conflicts_with = "command")]
    upstream_bearer_file: Option<PathBuf>,
    /// Send the header HEADER to the upstream, its value read from the environment variable NAME
    /// (an API key, say; repeatable).
    #[arg(long, value_name = "HEADER=NAME", requires = "upstream", conflicts_with = "command")]
    upstream_header_env: Vec<String>,
}

/// What of the gateway's environment a started upstream sees: shared by
/// `gateway` and `policy import`.
#[derive(Debug, Args)]
pub struct ChildArgs {
    /// Pass the environment variable NAME to the upstream started after `--` (repeatable). It
    /// gets only HOME, LOGNAME, PATH, SHELL, TERM and USER besides, never the gateway's own
    /// variables; a NAME that is not set is refused.
    #[arg(long, value_name = "NAME", conflicts_with = "upstream")]
    upstream_env: Vec<OsString>,
}

/// The upstream: a URL (with its CA file and credentials), or the command after `--`.
pub fn upstream(
    url: Option<String>,
    command: Vec<OsString>,
    remote: RemoteArgs,
    child: ChildArgs,
) -> Result<Upstream, Failure> {
    let Some(url) = url else {
        let mut parts = command.into_iter();
        let program = parts.next().ok_or_else(|| Failure::usage("name the upstream server after `--`"))?;
        return Ok(Upstream::new(program, parts).with_env(child.upstream_env));
    };
    let secrets = HttpSecrets {
        ca_file: remote.upstream_ca,
        bearer_env: remote.upstream_bearer_env,
        bearer_file: remote.upstream_bearer_file,
        header_env: remote.upstream_header_env,
    };
    Upstream::http_with(url, secrets).map_err(|e| Failure::usage(e.to_string()))
}
