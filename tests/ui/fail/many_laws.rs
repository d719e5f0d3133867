//! Every violation is reported at once, in file order: M002, M004, M009, M012.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/many_laws");

fn main() {
    let _ = &COCKPIT;
}
