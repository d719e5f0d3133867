//! `cockpit!` as the value of a `static`, the form the server uses, here
//! also inside a function body.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");

fn main() {
    static INNER: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");
    assert_eq!(COCKPIT, INNER);
    assert_eq!(COCKPIT.digest, m1nd_policy::policy::digest(&COCKPIT));
}
