//! M003: two slots share a number, and two share a key.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m003_duplicate_slot");

fn main() {
    let _ = &COCKPIT;
}
