//! What can keep the gateway from serving, as types. A refused *call* is not
//! here: that is [`m1nd_policy::gateway::GatewayRefused`], answered to the
//! client as a tool error while the session goes on.

use std::path::PathBuf;

/// Why the gateway, or `policy import`, could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The policy breaks laws; each violation is rendered as the compiler renders it.
    #[error("the policy breaks {} law{}", .0.len(), if .0.len() == 1 { "" } else { "s" })]
    Policy(Vec<String>),
    #[error("cannot start the upstream `{upstream}`: {source}")]
    Spawn { upstream: String, source: std::io::Error },
    /// A variable the upstream is to be passed is not set (see `child_env.rs`).
    #[error("cannot start the upstream `{upstream}`: {source}")]
    Environment { upstream: String, source: super::child_env::UnsetVariable },
    #[error("the upstream `{upstream}` did not complete the MCP handshake: {message}")]
    Handshake { upstream: String, message: String },
    #[error("the upstream `{upstream}` did not answer `initialize` within {secs} s")]
    HandshakeTimeout { upstream: String, secs: u64 },
    /// This build has no HTTP client (the `http-upstream` feature is off).
    #[error(
        "cannot reach `{upstream}`: this m1nd was built without the `http-upstream` feature; build one with it \
         (it is on by default), or start the upstream as a command after `--`"
    )]
    NoHttpClient { upstream: String },
    /// The HTTP upstream's TLS or client setup (CA file, a refused certificate, cleartext credential).
    #[error(transparent)]
    Https(#[from] super::https::HttpsError),
    /// The upstream credential could not be read; the error never holds its value.
    #[error(transparent)]
    Credential(#[from] super::credential::CredentialError),
    /// A listing failed: the method (`tools/list`, `prompts/list`, ...) and why.
    #[error("the upstream's {0}")]
    List(String),
    #[error("the upstream did not answer its listings within {secs} s")]
    ListTimeout { secs: u64 },
    /// A listing past the bounds of `upstream::LIST_BOUNDS`: an
    /// upstream that pages forever, or lists more tools than any policy
    /// reviews, would otherwise hold the gateway's memory and its re-lists.
    #[error(
        "the upstream's tools/list went past {what} ({limit}); nothing from this listing is served: the upstream \
         pages without end or lists more tools than a gateway policy can review; report it to its maintainers"
    )]
    ListTooLong { what: &'static str, limit: usize },
    #[error("the upstream's tools could not be listed; nothing to serve")]
    NothingToServe,
    /// One upstream of a fleet could not start; the fleet does not start without it.
    #[error(
        "upstream `{upstream}` of the fleet: {source}; the fleet does not start without every upstream it names          (fix it, or remove it from fleet.toml)"
    )]
    Member { upstream: String, source: Box<GatewayError> },
    /// A fleet needs one endpoint per member, in `fleet.toml` order.
    #[error(
        "the fleet has {members} upstreams and {upstreams} endpoints were given: give one per upstream, in fleet.toml order"
    )]
    FleetEndpoints { members: usize, upstreams: usize },
    #[error("the downstream MCP session did not start: {0}")]
    DownstreamStart(String),
    #[error("the downstream session ended abnormally: {0}")]
    DownstreamEnded(String),
    #[error("cannot {op} {}: {source}", .path.display())]
    Io { op: &'static str, path: PathBuf, source: std::io::Error },
    /// `policy import` takes every tool or writes nothing: these names cannot be declared.
    #[error(
        "the upstream lists {} tool name{} a gateway policy cannot declare; nothing was written:\n{}",
        .0.len(),
        if .0.len() == 1 { "" } else { "s" },
        .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
    )]
    Names(Vec<super::name_problem::NameProblem>),
    /// `policy import` never replaces a reviewed policy.
    #[error(
        "{} exists; a reviewed policy is never overwritten: compare with `{}`",
        .0.display(),
        crate::invocation::m1nd("policy import --update")
    )]
    WouldOverwrite(PathBuf),
    /// `policy import --update` needs a policy to compare.
    #[error(
        "{} holds no tools.toml, so there is no reviewed policy to update; import one with `{}`",
        .0.display(),
        crate::invocation::m1nd("policy import --policy DIR -- CMD")
    )]
    NoPolicy(PathBuf),
    /// The stored definitions cannot be used (see `reviewed.rs`).
    #[error(transparent)]
    Reviewed(#[from] super::reviewed::ReviewedError),
    /// `--update` could not start or list the upstream: nothing was compared.
    #[error(
        "cannot compare {} with its upstream: {source}\nNothing was compared and nothing was changed. `--update` \
         starts the upstream as `policy import` did: give its command after `--` (or its URL with `--upstream`). \
         If the upstream is gone for good, the gateway cannot serve this policy either.",
        .dir.display()
    )]
    UpstreamUnreachable { dir: PathBuf, source: Box<GatewayError> },
    /// `--apply` checked the edited policy and refused to write it.
    #[error("nothing was written to {}: {problem}", .dir.display())]
    NotApplied { dir: PathBuf, problem: NotApplied },
}

/// Why `--apply` writes nothing: the edit cannot be made, or the edited
/// policy would not be one the reviewer could accept.
#[derive(Debug, thiserror::Error)]
pub enum NotApplied {
    #[error("tools.toml does not parse: {0}")]
    Parse(#[from] toml_edit::TomlError),
    /// A pin the plan moves whose entry has no `definition` (the key shown printable).
    #[error("tools.toml has no `definition` for `{key}` under `[{table}]`")]
    NoPin { table: String, key: String },
    /// Each violation, rendered as `policy check` renders it.
    #[error("the edited policy would break the laws:\n\n{}", .0.join("\n\n"))]
    Laws(Vec<String>),
    #[error("the edit would loosen the policy: {subject}: {detail}")]
    Loosens { subject: String, detail: String },
}
