//! M018 from `gateway!`: a summary, served as a tool's description, hides characters no reader sees.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m018");

fn main() {
    let _ = &POLICY;
}
