//! M004: a retired verb (still on the deny list) is reachable.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_retired");

fn main() {
    let _ = &COCKPIT;
}
