//! M001 from `gateway!`: a gateway policy's `mode` is neither `read-only` nor `read-write`.

static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("tests/ui/policies/gateway_m001_mode");

fn main() {
    let _ = &POLICY;
}
