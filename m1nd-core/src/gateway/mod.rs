//! The gateway: m1nd's compiled guard in front of any MCP server.
//!
//! A call from a downstream session goes through, in order, before anything
//! is forwarded to the upstream:
//!
//! 1. the [`Guard`] every m1nd transport uses (names normalised as for m1nd;
//!    unknown names, look-alikes and retired verbs refused in every session;
//!    denied and out-of-status calls in read-only ones);
//! 2. the [`View`]: the verb must be offered by the upstream right now, with
//!    its reviewed definition (a changed one is hidden and refused, and the
//!    refusal says so);
//! 3. the arguments: only those the policy declares for the verb, and every
//!    one it `requires` (present and not `null`, as `m1nd serve` checks);
//! 4. the [`pins`]: every pinned argument present, of the right type, and
//!    allowed (paths canonicalised and confined).
//!
//! The result is the upstream's name and the arguments to forward. A refused
//! call never reaches the upstream (`tests/gateway/test_tap.py` proves it
//! with an upstream that records every call it gets).

pub mod annotations;
mod definition;
pub(crate) mod embedded;
pub mod fleet;
pub mod paths;
pub mod pins;
pub mod surfaces;
/// URI templates: the compiler checks them as the view matches them, so they live below both.
pub use crate::uri_template;
mod view;

pub use crate::gateway_table::{Gateway, GatewayTool, Pin, PinRule, Surface, Surfaces};
pub use definition::digest;
pub use embedded::Embedded;
pub use view::{DEFINITIONS_ENCODING, Hidden, Offered, View, Why, definitions_digest};

use serde_json::{Map, Value};

use crate::guard::{Guard, Refused, printable};
use crate::names::spec::toml_key;
use crate::names::suggest;
use crate::policy::PolicyFile;
use pins::PinRefused;

/// Why the gateway did not forward a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatewayRefused {
    /// The guard refused the name or, read-only, the verb.
    Guard(Refused),
    /// The upstream offers it, but the policy's view hides it.
    Hidden(Hidden),
    /// The policy declares it; the upstream does not offer it now.
    NotOffered { verb: String },
    /// An argument the policy does not declare for the verb.
    UndeclaredArgument { verb: String, argument: String, suggestion: Option<String> },
    /// An argument the policy `requires` for the verb, absent or `null`.
    MissingArgument { verb: String, argument: String },
    /// A pinned argument that is missing, mistyped or not allowed.
    Pin { verb: String, refused: PinRefused },
}

impl std::fmt::Display for GatewayRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GatewayRefused::Guard(refused) => refused.fmt(f),
            GatewayRefused::Hidden(hidden) => hidden.fmt(f),
            GatewayRefused::NotOffered { verb } => {
                write!(f, "`{verb}` is declared in tools.toml but the upstream does not offer it")
            }
            GatewayRefused::UndeclaredArgument { verb, argument, suggestion: Some(s) } => {
                write!(f, "`{verb}` takes no argument `{argument}` in tools.toml; did you mean `{s}`?")
            }
            GatewayRefused::UndeclaredArgument { verb, argument, suggestion: None } => {
                write!(f, "`{verb}` takes no argument `{argument}` in tools.toml")
            }
            GatewayRefused::MissingArgument { verb, argument } => write!(
                f,
                "`{verb}` needs the argument `{argument}`: {} lists it in `requires`; send it (nothing was \
                 forwarded to the upstream)",
                entry(verb, "")
            ),
            GatewayRefused::Pin { verb, refused } => {
                write!(f, "`{verb}` refused: {refused} (the pin: `{}` in {})", refused.argument(), entry(verb, ".pins"))
            }
        }
    }
}

/// Where the user's policy declares `verb` (or its `sub` table, such as
/// `.pins`): the table in tools.toml, its key quoted when TOML needs it (a
/// dotted or spaced upstream name).
fn entry(verb: &str, sub: &str) -> String {
    format!("`[verbs.{}{sub}]` of {}", toml_key(verb), PolicyFile::Tools.file_name())
}

/// A call the gateway lets through: whom to ask, with what.
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    /// The policy's name for the tool.
    pub verb: String,
    /// The upstream's own name.
    pub upstream: String,
    /// The arguments, with pinned paths canonicalised.
    pub arguments: Map<String, Value>,
}

/// Check one `tools/call` against the policy and the current view.
pub fn check(
    gateway: &Gateway,
    guard: &Guard<'_>,
    view: &View,
    name: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<Forward, GatewayRefused> {
    let (id, verb) = match guard.check(name, arguments) {
        Ok(resolved) => (resolved.id, resolved.verb),
        Err(refused @ (Refused::Unknown { .. } | Refused::LookAlike { .. })) => {
            return Err(view.why_hidden(name).cloned().map_or(GatewayRefused::Guard(refused), GatewayRefused::Hidden));
        }
        Err(refused) => return Err(GatewayRefused::Guard(refused)),
    };
    let verb_name = verb.name.to_string();
    let Some(offered) = view.find(id) else {
        return Err(view
            .why_hidden(&verb.name)
            .cloned()
            .map_or(GatewayRefused::NotOffered { verb: verb_name }, GatewayRefused::Hidden));
    };
    let mut forwarded = arguments.cloned().unwrap_or_default();
    let declared = || verb.requires.iter().chain(verb.accepts.iter()).map(|a| &**a);
    if let Some(argument) = forwarded.keys().find(|k| !declared().any(|d| d == k.as_str())) {
        return Err(GatewayRefused::UndeclaredArgument {
            verb: verb_name,
            argument: printable(argument),
            suggestion: suggest(argument, declared()).map(str::to_owned),
        });
    }
    if let Some(argument) = verb.requires.iter().find(|r| forwarded.get(&***r).is_none_or(Value::is_null)) {
        return Err(GatewayRefused::MissingArgument { verb: verb_name, argument: argument.to_string() });
    }
    if let Some(tool) = gateway.tool_at(id) {
        pins::enforce(tool, &mut forwarded)
            .map_err(|refused| GatewayRefused::Pin { verb: verb_name.clone(), refused })?;
    }
    Ok(Forward { verb: verb_name, upstream: offered.upstream.clone(), arguments: forwarded })
}
