//! M002: the deny list names a verb tools.toml lacks; the nearest name is suggested.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m002_unknown_verb");

fn main() {
    let _ = &COCKPIT;
}
