//! M007: a card fixes values their types refuse: an enum value outside the enum, an integer written as a string, text for a boolean.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m007_typed_values");

fn main() {
    let _ = &COCKPIT;
}
