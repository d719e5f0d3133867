//! M004: aliases and case variants resolve to the denied verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_alias_and_case");

fn main() {
    let _ = &COCKPIT;
}
