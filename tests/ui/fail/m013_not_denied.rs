//! M013: a human-only verb that the deny list does not deny.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m013_not_denied");

fn main() {
    let _ = &COCKPIT;
}
