//! M012: an empty negative_default.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m012_empty");

fn main() {
    let _ = &COCKPIT;
}
