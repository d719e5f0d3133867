//! M001: deeply nested arrays are refused, not recursed into.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_deep_nesting");

fn main() {
    let _ = &COCKPIT;
}
