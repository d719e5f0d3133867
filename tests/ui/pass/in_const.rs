//! `cockpit!` as the value of a `const`, and inside a `const` item's block.

const COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");

fn main() {
    const INNER: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");
    assert_eq!(COCKPIT, INNER);
    assert_eq!(COCKPIT.digest, m1nd_policy::policy::digest(&COCKPIT));
    assert!(COCKPIT.budget.root_tokens > 0);
}
