//! A gateway policy from text, for the gateway's integration tests, and its
//! violations rendered as `policy check` shows them.

#![allow(dead_code)]

use m1nd_policy::{Diagnostic, PolicyFile, PolicySources};

/// The sources of a gateway policy: `tools.toml` and `read_only_denied.toml`.
pub fn sources(tools: &str, deny: &str) -> PolicySources {
    let (tools, deny) = (tools.to_owned(), deny.to_owned());
    PolicySources::from_bytes("gw", move |f| match f {
        PolicyFile::Tools => Some(Box::leak(tools.clone().into_boxed_str()).as_bytes()),
        PolicyFile::Deny => Some(Box::leak(deny.clone().into_boxed_str()).as_bytes()),
        _ => None,
    })
}

/// Every violation, rendered with its source line.
pub fn rendered(problems: &[Diagnostic], s: &PolicySources) -> String {
    problems.iter().map(|d| d.render(s)).collect::<Vec<_>>().join("\n")
}
