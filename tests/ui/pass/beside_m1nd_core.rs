//! A policy compiles in a workspace that also holds a crate called
//! `m1nd-core` (upstream m1nd's graph engine has that name on crates.io) with
//! items named like the runtime's: the expansion names only `m1nd-policy`.

use m1nd_core::Cockpit;
use m1nd_core::gateway::Embedded;

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");
static GATEWAY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/gateway/policies/git");

fn main() {
    let engine = Cockpit { nodes: 3 };
    let _unrelated = Embedded;
    assert_eq!(engine.nodes, 3);
    assert_eq!(COCKPIT.digest.len(), 64);
    assert!(COCKPIT.verb("cockpit").is_some());
    assert!(GATEWAY.gateway().is_ok());
}
