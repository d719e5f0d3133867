//! M016 from `gateway!`: two names a gateway policy declares fold to the same name.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m016");

fn main() {
    let _ = &POLICY;
}
