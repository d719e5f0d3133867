//! M003: two cards share an id.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m003_duplicate_card");

fn main() {
    let _ = &COCKPIT;
}
