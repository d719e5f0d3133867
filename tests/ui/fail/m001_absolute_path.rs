//! M001: the policy path must be relative to the crate root.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("/etc/m1nd/policy");

fn main() {
    let _ = &COCKPIT;
}
