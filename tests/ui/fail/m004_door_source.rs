//! M004: a door's source card calls a denied verb.

static COCKPIT: m1nd_core::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_door_source");

fn main() {
    let _ = &COCKPIT;
}
