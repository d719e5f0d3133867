//! M020: a mode allows a write without a reason, and the menu allows a floor read-only does not.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m020_modes");

fn main() {
    let _ = &COCKPIT;
}
