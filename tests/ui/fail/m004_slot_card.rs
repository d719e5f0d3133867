//! M004: a slot's card calls a denied verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_slot_card");

fn main() {
    let _ = &COCKPIT;
}
