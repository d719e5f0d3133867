//! M014 from `gateway!`: `hard_links` on a value pin (`allowed`), where it would look set and do nothing.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m014_hard_links");

fn main() {
    let _ = &POLICY;
}
