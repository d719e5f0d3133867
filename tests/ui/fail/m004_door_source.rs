//! M004: a door's source card calls a denied verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_door_source");

fn main() {
    let _ = &COCKPIT;
}
