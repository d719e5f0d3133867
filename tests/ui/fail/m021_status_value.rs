//! M021: a status-only rule lets through a value whose route writes.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m021_status_value");

fn main() {
    let _ = &COCKPIT;
}
