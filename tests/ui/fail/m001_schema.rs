//! M001: an unknown schema.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_schema");

fn main() {
    let _ = &COCKPIT;
}
