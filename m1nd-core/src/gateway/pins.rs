//! Argument pins at call time: the status-only rule, generalised.
//!
//! Every pin of the verb is checked, in every session, before the call is
//! forwarded. A pin fails closed: a missing argument, a value of the wrong
//! JSON type, or one that matches nothing is refused. A path pin rewrites the
//! argument to the canonical path it checked (see [`super::paths`]).

use serde_json::{Map, Value};

use super::paths::{PathProblem, confine};
use crate::gateway_table::{GatewayTool, Pin, PinRule};
use crate::guard::printable;

/// Why a pinned argument was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PinRefused {
    Missing { argument: String },
    WrongType { argument: String, expected: &'static str },
    NotAllowed { argument: String, allowed: Vec<String>, got: String },
    Outside { argument: String, under: Vec<String>, got: String, problem: Box<PathProblem> },
}

impl std::fmt::Display for PinRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PinRefused::Missing { argument } => write!(f, "`{argument}` is pinned and was not sent; send it"),
            PinRefused::WrongType { argument, expected } => write!(f, "`{argument}` is pinned and must be {expected}"),
            PinRefused::NotAllowed { argument, allowed, got } => {
                write!(f, "`{argument}` is pinned to {}, got `{got}`; send one of those", list(allowed))
            }
            PinRefused::Outside { argument, under, got, problem } => {
                write!(f, "`{argument}` must lie in {}; `{got}` is refused: {problem}", list(under))
            }
        }
    }
}

impl PinRefused {
    /// The pinned argument, as the policy names it.
    pub fn argument(&self) -> &str {
        match self {
            PinRefused::Missing { argument }
            | PinRefused::WrongType { argument, .. }
            | PinRefused::NotAllowed { argument, .. }
            | PinRefused::Outside { argument, .. } => argument,
        }
    }
}

/// Check every pin of `tool` against `args`, rewriting path arguments to
/// their canonical form.
pub fn enforce(tool: &GatewayTool, args: &mut Map<String, Value>) -> Result<(), PinRefused> {
    for pin in tool.pins.iter() {
        let value =
            args.get(&*pin.argument).ok_or_else(|| PinRefused::Missing { argument: pin.argument.to_string() })?;
        let checked = check(pin, value)?;
        args.insert(pin.argument.to_string(), checked);
    }
    Ok(())
}

fn check(pin: &Pin, value: &Value) -> Result<Value, PinRefused> {
    let argument = || pin.argument.to_string();
    match &pin.rule {
        PinRule::Allowed(allowed) => {
            let text =
                value.as_str().ok_or_else(|| PinRefused::WrongType { argument: argument(), expected: "a string" })?;
            if allowed.iter().any(|a| a == text) {
                Ok(value.clone())
            } else {
                Err(PinRefused::NotAllowed {
                    argument: argument(),
                    allowed: allowed.iter().map(|a| a.to_string()).collect(),
                    got: printable(text),
                })
            }
        }
        PinRule::Under { dirs, hard_links } => {
            let one = |text: &str| {
                confine(text, dirs, *hard_links).map(Value::from).map_err(|problem| PinRefused::Outside {
                    argument: argument(),
                    under: dirs.iter().map(|d| d.to_string()).collect(),
                    got: printable(text),
                    problem: Box::new(problem),
                })
            };
            let wrong = || PinRefused::WrongType { argument: argument(), expected: "a path or an array of paths" };
            match value {
                Value::String(text) => one(text),
                Value::Array(items) if !items.is_empty() => {
                    items.iter().map(|item| item.as_str().ok_or_else(wrong).and_then(one)).collect()
                }
                _ => Err(wrong()),
            }
        }
    }
}

fn list(items: &[String]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}
