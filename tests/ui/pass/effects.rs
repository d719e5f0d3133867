//! A policy judged by its effects (catalog, routes and modes) compiles, and
//! the deny list it carries is the one its effects call for.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/effects_base");

fn main() {
    assert!(COCKPIT.deny.denies("audit"), "audit re-ingests: beyond read-only mode");
    assert!(!COCKPIT.deny.denies("doctor"));
}
