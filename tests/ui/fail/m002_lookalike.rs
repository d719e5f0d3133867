//! M002: a Cyrillic look-alike on the deny list never matches the verb it imitates.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m002_lookalike");

fn main() {
    let _ = &COCKPIT;
}
