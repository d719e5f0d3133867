//! M017 from `fleet!`: two upstreams behind one gateway serve a tool under the same name.

static FLEET: m1nd_policy::gateway::fleet::EmbeddedFleet = m1nd_macros::fleet!("tests/ui/policies/fleet_m017");

fn main() {
    let _ = &FLEET;
}
