//! M002: a verb takes an argument that `[arguments]` gives no type.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m002_untyped_argument");

fn main() {
    let _ = &COCKPIT;
}
