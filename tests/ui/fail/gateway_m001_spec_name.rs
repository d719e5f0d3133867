//! M001 from `gateway!`: a gateway policy declares a tool name the MCP specification does not allow.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m001_spec_name");

fn main() {
    let _ = &POLICY;
}
