//! M001: bytes that are not UTF-8.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_not_utf8");

fn main() {
    let _ = &COCKPIT;
}
