//! M004: an item action calls a denied verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_action");

fn main() {
    let _ = &COCKPIT;
}
