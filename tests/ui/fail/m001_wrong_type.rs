//! M001: a value of the wrong type.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_wrong_type");

fn main() {
    let _ = &COCKPIT;
}
