//! M001: the policy directory does not exist; a near miss is suggested.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_slot_crad");

fn main() {
    let _ = &COCKPIT;
}
