//! M013: a slot's card calls a human-only verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m013_menu_reaches");

fn main() {
    let _ = &COCKPIT;
}
