//! M001: an argument declared with a type the server does not know.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_argument_type");

fn main() {
    let _ = &COCKPIT;
}
