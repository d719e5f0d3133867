//! M004: a Cyrillic look-alike of a denied verb on a menu card.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m004_lookalike");

fn main() {
    let _ = &COCKPIT;
}
