//! M019: the catalog names an effect upstream does not have.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m019_catalog");

fn main() {
    let _ = &COCKPIT;
}
