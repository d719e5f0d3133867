//! M009: slot 0 is reserved, and the pinned trio holds slots 1-3.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m009_slots");

fn main() {
    let _ = &COCKPIT;
}
