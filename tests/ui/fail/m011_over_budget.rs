//! M011: the worst case, measured at compile time, exceeds the budget.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m011_over_budget");

fn main() {
    let _ = &COCKPIT;
}
