//! M007: upstream's "plan a risky change" card calls `validate_plan` with `plan`; its schema requires `actions`.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m1nd_1_6_5_validate_plan");

fn main() {
    let _ = &COCKPIT;
}
