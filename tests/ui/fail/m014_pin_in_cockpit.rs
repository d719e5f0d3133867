//! M014: an argument pin in a cockpit policy, where m1nd's own server would not enforce it.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m014_pin_in_cockpit");

fn main() {
    let _ = &COCKPIT;
}
