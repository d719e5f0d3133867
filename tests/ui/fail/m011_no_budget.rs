//! M011: no budget declared.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m011_no_budget");

fn main() {
    let _ = &COCKPIT;
}
