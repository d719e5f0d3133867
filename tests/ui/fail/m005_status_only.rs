//! M005: a status-only verb on the menu with its argument not pinned to status.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m005_status_only");

fn main() {
    let _ = &COCKPIT;
}
