//! M007: a card fixes an argument to a value its declared type does not admit.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m007_fixed_argument_type");

fn main() {
    let _ = &COCKPIT;
}
