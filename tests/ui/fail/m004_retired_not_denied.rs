//! M004: a retired verb is unreachable from the menu even if the deny list forgot it.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_retired_not_denied");

fn main() {
    let _ = &COCKPIT;
}
