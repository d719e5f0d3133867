//! M022: the audit help card (a full re-ingest) and a door source whose action the menu does not allow.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m022_menu");

fn main() {
    let _ = &COCKPIT;
}
