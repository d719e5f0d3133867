//! M014 from `gateway!`: a gateway policy's pin names an argument its tool does not take.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m014");

fn main() {
    let _ = &POLICY;
}
