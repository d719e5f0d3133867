//! The start check: the server's tools and its policy must name the same
//! tools, or the guard does not start.
//!
//! rmcp's own `ToolRouter::with_disabled` takes any name and says nothing
//! when it matches no tool, so a misspelled name there hides nothing. Here
//! every disagreement is an error naming the tool and `tools.toml`:
//!
//! - a tool the server has that the policy does not declare (with the
//!   closest declared name, from [`m1nd_policy::names::suggest`]), and any
//!   other tool the policy's view would hide (a look-alike, two tools that
//!   fold to one name, a name outside the MCP specification, and, when the
//!   whole definitions are given, a definition that differs from the one
//!   `tools.toml` pins);
//! - a tool the policy declares that the server lacks.
//!
//! Names are matched as the guard matches them at run time (the gateway's
//! folding: case, `-`, `_`, `.` and the `m1nd.` prefix), by building the
//! same [`View`] a read-write session would see. A tool the policy retires
//! is neither required nor reported: the policy keeps it hidden and refused.

use m1nd_policy::gateway::{Gateway, View, Why};
use m1nd_policy::guard::Guard;
use m1nd_policy::names::spec::toml_key;
use m1nd_policy::names::suggest;
use m1nd_policy::{PolicyFile, gateway::Embedded};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::Tool;
use serde_json::{Value, json};

/// Something that lists a server's tools without a running session: an
/// rmcp [`ToolRouter`] (what `#[tool_router]` builds), or the tools
/// themselves.
pub trait ListsTools {
    /// Each tool's whole definition, as the server lists it.
    fn definitions(&self) -> Vec<Value>;
}

impl<S: Send + Sync + 'static> ListsTools for ToolRouter<S> {
    fn definitions(&self) -> Vec<Value> {
        self.list_all().definitions()
    }
}

impl ListsTools for [Tool] {
    fn definitions(&self) -> Vec<Value> {
        self.iter().filter_map(|tool| serde_json::to_value(tool).ok()).collect()
    }
}

impl ListsTools for Vec<Tool> {
    fn definitions(&self) -> Vec<Value> {
        self.as_slice().definitions()
    }
}

/// One disagreement between the server's tools and its policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The server has a tool the policy does not declare.
    Undeclared { tool: String, suggestion: Option<String> },
    /// The policy declares a tool the server does not have.
    Missing { verb: String },
    /// The server has a tool the policy's view hides for another reason
    /// (the view's own words).
    Hidden { tool: String, why: String },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = PolicyFile::Tools.file_name();
        match self {
            Mismatch::Undeclared { tool, suggestion } => {
                write!(f, "the server has a tool `{tool}` that {file} does not declare")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`? Rename one of them to match"),
                    None => write!(
                        f,
                        "; declare it as `[verbs.{}]` in {file}, or remove it from the server",
                        toml_key(tool)
                    ),
                }
            }
            Mismatch::Missing { verb } => write!(
                f,
                "{file} declares `{verb}` (`[verbs.{}]`) but the server has no such tool; add it to the server, or \
                 remove or retire it in {file}",
                toml_key(verb)
            ),
            Mismatch::Hidden { tool, why } => write!(f, "the server's tool `{tool}`: {why}"),
        }
    }
}

/// Why the guard does not start: its policy and its server's tools disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsMismatch {
    /// The policy directory, as `gateway!` was given it.
    pub policy: String,
    /// Every disagreement, the server's tools first, then the policy's.
    pub mismatches: Vec<Mismatch>,
}

impl std::fmt::Display for ToolsMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = PolicyFile::Tools.file_name();
        write!(f, "the server's tools and its policy ({}/{file}) disagree:", self.policy)?;
        for mismatch in &self.mismatches {
            write!(f, "\n  - {mismatch}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolsMismatch {}

/// Why a guard could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuardError {
    /// The embedded policy no longer compiles (the build ruled this out;
    /// reported, never panicked on): the rendered diagnostics.
    Policy(String),
    /// The server's tools and the policy disagree.
    Tools(ToolsMismatch),
}

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuardError::Policy(rendered) => f.write_str(rendered),
            GuardError::Tools(mismatch) => mismatch.fmt(f),
        }
    }
}

impl std::error::Error for GuardError {}

impl From<ToolsMismatch> for GuardError {
    fn from(mismatch: ToolsMismatch) -> Self {
        GuardError::Tools(mismatch)
    }
}

/// The compiled table of `policy`.
pub(crate) fn table(policy: &'static Embedded) -> Result<&'static Gateway, GuardError> {
    policy.gateway().map_err(|rendered| GuardError::Policy(rendered.to_owned()))
}

/// Check `tools` (a [`ToolRouter`], or the tools themselves) against
/// `policy`: an error naming every tool the server has that the policy does
/// not declare, and every tool the policy declares that the server lacks.
/// Pinned definitions are checked too. Meant for a unit test beside the
/// server; [`crate::Guarded::new`] runs the same check at start.
pub fn check_tools(policy: &'static Embedded, tools: &(impl ListsTools + ?Sized)) -> Result<(), GuardError> {
    let gateway = table(policy)?;
    mismatches(policy, gateway, &tools.definitions(), true).map_err(GuardError::Tools)
}

/// [`check_tools`] by names alone (no definition is compared with a pin).
pub fn check_tool_names<N: AsRef<str>>(
    policy: &'static Embedded,
    names: impl IntoIterator<Item = N>,
) -> Result<(), GuardError> {
    let gateway = table(policy)?;
    let listed: Vec<Value> = names.into_iter().map(|n| json!({ "name": n.as_ref() })).collect();
    mismatches(policy, gateway, &listed, false).map_err(GuardError::Tools)
}

/// Every disagreement between `listed` and `gateway`. With `whole` false the
/// definitions are names only, so a pinned definition is not compared.
pub(crate) fn mismatches(
    policy: &Embedded,
    gateway: &Gateway,
    listed: &[Value],
    whole: bool,
) -> Result<(), ToolsMismatch> {
    // A read-write view: a tool the deny list hides from read-only sessions must still be there.
    let view = View::new(gateway, &Guard::for_gateway(gateway, false), listed);
    let declared = || gateway.policy.verbs.iter().filter(|v| !v.retired).map(|v| &*v.name);
    let mut found = Vec::new();
    for hidden in view.hidden() {
        let tool = hidden.upstream.clone();
        let mismatch = match &hidden.why {
            Why::Undeclared => {
                let suggestion = suggest(&tool, declared()).map(str::to_owned);
                Mismatch::Undeclared { tool, suggestion }
            }
            Why::Retired { .. } => continue,
            Why::Changed { .. } if !whole => continue,
            _ => Mismatch::Hidden { tool, why: hidden.to_string() },
        };
        found.push(mismatch);
    }
    for verb in declared() {
        let offered = view.offered().iter().any(|o| o.verb == verb);
        let hidden = view.why_hidden(verb).is_some();
        if !offered && !hidden {
            found.push(Mismatch::Missing { verb: verb.to_owned() });
        }
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(ToolsMismatch { policy: policy.display().to_owned(), mismatches: found })
    }
}
